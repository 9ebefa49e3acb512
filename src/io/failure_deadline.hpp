// The last resort against a hang under MPI after a write failed (io/ only; not installed).
//
// A rank whose collective HDF5 call failed may find its peers stuck inside that same call (HDF5
// returns on the failing rank but leaves the others in an internal broadcast or barrier), or both
// ranks may end up in different internal collectives of H5Fclose. No agreement can reach them.
// A FailureDeadline is armed only on paths that already failed, around the blocking call that
// may never return: if it has not returned within the deadline the process prints the one error
// line and exits with status 1 (mpirun then ends the other ranks). A slow healthy job never arms
// one, so it is never cut short.
#pragma once

#include <mpi.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace simpact::h5 {

class FailureDeadline {
 public:
  // `print`: this rank prints "simpact: error: <message>" when the deadline passes.
  FailureDeadline(std::string message, bool print);
  ~FailureDeadline();  // disarms
  FailureDeadline(const FailureDeadline&) = delete;
  FailureDeadline& operator=(const FailureDeadline&) = delete;

  // Seconds a failed collective step may take (SIMPACT_FAILURE_DEADLINE_S overrides; default 10).
  static double seconds();

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool disarmed_ = false;
  std::thread watcher_;
};

// An I/O error inside a collective HDF5 call cannot be agreed on afterwards: HDF5 goes on past
// the failed MPI-IO call on the failing rank only, into other internal collectives than its
// peers (one in H5AC's barrier, the other in H5FD_truncate's broadcast), and no rank returns.
// So an MPI-IO error on a file registered here (an error code, or a write that stopped short:
// how Open MPI's OMPIO reports EFBIG or ENOSPC, seen through MPI's profiling interface) ends the
// job where it happens: the failing rank removes the staged file (set_io_failure_cleanup), prints
// one line naming itself, the file, the error and the note (set_io_failure_note: where the
// finished work is kept), then calls MPI_Abort with exit status 1 (an I/O error).
void end_job_on_io_error(MPI_File file, const std::string& path);
void forget_io_file(MPI_File file);  // before or after the file is closed
void set_io_failure_note(std::string note);
// A file the failing rank removes before the job ends (a staging file; "" = none).
void set_io_failure_cleanup(std::string staged);

}  // namespace simpact::h5
