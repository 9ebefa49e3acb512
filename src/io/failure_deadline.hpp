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

}  // namespace simpact::h5
