#include "simpact/study/mpi_startup.hpp"

#include <mpi.h>

namespace simpact {

void init_mpi_funneled() {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
}

}  // namespace simpact
