// How the library starts MPI: plainly, with Open MPI's own choices. The program's start-up
// tuning (a private session directory, the point-to-point layer chosen up front) is the
// program's business: src/app/mpi_startup_tuning.hpp.
#pragma once

namespace simpact {

// MPI_Init_thread, funneled: only the calling thread uses MPI.
void init_mpi_funneled();

}  // namespace simpact
