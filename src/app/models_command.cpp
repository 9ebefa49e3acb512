// simpact models [NAME] [--json] [--simulate]: the built-in scenarios (models/scenario_registry.hpp)
// with their capabilities (impact, time stepping) and the test functions; one scenario's one
// parameter schema (units, default, allowed range, which constructor reads it) — the same
// ParameterInfo the config loader checks values against. --simulate: the time-stepping view
// alone (the parameters `simulate:` and `simpact simulate` take).
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
#include "simpact/models/scenario_registry.hpp"
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

// The length of the valid UTF-8 sequence at s[i] (1..4), or 0 for a byte that starts none (a raw
// Latin-1 byte, a truncated or overlong sequence, a surrogate).
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto byte = [&s](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  const std::size_t n = c >= 0xC2 && c <= 0xDF   ? 2
                        : c >= 0xE0 && c <= 0xEF ? 3
                        : c >= 0xF0 && c <= 0xF4 ? 4
                                                 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  const unsigned char c1 = byte(i + 1);
  if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) ||
      (c == 0xF4 && c1 > 0x8F))
    return 0;
  return n;
}

// A JSON string of `s`: quotes, backslashes and control characters escaped, and every byte that is
// not part of valid UTF-8 (a name in a Latin-1 MJCF) written as U+FFFD, so the document is valid
// UTF-8 JSON whatever the file's names hold.
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const std::size_t n = utf8_length(s, i);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    if (c == '"' || c == '\\')
      out += std::string("\\") + static_cast<char>(c);
    else if (c < 0x20 || c == 0x7F)
      out += fmt::format("\\u{:04x}", c);
    else
      out.append(s, i, n);
    i += n;
  }
  return out + "\"";
}

// Constraints that depend on more than one parameter (not expressible as a range).
std::string model_note(const std::string& name) {
  if (const Scenario* s = find_scenario(name)) return s->impact_note;
  if (is_test_function(name))
    return "a test function of sensitivity analysis, not an impact: one output y (/outputs/y, "
           "/samples/outputs_y); "
           "orderings, minimality and limits do not apply.";
  return "";
}

std::string simulate_note(const std::string& name) {
  const Scenario* s = find_scenario(name);
  return s != nullptr ? s->time_stepping_note : "";
}

std::string used_by(const ScenarioParameter& p) {
  return p.impact && p.time_stepping ? "both" : p.impact ? "impact" : "time stepping";
}

std::string parameter_json(const ParameterInfo& p) {
  return fmt::format(
      "\"name\": {}, \"units\": {}, \"long_name\": {}, \"default\": {}, \"min\": {}, \"max\": {}, "
      "\"integer\": {}, \"required\": {}",
      json_string(p.name), json_string(p.units), json_string(p.long_name), json_number(p.default_value),
      json_number(p.min), json_number(p.max), p.integer ? "true" : "false",
      std::isnan(p.default_value) ? "true" : "false");
}

std::string range_text(const ParameterInfo& p) {
  return fmt::format("[{}, {}]{}", bound(p.min), bound(p.max), p.integer ? " integer" : "");
}

std::string capabilities_text(const Scenario& s) {
  std::string out;
  if (s.has(Capability::kImpact)) out += "impact (model: " + s.name + ", simpact resolve)";
  if (s.has(Capability::kTimeStepping))
    out += std::string(out.empty() ? "" : "; ") + "time stepping (simulate: {model: " + s.name +
           "}, simpact simulate)";
  return out;
}

// One scenario of the registry: its one schema, each parameter with the capability that reads it.
std::string scenario_text(const Scenario& s, bool json) {
  if (json) {
    std::string out = fmt::format("{}: {{\"summary\": {}, \"capabilities\": [", json_string(s.name),
                                  json_string(s.summary));
    bool first = true;
    for (const auto& [c, label] :
         {std::pair{Capability::kImpact, "impact"}, std::pair{Capability::kTimeStepping, "time_stepping"}})
      if (s.has(c)) {
        out += fmt::format("{}\"{}\"", first ? "" : ", ", label);
        first = false;
      }
    out += "], \"parameters\": [";
    for (std::size_t i = 0; i < s.parameters.size(); ++i) {
      const ScenarioParameter& p = s.parameters[i];
      const ParameterInfo stepping = p.info_for(Capability::kTimeStepping);
      out +=
          fmt::format("{}{{{}, \"impact\": {}, \"time_stepping\": {}{}}}", i ? ", " : "",
                      parameter_json(p.info), p.impact ? "true" : "false", p.time_stepping ? "true" : "false",
                      p.time_stepping ? fmt::format(", \"time_stepping_min\": {}, \"time_stepping_max\": {}",
                                                    json_number(stepping.min), json_number(stepping.max))
                                      : "");
    }
    return out + fmt::format("], \"note\": {}, \"time_stepping_note\": {}}}", json_string(s.impact_note),
                             json_string(s.time_stepping_note));
  }
  std::string out = fmt::format("model {}: {} parameters — {}\n  capabilities: {}\n", s.name,
                                s.parameters.size(), s.summary, capabilities_text(s));
  out += fmt::format("  {:<12} {:<12} {:<10} {:<22} {:<14} {}\n", "parameter", "units", "default", "range",
                     "used by", "meaning");
  for (const ScenarioParameter& p : s.parameters)
    out += fmt::format("  {:<12} {:<12} {:<10} {:<22} {:<14} {}\n", p.info.name, p.info.units,
                       std::isnan(p.info.default_value) ? "required" : bound(p.info.default_value),
                       range_text(p.info), used_by(p), p.info.long_name);
  for (const ScenarioParameter& p : s.parameters)
    if (p.time_stepping && p.impact &&
        range_text(p.info_for(Capability::kTimeStepping)) != range_text(p.info))
      out += fmt::format("  time stepping takes {} in {}\n", p.info.name,
                         range_text(p.info_for(Capability::kTimeStepping)));
  if (s.has(Capability::kTimeStepping))
    out +=
        "  time stepping also takes the integrator's dt, restitution, simultaneity_tolerance, force_split\n";
  if (!s.impact_note.empty()) out += "  note: " + s.impact_note + "\n";
  if (!s.time_stepping_note.empty()) out += "  note: " + s.time_stepping_note + "\n";
  return out;
}

// Every scenario of the registry (impact-capable first), then the test functions.
std::vector<std::string> model_and_scenario_names() {
  std::vector<std::string> names;
  for (const Scenario& s : scenarios()) names.push_back(s.name);
  for (const auto& f : test_function_names()) names.push_back(f);
  return names;
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
      out += fmt::format("{}{{\"kind\": {}, \"name\": {}, \"type\": {}, \"id\": {}{}}}", i ? ", " : "",
                         json_string(elements[i].kind), json_string(elements[i].name),
                         json_string(elements[i].type), elements[i].id,
                         elements[i].kind == "geom" ? fmt::format(", \"body\": {}", elements[i].body) : "");
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
    const auto label = [](const MechanismElement& e) {
      return fmt::format("{}{}", e.name.empty() ? fmt::format("#{}", e.id) : e.name,
                         e.type.empty() ? "" : " (" + e.type + ")");
    };
    for (const std::string kind : {"joint", "body", "geom"}) {
      out += fmt::format("  {}:", kind == "body" ? "bodies" : kind + "s");
      for (const auto& e : elements)
        if (e.kind == kind) out += " " + label(e);
      out += "\n";
    }
    // Each body (a URDF link) with its geoms: a contact may name the body for all of them (URDF
    // geoms have no names: name the link).
    for (const auto& b : elements) {
      if (b.kind != "body") continue;
      std::string geoms;
      for (const auto& g : elements)
        if (g.kind == "geom" && g.body == b.id) geoms += (geoms.empty() ? "" : ", ") + label(g);
      if (!geoms.empty())
        out += fmt::format("  body {}: {}\n", b.name.empty() ? fmt::format("#{}", b.id) : b.name, geoms);
    }
    out +=
        fmt::format("  {:<22} {:<8} {:<10} {:<22} {}\n", "parameter", "units", "default", "range", "meaning");
    for (const auto& p : parameters)
      out += fmt::format("  {:<22} {:<8} {:<10} {:<22} {}\n", p.name, p.units, bound(p.default_value),
                         fmt::format("[{}, {}]", bound(p.min), bound(p.max)), p.long_name);
    out +=
        "  contacts are pairs of geoms or bodies (a body: all of its geoms; body:NAME forces a body): "
        "model: {file: ..., contacts: [[a, b], ...]} (docs/mechanisms.md)\n";
  }
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

int models(const std::string& name, bool json, bool simulate) {
  if (!simulate && names_a_file(name)) return mechanism_file(name, json);
  const Catalog catalog =
      simulate ? Catalog{dynamic_model_names(), dynamic_model_parameters, simulate_note,
                         "simpact models --simulate"}
               : Catalog{model_and_scenario_names(), sweep_model_parameters, model_note, "simpact models"};
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
  if (!json && name.empty() && !simulate)
    out += fmt::format("{:<10} {:<8} {:<14} {}\n", "model", "impact", "time stepping", "parameters");
  bool first_model = true;
  for (const auto& model_name : names) {
    if (!name.empty() && model_name != name) continue;
    const Scenario* scenario = simulate ? nullptr : find_scenario(model_name);
    const auto parameters =
        scenario != nullptr ? scenario->parameters_for(Capability::kImpact) : catalog.parameters(model_name);
    if (scenario != nullptr && json) {
      out += (first_model ? "" : ", ") + scenario_text(*scenario, true);
    } else if (scenario != nullptr && !name.empty()) {
      out += scenario_text(*scenario, false);
    } else if (!json && name.empty() && !simulate) {
      out += fmt::format("{:<10} {:<8} {:<14} {} (simpact models {})\n", model_name,
                         scenario == nullptr                  ? "function"
                         : scenario->has(Capability::kImpact) ? "yes"
                                                              : "-",
                         scenario != nullptr && scenario->has(Capability::kTimeStepping) ? "yes" : "-",
                         scenario != nullptr ? scenario->parameters.size() : parameters.size(), model_name);
    } else if (json) {
      out += fmt::format("{}{}: {{\"parameters\": [", first_model ? "" : ", ", json_string(model_name));
      bool first = true;
      for (const auto& p : parameters) {
        out += fmt::format("{}{{{}}}", first ? "" : ", ", parameter_json(p));
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
                           std::isnan(p.default_value) ? "required" : bound(p.default_value), range_text(p),
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
        "time-stepping models (simulate:, simpact simulate): {} (simpact models --simulate [NAME]: the "
        "time-stepping parameters alone)\n",
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
