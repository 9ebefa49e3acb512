// `simulate:` of a sweep config (docs/config.md "Time-stepped sweeps"): the tasks are
// time-stepped runs of a dynamic model — a built-in one named in simulate.model, or a mechanism
// file given as model: {file: ..., contacts: ...}. Its parameters are the model's own plus dt,
// restitution, simultaneity_tolerance and force_split (DynamicCatalog), so params:, grid: and
// monte_carlo: treat them like any impact model's; the section itself may fix those four.
#include <fmt/format.h>

#include "sweep_config_parser.hpp"

namespace simpact::detail {

namespace {
constexpr std::int64_t kMaxSimulateSteps = 1'000'000'000;
constexpr std::int64_t kMaxRecord = 100'000;
}  // namespace

void ConfigParser::parse_simulate(const YAML::Node& node, const YAML::Node* model) {
  const bool mechanism = model != nullptr && model->IsMap();
  if (model != nullptr && !mechanism)  // a mechanism file (a mapping) is time-stepped as it is
    error("model", "not used with simulate: (name the time-stepping model in simulate.model)");
  if (!node.IsMap()) {
    error("simulate", fmt::format("must be a mapping ({})", join(kSimulateKeys)));
    return;
  }
  if (dynamic_.models.empty() || !dynamic_.parameters) {
    error("simulate", "time-stepped sweeps are not available in this program");
    return;
  }
  const MapView view = keys(node, "simulate", kSimulateKeys);
  SimulateSpec spec;
  const auto* name_node = view.get("model");
  if (mechanism) {
    if (name_node != nullptr) error("simulate.model", "give simulate.model or model: {file: ...}, not both");
    parse_mechanism_model(*model);
    if (config_.mechanism && !config_.mechanism->place.empty())
      error("model.place",
            "not used with simulate: (the initial state is the task's qpos.* and qvel.*; place "
            "solves an impact configuration)");
    if (have_catalog_)
      parameters_.insert(parameters_.end(), dynamic_.integrator.begin(), dynamic_.integrator.end());
  } else if (name_node == nullptr || !name_node->IsScalar()) {
    error("simulate.model", fmt::format("required: a time-stepping model ({})", join(dynamic_.models)));
  } else if (const auto name = text(*name_node, "simulate.model")) {
    config_.model = *name;
    std::vector<ParameterInfo> parameters;
    if (contains(dynamic_.models, *name) && dynamic_.parameters(*name, parameters)) {
      parameters_ = std::move(parameters);
      have_catalog_ = true;
    } else {
      const std::string near = nearest_name(*name, dynamic_.models);
      error("simulate.model",
            fmt::format("unknown time-stepping model '{}' ({}allowed: {})", *name,
                        near.empty() ? "" : "did you mean '" + near + "'?; ", join(dynamic_.models)));
    }
  }
  const auto* steps = view.get("steps");
  const auto* t_end = view.get("t_end");
  if ((steps == nullptr) == (t_end == nullptr)) {
    error("simulate.steps", "give exactly one of steps, t_end (the length of every run)");
  } else if (steps != nullptr) {
    spec.steps = integer(*steps, "simulate.steps", 1, kMaxSimulateSteps,
                         fmt::format("must be an integer in 1..{} (steps of dt per run)", kMaxSimulateSteps))
                     .value_or(0);
  } else if (const auto v = number(*t_end, "simulate.t_end")) {
    if (*v > 0.0 && *v < kInf) {
      spec.t_end = *v;
    } else {
      error("simulate.t_end", fmt::format("{} must be a positive time [s]", number_text(*v)));
    }
  }
  if (const auto* record = view.get("record")) {
    spec.record = static_cast<int>(
        integer(*record, "simulate.record", 1, kMaxRecord,
                fmt::format("must be an integer in 1..{} (record + 1 equally spaced states per task)",
                            kMaxRecord))
            .value_or(0));
  }
  // dt, restitution, simultaneity_tolerance, force_split given here are fixed parameters (as under
  // params:).
  for (const auto& key : kSimulateParameterKeys) {
    const auto* value = view.get(key);
    if (value == nullptr) continue;
    const std::string path = child("simulate", key);
    const ParameterInfo* info = lookup(key, path);
    claim(key, path, "simulate");
    const auto v = number(*value, path);
    if (v && in_range(*v, info, path)) {
      config_.fixed.set(key, *v);
      config_.fixed_described.push_back(
          {key, info != nullptr ? info->units : "", info != nullptr ? info->long_name : "", {*v}});
    }
  }
  config_.simulate = spec;
}

void ConfigParser::check_simulate(const MapView& top) {
  // Settings of impact resolution sweeps a time-stepped sweep would silently ignore.
  for (const char* key : {"minimality", "limits"})
    if (top.get(key) != nullptr) error(key, "not used with simulate: (time-stepped sweeps)");
  if (config_.output.momenta)
    error("output.momenta", "not used with simulate: (ask for trajectories with simulate.record)");
  if (top.get("orderings") == nullptr) {
    config_.orderings = {OrderingPolicy::kArgmin, OrderingPolicy::kArgmax};
    return;
  }
  for (OrderingPolicy o : config_.orderings)
    if (o == OrderingPolicy::kAll)
      error("orderings",
            "'all' is not available with simulate: (each run follows one ordering; list single "
            "orderings, e.g. [argmin, argmax])");
}

}  // namespace simpact::detail
