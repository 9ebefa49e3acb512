// Temporary: commands not yet written (removed as each command lands).
#include "commands.hpp"
namespace simpact::app {
CommandRunner add_resolve_command(CLI::App& app) { app.add_subcommand("resolve", "resolve one impact"); return [] { return 2; }; }
CommandRunner add_check_command(CLI::App& app) { app.add_subcommand("check", "check an impact"); return [] { return 2; }; }
CommandRunner add_run_command(CLI::App& app) { app.add_subcommand("run", "run a sweep"); return [] { return 2; }; }
CommandRunner add_info_command(CLI::App& app) { app.add_subcommand("info", "describe a result file"); return [] { return 2; }; }
}
