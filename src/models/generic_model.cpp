#include "simpact/models/generic_model.hpp"

#include "simpact/core/input_error.hpp"

namespace simpact {

ImpactProblem make_generic_problem(const GenericImpactInput& input) {
  KineticMetric metric(input.mass_matrix);
  const bool has_p = input.momentum.size() > 0, has_v = input.velocity.size() > 0;
  if (has_p == has_v) throw InputError("momentum", "give exactly one of 'momentum' and 'velocity'");
  Eigen::VectorXd momentum;
  if (has_v) {
    if (input.velocity.size() != input.mass_matrix.rows())
      throw InputError("velocity", "must have length d (the size of mass_matrix)");
    if (!input.velocity.allFinite()) throw InputError("velocity", "must be finite (found NaN or Inf)");
    momentum = input.mass_matrix * input.velocity;
  } else {
    momentum = input.momentum;
  }
  return ImpactProblem(std::move(metric), input.normals, momentum, input.restitution, input.gaps,
                       input.gap_tolerance);
}

}  // namespace simpact
