#include "failure_deadline.hpp"  // private to io/ (not installed)

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>

namespace simpact::h5 {

double FailureDeadline::seconds() {
  if (const char* text = std::getenv("SIMPACT_FAILURE_DEADLINE_S")) {
    char* end = nullptr;
    const double s = std::strtod(text, &end);
    if (end != text && *end == '\0' && s > 0 && s < 86400) return s;
  }
  return 10.0;
}

FailureDeadline::FailureDeadline(std::string message, bool print) {
  const auto limit = std::chrono::duration<double>(seconds());
  watcher_ = std::thread([this, limit, message = std::move(message), print] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (cv_.wait_for(lock, limit, [this] { return disarmed_; })) return;
    if (print) {
      std::fprintf(stderr, "simpact: error: %s (the other ranks did not finish the failed step in %.0f s)\n",
                   message.c_str(), limit.count());
      std::fflush(stderr);
    }
    std::_Exit(1);  // no destructors, no MPI_Finalize: they would wait on the stuck ranks
  });
}

FailureDeadline::~FailureDeadline() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    disarmed_ = true;
  }
  cv_.notify_one();
  watcher_.join();
}

namespace {

struct IoFiles {
  std::mutex mutex;
  std::map<MPI_File, std::string> paths;
  std::string note;
  std::string staged;  // removed before the job ends
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
};

IoFiles& io_files() {
  static IoFiles files;
  return files;
}

// The path `file` was registered with; "" for a file not registered (not ours to end the job for).
std::string registered_path(MPI_File file) {
  IoFiles& files = io_files();
  const std::lock_guard<std::mutex> lock(files.mutex);
  const auto it = files.paths.find(file);
  return it != files.paths.end() ? it->second : std::string();
}

[[noreturn]] void end_job(const std::string& path, const std::string& cause) {
  std::string note, staged;
  {
    IoFiles& files = io_files();
    const std::lock_guard<std::mutex> lock(files.mutex);
    note = files.note;
    staged = files.staged;
  }
  if (!staged.empty()) std::remove(staged.c_str());  // half written; the ranks still writing it are ended
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr,
               "simpact: error: rank %d: writing %s failed: %s; a failed write inside a collective HDF5 call "
               "cannot be agreed on by the other ranks, so the job ends now%s%s\n",
               rank, path.c_str(), cause.c_str(), note.empty() ? "" : "; ", note.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);  // MPI_Abort does not return
}

// What the failed write(2) said, read right after the failing call: only an error a write
// returns ("" for others: errno may be left over from an earlier call when the write merely
// stopped short).
std::string system_error(int saved_errno) {
  switch (saved_errno) {
    case EFBIG:
    case ENOSPC:
    case EDQUOT:
    case EIO:
    case EROFS:
    case EBADF:
      return std::strerror(saved_errno);
    default:
      return "";
  }
}

// The file error handler: MPI calls it on the rank whose call on the file returned an error.
void on_io_error(MPI_File* file, int* code, ...) {
  const std::string error = system_error(errno);
  const std::string path = file != nullptr ? registered_path(*file) : std::string();
  char mpi_text[MPI_MAX_ERROR_STRING] = "";
  int length = 0;
  if (code == nullptr || MPI_Error_string(*code, mpi_text, &length) != MPI_SUCCESS) length = 0;
  mpi_text[std::min(length, MPI_MAX_ERROR_STRING - 1)] = '\0';
  end_job(path.empty() ? "an HDF5 file" : path,
          error.empty() ? std::string(mpi_text) : error + " (MPI: " + std::string(mpi_text) + ")");
}

// Open MPI's OMPIO returns MPI_SUCCESS from a write whose pwritev(2) failed (EFBIG, ENOSPC,
// EDQUOT) and reports the failure only as a short count in the status, which HDF5 turns into
// "file write failed" on that rank alone. A short write to a registered file ends the job.
void check_write(MPI_File file, int code, int count, MPI_Datatype type, MPI_Status* status, int saved_errno) {
  if (code != MPI_SUCCESS || count <= 0) return;  // an error code went to the error handler
  int written = 0;
  if (MPI_Get_count(status, type, &written) != MPI_SUCCESS || written == count) return;
  const std::string path = registered_path(file);
  if (path.empty()) return;
  const std::string error = system_error(saved_errno);
  end_job(path, error.empty()
                    ? "the write stopped short (out of disk space or quota, or over a file size limit)"
                    : error);
}

}  // namespace

void end_job_on_io_error(MPI_File file, const std::string& path) {
  IoFiles& files = io_files();
  const std::lock_guard<std::mutex> lock(files.mutex);
  if (files.handler == MPI_ERRHANDLER_NULL) MPI_File_create_errhandler(on_io_error, &files.handler);
  MPI_File_set_errhandler(file, files.handler);
  files.paths[file] = path;
}

void forget_io_file(MPI_File file) {
  IoFiles& files = io_files();
  const std::lock_guard<std::mutex> lock(files.mutex);
  files.paths.erase(file);
}

void set_io_failure_note(std::string note) {
  IoFiles& files = io_files();
  const std::lock_guard<std::mutex> lock(files.mutex);
  files.note = std::move(note);
}

void set_io_failure_cleanup(std::string staged) {
  IoFiles& files = io_files();
  const std::lock_guard<std::mutex> lock(files.mutex);
  files.staged = std::move(staged);
}

}  // namespace simpact::h5

// The two MPI-IO writes HDF5's MPI-IO driver makes, through MPI's profiling interface (PMPI): a
// program linking simpact's io layer sees them unchanged, except that a short write to a file
// registered by end_job_on_io_error ends the job (check_write).
int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                      MPI_Status* status) {
  MPI_Status own;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &own : status;
  const int code = PMPI_File_write_at(fh, offset, buf, count, datatype, s);
  simpact::h5::check_write(fh, code, count, datatype, s, errno);
  return code;
}

int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                          MPI_Status* status) {
  MPI_Status own;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &own : status;
  const int code = PMPI_File_write_at_all(fh, offset, buf, count, datatype, s);
  simpact::h5::check_write(fh, code, count, datatype, s, errno);
  return code;
}
