// `simpact simulate [INPUT] [-o OUTPUT] [--pretty]`: one time-stepped run through impacts
// (midpoint variational integrator + propagative reset), JSON in, JSON out (contract in
// include/simpact/io/simulate_json.hpp).
#include <memory>
#include <string>

#include "commands.hpp"
#include "simpact/study/simulate_service.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/io/impact_json.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/simulate_hdf5.hpp"

namespace simpact::app {

CommandRunner add_simulate_command(CLI::App& app) {
  struct Args {
    std::string input = "-";
    std::string output;
    bool pretty = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand(
      "simulate",
      "Time-step a model through simultaneous impacts (midpoint variational integrator, propagative "
      "reset): states, impact log, energy drift, Newton statistics, as JSON or HDF5");
  sub->add_option("input", args->input, "simulation request JSON file ('-' or absent: standard input)");
  sub->add_option("-o,--output", args->output, "write the result to this file instead of standard output: JSON, or HDF5 when it ends in .h5");
  sub->add_flag("--pretty", args->pretty, "indent the JSON result");
  sub->footer(
      "Input: {\"model\": \"chain\", \"params\": {\"n\": 4}, \"q0\": [..], \"p0\": [..] (or \"v0\"), \"dt\": 0.001,\n"
      "        \"steps\": 10000 (or \"t_end\"), \"ordering\": \"argmin\", \"restitution\": 1,\n"
      "        \"record\": {\"steps\": [..]} (or {\"every\": N})}   models: ball, billiards, chain, cradle, tree8\n"
      "Example: simpact simulate configs/examples/simulate_cradle.json --pretty");
  return [args] {
    const bool hdf5 = args->output.size() > 3 && args->output.substr(args->output.size() - 3) == ".h5";
    std::string text;
    try {
      text = read_text_input(args->input);
    } catch (const IoError& e) {
      throw InputError("input", e.what());
    }
    if (hdf5) {
      const SimulateRun run = run_simulation(text);
      write_simulation_hdf5(args->output, run.request, run.report);
      return 0;
    }
    const std::string result = simulate_json(text, args->pretty ? 2 : -1);
    write_text_output(args->output, result);
    return 0;
  };
}

}  // namespace simpact::app
