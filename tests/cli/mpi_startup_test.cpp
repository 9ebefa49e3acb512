// How the simpact program starts MPI: the point-to-point layer chosen up front only where Open MPI's own
// selection is known (a singleton, or a node without a fabric device), never over the user's.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "../support/temp_dir.hpp"
#include "mpi_startup_tuning.hpp"  // src/app: the program's start-up tuning

namespace simpact::app {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

void write_file(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

TEST(MpiStartup, Ob1OnlyWhereOpenMpiWouldEndWithIt) {
  MpiStartupFacts facts;
  EXPECT_EQ(preselected_pml(facts), "ob1");  // a singleton on a plain host
  facts.fabric_device = true;
  EXPECT_EQ(preselected_pml(facts), "ob1");  // one process has no peer to reach
  facts.launched = true;
  EXPECT_EQ(preselected_pml(facts), "");  // ranks on a fabric: Open MPI picks its layer
  facts.fabric_device = false;
  EXPECT_EQ(preselected_pml(facts), "ob1");  // ranks on a plain node: ob1 after the others fail
  facts.user_chose = true;
  EXPECT_EQ(preselected_pml(facts), "");
  facts.launched = false;
  EXPECT_EQ(preselected_pml(facts), "");
}

// The runtime's version decides which parameters exist: ORTE's (ess_singleton_isolated,
// orte_tmpdir_base) are Open MPI 4's only; PRRTE (Open MPI 5) has neither; another MPI gets none.
TEST(MpiStartup, SettingsFollowTheOpenMpiVersion) {
  EXPECT_EQ(open_mpi_major("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4"), 4);
  EXPECT_EQ(open_mpi_major("Open MPI v5.0.3, package: Open MPI, ident: 5.0.3"), 5);
  EXPECT_EQ(open_mpi_major("MPICH Version:      4.0.2"), 0);
  MpiStartupFacts singleton;  // no launcher, no fabric, nothing chosen
  using Settings = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(mpi_startup_settings(singleton, 4, {}), (Settings{{"OMPI_MCA_ess_singleton_isolated", "1"},
                                                              {"OMPI_MCA_orte_tmpdir_base", ""},
                                                              {"OMPI_MCA_pml", "ob1"}}));
  EXPECT_EQ(mpi_startup_settings(singleton, 5, {}), (Settings{{"OMPI_MCA_pml", "ob1"}}));
  EXPECT_EQ(mpi_startup_settings(singleton, 0, {}), Settings{});
  EXPECT_EQ(mpi_startup_settings(singleton, 4, {"OMPI_MCA_pml", "OMPI_MCA_orte_tmpdir_base"}),
            (Settings{{"OMPI_MCA_ess_singleton_isolated", "1"}}));  // the user's own stay theirs
  MpiStartupFacts ranks;
  ranks.launched = true;
  EXPECT_EQ(mpi_startup_settings(ranks, 4, {}),
            (Settings{{"OMPI_MCA_ess_singleton_isolated", "1"}, {"OMPI_MCA_pml", "ob1"}}));
}

TEST(MpiStartup, FabricDevicesFromSysAndDev) {
  TempDir root("simpact-mpistartup");
  EXPECT_FALSE(has_fabric_device(root.path.string()));
  fs::create_directories(root.path / "sys/class/infiniband");  // the class without a device
  fs::create_directories(root.path / "dev");
  write_file(root / "dev/null", "");
  EXPECT_FALSE(has_fabric_device(root.path.string()));
  write_file(root / "sys/class/infiniband/mlx5_0/node_type", "1: CA\n");
  EXPECT_TRUE(has_fabric_device(root.path.string()));

  for (const char* device : {"dev/hfi1_0", "dev/kgni0", "sys/class/cxi/cxi0/device"}) {
    TempDir other("simpact-mpistartup");
    write_file(other / device, "");
    EXPECT_TRUE(has_fabric_device(other.path.string())) << device;
  }
}

TEST(MpiStartup, ParameterFilesThatPickATransport) {
  TempDir dir("simpact-mpistartup");
  const auto picks = [&](const std::string& text) {
    write_file(dir / "mca-params.conf", text);
    return mca_file_names_transport(dir / "mca-params.conf");
  };
  // Debian's /etc/openmpi/openmpi-mca-params.conf: exclusions only.
  EXPECT_FALSE(
      picks("btl_base_warn_component_unused=0\nmtl = ^ofi\nbtl = ^uct,openib,ofi\npml = ^ucx\n"
            "osc = ^ucx,pt2pt\n"));
  EXPECT_TRUE(picks("pml = ucx\n"));
  EXPECT_TRUE(picks("  mtl=psm2\n"));
  EXPECT_TRUE(picks("pml = ^ucx,ob1\n"));  // ob1 excluded: the user's selection stands
  EXPECT_FALSE(picks("# pml = ucx\n"));
  EXPECT_FALSE(picks("pml_ucx_verbose = 1\nmtl_ofi_provider_include = psm3\n"));
  EXPECT_FALSE(mca_file_names_transport(dir / "absent.conf"));
}

// An Open MPI parameter as its control variable reads (MPI_T): `pml`, the layers it selected from.
std::string control_variable(const char* name) {
  int provided = 0, index = 0, count = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return "?";
  std::string value = "?";
  MPI_T_cvar_handle handle;
  if (MPI_T_cvar_get_index(name, &index) == MPI_SUCCESS &&
      MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) == MPI_SUCCESS) {
    std::string text(static_cast<std::size_t>(std::max(count, 1)) + 1, '\0');
    if (MPI_T_cvar_read(handle, text.data()) == MPI_SUCCESS) value = text.c_str();
    MPI_T_cvar_handle_free(&handle);
  }
  MPI_T_finalize();
  return value;
}

// The real start, in a child process (MPI starts once per process). Exit 0 where Open MPI's
// `pml` reads `expected` ("" for anything but ob1, "*" for anything), a message to itself arrives
// and the environment is as before (what init_mpi_for_program set is for Open MPI's start only);
// `mtl` ("" for none) is the user's own OMPI_MCA_mtl.
int start_mpi_in_child(const char* mtl, const std::string& expected, bool tuning = true) {
  const pid_t child = ::fork();
  if (child < 0) return -1;
  if (child == 0) {
    if (!tuning) ::setenv("SIMPACT_MPI_TUNING", "0", 1);
    ::unsetenv("OMPI_MCA_pml");
    ::unsetenv("OMPI_MCA_ess_singleton_isolated");
    ::unsetenv("OMPI_MCA_orte_tmpdir_base");
    if (*mtl != '\0') ::setenv("OMPI_MCA_mtl", mtl, 1);
    init_mpi_for_program();
    const bool environment_kept = std::getenv("OMPI_MCA_pml") == nullptr &&
                                  std::getenv("OMPI_MCA_ess_singleton_isolated") == nullptr &&
                                  std::getenv("OMPI_MCA_orte_tmpdir_base") == nullptr;
    const std::string pml = control_variable("pml");
    const std::string base = control_variable("orte_tmpdir_base");
    int size = 0, sent = 42, received = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Sendrecv(&sent, 1, MPI_INT, 0, 7, &received, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    if (base.find("/simpact-mpi-") != std::string::npos) fs::remove_all(base);  // (_exit skips it)
    const bool as_expected = expected == "*" || (expected.empty() ? pml != "ob1" : pml == expected);
    ::_exit(!as_expected ? 2 : !environment_kept ? 3 : (size != 1 || received != 42) ? 4 : 0);
  }
  int status = 0;
  if (::waitpid(child, &status, 0) != child || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

TEST(MpiStartup, ASingletonStartsOnOb1UnlessTheUserChose) {
  // (ctest starts this program alone: the child's MPI_Init is a singleton's.)
  ASSERT_FALSE(read_mpi_startup_facts().launched) << "run this test without mpirun or srun";
  // 2: Open MPI's pml not as expected; 3: the environment changed; 4: MPI did not work.
  const MpiStartupFacts facts = read_mpi_startup_facts();
  const std::string ours = facts.user_chose ? "*" : "ob1";  // (this host's own MCA files may choose)
  EXPECT_EQ(start_mpi_in_child("", ours), 0);
  EXPECT_EQ(start_mpi_in_child("^ofi", ours), 0);  // an exclusion picks nothing
  EXPECT_EQ(start_mpi_in_child("psm2", ""), 0);    // the user's layer: Open MPI selects as told
  // SIMPACT_MPI_TUNING=0: the library's plain start, Open MPI's own selection.
  if (!facts.user_chose) {
    EXPECT_EQ(start_mpi_in_child("", "", false), 0);
  }
}

// Singletons started at once: each has a session directory of its own (every isolated singleton
// used <tmp>/ompi.<host>.<uid>/jf.0/1/0, and one of two starting together failed its MPI_Init),
// and each directory is gone when its process has exited.
TEST(MpiStartup, SingletonsStartedTogetherEachHaveTheirOwnSessionDirectory) {
  ASSERT_FALSE(read_mpi_startup_facts().launched) << "run this test without mpirun or srun";
  TempDir reports("simpact-mpistartup");
  constexpr int kChildren = 8;
  std::vector<pid_t> children;
  for (int c = 0; c < kChildren; ++c) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::unsetenv("OMPI_MCA_orte_tmpdir_base");  // a user's own base would be shared
      init_mpi_for_program();
      const std::string base = control_variable("orte_tmpdir_base");
      const bool exists = fs::is_directory(base);
      MPI_Finalize();
      std::ofstream(reports / std::to_string(c)) << base;
      ::_exit(exists ? 0 : 2);  // (exit() would run the removal this test checks)
    }
    children.push_back(child);
  }
  for (const pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "the session directory did not exist while MPI ran";
  }
  std::set<std::string> bases;
  for (int c = 0; c < kChildren; ++c) {
    std::ifstream in(reports / std::to_string(c));
    std::string base;
    std::getline(in, base);
    EXPECT_NE(base.find("/simpact-mpi-"), std::string::npos) << base;
    bases.insert(base);
    fs::remove_all(base);  // _exit skipped the removal at exit; checked by the next test
  }
  EXPECT_EQ(bases.size(), static_cast<std::size_t>(kChildren));
}

// The session directory a singleton child used, read back after it ended normally (exit, so its
// removal at exit runs); `tmpdir` its TMPDIR (nullptr: this process's). "" if the child failed.
std::string session_base_of_a_singleton(const TempDir& reports, const char* tmpdir) {
  const pid_t child = ::fork();
  if (child < 0) return "";
  if (child == 0) {
    ::unsetenv("OMPI_MCA_orte_tmpdir_base");
    if (tmpdir != nullptr) ::setenv("TMPDIR", tmpdir, 1);
    init_mpi_for_program();
    std::ofstream(reports / "base.txt") << control_variable("orte_tmpdir_base");
    MPI_Finalize();
    std::exit(0);
  }
  int status = 0;
  if (::waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
  std::ifstream in(reports / "base.txt");
  std::string base;
  std::getline(in, base);
  return base;
}

// A singleton that ends normally leaves no session directory behind.
TEST(MpiStartup, ASingletonRemovesItsSessionDirectoryAtExit) {
  ASSERT_FALSE(read_mpi_startup_facts().launched) << "run this test without mpirun or srun";
  TempDir reports("simpact-mpistartup");
  const std::string base = session_base_of_a_singleton(reports, nullptr);
  ASSERT_NE(base.find("/simpact-mpi-"), std::string::npos) << base;
  EXPECT_FALSE(fs::exists(base)) << base;
}

// A killed singleton cannot remove its directory: the next start removes those of our processes
// that are gone, and nothing else (a live process's, another name, a file).
TEST(MpiStartup, AStartRemovesTheDirectoriesOfKilledSingletons) {
  ASSERT_FALSE(read_mpi_startup_facts().launched) << "run this test without mpirun or srun";
  TempDir tmp("simpact-mpistartup");
  const pid_t gone = ::fork();  // a pid that has exited and been reaped
  ASSERT_GE(gone, 0);
  if (gone == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(gone, nullptr, 0), gone);
  const std::string orphan = tmp / ("simpact-mpi-" + std::to_string(gone) + "-AbC123");
  const std::string live = tmp / ("simpact-mpi-" + std::to_string(::getpid()) + "-DeF456");
  const std::string file = tmp / ("simpact-mpi-" + std::to_string(gone) + "-file");
  const std::string other = tmp / ("simpact-mpix-" + std::to_string(gone) + "-GhI789");
  for (const std::string& dir : {orphan, live, other})
    fs::create_directories(fs::path(dir) / "ompi.host.0/jf.0");
  write_file(file, "not a directory");

  const std::string base = session_base_of_a_singleton(tmp, tmp.path.c_str());
  EXPECT_EQ(base.rfind(tmp / "simpact-mpi-", 0), 0u) << base;  // under its TMPDIR
  EXPECT_FALSE(fs::exists(base)) << base;
  EXPECT_FALSE(fs::exists(orphan));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(file));
  EXPECT_TRUE(fs::exists(other));
}

}  // namespace
}  // namespace simpact::app
