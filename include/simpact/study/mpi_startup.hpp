// How simpact starts MPI, in the program and in the Python module alike.
#pragma once

namespace simpact {

// MPI_Init_thread (funneled: only the calling thread uses MPI). A process started without a
// launcher (a singleton job of one rank) runs isolated, without Open MPI's helper daemon, unless
// the user set OMPI_MCA_ess_singleton_isolated: nothing here needs the daemon (no spawn, no
// connect/accept) and it took ~0.1 s of a plain run's start. Under mpirun or srun the setting
// does not apply.
void init_mpi_funneled();

}  // namespace simpact
