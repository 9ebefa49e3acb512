// simpact models [NAME] [--json]: the models a config or a `resolve` request can name, and each
// model's parameters (units, default, allowed range), straight from the model catalogue — the
// same ParameterInfo the config loader checks values against.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "commands.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/models/model_catalog.hpp"
#include "simpact/models/test_functions.hpp"
#include "sweep_setup.hpp"

namespace simpact::app {

namespace {

std::string bound(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v > 0 && v < 1e-100) return "0+";  // "strictly positive" (1e-300 in the catalogue)
  return fmt::format("{:.6g}", v);
}

std::string json_number(double v) {
  if (std::isnan(v)) return "null";
  if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
  return fmt::format("{:.17g}", v);
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Constraints that depend on more than one parameter (not expressible as a range).
std::string model_note(const std::string& name) {
  if (name == "billiards")
    return "theta must also be at least the smallest admissible angle, where balls a and b touch "
           "(pi/3 for equal radii; larger cue ball -> smaller angle).";
  if (name == "cradle") return "balls n+1..9 must not be given (m7 with n = 3 is an error).";
  if (name == "trex")
    return "r2 must be below r1; y and theta are solved so the chosen foot and the tail tip touch the floor "
           "(a posture that cannot be placed, or puts the other foot on the floor, is inadmissible: "
           "on_task_error: record). See docs/trex.md.";
  if (is_test_function(name))
    return "a test function of sensitivity analysis, not an impact: one output y (/outputs/y, "
           "/samples/outputs_y); "
           "orderings, minimality and limits do not apply.";
  return "";
}

int models(const std::string& name, bool json) {
  const auto names = sweep_model_names();
  if (!name.empty()) {
    bool known = false;
    for (const auto& n : names) known = known || n == name;
    if (!known) {
      std::string allowed;
      for (const auto& n : names) allowed += (allowed.empty() ? "" : ", ") + n;
      throw InputError("model", fmt::format("unknown model '{}' (allowed: {})", name, allowed));
    }
  }
  std::string out = json ? "{" : "";
  bool first_model = true;
  for (const auto& model_name : names) {
    if (!name.empty() && model_name != name) continue;
    const auto parameters = sweep_model_parameters(model_name);
    if (json) {
      out += fmt::format("{}{}: {{\"parameters\": [", first_model ? "" : ", ", json_string(model_name));
      bool first = true;
      for (const auto& p : parameters) {
        out += fmt::format(
            "{}{{\"name\": {}, \"units\": {}, \"long_name\": {}, \"default\": {}, \"min\": {}, \"max\": {}, "
            "\"integer\": {}, \"required\": {}}}",
            first ? "" : ", ", json_string(p.name), json_string(p.units), json_string(p.long_name),
            json_number(p.default_value), json_number(p.min), json_number(p.max),
            p.integer ? "true" : "false", std::isnan(p.default_value) ? "true" : "false");
        first = false;
      }
      out += fmt::format("], \"note\": {}}}", json_string(model_note(model_name)));
    } else if (name.empty()) {
      out += fmt::format("{:<10} {} parameters (simpact models {})\n", model_name, parameters.size(),
                         model_name);
    } else {
      out += fmt::format("model {}: {} parameters\n", model_name, parameters.size());
      out += fmt::format("  {:<12} {:<7} {:<10} {:<22} {}\n", "parameter", "units", "default", "range",
                         "meaning");
      for (const auto& p : parameters)
        out += fmt::format("  {:<12} {:<7} {:<10} {:<22} {}\n", p.name, p.units,
                           std::isnan(p.default_value) ? "required" : bound(p.default_value),
                           fmt::format("[{}, {}]{}", bound(p.min), bound(p.max), p.integer ? " integer" : ""),
                           p.long_name);
      if (const std::string note = model_note(model_name); !note.empty()) out += "  note: " + note + "\n";
    }
    first_model = false;
  }
  if (json) out += "}\n";
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace

CommandRunner add_models_command(CLI::App& app) {
  auto name = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("models",
                                 "list the models, or one model's parameters: units, default, allowed range");
  cmd->add_option("name", *name, "a model (billiards, cradle, ishigami, sobol_g): show its parameters");
  cmd->add_flag("--json", *json, "machine-readable output");
  return [name, json] { return models(*name, *json); };
}

}  // namespace simpact::app
