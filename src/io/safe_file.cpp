#include "simpact/io/safe_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "simpact/io/io_error.hpp"

namespace simpact {

namespace {

PathKind kind_of(mode_t mode) {
  if (S_ISREG(mode)) return PathKind::kRegular;
  if (S_ISDIR(mode)) return PathKind::kDirectory;
  if (S_ISLNK(mode)) return PathKind::kSymlink;
  if (S_ISCHR(mode)) return PathKind::kCharDevice;
  if (S_ISBLK(mode)) return PathKind::kBlockDevice;
  if (S_ISFIFO(mode)) return PathKind::kFifo;
  if (S_ISSOCK(mode)) return PathKind::kSocket;
  return PathKind::kOther;
}

std::string mib(std::size_t bytes) {
  return fmt::format("{} MiB", bytes >> 20);
}

// Reads `fd` to its end, refusing more than `cap` bytes.
std::string read_fd_capped(int fd, std::size_t cap, const std::string& name, const std::string& what) {
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError(fmt::format("{}: cannot read '{}': {}", what, name, std::strerror(errno)));
    }
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > cap)
      throw IoError(
          fmt::format("{}: '{}' is larger than {}, the most a {} may be", what, name, mib(cap), what));
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

}  // namespace

const char* path_kind_name(PathKind kind) {
  switch (kind) {
    case PathKind::kAbsent:
      return "absent";
    case PathKind::kRegular:
      return "a regular file";
    case PathKind::kDirectory:
      return "a directory";
    case PathKind::kSymlink:
      return "a symbolic link";
    case PathKind::kCharDevice:
      return "a character device";
    case PathKind::kBlockDevice:
      return "a block device";
    case PathKind::kFifo:
      return "a FIFO";
    case PathKind::kSocket:
      return "a socket";
    case PathKind::kOther:
      break;
  }
  return "not a regular file";
}

PathKind path_kind(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return PathKind::kAbsent;
  return kind_of(st.st_mode);
}

std::string read_capped_input(const std::string& path, std::size_t cap, const std::string& what,
                              bool allow_stdin) {
  if (allow_stdin && (path.empty() || path == "-")) return read_fd_capped(0, cap, "standard input", what);
  // O_NONBLOCK: opening a FIFO with no writer must not block; fstat then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw IoError(fmt::format("{}: cannot read '{}': {}", what, path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const PathKind kind = kind_of(st.st_mode);
    ::close(fd);
    throw IoError(fmt::format("{}: cannot read '{}': it is {}; a regular file is expected{}", what, path,
                              path_kind_name(kind), allow_stdin ? " (or '-' for standard input)" : ""));
  }
  if (static_cast<std::size_t>(st.st_size) > cap) {
    ::close(fd);
    throw IoError(
        fmt::format("{}: '{}' is larger than {}, the most a {} may be", what, path, mib(cap), what));
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  try {
    std::string text = read_fd_capped(fd, cap, path, what);
    ::close(fd);
    return text;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

std::string check_result_output(const std::string& path) {
  const PathKind kind = path_kind(path);
  if (kind == PathKind::kAbsent || kind == PathKind::kRegular) return "";
  if (kind == PathKind::kSymlink) {
    std::error_code ec;
    const auto target = std::filesystem::read_symlink(path, ec);
    return fmt::format("output '{}' is a symbolic link (to '{}'): give the real path of a regular file", path,
                       ec ? std::string("?") : target.string());
  }
  return fmt::format("output '{}' is {}: the output must be a regular file or not exist yet", path,
                     path_kind_name(kind));
}

int create_exclusive(const std::string& path, unsigned mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) throw IoError(fmt::format("cannot create '{}': {}", path, std::strerror(errno)));
  return fd;
}

namespace {

FileIdentity identity_of(const struct stat& st) {
  FileIdentity id;
  id.device = static_cast<unsigned long long>(st.st_dev);
  id.inode = static_cast<unsigned long long>(st.st_ino);
  id.size = static_cast<long long>(st.st_size);
  id.mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  id.ctime_ns = static_cast<long long>(st.st_ctim.tv_sec) * 1000000000LL + st.st_ctim.tv_nsec;
  return id;
}

}  // namespace

FileIdentity file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw IoError(fmt::format("cannot stat '{}': {}", path, std::strerror(errno)));
  return identity_of(st);
}

FileIdentity file_identity(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw IoError(fmt::format("cannot stat '{}': {}", path, std::strerror(errno)));
  return identity_of(st);
}

int open_journal_file(const std::string& path, int flags) {
  // O_NONBLOCK: a planted FIFO must not block the open; fstat then refuses it.
  const int fd = ::open(path.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP)
      throw IoError(
          fmt::format("'{}' is a symbolic link, not a file simpact wrote: refusing to use it", path));
    throw IoError(fmt::format("cannot open '{}': {}", path, std::strerror(err)));
  }
  struct stat st {};
  // nlink 0 is a file its holder just unlinked (OutputLock retries); more than 1: a planted link.
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink > 1) {
    const bool linked = S_ISREG(st.st_mode) && st.st_nlink > 1;
    const PathKind kind = kind_of(st.st_mode);
    ::close(fd);
    throw IoError(fmt::format(
        "'{}' is {}, not a file simpact wrote: refusing to use it", path,
        linked ? fmt::format("a hard link ({} names)", st.st_nlink) : std::string(path_kind_name(kind))));
  }
  const int status = ::fcntl(fd, F_GETFL);
  if (status >= 0) ::fcntl(fd, F_SETFL, status & ~O_NONBLOCK);
  return fd;
}

std::string read_journal_file(const std::string& path, std::size_t cap, const std::string& what) {
  const int fd = open_journal_file(path, O_RDONLY);
  try {
    std::string text = read_fd_capped(fd, cap, path, what);
    ::close(fd);
    return text;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

void sync_parent_directory(const std::string& path) {
  std::string parent = std::filesystem::path(path).parent_path().string();
  if (parent.empty()) parent = ".";
  const int fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

void sync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    throw IoError(fmt::format("cannot sync '{}': {}", path, std::strerror(err)));
  }
  ::close(fd);
}

// ---- OutputLock ---------------------------------------------------------------------------------

OutputLock::OutputLock(const std::string& journal_directory) : directory_(journal_directory) {
  const PathKind kind = path_kind(directory_);
  if (kind != PathKind::kAbsent && kind != PathKind::kDirectory)
    throw IoError(fmt::format("'{}' is {}, not simpact's journal directory: refusing to use it", directory_,
                              path_kind_name(kind)));
  if (kind == PathKind::kAbsent) {
    if (::mkdir(directory_.c_str(), 0755) == 0)
      created_ = true;
    else if (errno != EEXIST)
      throw IoError(fmt::format("{}: cannot create journal directory: {}", directory_, std::strerror(errno)));
  }
  const std::string lock = directory_ + "/lock";
  for (int attempt = 0; attempt < 100; ++attempt) {
    int fd = -1;
    try {
      fd = open_journal_file(lock, O_RDWR | O_CREAT);  // a planted link is never truncated
    } catch (...) {
      release();
      throw;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      std::string holder = read_fd_capped(fd, 4096, lock, "lock");
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) holder.pop_back();
      ::close(fd);
      if (err == EWOULDBLOCK)
        throw IoError(fmt::format("'{}' is in use by another simpact job ({}): refusing to run beside it",
                                  directory_.substr(0, directory_.size() - 8),
                                  holder.empty() ? "holder unknown" : holder));
      throw IoError(fmt::format("{}: cannot lock: {}", lock, std::strerror(err)));
    }
    // The holder we waited on may have unlinked the lock file while we opened it: only the file
    // still at `lock` counts.
    struct stat held {
    }, now{};
    if (::fstat(fd, &held) == 0 && ::lstat(lock.c_str(), &now) == 0 && held.st_ino == now.st_ino &&
        held.st_dev == now.st_dev) {
      fd_ = fd;
      char host[256] = {};
      ::gethostname(host, sizeof host - 1);
      const std::string who = fmt::format("host {} pid {}\n", host, static_cast<long>(::getpid()));
      if (::ftruncate(fd_, 0) == 0) {
        const ssize_t w = ::pwrite(fd_, who.data(), who.size(), 0);
        (void)w;
      }
      return;
    }
    ::close(fd);
  }
  throw IoError(fmt::format("{}: cannot lock: the lock file keeps changing", lock));
}

OutputLock::~OutputLock() {
  release();
}

OutputLock::OutputLock(OutputLock&& other) noexcept
    : directory_(std::move(other.directory_)), fd_(other.fd_), created_(other.created_) {
  other.fd_ = -1;
  other.created_ = false;
}

OutputLock& OutputLock::operator=(OutputLock&& other) noexcept {
  if (this != &other) {
    release();
    directory_ = std::move(other.directory_);
    fd_ = other.fd_;
    created_ = other.created_;
    other.fd_ = -1;
    other.created_ = false;
  }
  return *this;
}

void OutputLock::release() {
  if (fd_ >= 0) {
    ::unlink((directory_ + "/lock").c_str());  // while still held: a waiter re-checks the inode
    ::close(fd_);
    fd_ = -1;
  }
  if (!directory_.empty()) ::rmdir(directory_.c_str());  // only if empty: never removes work
  created_ = false;
}

}  // namespace simpact
