// Staging files in the (locked) journal directory, and the rename that publishes a finished one
// over the output (study/ only; not installed).
#pragma once

#include <string>

namespace simpact::detail {

// A new, exclusively created, empty staging file in the (locked) journal directory.
std::string new_staging_file(const std::string& journal, const std::string& what);

// Renames a finished staging file over the output (a regular file or nothing: checked again here,
// so nothing else planted in the meantime is replaced), its bytes fsynced first.
void replace_output(const std::string& staging, const std::string& path);

// Removes what a killed run of ours left in the (locked) journal directory besides its work:
// staging files and a half-written manifest.
void remove_stale_staging(const std::string& journal);

}  // namespace simpact::detail
