#include "simpact/io/text_io.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "simpact/io/io_error.hpp"
#include "simpact/io/safe_file.hpp"

namespace simpact {

namespace {

// Writes all of `text` to `fd` (retrying interrupted and short writes): 0, or the errno.
int write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return errno;
    done += static_cast<std::size_t>(w);
  }
  return 0;
}

}  // namespace

std::string read_text_input(const std::string& path) {
  return read_capped_input(path, kMaxJsonBytes, "input", true);
}

void create_parent_directories(const std::string& target, const std::string& given) {
  const std::filesystem::path parent = std::filesystem::path(target).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec || !std::filesystem::is_directory(parent))
    throw IoError(fmt::format("cannot write '{}': output directory '{}': {}", given, parent.string(),
                              ec ? ec.message() : "exists and is not a directory"));
}

void write_text_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw IoError("cannot write standard output");
    return;
  }
  // A symlink is resolved: the file it points to is the output (a dangling one is refused).
  std::string target = path;
  if (path_kind(path) == PathKind::kSymlink) {
    std::error_code ec;
    target = std::filesystem::canonical(path, ec).string();
    if (ec) throw IoError(fmt::format("cannot write '{}': it is a symbolic link to a missing file", path));
  }
  const PathKind kind = path_kind(target);
  if (kind == PathKind::kCharDevice || kind == PathKind::kFifo) {
    // A device or FIFO is written through (a stream), never replaced.
    const int fd = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) throw IoError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    if (const int err = write_all(fd, text); err != 0) {
      ::close(fd);
      throw IoError(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
    }
    if (::close(fd) != 0) throw IoError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    return;
  }
  if (kind != PathKind::kAbsent && kind != PathKind::kRegular)
    throw IoError(
        fmt::format("cannot write '{}': it is {}; the output must be a regular file, a character "
                    "device or a FIFO",
                    path, path_kind_name(kind)));
  create_parent_directories(target, path);
  // Same directory, so the rename is atomic: readers see the old file or the whole new one. The
  // temporary file is created exclusively, never through a planted link.
  const std::string tmp = fmt::format("{}.tmp.{}", target, static_cast<long>(::getpid()));
  int fd = -1;
  try {
    fd = create_exclusive(tmp);
  } catch (const IoError& e) {
    throw IoError(fmt::format("cannot write '{}': {}", path, e.what()));
  }
  if (const int err = write_all(fd, text); err != 0) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw IoError(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw IoError(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
  }
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw IoError(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
  }
}

}  // namespace simpact
