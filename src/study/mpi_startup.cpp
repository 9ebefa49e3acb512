#include "simpact/study/mpi_startup.hpp"

#include <mpi.h>

#include <cstdlib>

namespace simpact {

void init_mpi_funneled() {
  ::setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);  // 0: the user's own value wins
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
}

}  // namespace simpact
