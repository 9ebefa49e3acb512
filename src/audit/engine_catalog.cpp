#include "simpact/audit/engine_catalog.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <stdexcept>

#include "engines.hpp"
#include "simpact/core/input_error.hpp"

namespace simpact {

namespace {

bool allowed(const EngineOption& o, double value) {
  if (!(value >= o.min && value <= o.max)) return false;  // NaN too
  return o.kind == EngineOption::Kind::kReal || value == std::floor(value);
}

}  // namespace

std::string allowed_values(const EngineOption& o) {
  switch (o.kind) {
    case EngineOption::Kind::kSwitch:
      return "0 or 1";
    case EngineOption::Kind::kInteger:
      return fmt::format("an integer in [{:g}, {:g}]", o.min, o.max);
    case EngineOption::Kind::kReal:
      break;
  }
  return fmt::format("a number in [{:g}, {:g}]", o.min, o.max);
}

double EngineSettings::option(const std::string& name, const std::vector<EngineOption>& known) const {
  for (const EngineOption& o : known) {
    if (o.name != name) continue;
    const auto it = options.find(name);
    if (it == options.end()) return o.default_value;
    if (!allowed(o, it->second))
      throw std::invalid_argument(
          fmt::format("engine option '{}' = {:g} is not {}", name, it->second, allowed_values(o)));
    return it->second;
  }
  throw std::logic_error("engine option '" + name + "' is not declared");
}

void check_engine_settings(const PhysicsEngine& engine, const EngineSettings& settings,
                           const std::string& field) {
  if (!(std::isfinite(settings.rate_hz) && settings.rate_hz > 0))
    throw InputError(field + ".rates",
                     fmt::format("a step rate must be finite and > 0 Hz, got {}", settings.rate_hz));
  for (const auto& [name, value] : settings.options) {
    std::vector<std::string> names;
    const EngineOption* found = nullptr;
    for (const EngineOption& o : engine.options()) {
      names.push_back(o.name);
      if (o.name == name) found = &o;
    }
    if (found == nullptr)
      throw InputError(field + ".options." + name, fmt::format("engine '{}' has no setting '{}' (it has: {})",
                                                               engine.name(), name, fmt::join(names, ", ")));
    if (!allowed(*found, value))
      throw InputError(field + ".options." + name,
                       fmt::format("{:g} is not {} ({}: {})", value, allowed_values(*found), engine.name(),
                                   found->description));
  }
}

const std::vector<std::string>& known_engine_names() {
  static const std::vector<std::string> names = {"mujoco", "bullet", "ode"};
  return names;
}

std::vector<std::string> available_engine_names() {
  std::vector<std::string> names = {"mujoco"};
#ifdef SIMPACT_HAVE_BULLET
  names.push_back("bullet");
#endif
#ifdef SIMPACT_HAVE_ODE
  names.push_back("ode");
#endif
  return names;
}

std::unique_ptr<PhysicsEngine> make_engine(const std::string& name, const std::string& field) {
  if (name == "mujoco") return make_mujoco_engine();
#ifdef SIMPACT_HAVE_BULLET
  if (name == "bullet") return make_bullet_engine();
#endif
#ifdef SIMPACT_HAVE_ODE
  if (name == "ode") return make_ode_engine();
#endif
  for (const std::string& known : known_engine_names())
    if (known == name)
      throw InputError(field,
                       fmt::format("engine '{}' was left out of this build (its package was missing at "
                                   "build time; scripts/install-deps.sh installs it)",
                                   name));
  throw InputError(
      field, fmt::format("unknown engine '{}' (known: {})", name, fmt::join(known_engine_names(), ", ")));
}

}  // namespace simpact
