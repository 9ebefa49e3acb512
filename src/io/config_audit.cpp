// `audit:` of a sweep config (docs/audit.md): which engines run every task's impact, at which
// step rates and settings, and the audit's tolerances. Engine and setting names are checked by
// the audit layer when the kernel is built (io knows no engines); shapes and numbers here.
#include <fmt/format.h>

#include <cmath>

#include "sweep_config_parser.hpp"

namespace simpact::detail {

void ConfigParser::check_audit(const MapView& top) {
  // Settings of impact sweeps an audit would silently ignore: it compares every engine with the
  // full outcome set of the propagative model (the core's default limits) and stores that.
  for (const char* key : {"orderings", "minimality", "limits"})
    if (top.get(key) != nullptr)
      error(key,
            "not used with audit: (an audit compares each engine with the full outcome set, "
            "ordering all, under the default limits)");
}

void ConfigParser::parse_audit(const YAML::Node& node) {
  if (!node.IsMap()) {
    error("audit", fmt::format("must be a mapping ({})", join(kAuditKeys)));
    return;
  }
  if (!config_.mechanism) error("audit", "needs model: {file: ..., contacts: [...]} (a mechanism file)");
  if (config_.simulate) error("audit", "not used with simulate:");
  const MapView view = keys(node, "audit", kAuditKeys);
  AuditSpec spec;
  auto positive = [&](const char* key, double& out) {
    if (const auto* value = view.get(key)) {
      const std::string path = child("audit", key);
      if (const auto v = number(*value, path)) {
        if (*v > 0 && *v < kInf)
          out = *v;
        else
          error(path, fmt::format("{} must be finite and > 0", number_text(*v)));
      }
    }
  };
  positive("time_limit", spec.time_limit);
  positive("rest_tolerance", spec.rest_tolerance);
  positive("inside_tolerance", spec.inside_tolerance);
  if (const auto* value = view.get("end_steps")) {
    const std::string path = child("audit", "end_steps");
    if (const auto v = number(*value, path)) {
      if (*v >= 1 && *v <= 1000 && *v == std::floor(*v))
        spec.end_steps = static_cast<int>(*v);
      else
        error(path, fmt::format("{} is not an integer in [1, 1000]", number_text(*v)));
    }
  }
  const auto* engines = view.get("engines");
  if (engines == nullptr || !engines->IsSequence() || engines->size() == 0) {
    error("audit.engines",
          "required: a list of {engine: mujoco|bullet|ode, rates: [Hz, ...], options: {...}}");
    return;
  }
  for (std::size_t i = 0; i < engines->size(); ++i) {
    const std::string path = fmt::format("audit.engines[{}]", i);
    const YAML::Node entry = (*engines)[i];
    if (!entry.IsMap()) {
      error(path, fmt::format("must be a mapping ({})", join(kAuditEngineKeys)));
      continue;
    }
    const MapView e = keys(entry, path, kAuditEngineKeys);
    AuditEngineSpec engine;
    const auto* name = e.get("engine");
    if (name == nullptr) {
      error(child(path, "engine"), "required: mujoco, bullet or ode");
    } else if (const auto t = text(*name, child(path, "engine"))) {
      engine.engine = *t;
    }
    engine.label = engine.engine;
    if (const auto* label = e.get("label"))
      if (const auto t = text(*label, child(path, "label"))) engine.label = *t;
    const auto* rates = e.get("rates");
    if (rates == nullptr) {
      error(child(path, "rates"), "required: step rates [Hz], e.g. [60, 600, 6000]");
    } else if (const auto list = number_list(*rates, child(path, "rates"))) {
      for (double r : *list)
        if (!(r > 0 && r < kInf))
          error(child(path, "rates"), fmt::format("{} is not a step rate > 0 Hz", number_text(r)));
      engine.rates = *list;
      if (list->empty()) error(child(path, "rates"), "needs at least one step rate");
    }
    if (const auto* options = e.get("options")) {
      if (!options->IsMap()) {
        error(child(path, "options"), "must be a mapping of engine settings");
      } else {
        for (const auto& [key, value] : entries(*options, child(path, "options")).entries)
          if (const auto v = number(value, child(child(path, "options"), key)))
            engine.options.emplace_back(key, *v);
      }
    }
    for (const auto& other : spec.engines)
      if (other.label == engine.label && !engine.label.empty())
        error(child(path, "label"),
              fmt::format("'{}' names two engine entries: give each a label", engine.label));
    spec.engines.push_back(std::move(engine));
  }
  config_.audit = std::move(spec);
}

}  // namespace simpact::detail
