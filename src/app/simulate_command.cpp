// `simpact simulate [INPUT] [-o OUTPUT] [--pretty]`: one time-stepped run through impacts
// (midpoint variational integrator + propagative reset), JSON in, JSON out (contract in
// include/simpact/io/simulate_json.hpp).
#include <memory>
#include <string>

#include "commands.hpp"
#include "simpact/io/impact_json.hpp"
#include "simpact/io/simulate_hdf5.hpp"
#include "simpact/models/dynamic_models.hpp"
#include "simpact/study/simulate_service.hpp"

namespace simpact::app {

CommandRunner add_simulate_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "simulate",
      "Time-step a model through simultaneous impacts (midpoint variational integrator, propagative "
      "reset): states, impact log, energy drift, Newton statistics, as JSON or HDF5");
  const auto args = add_json_command_arguments(sub, "simulation request",
                                               "result (JSON; HDF5 when OUTPUT ends in .h5)", "JSON result");
  std::string models;
  for (const auto& m : dynamic_model_names()) models += (models.empty() ? "" : ", ") + m;
  sub->footer(
      "Input: {\"model\": \"chain\", \"params\": {\"n\": 4}, \"q0\": [..], \"p0\": [..] (or \"v0\"), \"dt\": "
      "0.001,\n"
      "        \"steps\": 10000 (or \"t_end\"), \"ordering\": \"argmin\", \"restitution\": 1,\n"
      "        \"record\": {\"steps\": [..]} (or {\"every\": N})}   models: " +
      models +
      " (or a \"mechanism\" file)\n"
      "Example: simpact simulate configs/examples/simulate_cradle.json --pretty\n" +
      json_command_exit_codes("Newton did not converge, an impact not resolved, a state left the doubles"));
  return [args] {
    const bool hdf5 = args->output.size() > 3 && args->output.substr(args->output.size() - 3) == ".h5";
    const std::string text = read_json_input(args->input);
    if (hdf5) {
      const SimulateRun run = run_simulation(text, input_folder(args->input));
      write_simulation_hdf5(args->output, run.request, run.report);
      return 0;
    }
    const std::string result = simulate_json(text, args->indent(), input_folder(args->input));
    write_text_output(args->output, result);
    return 0;
  };
}

}  // namespace simpact::app
