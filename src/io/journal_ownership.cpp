// Which files of a journal directory simpact wrote (by name), and whether an existing
// directory is a simpact journal at all: one simpact did not create is never touched.
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "simpact/io/chunk_journal.hpp"
#include "simpact/io/safe_file.hpp"

namespace simpact {

namespace fs = std::filesystem;

namespace {

bool starts_ends(const std::string& name, const std::string& prefix, const std::string& suffix) {
  return name.size() > prefix.size() + suffix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

bool is_journal_record_name(const std::string& name) {
  return starts_ends(name, "rank-", ".bin");
}

bool is_journal_file_name(const std::string& name) {
  return name == "lock" || name == "manifest" || name == "manifest.tmp" || name == "provenance.tsv" ||
         starts_ends(name, "staging-", ".h5") || is_journal_record_name(name);
}

std::string check_journal_ownership(const std::string& directory) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(directory, ec))) return "";  // absent (or refused elsewhere)
  bool evidence = false;  // a manifest or a record file: simpact started a run here
  std::vector<std::string> foreign;
  std::string planted;  // a name simpact writes or reads whole, held by a link or a non-file
  for (const auto& e : fs::directory_iterator(directory, ec)) {
    const std::string name = e.path().filename().string();
    if (name == "manifest" || is_journal_record_name(name))
      evidence = true;
    else if (!is_journal_file_name(name))
      foreign.push_back(name);
    if ((name == "lock" || name == "manifest" || name == "provenance.tsv") && planted.empty()) {
      struct stat st {};
      if (::lstat(e.path().c_str(), &st) == 0 && (!S_ISREG(st.st_mode) || st.st_nlink != 1))
        planted = fmt::format("'{}' is {}", e.path().string(),
                              S_ISREG(st.st_mode) ? fmt::format("a hard link ({} names)", st.st_nlink)
                                                  : std::string(path_kind_name(path_kind(e.path()))));
    }
  }
  if (ec)
    return fmt::format("'{}': cannot read the journal directory: {}: refusing to use it", directory,
                       ec.message());
  if (!planted.empty())
    return fmt::format("{}, not a file simpact wrote: refusing to use the journal '{}'", planted, directory);
  if (evidence || foreign.empty()) return "";
  std::sort(foreign.begin(), foreign.end());
  return fmt::format(
      "'{}' is not a simpact journal (no manifest, no records; it holds '{}'{}): refusing to touch it; "
      "move it away or choose another -o",
      directory, foreign.front(), foreign.size() > 1 ? fmt::format(" and {} more", foreign.size() - 1) : "");
}

}  // namespace simpact
