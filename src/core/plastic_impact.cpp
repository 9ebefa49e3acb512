#include "simpact/core/plastic_impact.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>

namespace simpact {

namespace {

using QrOfColumns = Eigen::ColPivHouseholderQR<DofByContact>;

// The columns of `b` listed in index[0..n) as one matrix.
DofByContact gather_columns(const DofByContact& b, const int* index, int n) {
  DofByContact sub(b.rows(), n);
  for (int r = 0; r < n; ++r) sub.col(r) = b.col(index[r]);
  return sub;
}

// y − Q Qᵀ y: the part of y orthogonal to the span of the factored columns, computed through the
// Householder reflections (rounding ~ε|y| whatever the size of the least-squares coefficients).
DofVector projection_residual(const QrOfColumns& qr, const DofVector& y) {
  DofVector t = qr.householderQ().transpose() * y;
  t.head(qr.rank()).setZero();
  return qr.householderQ() * t;
}

}  // namespace

NonnegativeLeastSquares solve_nonnegative_least_squares(const DofByContact& b, const DofVector& y,
                                                        double tolerance) {
  const int k = static_cast<int>(b.cols());
  NonnegativeLeastSquares out;
  out.x = ContactVector::Zero(k);
  out.y = y;
  out.c = b.transpose() * y;
  bool passive[kMaxContacts] = {};
  bool blocked[kMaxContacts] = {};  // columns that proved numerically dependent on the free ones
  int index[kMaxContacts];
  ContactVector z(k);
  QrOfColumns qr(b.rows(), std::max(k, 1));
  const int max_iterations = 8 * k + 16;
  // Lawson–Hanson: free the column with the most negative rate; solve the least-squares
  // subproblem on the free columns; step back to feasibility when a free variable goes ≤ 0.
  for (out.iterations = 0; out.iterations < max_iterations; ++out.iterations) {
    int entering = -1;
    double most_negative = -tolerance;
    for (int i = 0; i < k; ++i)
      if (!passive[i] && !blocked[i] && out.c[i] < most_negative) {
        most_negative = out.c[i];
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
      qr.compute(gather_columns(b, index, n));
      if (qr.rank() < n) {  // the entering column is numerically in the span of the free ones
        passive[entering] = false;
        blocked[entering] = true;
        break;
      }
      const ContactVector sol = qr.solve(DofVector(-y));
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
        out.y = projection_residual(qr, y);
        break;
      }
      out.x += alpha * (z - out.x);
      out.x[blocking] = 0.0;
      for (int r = 0; r < n; ++r)
        if (out.x[index[r]] <= 0.0) {
          out.x[index[r]] = 0.0;
          passive[index[r]] = false;
        }
      out.y = y + b * out.x;
      if (blocking == entering && alpha == 0.0) {  // no progress possible along this column
        blocked[entering] = true;
        break;
      }
    }
    out.c = b.transpose() * out.y;
  }
  out.c = b.transpose() * out.y;
  return out;
}

PlasticOutcome plastic_outcome(const ImpactProblem& problem) {
  PlasticOutcome out;
  const double scale = problem.momentum_norm();
  const int k = problem.contacts();
  // With every contact open (by its gap) there is no constraint: maxCoeff() of the empty
  // vector would be undefined.
  const double tol = k == 0 ? 0.0 : 1e-13 * scale * problem.normal_norms().maxCoeff();
  const NonnegativeLeastSquares sol =
      solve_nonnegative_least_squares(problem.whitened_normals(), problem.whitened_momentum(), tol);
  out.impulses = sol.x;
  out.rates = sol.c;
  // p_p = L y_p: M = LLᵀ, y = L⁻¹p. For a diagonal M, L = diag(√m).
  out.momentum = problem.metric().unwhiten(sol.y);
  out.whitened = sol.y;
  out.energy = 0.5 * sol.y.squaredNorm();
  double residual = 0.0;
  bool kkt = sol.converged;
  const ContactVector& tolerances = problem.tolerances();
  for (int i = 0; i < k; ++i) {
    residual = std::max(residual, std::abs(out.impulses[i] * out.rates[i]));
    if (out.rates[i] < -tolerances[i]) kkt = false;                           // feasibility
    if (out.impulses[i] < 0.0) kkt = false;                                   // dual sign
    if (out.impulses[i] > 0.0 && std::abs(out.rates[i]) > tolerances[i]) kkt = false;  // complementarity
  }
  // Stationarity in primal form: p_p − p⁻ is g-orthogonal to p_p (a projection onto a cone).
  if (std::abs((sol.y - problem.whitened_momentum()).dot(sol.y)) > 1e-9 * scale * scale) kkt = false;
  out.complementarity_residual = scale > 0.0 ? residual / (scale * scale) : residual;
  out.converged = kkt;
  return out;
}

bool normals_positively_span(const ImpactProblem& problem) {
  const ContactMatrix& a = problem.gram();
  const int k = problem.contacts();
  if (k < 2) return false;
  // Cheap certificate against: w = Σ u_j/||u_j|| with <w,u_i>_g > 0 for all i.
  const ContactVector unit_sum_rates = a * problem.normal_norms().cwiseInverse();
  if ((unit_sum_rates.array() > 1e-12 * problem.normal_norms().array()).all()) return false;
  const DofByContact& b = problem.whitened_normals();
  for (int i = 0; i < k; ++i) {
    // min |b_i + Σ μ_j b_j|² over μ ≥ 0: zero iff −u_i ∈ cone{u_j}. The residual comes from the
    // QR projection, accurate to ~ε|b_i|, so "zero" is 1e-12 |b_i| (a cone 1e-12 rad wide).
    const DofVector bi = b.col(i);
    const NonnegativeLeastSquares sol = solve_nonnegative_least_squares(b, bi, 1e-14 * bi.norm());
    if (sol.y.norm() > 1e-12 * bi.norm()) return false;
  }
  return true;
}

}  // namespace simpact
