// `simpact check [INPUT] [-o OUTPUT] [--pretty]`: compares another simulator's post-impact state
// with the propagative model (energy, feasibility, implied impulses, distance to the outcomes) —
// the paper's validation tool for existing simulation methods.
#include <memory>
#include <string>

#include "commands.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/text_io.hpp"
#include "simpact/study/impact_service.hpp"

namespace simpact::app {

CommandRunner add_check_command(CLI::App& app) {
  CLI::App* sub =
      app.add_subcommand("check",
                         "Check another simulator's post-impact state against the propagative model: energy, "
                         "feasibility, implied impulses and distance to the nearest outcome, as JSON");
  const auto args = add_json_command_arguments(sub, "check request", "JSON report");
  sub->footer(
      "Input: a 'simpact resolve' request plus \"momentum_after\": [..] (or \"velocity_after\") and an\n"
      "       optional relative \"tolerance\" (default 1e-9, or the rounding of the input's printed\n"
      "       digits when that is coarser: the report's \"tolerance\" gives the value used)\n"
      "Example: simpact check configs/examples/check_cradle.json --pretty\n" +
      json_command_exit_codes());
  return [args] {
    const std::string report =
        check_json(read_json_input(args->input), args->indent(), input_folder(args->input));
    write_text_output(args->output, report);
    return 0;
  };
}

}  // namespace simpact::app
