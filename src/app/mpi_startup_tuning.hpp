// How the `simpact` program starts MPI: the library's plain start (study/mpi_startup.hpp) after
// two choices Open MPI 4 would otherwise make slowly, each left to the user where they set it
// themselves. On by default; SIMPACT_MPI_TUNING=0 turns both off (docs/cluster.md).
// * A process started without a launcher (a singleton job of one rank) runs isolated, without
//   Open MPI's helper daemon (OMPI_MCA_ess_singleton_isolated): nothing here needs the daemon
//   (no spawn, no connect/accept) and it took ~0.1 s of a plain run's start. Its session
//   directory is a private one (OMPI_MCA_orte_tmpdir_base, /tmp/simpact-mpi-<pid>-*, removed at
//   exit, or by a later start once that process is gone): every isolated singleton would
//   otherwise use the same path, and two starting at once failed. Both are Open MPI 4 (ORTE)
//   parameters: under Open MPI 5 (PRRTE) or another MPI they are not set.
// * The point-to-point layer is ob1 (shared memory, TCP) where Open MPI would end up with ob1
//   anyway: a singleton, or a node without a high-speed network device. Open MPI otherwise tries
//   its fabric layers first, and loading the Omni-Path one runs libpsm2's start-up, which sleeps
//   ~0.2 s on a host without Omni-Path (docs/cluster.md). Open MPI 4 and 5 only.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace simpact::app {

// init_mpi_funneled with the choices above (unless SIMPACT_MPI_TUNING=0). The variables it
// sets are unset again once MPI has started: a process this one launches decides for itself.
void init_mpi_for_program();

// The facts the choices rest on; `root` prefixes /sys and /dev (tests use a private tree).
struct MpiStartupFacts {
  bool launched = false;       // mpirun or srun gave this process a rank
  bool user_chose = false;     // a pml or mtl picked (environment or MCA parameter file)
  bool fabric_device = false;  // InfiniBand, RoCE, iWARP, EFA, Omni-Path, Slingshot or Aries here
};
MpiStartupFacts read_mpi_startup_facts(const std::string& root = "");
bool has_fabric_device(const std::string& root);
// True where the MCA parameter file at `path` picks a `pml` or `mtl`, or excludes ob1 (an
// exclusion list such as Debian's default `pml = ^ucx` picks nothing; absent file: false).
bool mca_file_names_transport(const std::string& path);
// "ob1" where Open MPI's selection is known in advance, "" to leave it to Open MPI.
std::string preselected_pml(const MpiStartupFacts& facts);

// The Open MPI major version in MPI_Get_library_version's text ("Open MPI v4.1.4, ..." → 4);
// 0 for another MPI library.
int open_mpi_major(const std::string& library_version);
// The environment variables the program sets before MPI_Init for Open MPI `major` (0: none),
// given the facts, leaving out any the user set; the session directory's value is filled in
// by init_mpi_for_program ("" here).
std::vector<std::pair<std::string, std::string>> mpi_startup_settings(
    const MpiStartupFacts& facts, int major, const std::vector<std::string>& user_set);

}  // namespace simpact::app
