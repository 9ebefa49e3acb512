#include "simpact/models/mechanism_family.hpp"

#include <fmt/format.h>

#include <cmath>

#include "simpact/core/input_error.hpp"

namespace simpact {

bool MechanismFamily::needs_dynamic_sizes(const ParameterSet& params) const {
  FamilyScratch scratch;
  ImpactTerms terms;
  PreImpact pre;
  impact_at(params, scratch, terms, pre, nullptr);
  return !impact_fits_fixed_sizes(terms, pre);
}

ImpactProblem MechanismFamily::make_problem(const ParameterSet& params) const {
  FamilyScratch scratch;
  ImpactTerms terms;
  PreImpact pre;
  impact_at(params, scratch, terms, pre, nullptr);
  if (!impact_fits_fixed_sizes(terms, pre))
    throw InputError(size_parameter(),
                     fmt::format("{}: an impact of {} velocities and {} contacts is beyond the fixed path "
                                 "(at most {} and {}): make_dynamic_problem builds it",
                                 name(), terms.dof(), terms.normals.rows(), kMaxDof, kMaxContacts));
  return impact_problem_at<FixedSizes>(terms, pre);
}

DynamicImpactProblem MechanismFamily::make_dynamic_problem(const ParameterSet& params) const {
  FamilyScratch scratch;
  ImpactTerms terms;
  PreImpact pre;
  impact_at(params, scratch, terms, pre, nullptr);
  return impact_problem_at<DynamicSizes>(terms, pre);
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

}  // namespace simpact
