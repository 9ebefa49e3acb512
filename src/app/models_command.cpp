// simpact models [NAME] [--json] [--simulate]: the models a config or a `resolve` request can
// name (with --simulate: the time-stepping models of `simulate:` and `simpact simulate`), and each
// model's parameters (units, default, allowed range), straight from the model catalogue — the
// same ParameterInfo the config loader checks values against.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>

#include "commands.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/models/dynamic_models.hpp"
#include "simpact/models/model_catalog.hpp"
#include "simpact/models/mujoco_mechanism.hpp"
#include "simpact/models/test_functions.hpp"
#include "simpact/study/sweep_setup.hpp"

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

// Time-stepping models (their own catalogue: the same names can mean other parameters).
std::string simulate_note(const std::string& name) {
  if (name == "trex")
    return "simulate: force_split 1 (or \"newton\": {\"force_split\": 1}) for the stiff hip damping; "
           "gait 1/2 builds Fig. 8's stances. See docs/trex.md.";
  return "";
}

struct Catalog {
  std::vector<std::string> names;
  std::function<std::vector<ParameterInfo>(const std::string&)> parameters;
  std::string (*note)(const std::string&);
  const char* flag;  // how to name one model on the command line
};

bool names_a_file(const std::string& name) {
  auto ends_with = [&](const char* suffix) {
    const std::string s = suffix;
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends_with(".xml") || ends_with(".urdf") || ends_with(".mjcf") || name.find('/') != std::string::npos;
}

// `simpact models FILE.xml`: the file's joints, bodies and geoms, and the parameters a config or
// request can set (named by what they set).
int mechanism_file(const std::string& file, bool json) {
  MechanismSpec spec;
  spec.file = file;
  spec.field = "model";
  const MujocoMechanism mechanism(spec);
  const auto elements = mechanism.elements();
  const auto& parameters = mechanism.parameters();
  std::string out;
  if (json) {
    out = fmt::format("{{{}: {{\"nq\": {}, \"nv\": {}, \"elements\": [", json_string(file), mechanism.nq(),
                      mechanism.nv());
    for (std::size_t i = 0; i < elements.size(); ++i)
      out += fmt::format("{}{{\"kind\": {}, \"name\": {}, \"type\": {}, \"id\": {}}}", i ? ", " : "",
                         json_string(elements[i].kind), json_string(elements[i].name),
                         json_string(elements[i].type), elements[i].id);
    out += "], \"parameters\": [";
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const auto& p = parameters[i];
      out += fmt::format(
          "{}{{\"name\": {}, \"units\": {}, \"long_name\": {}, \"default\": {}, \"min\": {}, "
          "\"max\": {}}}",
          i ? ", " : "", json_string(p.name), json_string(p.units), json_string(p.long_name),
          json_number(p.default_value), json_number(p.min), json_number(p.max));
    }
    out += "]}}\n";
  } else {
    out = fmt::format("mechanism {}: nq = {}, nv = {} (momenta and velocities in qvel coordinates)\n", file,
                      mechanism.nq(), mechanism.nv());
    for (const std::string kind : {"joint", "body", "geom"}) {
      out += fmt::format("  {}:", kind == "body" ? "bodies" : kind + "s");
      for (const auto& e : elements)
        if (e.kind == kind)
          out += fmt::format(" {}{}", e.name.empty() ? fmt::format("#{}", e.id) : e.name,
                             e.type.empty() ? "" : " (" + e.type + ")");
      out += "\n";
    }
    out +=
        fmt::format("  {:<22} {:<8} {:<10} {:<22} {}\n", "parameter", "units", "default", "range", "meaning");
    for (const auto& p : parameters)
      out += fmt::format("  {:<22} {:<8} {:<10} {:<22} {}\n", p.name, p.units, bound(p.default_value),
                         fmt::format("[{}, {}]", bound(p.min), bound(p.max)), p.long_name);
    out +=
        "  contacts are geom pairs: model: {file: ..., contacts: [[geom_a, geom_b], ...]} "
        "(docs/mechanisms.md)\n";
  }
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

int models(const std::string& name, bool json, bool simulate) {
  if (!simulate && names_a_file(name)) return mechanism_file(name, json);
  const Catalog catalog =
      simulate ? Catalog{dynamic_model_names(), dynamic_model_parameters, simulate_note,
                         "simpact models --simulate"}
               : Catalog{sweep_model_names(), sweep_model_parameters, model_note, "simpact models"};
  const auto& names = catalog.names;
  if (!name.empty()) {
    bool known = false;
    for (const auto& n : names) known = known || n == name;
    if (!known) {
      std::string allowed;
      for (const auto& n : names) allowed += (allowed.empty() ? "" : ", ") + n;
      const std::string near = nearest_name(name, names);
      throw InputError("model", fmt::format("unknown model '{}' ({}allowed: {})", name,
                                            near.empty() ? "" : "did you mean '" + near + "'?; ", allowed));
    }
  }
  std::string out = json ? "{" : "";
  bool first_model = true;
  for (const auto& model_name : names) {
    if (!name.empty() && model_name != name) continue;
    const auto parameters = catalog.parameters(model_name);
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
      out += fmt::format("], \"note\": {}}}", json_string(catalog.note(model_name)));
    } else if (name.empty()) {
      out += fmt::format("{:<10} {} parameters ({} {})\n", model_name, parameters.size(), catalog.flag,
                         model_name);
    } else {
      out += fmt::format("model {}: {} parameters\n", model_name, parameters.size());
      out += fmt::format("  {:<12} {:<12} {:<10} {:<22} {}\n", "parameter", "units", "default", "range",
                         "meaning");
      for (const auto& p : parameters)
        out += fmt::format("  {:<12} {:<12} {:<10} {:<22} {}\n", p.name, p.units,
                           std::isnan(p.default_value) ? "required" : bound(p.default_value),
                           fmt::format("[{}, {}]{}", bound(p.min), bound(p.max), p.integer ? " integer" : ""),
                           p.long_name);
      if (const std::string note = catalog.note(model_name); !note.empty()) out += "  note: " + note + "\n";
    }
    first_model = false;
  }
  if (json) out += "}\n";
  if (!json && name.empty() && !simulate) {
    std::string dynamic;
    for (const auto& n : dynamic_model_names()) dynamic += (dynamic.empty() ? "" : ", ") + n;
    out += fmt::format(
        "time-stepping models (simulate:, simpact simulate): {} (simpact models --simulate [NAME])\n",
        dynamic);
  }
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace

CommandRunner add_models_command(CLI::App& app) {
  auto name = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto simulate = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("models",
                                 "list the models, or one model's parameters: units, default, allowed range");
  cmd->add_option(
      "name", *name,
      "a model (billiards, cradle, trex, ishigami, sobol_g), or a mechanism file (robot.xml, .urdf): "
      "show its parameters (a file: also its joints, bodies and geoms)");
  cmd->add_flag("--json", *json, "machine-readable output");
  cmd->add_flag("--simulate", *simulate,
                "the time-stepping models (a config's simulate: section, simpact simulate) instead");
  return [name, json, simulate] { return models(*name, *json, *simulate); };
}

}  // namespace simpact::app
