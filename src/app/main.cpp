// simpact: the command-line program. Thin: parses arguments and hands off to the library.
//   simpact resolve impact.json         one impact, JSON in/out
//   simpact check impact.json           validate another simulator's post-impact state
//   simpact simulate run.json           time-step a model through impacts, JSON in/out
//   mpirun -n 4 simpact run sweep.yaml  a parameter sweep into HDF5
//   simpact merge shard_*.h5 -o out.h5  shards of a job array → one result file
//   simpact info results.h5             what a result file holds
//   simpact models [NAME]               the models and their parameters
//   simpact analyze results.h5          sensitivity indices of a sweep with a sensitivity design
// Exit codes (one table, README "Exit codes"): 0 ok, 1 runtime failure, 2 input error (command
// line, JSON, YAML: one line per problem), 3 incomplete result, 4 not a simpact result file,
// 5 `check`: a state not consistent with the propagative model.
#include <sys/prctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <string>

#include "commands.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/io/impact_json.hpp"
#include "simpact/io/sweep_config_yaml.hpp"
#include "simpact/io/sweep_file.hpp"
#include "simpact/version.hpp"

namespace {

void print_error_lines(const std::string& text) {
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    if (end > begin) std::fprintf(stderr, "simpact: error: %s\n", text.substr(begin, end - begin).c_str());
    begin = end + 1;
  }
}

// The re-exec below runs /proc/self/exe (exactly this image, even if the file was replaced since),
// and the kernel names a process after the file it executes: every simpact was "exe", invisible to
// `pgrep simpact`, top and cluster monitors. The name argv[0] gave it is set back.
void keep_program_name(const char* argv0) {
  char name[17] = {};
  if (::prctl(PR_GET_NAME, name, 0, 0, 0) != 0 || std::string(name) != "exe") return;
  const std::string path = argv0 != nullptr ? argv0 : "";
  const std::string base = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  ::prctl(PR_SET_NAME, base.empty() ? "simpact" : base.substr(0, 15).c_str(), 0, 0, 0);
}

}  // namespace

int main(int argc, char** argv) {
  // Idle OpenMP threads sleep instead of spinning (OMP_WAIT_POLICY=passive) unless the user chose:
  // on a loaded node libgomp's active waiting burnt 4-8x the CPU and doubled the wall time of
  // billiards_mc. libgomp reads the variable in its load-time constructor, before main: only a
  // fresh image of this program sees it, so set it and exec again (once: then it is set). On a
  // failed exec (no /proc), go on with the runtime's default.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
    ::setenv("OMP_WAIT_POLICY", "passive", 1);
    ::execv("/proc/self/exe", argv);
  }
  keep_program_name(argv[0]);
  using simpact::app::kExitInput;
  CLI::App app{"simpact: parameter sweeps of simultaneous rigid-body impacts", "simpact"};
  app.set_version_flag("--version", std::string(simpact::kVersion) + " (" + simpact::kGitRevision + ")");
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 ok, 1 runtime failure (I/O, HDF5, internal), 2 input error (command line, JSON,\n"
      "YAML), 3 incomplete result (resume it), 4 not a simpact result file, 5 check: a state not\n"
      "consistent with the propagative model.\n"
      "Start with: simpact models billiards; simpact run configs/billiards_theta.yaml");
  std::map<std::string, simpact::app::CommandRunner> runners;
  runners["resolve"] = simpact::app::add_resolve_command(app);
  runners["check"] = simpact::app::add_check_command(app);
  runners["run"] = simpact::app::add_run_command(app);
  runners["merge"] = simpact::app::add_merge_command(app);
  runners["info"] = simpact::app::add_info_command(app);
  runners["models"] = simpact::app::add_models_command(app);
  runners["simulate"] = simpact::app::add_simulate_command(app);
  runners["analyze"] = simpact::app::add_analyze_command(app);
  runners["design"] = simpact::app::add_design_command(app);
  if (argc <= 1) {  // no subcommand: say what there is, not "A subcommand is required"
    std::fputs(app.help().c_str(), stdout);
    return 0;
  }
  if (argv[1][0] != '-' && runners.count(argv[1]) == 0) {  // CLI11 would say "A subcommand is required"
    std::string allowed;
    for (const auto& [name, runner] : runners) allowed += (allowed.empty() ? "" : ", ") + name;
    std::fprintf(stderr, "simpact: error: unknown command '%s' (allowed: %s; see 'simpact --help')\n",
                 argv[1], allowed.c_str());
    return kExitInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // Every command-line error is an input error: one line, exit 2 (not CLI11's 105..113).
    std::string where = "simpact";
    for (auto* sub : app.get_subcommands()) where += " " + sub->get_name();
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    std::fprintf(stderr, "simpact: error: %s (see '%s --help')\n", what.c_str(), where.c_str());
    return kExitInput;
  }
  // A command that HDF5 failed to flush or close a file for (a full disk) ends here at once with
  // its code: HDF5's shutdown at exit would crash on that file (`analyze` has no MpiSession).
  const auto finish = [](int code) {
    if (simpact::hdf5_shutdown_unsafe()) {
      std::fflush(nullptr);
      std::_Exit(code);
    }
    return code;
  };
  try {
    for (auto* sub : app.get_subcommands()) return finish(runners.at(sub->get_name())());
  } catch (const simpact::ConfigErrors& e) {
    for (const auto& line : e.lines) print_error_lines(line);
    return finish(kExitInput);
  } catch (const simpact::InputError& e) {  // InputErrors: one line per problem
    print_error_lines(e.what());
    return finish(kExitInput);
  } catch (const std::exception& e) {
    print_error_lines(e.what());
    return finish(simpact::app::kExitFailure);
  }
  return finish(simpact::app::kExitFailure);
}
