// Each subcommand registers itself on the CLI11 app and returns the callback that runs it.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace simpact::app {

using CommandRunner = std::function<int()>;

CommandRunner add_resolve_command(CLI::App& app);
CommandRunner add_check_command(CLI::App& app);
CommandRunner add_run_command(CLI::App& app);
CommandRunner add_info_command(CLI::App& app);
CommandRunner add_merge_command(CLI::App& app);

}  // namespace simpact::app
