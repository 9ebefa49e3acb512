#include "simpact/models/impact_model.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "simpact/core/input_error.hpp"

namespace simpact {

bool ImpactModel::needs_dynamic_sizes(const ParameterSet& /*params*/) const {
  return false;
}

DynamicImpactProblem ImpactModel::make_dynamic_problem(const ParameterSet& /*params*/) const {
  throw std::logic_error("model '" + name() + "' has no dynamic-size path");
}

ParameterInfo restitution_parameter() {
  return {"restitution", "1", "energy-based coefficient of restitution R (eq. 16)", 1.0, 0.0, 1.0, false};
}

double read_parameter(const ParameterSet& params, const ParameterInfo& info) {
  const bool given = params.has(info.name);
  return check_parameter(info, given, given ? params.get(info.name, 0.0) : 0.0);
}

double check_parameter_fully(const ParameterInfo& info, bool given, double value) {
  const double v = given ? value : info.default_value;
  if (std::isnan(v) && !given) throw InputError(info.name, "required parameter is missing");
  if (!std::isfinite(v)) throw InputError(info.name, "must be finite");
  if (v < info.min || v > info.max)
    throw InputError(info.name,
                     fmt::format("{} is outside the allowed range [{}, {}]", v, info.min, info.max));
  if (info.integer && v != std::round(v))
    throw InputError(info.name, fmt::format("{} must be an integer", v));
  return v;
}

ImpactProblem ImpactModel::build(const ParameterSet& params, ParameterBinding& /*binding*/,
                                 ImpactSystem& system) const {
  const ImpactProblem problem = make_problem(params);
  system = problem.system();
  return ImpactProblem(system, problem.momentum(), problem.restitution());
}

}  // namespace simpact
