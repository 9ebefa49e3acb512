// Which files of a journal directory simpact wrote (by name), and whether an existing directory
// is a simpact journal at all: recognized by what simpact wrote into it (a manifest that parses,
// or a record that starts with the record magic), never by the names of its files, so that a
// folder simpact did not create is never touched even when its files are named like ours.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
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

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// The first `n` bytes of a regular file with one link (never through a link, never blocking on a
// FIFO); false when it is anything else or cannot be read.
bool read_head(const std::string& path, std::size_t n, std::string& head) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
    ::close(fd);
    return false;
  }
  head.assign(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, head.data() + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  ::close(fd);
  head.resize(got);
  return true;
}

// A journal record file holding simpact's records (any journal version): "SIMPJRN" first.
bool is_record_file(const std::string& path) {
  std::string head;
  return read_head(path, 7, head) && head == "SIMPJRN";
}

// staging-<what>-<pid>-<serial>.h5, as new_staging_file names them.
bool is_staging_name(const std::string& name) {
  if (!starts_ends(name, "staging-", ".h5")) return false;
  const std::string middle = name.substr(8, name.size() - 11);
  const auto first = middle.find('-'), last = middle.rfind('-');
  if (first == std::string::npos || first == last || first == 0) return false;
  const std::string what = middle.substr(0, first);
  return std::all_of(what.begin(), what.end(), [](unsigned char c) { return std::islower(c) != 0; }) &&
         all_digits(middle.substr(first + 1, last - first - 1)) && all_digits(middle.substr(last + 1));
}

// What a run or merge of ours leaves in a journal directory before (or without) a manifest, each
// recognized by its content: the lock ("host H pid P", or empty if killed before writing it), a
// manifest.tmp being written ("journal_version ..."), a staging file (an HDF5 file, or empty), an
// empty record file (created, nothing appended).
bool is_leftover_of_ours(const std::string& name, const std::string& path) {
  std::string head;
  if (name == "lock") {
    if (!read_head(path, 4096, head)) return false;
    if (head.empty()) return true;
    if (head.back() == '\n') head.pop_back();
    const auto pid = head.rfind(" pid ");
    return starts_with(head, "host ") && pid != std::string::npos && pid >= 5 && head.find(' ', 5) == pid &&
           all_digits(head.substr(pid + 5));
  }
  if (name == "manifest.tmp")
    return read_head(path, 16, head) && (head.empty() || starts_with(head, "journal_version "));
  if (is_staging_name(name))
    return read_head(path, 8, head) && (head.empty() || head == std::string("\x89HDF\r\n\x1a\n", 8));
  if (is_journal_record_name(name)) return read_head(path, 1, head) && head.empty();
  return false;
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
  bool records = false;                                                 // a file of simpact's journal records
  bool has_manifest = false;          // a file named manifest (ours only if it parses)
  std::vector<std::string> not_ours;  // what simpact did not write (or not recognizably)
  std::string planted;                // a name simpact writes or reads whole, held by a link or a non-file
  for (const auto& e : fs::directory_iterator(directory, ec)) {
    const std::string name = e.path().filename().string();
    const std::string path = e.path().string();
    if (name == "manifest")
      has_manifest = true;
    else if (is_journal_record_name(name) && is_record_file(path))
      records = true;
    else if (!is_leftover_of_ours(name, path))
      not_ours.push_back(name);
    if ((name == "lock" || name == "manifest" || name == "provenance.tsv") && planted.empty()) {
      struct stat st {};
      if (::lstat(path.c_str(), &st) == 0 && (!S_ISREG(st.st_mode) || st.st_nlink != 1))
        planted = fmt::format("'{}' is {}", path,
                              S_ISREG(st.st_mode) ? fmt::format("a hard link ({} names)", st.st_nlink)
                                                  : std::string(path_kind_name(path_kind(path))));
    }
  }
  if (ec)
    return fmt::format("'{}': cannot read the journal directory: {}: refusing to use it", directory,
                       ec.message());
  if (!planted.empty())
    return fmt::format("{}, not a file simpact wrote: refusing to use the journal '{}'", planted, directory);
  // A manifest simpact can parse (this version's or an older one's) makes it a journal.
  std::string why;
  if (has_manifest) {
    JournalManifest manifest;
    const ManifestStatus status = read_journal_manifest(directory, manifest, &why);
    if (status == ManifestStatus::kOk || status == ManifestStatus::kOldVersion) return "";
  }
  // So do records of ours (a journal whose manifest was lost or damaged: --resume reports the
  // work it holds, --overwrite discards it), and a directory holding nothing but what a run or a
  // merge of ours leaves before it writes a manifest.
  if (records || (!has_manifest && not_ours.empty())) return "";
  if (has_manifest) not_ours.push_back("manifest");
  std::sort(not_ours.begin(), not_ours.end());
  return fmt::format(
      "'{}' is not a simpact journal ({}; it holds '{}'{}): refusing to touch it; move it away or choose "
      "another -o",
      directory, has_manifest ? why : std::string("no manifest, no records"), not_ours.front(),
      not_ours.size() > 1 ? fmt::format(" and {} more", not_ours.size() - 1) : "");
}

}  // namespace simpact
