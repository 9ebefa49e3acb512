#include "mpi_startup_tuning.hpp"

#include <mpi.h>
#include <signal.h>
#include <stdlib.h>  // mkdtemp
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "simpact/study/mpi_startup.hpp"

namespace simpact::app {

namespace fs = std::filesystem;

namespace {

bool set_in_environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0';
}

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// A pml or mtl setting that picks a layer, or excludes ob1. An exclusion list ("^ucx", as
// Debian's own openmpi-mca-params.conf has) leaves ob1 in the running: not a choice of layer.
bool chooses_transport(const std::string& name, const std::string& value) {
  if (name != "pml" && name != "mtl") return false;
  const std::string v = trimmed(value);
  if (v.empty()) return false;
  if (v[0] != '^') return true;
  return name == "pml" && v.find("ob1") != std::string::npos;
}

bool environment_chooses_transport(const char* variable, const std::string& name) {
  const char* value = std::getenv(variable);
  return value != nullptr && chooses_transport(name, value);
}

bool non_empty_directory(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && fs::directory_iterator(dir, ec) != fs::directory_iterator();
}

bool has_entry_starting(const fs::path& dir, const std::string& prefix) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

bool has_fabric_device(const std::string& root) {
  // Verbs devices (InfiniBand, RoCE, iWARP, AWS EFA, Omni-Path's hfi1) appear under
  // /sys/class/infiniband; Slingshot under /sys/class/cxi; Omni-Path and Aries as /dev nodes.
  return non_empty_directory(root + "/sys/class/infiniband") ||
         non_empty_directory(root + "/sys/class/cxi") || has_entry_starting(root + "/dev", "hfi1_") ||
         has_entry_starting(root + "/dev", "kgni");
}

bool mca_file_names_transport(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const std::string entry = trimmed(line);
    const std::size_t equals = entry.find('=');
    if (entry.empty() || entry[0] == '#' || equals == std::string::npos) continue;
    if (chooses_transport(trimmed(entry.substr(0, equals)), entry.substr(equals + 1))) return true;
  }
  return false;
}

MpiStartupFacts read_mpi_startup_facts(const std::string& root) {
  MpiStartupFacts facts;
  facts.launched = set_in_environment("OMPI_COMM_WORLD_SIZE") || set_in_environment("PMIX_RANK") ||
                   set_in_environment("PMI_RANK") || set_in_environment("PMI_SIZE");
  // Other parameter files than Open MPI's two defaults: the user's own setup, left alone.
  facts.user_chose = environment_chooses_transport("OMPI_MCA_pml", "pml") ||
                     environment_chooses_transport("OMPI_MCA_mtl", "mtl") ||
                     set_in_environment("OMPI_MCA_mca_base_param_files") ||
                     mca_file_names_transport(root + "/etc/openmpi/openmpi-mca-params.conf");
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    facts.user_chose =
        facts.user_chose || mca_file_names_transport(std::string(home) + "/.openmpi/mca-params.conf");
  facts.fabric_device = has_fabric_device(root);
  return facts;
}

std::string preselected_pml(const MpiStartupFacts& facts) {
  if (facts.user_chose) return "";
  // One process has no peer to reach; without a fabric device no fabric layer can start, and
  // Open MPI falls back to ob1 after trying them.
  if (!facts.launched || !facts.fabric_device) return "ob1";
  return "";
}

namespace {

// The session directory of the isolated singleton made below, removed at exit (after
// MPI_Finalize, which empties it).
std::string& session_base() {
  static std::string path;
  return path;
}

void remove_session_base() {
  std::error_code ec;
  if (!session_base().empty()) fs::remove_all(session_base(), ec);
}

// Session directories of our user's simpact processes that are gone (killed: no exit to remove
// them), named simpact-mpi-<pid>-*: removed, so that kill -9 does not leave them to pile up.
void remove_orphaned_session_bases(const fs::path& tmp) {
  const std::string prefix = "simpact-mpi-";
  std::error_code ec;
  for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    char* rest = nullptr;
    const long pid = std::strtol(name.c_str() + prefix.size(), &rest, 10);
    struct stat info {};
    if (pid <= 0 || *rest != '-' || ::lstat(it->path().c_str(), &info) != 0 || !S_ISDIR(info.st_mode) ||
        info.st_uid != ::getuid())
      continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to ask
    std::error_code removed;
    fs::remove_all(it->path(), removed);
  }
}

// An isolated singleton's session directory is always <tmp>/ompi.<host>.<uid>/jf.0/1/0: two
// started at once race to create it, and the loser's MPI_Init fails ("mkdir ... File exists").
// A base of its own for each (mkdtemp under $TMPDIR or /tmp); "" where none could be made.
std::string make_session_base() {
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  remove_orphaned_session_bases(dir);
  std::string pattern = dir + "/simpact-mpi-" + std::to_string(::getpid()) + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) return "";
  return pattern;
}

}  // namespace

int open_mpi_major(const std::string& library_version) {
  const std::string prefix = "Open MPI v";
  const std::size_t at = library_version.find(prefix);
  if (at == std::string::npos) return 0;
  return std::atoi(library_version.c_str() + at + prefix.size());
}

std::vector<std::pair<std::string, std::string>> mpi_startup_settings(
    const MpiStartupFacts& facts, int major, const std::vector<std::string>& user_set) {
  auto user_has = [&](const std::string& name) {
    return std::find(user_set.begin(), user_set.end(), name) != user_set.end();
  };
  std::vector<std::pair<std::string, std::string>> out;
  if (major == 4 && !user_has("OMPI_MCA_ess_singleton_isolated")) {
    out.emplace_back("OMPI_MCA_ess_singleton_isolated", "1");
    if (!facts.launched && !user_has("OMPI_MCA_orte_tmpdir_base"))
      out.emplace_back("OMPI_MCA_orte_tmpdir_base", "");
  }
  if ((major == 4 || major == 5) && !user_has("OMPI_MCA_pml"))
    if (const std::string pml = preselected_pml(facts); !pml.empty()) out.emplace_back("OMPI_MCA_pml", pml);
  return out;
}

void init_mpi_for_program() {
  const char* switch_value = std::getenv("SIMPACT_MPI_TUNING");
  if (switch_value != nullptr && std::string(switch_value) == "0") {
    init_mpi_funneled();
    return;
  }
  // MPI_Get_library_version may be called before MPI_Init (MPI-3.1 §8.1.1).
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::vector<std::string> user_set;
  for (const char* name : {"OMPI_MCA_ess_singleton_isolated", "OMPI_MCA_orte_tmpdir_base", "OMPI_MCA_pml"})
    if (std::getenv(name) != nullptr) user_set.emplace_back(name);
  std::vector<std::string> ours;
  for (auto [name, value] :
       mpi_startup_settings(read_mpi_startup_facts(), open_mpi_major(version), user_set)) {
    if (name == "OMPI_MCA_orte_tmpdir_base") {
      session_base() = make_session_base();
      if (session_base().empty()) continue;
      value = session_base();
      std::atexit(remove_session_base);
    }
    ::setenv(name.c_str(), value.c_str(), 1);
    ours.push_back(name);
  }
  init_mpi_funneled();
  for (const std::string& name : ours) ::unsetenv(name.c_str());
}

}  // namespace simpact::app
