#include "simpact/audit/engine_catalog.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "engines.hpp"
#include "simpact/core/input_error.hpp"

namespace simpact {

double EngineSettings::option(const std::string& name, const std::vector<EngineOption>& known) const {
  const auto it = options.find(name);
  if (it != options.end()) return it->second;
  for (const EngineOption& o : known)
    if (o.name == name) return o.default_value;
  throw std::logic_error("engine option '" + name + "' is not declared");
}

void check_engine_settings(const PhysicsEngine& engine, const EngineSettings& settings,
                           const std::string& field) {
  if (!(std::isfinite(settings.rate_hz) && settings.rate_hz > 0))
    throw InputError(field + ".rates",
                     fmt::format("a step rate must be finite and > 0 Hz, got {}", settings.rate_hz));
  for (const auto& [name, value] : settings.options) {
    std::vector<std::string> names;
    bool found = false;
    for (const EngineOption& o : engine.options()) {
      names.push_back(o.name);
      found = found || o.name == name;
    }
    if (!found)
      throw InputError(field + ".options." + name, fmt::format("engine '{}' has no setting '{}' (it has: {})",
                                                               engine.name(), name, fmt::join(names, ", ")));
    if (!std::isfinite(value) || value < 0)
      throw InputError(field + ".options." + name, fmt::format("must be finite and ≥ 0, got {}", value));
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
