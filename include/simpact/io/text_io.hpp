// Text in and out for the JSON commands: a whole input file (or standard input), and an output
// written through a temporary file renamed into place (or standard output).
#pragma once

#include <string>

namespace simpact {

// The whole file at `path`, or standard input for "-" or "". Throws IoError naming the file.
std::string read_text_input(const std::string& path);
// Writes `text` to `path` via a temporary file renamed into place, so an error never leaves a
// partial file; "-" or "" writes to standard output. Throws IoError naming the file.
// Missing folders of the output are created (as `run -o` does).
void write_text_output(const std::string& path, const std::string& text);
// Creates the missing folders above `target` (an output file); IoError naming `given` if it cannot.
void create_parent_directories(const std::string& target, const std::string& given);

}  // namespace simpact
