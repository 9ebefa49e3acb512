// RAII for MPI in the driver: init_mpi_for_program (only the main thread calls MPI) and
// MPI_Finalize. Works without mpirun (a singleton job of one rank).
#pragma once

#include <mpi.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "mpi_startup_tuning.hpp"
#include "simpact/io/sweep_file.hpp"

namespace simpact::app {

class MpiSession {
 public:
  MpiSession() {
    // A file size limit (ulimit -f) then fails a write with EFBIG, reported and handled like a
    // full disk, instead of killing the process with SIGXFSZ in the middle of a write.
    std::signal(SIGXFSZ, SIG_IGN);
    init_mpi_for_program();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

  // Returns the command's exit status `code`, or ends the process with it at once when HDF5
  // failed to flush or close a file (a full disk): HDF5's shutdown inside MPI_Finalize would then
  // crash on that file (a segfault after the error line, the data safe). The output is flushed;
  // mpirun takes a non-zero exit without MPI_Finalize like any other failing rank.
  int finish(int code) {
    if (hdf5_shutdown_unsafe()) {
      std::fflush(nullptr);
      std::_Exit(code);
    }
    return code;
  }

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace simpact::app
