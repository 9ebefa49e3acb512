// Temporary: commands not yet written (removed as each command lands).
#include "commands.hpp"
namespace simpact::app {
CommandRunner add_info_command(CLI::App& app) { app.add_subcommand("info", "describe a result file"); return [] { return 2; }; }
}
