#include "simpact/core/post_impact_check.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "simpact/core/plastic_impact.hpp"

namespace simpact {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The check's scale: ||p⁻||_g, or ||p_after||_g when p⁻ = 0 (1 when both vanish).
template <typename S>
double check_scale(const BasicImpactProblem<S>& problem, const typename S::DofVector& momentum_after) {
  const double before = problem.momentum_norm();
  if (before > 0.0) return before;
  const double after = problem.metric().norm(momentum_after);
  return after > 0.0 ? after : 1.0;
}

// y = L⁻¹p (so <a,b>_g = (L⁻¹a)·(L⁻¹b)).
template <typename S>
typename S::DofVector whitened(const BasicKineticMetric<S>& metric, const typename S::DofVector& p) {
  typename S::DofVector y = p;
  metric.whiten_in_place(y);
  return y;
}
}  // namespace

int significant_digits(double x) {
  if (x == 0.0 || !std::isfinite(x)) return 0;
  char buf[40];
  for (int digits = 1; digits < 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, x);
    if (std::strtod(buf, nullptr) == x) return digits;
  }
  return 17;  // every double reads back from 17 significant digits
}

template <typename S>
PrintedPrecision printed_precision(const BasicImpactProblem<S>& problem,
                                   const Eigen::Ref<const Eigen::VectorXd>& printed, bool velocity) {
  using DofVector = typename S::DofVector;
  PrintedPrecision out;
  const BasicKineticMetric<S>& metric = problem.metric();
  const int d = metric.dof();
  int shown = 0;
  for (Eigen::Index i = 0; i < printed.size(); ++i) shown = std::max(shown, significant_digits(printed[i]));
  out.digits = std::clamp(shown, kMinAssumedSignificantDigits, 17);
  const double half_unit = 0.5 * std::pow(10.0, 1 - out.digits);  // relative rounding of one number
  const typename S::DofMatrix& mass = metric.mass_matrix();
  DofVector momentum_after(d);
  if (velocity)
    momentum_after = mass * DofVector(printed);
  else
    momentum_after = printed;
  double bound = 0.0;
  for (int i = 0; i < d; ++i) {
    // ||e_i||_g for a momentum component; √M_ii for a velocity component (δp = M δv_i e_i).
    double axis = 0.0;
    if (velocity) {
      axis = std::sqrt(mass(i, i));
    } else {
      DofVector e = DofVector::Zero(d);
      e[i] = 1.0;
      axis = metric.norm(e);
    }
    bound += half_unit * std::abs(printed[i]) * axis;
  }
  out.relative_rounding = bound / check_scale<S>(problem, momentum_after);
  out.consistency_tolerance =
      std::max(kMinConsistencyTolerance, kRoundingSafetyFactor * out.relative_rounding);
  return out;
}

template <typename S>
PostImpactCheck check_post_impact_state(const BasicImpactProblem<S>& problem,
                                        const typename S::DofVector& momentum_after, double tolerance,
                                        double consistency_tolerance,
                                        const BasicImpactResolution<S>& resolution,
                                        const BasicImpactWorkspace<S>& workspace) {
  using DofVector = typename S::DofVector;
  using ContactVector = typename S::ContactVector;
  PostImpactCheck c;
  const BasicKineticMetric<S>& metric = problem.metric();
  // Everything is relative to ||p⁻||_g; with p⁻ = 0 fall back to ||p_after||_g so nothing divides by 0.
  const double scale = check_scale<S>(problem, momentum_after);
  auto distance = [&](const DofVector& p) { return problem.distance(momentum_after, p) / scale; };

  c.energy_before = problem.energy_before();
  c.energy_after = problem.energy(momentum_after);
  c.relative_energy_error =
      c.energy_before > 0.0 ? (c.energy_after - c.energy_before) / c.energy_before : kNaN;

  // Feasibility: <p_after,u_i>_g ≥ 0 on every closed contact (DESIGN §1), as b_i·L⁻¹p_after.
  const int k = problem.contacts();
  const ContactVector& norms = problem.normal_norms();
  const typename S::DofByContact& b = problem.whitened_normals();
  const DofVector y_after = whitened<S>(metric, momentum_after);
  const ContactVector rates = k == 0 ? ContactVector(0) : ContactVector(b.transpose() * y_after);
  for (int i = 0; i < k; ++i) {
    const double normalized = rates[i] / (scale * norms[i]);
    c.max_feasibility_violation = std::max(c.max_feasibility_violation, -normalized);
    if (normalized < -tolerance) c.feasibility_violations.push_back({problem.given_index(i), normalized});
  }

  // Implied impulses, in whitened coordinates (never the Gram form): with z = L⁻¹Δp,
  //   unconstrained  min_λ |z − Bλ|     (minimum-norm λ by a complete orthogonal decomposition of B),
  //   non-negative   min_λ≥0 |−z + Bλ|  (Lawson–Hanson, residual from its QR projection).
  // Dependent normals make λ non-unique: a state is "pulling" only when no λ ≥ 0 reproduces Δp
  // as well as an unconstrained λ does.
  const DofVector z = whitened<S>(metric, DofVector(momentum_after - problem.momentum()));
  ContactVector lambda_ls = ContactVector::Zero(k), lambda_nn = ContactVector::Zero(k);
  double residual_ls = z.norm(), residual_nn = z.norm();
  if (k > 0) {  // Eigen's QR of an empty matrix dereferences empty storage
    const Eigen::MatrixXd bd = b;
    lambda_ls = ContactVector(bd.completeOrthogonalDecomposition().solve(Eigen::VectorXd(z)));
    residual_ls = (Eigen::VectorXd(z) - bd * Eigen::VectorXd(lambda_ls)).norm();
    const double nn_tol = 1e-13 * std::max(z.norm(), scale) * norms.maxCoeff();
    const BasicNonnegativeLeastSquares<S> nn = solve_nonnegative_least_squares<S>(b, DofVector(-z), nn_tol);
    lambda_nn = nn.x;
    residual_nn = nn.y.norm();
  }
  c.impulse_residual = residual_ls / scale;
  c.nonnegative_impulse_residual = residual_nn / scale;
  c.negative_impulses = c.nonnegative_impulse_residual > c.impulse_residual + tolerance;
  const ContactVector& lambda = c.negative_impulses ? lambda_ls : lambda_nn;
  c.implied_impulses.assign(static_cast<std::size_t>(problem.given_contacts()), 0.0);
  for (int i = 0; i < k; ++i)
    c.implied_impulses[static_cast<std::size_t>(problem.given_index(i))] = lambda[i];

  // The nearest propagative outcome p* (by final momentum p⁺, after the restitution blend).
  c.distance_to_nearest_outcome = kNaN;
  for (int j = 0; j < workspace.outcomes.size; ++j) {
    const double dj = distance(workspace.outcomes.items[static_cast<std::size_t>(j)].momentum);
    if (c.nearest_outcome < 0 || dj < c.distance_to_nearest_outcome) {
      c.distance_to_nearest_outcome = dj;
      c.nearest_outcome = j;
    }
  }
  c.predicted_energy_after = c.relative_energy_error_vs_model = c.complementarity_residual = kNaN;
  if (c.nearest_outcome >= 0) {
    const DofVector& target = workspace.outcomes.items[static_cast<std::size_t>(c.nearest_outcome)].momentum;
    c.predicted_energy_after = problem.energy(target);
    c.relative_energy_error_vs_model =
        c.energy_before > 0.0 ? (c.energy_after - c.predicted_energy_after) / c.energy_before : kNaN;
    // Rates against the model's: b_i·L⁻¹(p_after − p*), formed on the difference.
    const DofVector dy = whitened<S>(metric, DofVector(momentum_after - target));
    c.complementarity_residual = 0.0;
    for (int i = 0; i < k; ++i)
      c.complementarity_residual =
          std::max(c.complementarity_residual, std::abs(lambda[i] * b.col(i).dot(dy)) / (scale * scale));
  }
  c.distance_to_plastic = resolution.plastic_computed ? distance(resolution.plastic.momentum) : kNaN;
  c.consistent_with_propagative_model =
      c.nearest_outcome >= 0 && c.distance_to_nearest_outcome <= consistency_tolerance;
  return c;
}

#define SIMPACT_INSTANTIATE_CHECK(S)                                                                     \
  template PrintedPrecision printed_precision<S>(const BasicImpactProblem<S>&,                           \
                                                 const Eigen::Ref<const Eigen::VectorXd>&, bool);        \
  template PostImpactCheck check_post_impact_state<S>(const BasicImpactProblem<S>&, const S::DofVector&, \
                                                      double, double, const BasicImpactResolution<S>&,   \
                                                      const BasicImpactWorkspace<S>&);
SIMPACT_INSTANTIATE_CHECK(FixedSizes)
SIMPACT_INSTANTIATE_CHECK(DynamicSizes)
#undef SIMPACT_INSTANTIATE_CHECK

}  // namespace simpact
