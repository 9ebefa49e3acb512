// File-system safety rules shared by every command (issue 10): never replace or write through a
// file simpact did not create, never follow a planted symlink, never read an endless input.
//   * inputs where a file is expected must be regular files (or '-' = standard input) and are
//     read up to a size cap;
//   * staging files are created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW), never through a link;
//   * an output is classified first: run/merge outputs must be regular files or absent, a JSON
//     output on a character device or FIFO is streamed into it, a symlink is resolved or refused;
//   * an advisory lock (flock) on <output>.journal/lock keeps two jobs off one output.
#pragma once

#include <cstddef>
#include <string>

namespace simpact {

// Largest config / JSON request accepted (bytes).
constexpr std::size_t kMaxConfigBytes = 16u << 20;
constexpr std::size_t kMaxJsonBytes = 64u << 20;

// Reads a whole input: `path` must be a regular file (or "-"/"" = standard input when
// `allow_stdin`), at most `cap` bytes. `what` names it in the IoError ("config", "input").
std::string read_capped_input(const std::string& path, std::size_t cap, const std::string& what,
                              bool allow_stdin);

enum class PathKind {
  kAbsent,
  kRegular,
  kDirectory,
  kSymlink,
  kCharDevice,
  kBlockDevice,
  kFifo,
  kSocket,
  kOther
};
// lstat() of `path`: what it is, without following a final symlink.
PathKind path_kind(const std::string& path);
const char* path_kind_name(PathKind kind);

// "" if `path` may be the output of `run`/`merge` (absent or a regular file, not a symlink);
// otherwise the one-line reason (names the file and what is allowed).
std::string check_result_output(const std::string& path);

// Creates `path` exclusively (fails if anything exists there, a symlink included) with `mode`
// (less the umask) and returns the open descriptor. Throws IoError.
int create_exclusive(const std::string& path, unsigned mode = 0644);

// Which file a path names, and its last change: two equal identities are the same file, not
// written, replaced, resized or chmod-ed in between (device, inode, size, mtime and ctime in ns).
struct FileIdentity {
  unsigned long long device = 0, inode = 0;
  long long size = 0, mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileIdentity& o) const {
    return device == o.device && inode == o.inode && size == o.size && mtime_ns == o.mtime_ns &&
           ctime_ns == o.ctime_ns;
  }
  bool operator!=(const FileIdentity& o) const { return !(*this == o); }
};
// stat() of `path` (following links); throws IoError naming it when it cannot.
FileIdentity file_identity(const std::string& path);
// fstat() of an open descriptor.
FileIdentity file_identity(int fd, const std::string& path);

// Opens a file of a journal directory (flags: O_RDONLY, O_RDWR|O_CREAT, O_WRONLY|O_APPEND|
// O_CREAT, ...), never through a symlink (O_NOFOLLOW), and refuses anything that is not a regular
// file with one link (a planted hard link or device is never written). Throws IoError naming it.
int open_journal_file(const std::string& path, int flags);
// Reads a whole journal file opened by open_journal_file, at most `cap` bytes. Throws IoError.
std::string read_journal_file(const std::string& path, std::size_t cap, const std::string& what);

// fsync()s the directory holding `path` (makes a rename durable).
void sync_parent_directory(const std::string& path);
// fsync()s the regular file `path` (never through a link): its bytes on disk before a rename
// publishes it. Throws IoError naming it.
void sync_file(const std::string& path);

// Exclusive advisory lock of an output: <output>.journal/lock, held until destruction. The
// journal directory is created when missing (and removed again when the lock is released, if
// nothing else was put in it). Not collective: rank 0 takes it for the whole job.
class OutputLock {
 public:
  OutputLock() = default;
  // Throws IoError naming the holder ("held by host H pid P") when another process holds it.
  explicit OutputLock(const std::string& journal_directory);
  ~OutputLock();
  OutputLock(OutputLock&& other) noexcept;
  OutputLock& operator=(OutputLock&& other) noexcept;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  bool held() const { return fd_ >= 0; }
  // True when this lock created the journal directory (nothing was there before).
  bool created_directory() const { return created_; }
  // Releases the lock and removes the lock file (and the directory when it is then empty).
  void release();

 private:
  std::string directory_;
  int fd_ = -1;
  bool created_ = false;
};

}  // namespace simpact
