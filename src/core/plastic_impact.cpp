#include "simpact/core/plastic_impact.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>

namespace simpact {

NonnegativeSolution solve_nonnegative_quadratic(const ContactMatrix& a, const ContactVector& b,
                                                double tolerance) {
  const int k = static_cast<int>(b.size());
  NonnegativeSolution out;
  out.x = ContactVector::Zero(k);
  out.gradient = b;
  bool passive[kMaxContacts] = {};
  bool blocked[kMaxContacts] = {};  // columns that proved numerically dependent
  int index[kMaxContacts];
  ContactVector z(k);
  const int max_iterations = 8 * k + 16;
  // Lawson–Hanson: grow the passive (free) set with the most negative gradient; solve the
  // equality subproblem on it; step back to feasibility when a free variable goes ≤ 0.
  for (out.iterations = 0; out.iterations < max_iterations; ++out.iterations) {
    int entering = -1;
    double most_negative = -tolerance;
    for (int i = 0; i < k; ++i)
      if (!passive[i] && !blocked[i] && out.gradient[i] < most_negative) {
        most_negative = out.gradient[i];
        entering = i;
      }
    if (entering < 0) {
      out.converged = true;
      break;
    }
    passive[entering] = true;
    for (int inner = 0; inner <= k; ++inner) {
      int n = 0;
      for (int i = 0; i < k; ++i)
        if (passive[i]) index[n++] = i;
      ContactMatrix sub(n, n);
      ContactVector rhs(n);
      for (int r = 0; r < n; ++r) {
        rhs[r] = -b[index[r]];
        for (int c = 0; c < n; ++c) sub(r, c) = a(index[r], index[c]);
      }
      const Eigen::LDLT<ContactMatrix> ldlt(sub);
      const ContactVector sol = ldlt.solve(rhs);
      z.setZero();
      for (int r = 0; r < n; ++r) z[index[r]] = sol[r];
      // Move from x towards z, stopping where the first free variable reaches zero.
      double alpha = 1.0;
      int blocking = -1;
      for (int r = 0; r < n; ++r) {
        const int i = index[r];
        if (z[i] <= 0.0) {
          const double t = out.x[i] / (out.x[i] - z[i]);
          if (t < alpha) {
            alpha = t;
            blocking = i;
          }
        }
      }
      if (blocking < 0) {
        out.x = z;
        break;
      }
      out.x += alpha * (z - out.x);
      out.x[blocking] = 0.0;
      for (int r = 0; r < n; ++r)
        if (out.x[index[r]] <= 0.0) {
          out.x[index[r]] = 0.0;
          passive[index[r]] = false;
        }
      if (blocking == entering && alpha == 0.0) {  // numerically dependent column: skip it
        blocked[entering] = true;
        break;
      }
    }
    out.gradient = b + a * out.x;
  }
  out.gradient = b + a * out.x;
  return out;
}

PlasticOutcome plastic_outcome(const ImpactProblem& problem) {
  PlasticOutcome out;
  const double scale = problem.momentum_norm();
  // gradient of ½||p⁻ + λᵀN||²_g in λ is c⁻ + Aλ: the contact rates. With every contact open
  // (by its gap) there is none: maxCoeff() of the empty vector would be undefined.
  const double tol = problem.contacts() == 0 ? 0.0 : 1e-13 * scale * problem.normal_norms().maxCoeff();
  const NonnegativeSolution sol = solve_nonnegative_quadratic(problem.gram(), problem.initial_rates(), tol);
  out.impulses = sol.x;
  out.rates = problem.rates_from_impulses(sol.x);
  out.energy = problem.energy_from_impulses(sol.x);
  out.converged = sol.converged;
  double residual = 0.0;
  for (int i = 0; i < out.impulses.size(); ++i)
    residual = std::max(residual, std::abs(out.impulses[i] * out.rates[i]));
  out.complementarity_residual = scale > 0.0 ? residual / (scale * scale) : residual;
  return out;
}

bool normals_positively_span(const ImpactProblem& problem) {
  const ContactMatrix& a = problem.gram();
  const int k = problem.contacts();
  if (k < 2) return false;
  // Cheap certificate against: w = Σ u_j/||u_j|| with <w,u_i>_g > 0 for all i.
  const ContactVector unit_sum_rates = a * problem.normal_norms().cwiseInverse();
  if ((unit_sum_rates.array() > 1e-12 * problem.normal_norms().array()).all()) return false;
  for (int i = 0; i < k; ++i) {
    // min ||u_i + Σ μ_j u_j||²_g over μ ≥ 0: zero iff −u_i ∈ cone{u_j}.
    const ContactVector b = a.col(i);
    const NonnegativeSolution sol = solve_nonnegative_quadratic(a, b, 1e-14 * a(i, i));
    // The residual in the full space: the Gram form a_ii + 2b·x + xᵀAx cancels to ~1e-16·a_ii
    // of rounding noise exactly when the answer is zero.
    DofVector r = problem.normals().row(i).transpose();
    r.noalias() += problem.normals().transpose() * sol.x;
    if (problem.metric().squared_norm(r) > 1e-16 * a(i, i)) return false;
  }
  return true;
}

}  // namespace simpact
