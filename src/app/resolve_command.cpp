// `simpact resolve [INPUT] [-o OUTPUT] [--pretty]`: one impact problem, JSON in, JSON out
// (DESIGN §4; request and output keys in include/simpact/io/impact_json.hpp).
#include <memory>
#include <string>

#include "commands.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/text_io.hpp"
#include "simpact/study/impact_service.hpp"

namespace simpact::app {

CommandRunner add_resolve_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "resolve",
      "Resolve one simultaneous impact (propagative model): every distinct outcome, the plastic "
      "outcome, xi and the uniqueness diagnostics, as JSON");
  const auto args = add_json_command_arguments(sub, "impact problem", "JSON result");
  sub->footer(
      "Input: {\"mass_matrix\": [[..]], \"normals\": [[..]], \"momentum\": [..] (or \"velocity\"),\n"
      "        \"restitution\": 1.0, \"ordering\": \"all\"}  or  {\"model\": \"billiards\", \"params\": "
      "{\"theta\": 1.5708}}\n"
      "Example: simpact resolve configs/examples/cradle3.json --pretty\n" +
      json_command_exit_codes());
  return [args] {
    // Build the whole document before writing anything: an error leaves no output file.
    const std::string result =
        resolve_json(read_json_input(args->input), args->indent(), input_folder(args->input));
    write_text_output(args->output, result);
    return 0;
  };
}

}  // namespace simpact::app
