// RAII for MPI in the driver: init_mpi_funneled (only the main thread calls MPI) and
// MPI_Finalize. Works without mpirun (a singleton job of one rank).
#pragma once

#include <mpi.h>

#include "simpact/study/mpi_startup.hpp"

namespace simpact::app {

class MpiSession {
 public:
  MpiSession() {
    init_mpi_funneled();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace simpact::app
