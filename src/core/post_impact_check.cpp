#include "simpact/core/post_impact_check.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>

namespace simpact {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

PostImpactCheck check_post_impact_state(const ImpactProblem& problem, const DofVector& momentum_after,
                                        double tolerance, const ImpactResolution& resolution,
                                        const ImpactWorkspace& workspace) {
  PostImpactCheck c;
  const KineticMetric& metric = problem.metric();
  const double sq_after = std::max(0.0, metric.squared_norm(momentum_after));
  const double norm_before = problem.momentum_norm(), norm_after = std::sqrt(sq_after);
  // Everything is relative to ||p⁻||_g; with p⁻ = 0 fall back to ||p_after||_g so nothing divides by 0.
  const double scale = norm_before > 0.0 ? norm_before : (norm_after > 0.0 ? norm_after : 1.0);
  auto distance = [&](const DofVector& p) {
    const DofVector diff = momentum_after - p;
    return std::sqrt(std::max(0.0, metric.squared_norm(diff))) / scale;
  };

  c.energy_before = problem.energy_before();
  c.energy_after = 0.5 * sq_after;
  c.relative_energy_error =
      c.energy_before > 0.0 ? (c.energy_after - c.energy_before) / c.energy_before : kNaN;

  // Feasibility: <p_after,u_i>_g ≥ 0 on every closed contact (DESIGN §1).
  const int k = problem.contacts();
  const ContactVector& norms = problem.normal_norms();
  const ContactVector rates = problem.normals() * metric.velocity(momentum_after);
  for (int i = 0; i < k; ++i) {
    const double normalized = rates[i] / (scale * norms[i]);
    c.max_feasibility_violation = std::max(c.max_feasibility_violation, -normalized);
    if (normalized < -tolerance) c.feasibility_violations.push_back({problem.given_index(i), normalized});
  }

  // Implied impulses: min ||Δp − λᵀN||_g, normal equations A λ = N M⁻¹ Δpᵀ = c_after − c⁻. A may be
  // singular (dependent normals): the complete orthogonal decomposition gives the minimum-norm λ.
  const Eigen::MatrixXd gram = problem.gram();
  const Eigen::VectorXd rhs = rates - problem.initial_rates();
  // No closed contact: no impulse (Eigen's QR of a 0×0 matrix dereferences empty storage).
  const ContactVector lambda =
      k == 0 ? ContactVector(0) : ContactVector(gram.completeOrthogonalDecomposition().solve(rhs));
  c.impulse_residual = distance(problem.momentum_from_impulses(lambda));
  c.implied_impulses.assign(static_cast<std::size_t>(problem.given_contacts()), 0.0);
  for (int i = 0; i < k; ++i) {
    c.implied_impulses[static_cast<std::size_t>(problem.given_index(i))] = lambda[i];
    c.complementarity_residual =
        std::max(c.complementarity_residual, std::abs(lambda[i] * rates[i]) / (scale * scale));
    if (lambda[i] * norms[i] < -tolerance * scale) c.negative_impulses = true;
  }

  c.distance_to_nearest_outcome = kNaN;
  for (int j = 0; j < workspace.outcomes.size; ++j) {
    const double dj = distance(problem.momentum_from_impulses(workspace.outcomes.items[j].impulses));
    if (c.nearest_outcome < 0 || dj < c.distance_to_nearest_outcome) {
      c.distance_to_nearest_outcome = dj;
      c.nearest_outcome = j;
    }
  }
  c.distance_to_plastic = resolution.plastic_computed
                              ? distance(problem.momentum_from_impulses(resolution.plastic.impulses))
                              : kNaN;
  c.consistent_with_propagative_model =
      c.nearest_outcome >= 0 && c.distance_to_nearest_outcome <= kConsistencyTolerance;
  return c;
}

}  // namespace simpact
