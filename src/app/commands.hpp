// Each subcommand registers itself on the CLI11 app and returns the callback that runs it.
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "simpact/core/input_error.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/text_io.hpp"

namespace simpact::app {

using CommandRunner = std::function<int()>;

// The exit codes of every command (README "Exit codes").
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;       // runtime: I/O, HDF5, a failing task, internal error
constexpr int kExitInput = 2;         // bad command line, JSON, YAML or input file (one line per problem)
constexpr int kExitIncomplete = 3;    // the result file is incomplete (interrupted or running): resume it
constexpr int kExitNotResult = 4;     // `info`: the file is not a simpact result (not HDF5, or no schema)
constexpr int kExitInconsistent = 5;  // `check`: a state not consistent with the propagative model

// A JSON command's input file ("-": standard input). One that cannot be read is an input error
// (exit 2), like a bad JSON document.
inline std::string read_json_input(const std::string& path) {
  try {
    return read_text_input(path);
  } catch (const IoError& e) {
    std::string what = e.what();  // "input: cannot read ...": the field is named once
    if (what.rfind("input: ", 0) == 0) what.erase(0, 7);
    throw InputError("input", what);
  }
}

// The folder relative paths inside a JSON input are resolved from: the input file's own folder
// (empty for standard input: the working directory).
inline std::string input_folder(const std::string& path) {
  if (path.empty() || path == "-") return "";
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

// `-o ""` is a mistake (an empty shell variable), not "use the default": refused, naming the flag.
// So is a path that names a folder ("out.json/", "dir/.", ".."): refused while parsing, before any
// folder of it is created.
inline CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](std::string& path) {
        if (path.empty()) return std::string("must not be empty (give a file name)");
        const auto slash = path.rfind('/');
        const std::string last = slash == std::string::npos ? path : path.substr(slash + 1);
        if (last.empty() || last == "." || last == "..")
          return "must name a file, not a folder (got '" + path + "')";
        return std::string();
      },
      "FILE");
}

// A finite number > 0: CLI::PositiveNumber lets nan and inf through (nan <= 0 is false).
inline CLI::Validator positive_finite_number() {
  return CLI::Validator(
      [](std::string& text) {
        double v = 0.0;
        if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v) || v <= 0.0)
          return "must be a finite number > 0 (got '" + text + "')";
        return std::string();
      },
      "POSITIVE");
}

// The arguments every JSON command shares: INPUT, -o OUTPUT, --pretty.
struct JsonCommandArgs {
  std::string input = "-";
  std::string output;
  bool pretty = false;
  int indent() const { return pretty ? 2 : -1; }
};
// output_what: what -o writes; pretty_what: what --pretty indents (default: the same).
inline std::shared_ptr<JsonCommandArgs> add_json_command_arguments(CLI::App* sub,
                                                                   const std::string& input_what,
                                                                   const std::string& output_what,
                                                                   const std::string& pretty_what = "") {
  auto args = std::make_shared<JsonCommandArgs>();
  sub->add_option("input", args->input, input_what + " JSON file ('-' or absent: standard input)");
  sub->add_option("-o,--output", args->output,
                  "write the " + output_what +
                      " to this file instead of standard output (missing "
                      "folders are created)")
      ->check(non_empty_path());
  sub->add_flag("--pretty", args->pretty, "indent the " + (pretty_what.empty() ? output_what : pretty_what));
  return args;
}

// The exit codes of a JSON command (README "Exit codes"), for its --help; `one`: what else exits 1.
inline std::string json_command_exit_codes(const std::string& one = "") {
  return "Exit codes: 0 ok; 1 runtime failure (I/O, an output that cannot be written, internal" +
         (one.empty() ? std::string(")") : "; " + one + ")") +
         "; 2 input error (JSON, command line: one line per problem, no output file)";
}

CommandRunner add_resolve_command(CLI::App& app);
CommandRunner add_check_command(CLI::App& app);
CommandRunner add_run_command(CLI::App& app);
CommandRunner add_info_command(CLI::App& app);
CommandRunner add_merge_command(CLI::App& app);
CommandRunner add_models_command(CLI::App& app);
CommandRunner add_simulate_command(CLI::App& app);
CommandRunner add_analyze_command(CLI::App& app);
CommandRunner add_design_command(CLI::App& app);

}  // namespace simpact::app
