#include "simpact/models/model_catalog.hpp"

#include "simpact/core/input_error.hpp"
#include "simpact/models/scenario_registry.hpp"

namespace simpact {

std::vector<std::string> model_names() {
  return scenario_names(Capability::kImpact);
}

std::unique_ptr<MechanismFamily> make_model(const std::string& name) {
  const Scenario* s = find_scenario(name);
  if (s != nullptr && s->has(Capability::kImpact)) return s->impact();
  std::string allowed;
  for (const auto& n : model_names()) allowed += (allowed.empty() ? "" : ", ") + n;
  throw InputError("model", "unknown model '" + name + "' (allowed: " + allowed + ")");
}

}  // namespace simpact
