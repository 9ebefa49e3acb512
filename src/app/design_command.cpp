// `simpact design [INPUT] [-o OUTPUT] [--pretty] [--table]`: impact design by root finding
// (Sec. VII-B, Table I): the initial and the optimized rows, JSON (contract in
// include/simpact/io/design_json.hpp) or, with --table, Table I's layout. A solve that does not
// converge, or converges on a placement far from the start, still writes its rows and exits 1.
#include <fmt/format.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "commands.hpp"
#include "simpact/study/design_service.hpp"

namespace simpact::app {

CommandRunner add_design_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "design",
      "Impact design (Table I): place the robot so a foot and the tail touch, then find a nearby "
      "configuration + design where both touch and the contact normals are g-orthogonal");
  const auto args = add_json_command_arguments(sub, "design request", "result (JSON)");
  auto table = std::make_shared<bool>(false);
  sub->add_flag("--table", *table, "write the two rows as Table I (cm, rad) instead of JSON");
  sub->footer(
      "Input: {\"model\": \"trex\", \"foot\": \"right\", \"configuration\": {\"theta\": 5.78, ..}, "
      "\"design\": "
      "{\"r1\": 0.07, ..},\n"
      "        \"place\": [\"y\", \"theta\"], \"free\": {\"phi_R\": {}, \"r1\": {\"min\": 0.06, \"max\": "
      "0.08}, ..}}\n"
      "Example: simpact design configs/examples/design_trex.json --table\n" +
      json_command_exit_codes("the design did not converge"));
  return [args, table] {
    const DesignRun run = run_design(read_json_input(args->input), input_folder(args->input));
    write_text_output(args->output,
                      *table ? design_table_text(run.report) : design_to_json(run.report, args->indent()));
    if (!run.report.converged()) {
      const DesignRow& row = run.report.rows.back();
      throw std::runtime_error(
          fmt::format("design did not converge: {} after {} iterations, normalized <u,v>_g = {:.3e}",
                      row.status, row.iterations, row.normalized_product));
    }
    if (run.report.far_placement()) {  // converged, on a branch the start did not mean
      const DesignPlacement& p = *run.report.placement;
      throw std::runtime_error(fmt::format(
          "design converged on a placement far from the start: {} moved {:.3g} rad ({:.0f} deg), more "
          "than max_place_change = {:g} rad; start nearer the posture you mean, bound the free "
          "variables, or raise max_place_change",
          p.max_angle_coordinate, p.max_angle_change, p.max_angle_change * 180.0 / 3.141592653589793,
          p.max_place_change));
    }
    return 0;
  };
}

}  // namespace simpact::app
