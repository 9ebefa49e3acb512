#include "simpact/models/generic_model.hpp"

#include "simpact/core/input_error.hpp"
#include "simpact/models/impact_problem_at.hpp"

namespace simpact {

ImpactProblem make_generic_problem(const GenericImpactInput& input) {
  KineticMetric metric(input.mass_matrix);  // M's own errors first
  const bool has_p = input.momentum.size() > 0, has_v = input.velocity.size() > 0;
  if (has_p == has_v) throw InputError("momentum", "give exactly one of 'momentum' and 'velocity'");
  ImpactTerms terms;
  terms.mass = input.mass_matrix;
  terms.normals = input.normals;
  terms.gaps = input.gaps;
  terms.every_contact_closed = input.gaps.size() == 0;
  PreImpact pre;
  pre.momentum = input.momentum;
  pre.velocity = input.velocity;
  pre.restitution = input.restitution;
  pre.gap_tolerance = input.gap_tolerance;
  return impact_problem_at<FixedSizes>(terms, pre);
}

}  // namespace simpact
