// simpact: the command-line program. Thin: parses arguments and hands off to the library.
//   simpact resolve impact.json         one impact, JSON in/out
//   simpact check impact.json           validate another simulator's post-impact state
//   mpirun -n 4 simpact run sweep.yaml  a parameter sweep into HDF5
//   simpact merge shard_*.h5 -o out.h5  shards of a job array → one result file
//   simpact info results.h5             what a result file holds
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <map>
#include <string>

#include "commands.hpp"
#include "simpact/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"simpact: parameter sweeps of simultaneous rigid-body impacts"};
  app.set_version_flag("--version", std::string(simpact::kVersion) + " (" + simpact::kGitRevision + ")");
  app.require_subcommand(1);
  std::map<std::string, simpact::app::CommandRunner> runners;
  runners["resolve"] = simpact::app::add_resolve_command(app);
  runners["check"] = simpact::app::add_check_command(app);
  runners["run"] = simpact::app::add_run_command(app);
  runners["merge"] = simpact::app::add_merge_command(app);
  runners["info"] = simpact::app::add_info_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (auto* sub : app.get_subcommands()) return runners.at(sub->get_name())();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simpact: error: %s\n", e.what());
    return 1;
  }
  return 1;
}
