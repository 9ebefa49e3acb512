#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "simpact/core/input_error.hpp"
#include "simpact/io/config_expression.hpp"
#include "simpact/sweep/sensitivity_design.hpp"
#include "sweep_config_parser.hpp"

namespace simpact::detail {

const ParameterInfo* ConfigParser::lookup(const std::string& name, const std::string& path) {
  if (!have_catalog_) return nullptr;
  for (const auto& info : parameters_)
    if (info.name == name) return &info;
  // A built-in scenario's parameter the other constructor reads (the registry's other view):
  // say so rather than guess a near name.
  std::vector<ParameterInfo> other;
  const bool stepping = config_.simulate.has_value();
  const bool listed =
      !config_.mechanism && (stepping ? catalog_ && catalog_(config_.model, other)
                                      : dynamic_.parameters && contains(dynamic_.models, config_.model) &&
                                            dynamic_.parameters(config_.model, other));
  if (listed &&
      std::any_of(other.begin(), other.end(), [&name](const ParameterInfo& p) { return p.name == name; })) {
    error(path, stepping
                    ? fmt::format("'{}' is read by the impact model '{}' (model: {}), not by its "
                                  "time-stepping model (`simpact models {}` says which reads what)",
                                  name, config_.model, config_.model, config_.model)
                    : fmt::format("'{}' is read by the time-stepping model '{}' (simulate: {{model: {}}}), "
                                  "not by its impact model (`simpact models {}` says which reads what)",
                                  name, config_.model, config_.model, config_.model));
    return nullptr;
  }
  Names names;
  for (const auto& info : parameters_) names.push_back(info.name);
  const std::string near = nearest_name(name, names);
  if (!near.empty()) suggested_.insert(near);
  error(path, fmt::format("unknown parameter of model '{}' ({})", config_.model,
                          near.empty() ? "parameters: " + join(names) : "did you mean '" + near + "'?"));
  return nullptr;
}

void ConfigParser::claim(const std::string& name, const std::string& path, const std::string& section) {
  const auto [it, inserted] = section_of_.emplace(name, section);
  if (!inserted) {
    error(path, fmt::format("'{}' is already given in {} (a parameter is fixed, a grid axis or "
                            "random, only one of these)",
                            name, it->second));
  }
}

bool ConfigParser::in_range(double v, const ParameterInfo* info, const std::string& path) {
  if (info == nullptr) return true;
  if (v < info->min || v > info->max) {
    error(path, fmt::format("{} is outside the allowed range {}", number_text(v), range_text(*info)));
    return false;
  }
  if (info->integer && v != std::round(v)) {
    error(path, fmt::format("{} is not an integer ('{}' takes integer values)", number_text(v), info->name));
    return false;
  }
  return true;
}

void ConfigParser::parse_model(const YAML::Node* node) {
  if (node == nullptr) {
    error("model", known_models_.empty() ? std::string("required")
                                         : fmt::format("required (allowed: {})", join(known_models_)));
    return;
  }
  if (node->IsMap()) return parse_mechanism_model(*node);
  if (!node->IsScalar()) {
    error("model", fmt::format("must be a model name (allowed: {}) or a mechanism file {{file: robot.xml, "
                               "contacts: [[geom_a, geom_b], ...]}}",
                               join(known_models_)));
    return;
  }
  const auto name = text(*node, "model");
  if (!name) return;
  config_.model = *name;
  const bool listed = contains(known_models_, *name) || known_models_.empty();
  std::vector<ParameterInfo> parameters;
  if (listed && catalog_ && catalog_(*name, parameters)) {
    parameters_ = std::move(parameters);
    have_catalog_ = true;
    if (std::none_of(parameters_.begin(), parameters_.end(),
                     [](const ParameterInfo& p) { return p.name == "restitution"; })) {
      parameters_.push_back({"restitution", "1", "coefficient of restitution", 1.0, 0.0, 1.0});
    }
    return;
  }
  if (listed && !catalog_) return;  // no catalog: names are checked, parameters are not
  const std::string near = nearest_name(*name, known_models_);
  error("model", fmt::format("unknown model '{}' ({}allowed: {})", *name,
                             near.empty() ? "" : "did you mean '" + near + "'?; ", join(known_models_)));
}

void ConfigParser::parse_mechanism_model(const YAML::Node& node) {
  const MapView view = keys(node, "model", {"file", "contacts", "place", "gap_tolerance", "witnesses"});
  MechanismFileSpec spec;
  bool ok = true;
  if (const auto* file = view.get("file")) {
    if (const auto name = text(*file, "model.file"))
      spec.file =
          (!base_dir_.empty() && !name->empty() && name->front() != '/') ? base_dir_ + "/" + *name : *name;
    else
      ok = false;
  } else {
    error("model.file", "required (an MJCF or URDF file, relative to the config's folder)");
    ok = false;
  }
  const auto* contacts = view.get("contacts");
  if (contacts == nullptr || !contacts->IsSequence() || contacts->size() == 0) {
    error("model.contacts", "required: a non-empty list of [a, b] pairs of geom or body names");
    ok = false;
  } else {
    for (std::size_t c = 0; c < contacts->size(); ++c) {
      const std::string path = fmt::format("model.contacts[{}]", c);
      const YAML::Node pair = (*contacts)[c];
      if (!pair.IsSequence() || pair.size() != 2) {
        error(path, "must be a pair [a, b] of geom or body names");
        ok = false;
        continue;
      }
      const auto a = text(pair[0], path + "[0]"), b = text(pair[1], path + "[1]");
      if (a && b)
        spec.contacts.emplace_back(*a, *b);
      else
        ok = false;
    }
  }
  if (const auto* place = view.get("place")) {
    if (!place->IsSequence()) {
      error("model.place", "must be a list of coordinate names (qpos.<joint>)");
      ok = false;
    } else {
      for (std::size_t i = 0; i < place->size(); ++i)
        if (const auto name = text((*place)[i], fmt::format("model.place[{}]", i)))
          spec.place.push_back(*name);
        else
          ok = false;
    }
  }
  if (const auto* tol = view.get("gap_tolerance")) {
    const auto v = number(*tol, "model.gap_tolerance");
    if (v && *v >= 0.0)
      spec.gap_tolerance = *v;
    else {
      if (v) error("model.gap_tolerance", "must be a number >= 0");
      ok = false;
    }
  }
  if (const auto* witnesses = view.get("witnesses")) {
    const auto v = text(*witnesses, "model.witnesses");
    if (v && (*v == "all" || *v == "deepest"))
      spec.witnesses = *v;
    else {
      if (v) error("model.witnesses", fmt::format("must be 'all' or 'deepest' (got '{}')", *v));
      ok = false;
    }
  }
  config_.model = spec.file;
  if (!ok) return;
  if (!mechanisms_) {
    config_.mechanism = spec;  // no catalogue: parameters are not checked
    return;
  }
  try {
    std::vector<ParameterInfo> parameters;
    mechanisms_(spec, parameters);
    parameters_ = std::move(parameters);
    have_catalog_ = true;
    config_.mechanism = spec;
  } catch (const InputError& e) {
    const std::string field =
        e.field().rfind("mechanism", 0) == 0 ? "model" + e.field().substr(9) : e.field();
    error(field, std::string(e.what()).substr(e.field().size() + 2));
  }
}

void ConfigParser::parse_params(const YAML::Node* node) {
  if (node == nullptr || !is_section(*node, "params", "of parameter name to value")) return;
  if (node->IsNull()) return;
  for (const auto& [name, value] : entries(*node, "params").entries) {
    const std::string path = child("params", name);
    const ParameterInfo* info = lookup(name, path);
    claim(name, path, "params");
    const auto v = number(value, path);
    if (v && in_range(*v, info, path)) {
      config_.fixed.set(name, *v);
      config_.fixed_described.push_back(
          {name, info != nullptr ? info->units : "", info != nullptr ? info->long_name : "", {*v}});
    }
  }
}

void ConfigParser::check_required() {
  if (have_catalog_) {
    for (const auto& info : parameters_) {
      // A misspelled name already got "did you mean" for this parameter: one line is enough.
      if (std::isnan(info.default_value) && section_of_.count(info.name) == 0 &&
          suggested_.count(info.name) == 0 && !design_failed_) {
        error("params", fmt::format("missing required parameter '{}' of model '{}' (give it in "
                                    "params, grid or monte_carlo.params)",
                                    info.name, config_.model));
      }
    }
  }
  // Sizes: the task index g * R + r must fit comfortably in int64.
  double points = 1;
  for (const auto& axis : config_.grid) points *= static_cast<double>(axis.values.size());
  const double replicas = config_.design        ? static_cast<double>(design_size(*config_.design))
                          : config_.monte_carlo ? static_cast<double>(config_.monte_carlo->samples_per_point)
                                                : 1.0;
  if (points * replicas > static_cast<double>(kMaxTasks)) {
    error(config_.monte_carlo ? "monte_carlo" : "grid",
          fmt::format("{:g} grid points x {:g} samples per point is too many tasks (at most "
                      "2^62)",
                      points, replicas));
  }
}

}  // namespace simpact::detail
