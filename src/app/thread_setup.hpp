// OpenMP threads per MPI rank: by default the cores this rank may use — its affinity mask shared
// with the other ranks on the node whose masks overlap it — so `mpirun -n 4` on 2 cores runs 4 × 1
// threads, not 4 × 2. OMP_NUM_THREADS, when set, is honoured; `run --threads N` overrides both.
// Idle threads wait passively (OMP_WAIT_POLICY=passive, set by main unless the user set it), so
// a default that oversubscribes a loaded node costs little CPU. Warns once (rank 0) when the
// ranks × threads on a node exceed its cores.
#pragma once

#include <mpi.h>

namespace simpact::app {

// Collective over `comm`. Calls omp_set_num_threads on every rank and returns its thread count:
// `requested` when > 0 (run --threads), else OMP_NUM_THREADS when set, else the default above.
int setup_threads(MPI_Comm comm, int requested = 0);

}  // namespace simpact::app
