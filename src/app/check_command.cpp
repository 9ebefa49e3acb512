// `simpact check [INPUT] [-o OUTPUT] [--pretty] [--jsonl]`: compares another simulator's post-impact
// state with the propagative model (energy, feasibility, implied impulses, distance to the
// outcomes) — the paper's validation tool for existing simulation methods. Exit 5 when a state is
// not consistent with the model, so a script or a test suite can gate on it.
#include <memory>
#include <string>

#include "commands.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/text_io.hpp"
#include "simpact/study/impact_service.hpp"

namespace simpact::app {

namespace {
bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

CommandRunner add_check_command(CLI::App& app) {
  CLI::App* sub =
      app.add_subcommand("check",
                         "Check another simulator's post-impact state against the propagative model: energy, "
                         "feasibility, implied impulses and distance to the nearest outcome, as JSON");
  const auto args = add_json_command_arguments(sub, "check request", "JSON report");
  auto jsonl = std::make_shared<bool>(false);
  sub->add_flag("--jsonl", *jsonl,
                "JSON Lines: one check request per line in, one report per line out (implied by an INPUT "
                "ending in .jsonl)");
  sub->footer(
      "Input: a 'simpact resolve' request plus \"momentum_after\": [..] (or \"velocity_after\") and an\n"
      "       optional relative \"tolerance\" (default 1e-9, or the rounding of the input's printed\n"
      "       digits when that is coarser: the report's \"tolerance\" gives the value used); with\n"
      "       --jsonl one such request per line\n"
      "Example: simpact check configs/examples/check_cradle.json --pretty   (exit 5)\n" +
      json_command_exit_codes() +
      "; 5 a state not consistent with the propagative model (with --jsonl: some line is not; the\n"
      "report is written either way; a bad line is named by its number)");
  return [args, jsonl] {
    const bool lines = *jsonl || ends_with(args->input, ".jsonl");
    if (lines && args->pretty)
      throw InputError("--pretty", "cannot be combined with JSON Lines (one report per line)");
    // Build the whole report before writing anything: an error leaves no output file.
    if (lines) {
      const CheckLinesReport report =
          check_json_lines(read_json_input(args->input), input_folder(args->input));
      write_text_output(args->output, report.text);
      return report.inconsistent > 0 ? kExitInconsistent : kExitOk;
    }
    const CheckReport report =
        check_report(read_json_input(args->input), args->indent(), input_folder(args->input));
    write_text_output(args->output, report.json);
    return report.consistent ? kExitOk : kExitInconsistent;
  };
}

}  // namespace simpact::app
