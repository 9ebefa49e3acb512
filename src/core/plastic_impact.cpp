#include "simpact/core/plastic_impact.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <type_traits>
#include <utility>

#include "plastic_gram.hpp"

namespace simpact {

namespace {

// Z: the size policy; S: the scalar (double, or long double for nearly dependent normals).
template <typename Z, typename S>
using BT = typename Z::template DofByContactOf<S>;
template <typename Z, typename S>
using YT = typename Z::template DofVectorOf<S>;
template <typename Z, typename S>
using XT = typename Z::template ContactVectorOf<S>;

template <typename Z, typename S>
struct Nnls {
  XT<Z, S> x;
  YT<Z, S> y;
  XT<Z, S> c;
  int iterations = 0;
  bool converged = false;
  S smallest_pivot_ratio = 1;  // min/max |R_ii| of the last accepted factorization
};

// y − Q Qᵀ y: the part of y orthogonal to the span of the factored columns, computed through the
// Householder reflections (rounding ~ε|y| whatever the size of the least-squares coefficients).
template <typename Z, typename S>
YT<Z, S> projection_residual(const Eigen::ColPivHouseholderQR<BT<Z, S>>& qr, const YT<Z, S>& y) {
  YT<Z, S> t = qr.householderQ().transpose() * y;
  t.head(qr.rank()).setZero();
  return qr.householderQ() * t;
}

// Lawson–Hanson on min_x≥0 |y + Bx|² in scalar type S (double, or long double when the free
// columns are nearly dependent: the projection's sensitivity is ~1/δ for normals δ from
// antiparallel, so 64-bit mantissas keep it at ~1e-19/δ).
template <typename Z, typename S>
Nnls<Z, S> nnls(const BT<Z, S>& b, const YT<Z, S>& y, S tolerance) {
  const int k = static_cast<int>(b.cols());
  Nnls<Z, S> out;
  out.x = XT<Z, S>::Zero(k);
  out.y = y;
  out.c = b.transpose() * y;
  XT<Z, bool> passive = XT<Z, bool>::Constant(k, false);
  XT<Z, bool> blocked = XT<Z, bool>::Constant(k, false);  // numerically dependent on the free columns
  XT<Z, int> index(k);
  XT<Z, S> z(k);
  Eigen::ColPivHouseholderQR<BT<Z, S>> qr(b.rows(), std::max(k, 1));
  const int max_iterations = 8 * k + 16;
  // Free the column with the most negative rate; solve the least-squares subproblem on the
  // free columns; step back to feasibility when a free variable goes ≤ 0.
  for (out.iterations = 0; out.iterations < max_iterations; ++out.iterations) {
    int entering = -1;
    S most_negative = -tolerance;
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
      BT<Z, S> sub(b.rows(), n);
      for (int r = 0; r < n; ++r) sub.col(r) = b.col(index[r]);
      qr.compute(sub);
      if (qr.rank() < n) {  // the entering column is numerically in the span of the free ones
        passive[entering] = false;
        blocked[entering] = true;
        break;
      }
      const XT<Z, S> sol = qr.solve(YT<Z, S>(-y));
      z.setZero();
      for (int r = 0; r < n; ++r) z[index[r]] = sol[r];
      S alpha = 1;
      int blocking = -1;
      for (int r = 0; r < n; ++r) {
        const int i = index[r];
        if (z[i] <= 0) {
          const S t = out.x[i] / (out.x[i] - z[i]);
          if (t < alpha) {
            alpha = t;
            blocking = i;
          }
        }
      }
      if (blocking < 0) {
        out.x = z;
        out.y = projection_residual<Z, S>(qr, y);
        const auto diag = qr.matrixQR().diagonal().head(n).cwiseAbs();
        out.smallest_pivot_ratio = n > 0 ? diag.minCoeff() / diag.maxCoeff() : S(1);
        break;
      }
      out.x += alpha * (z - out.x);
      out.x[blocking] = 0;
      for (int r = 0; r < n; ++r)
        if (out.x[index[r]] <= 0) {
          out.x[index[r]] = 0;
          passive[index[r]] = false;
        }
      out.y = y + b * out.x;
      if (blocking == entering && alpha == 0) {  // no progress possible along this column
        blocked[entering] = true;
        break;
      }
    }
    out.c = b.transpose() * out.y;
  }
  out.c = b.transpose() * out.y;
  return out;
}

// Free columns this close to dependent (pivot ratio of their QR) are re-solved in long double.
constexpr double kExtendedPrecisionPivotRatio = 1e-6;

}  // namespace

template <typename Z>
BasicNonnegativeLeastSquares<Z> solve_nonnegative_least_squares(const typename Z::DofByContact& b,
                                                                const typename Z::DofVector& y,
                                                                double tolerance) {
  const Nnls<Z, double> r = nnls<Z, double>(b, y, tolerance);
  BasicNonnegativeLeastSquares<Z> out;
  out.x = r.x;
  out.y = r.y;
  out.c = r.c;
  out.iterations = r.iterations;
  out.converged = r.converged;
  return out;
}

namespace {

// The KKT conditions of a candidate p_p (λ, whitened y_p, rates Bᵀy_p): feasibility, dual sign,
// complementarity, and stationarity in primal form (p_p − p⁻ g-orthogonal to p_p: a projection
// onto a cone). Sets converged and the complementarity residual.
template <typename Z>
void verify_kkt(const BasicImpactProblem<Z>& problem, bool solved, BasicPlasticOutcome<Z>& out) {
  const double scale = problem.momentum_norm();
  double residual = 0.0;
  bool kkt = solved;
  const typename Z::ContactVector& tolerances = problem.tolerances();
  for (int i = 0; i < problem.contacts(); ++i) {
    residual = std::max(residual, std::abs(out.impulses[i] * out.rates[i]));
    if (out.rates[i] < -tolerances[i]) kkt = false;                                    // feasibility
    if (out.impulses[i] < 0.0) kkt = false;                                            // dual sign
    if (out.impulses[i] > 0.0 && std::abs(out.rates[i]) > tolerances[i]) kkt = false;  // complementarity
  }
  if (std::abs((out.whitened - problem.whitened_momentum()).dot(out.whitened)) > 1e-9 * scale * scale)
    kkt = false;
  out.complementarity_residual = scale > 0.0 ? residual / (scale * scale) : residual;
  out.converged = kkt;
}

// The fast path's outcome from its impulses: y_p = y⁻ + Bλ and the rates Bᵀy_p evaluated afresh
// in the whitened form (not the Gram form that chose λ), so the KKT check afterwards is independent.
void outcome_from_impulses(const ImpactProblem& problem, const ContactVector& impulses, PlasticOutcome& out) {
  const DofByContact& b = problem.whitened_normals();
  out.impulses = impulses;
  out.whitened = problem.whitened_momentum();
  out.whitened.noalias() += b * impulses;
  out.rates.noalias() = b.transpose() * out.whitened;
  out.momentum = problem.metric().unwhiten(out.whitened);
  out.energy = 0.5 * out.whitened.squaredNorm();
}

// The exact path: Lawson–Hanson with a QR of the free columns of B, re-solved in long double when
// they are nearly dependent.
template <typename Z>
BasicPlasticOutcome<Z> plastic_outcome_exact(const BasicImpactProblem<Z>& problem, double tol) {
  BasicPlasticOutcome<Z> out;
  const Nnls<Z, double> sol = nnls<Z, double>(problem.whitened_normals(), problem.whitened_momentum(), tol);
  bool solved = sol.converged;
  out.impulses = sol.x;
  out.rates = sol.c;
  // p_p = L y_p: M = LLᵀ, y = L⁻¹p. For a diagonal M, L = diag(√m).
  out.momentum = problem.metric().unwhiten(sol.y);
  out.whitened = sol.y;
  if (sol.smallest_pivot_ratio < kExtendedPrecisionPivotRatio) {
    // Nearly dependent active normals (e.g. δ from antiparallel): the projection's sensitivity is
    // ~1/δ, so whiten and solve again with 64-bit mantissas (~1e-19/δ instead of ~1e-16/δ).
    using LD = long double;
    using MassLD = typename Z::template DofMatrixOf<LD>;
    const Eigen::LLT<MassLD> llt(MassLD(problem.metric().mass_matrix().template cast<LD>()));
    BT<Z, LD> b = problem.normals().transpose().template cast<LD>();
    YT<Z, LD> y = problem.momentum().template cast<LD>();
    llt.matrixL().solveInPlace(b);
    llt.matrixL().solveInPlace(y);
    const Nnls<Z, LD> wide = nnls<Z, LD>(b, y, static_cast<LD>(tol));
    if (wide.converged) {
      solved = true;
      out.impulses = wide.x.template cast<double>();
      out.rates = wide.c.template cast<double>();
      out.whitened = wide.y.template cast<double>();
      out.momentum = YT<Z, LD>(llt.matrixL() * wide.y).template cast<double>();
    }
  }
  out.energy = 0.5 * out.whitened.squaredNorm();
  verify_kkt<Z>(problem, solved, out);
  return out;
}

}  // namespace

template <typename Z>
void plastic_outcome_into(const BasicImpactProblem<Z>& problem, BasicPlasticOutcome<Z>& out) {
  const int k = problem.contacts();
  // With every contact open (by its gap) there is no constraint: maxCoeff() of the empty
  // vector would be undefined.
  const double tol = k == 0 ? 0.0 : 1e-13 * problem.momentum_norm() * problem.normal_norms().maxCoeff();
  if constexpr (std::is_same_v<Z, FixedSizes>) {
    // Well-conditioned problems: the guarded Gram form, kept only if its KKT check passes too.
    detail::GramPlastic gram;
    if (detail::gram_plastic(problem, tol, gram)) {
      outcome_from_impulses(problem, gram.impulses, out);
      verify_kkt<Z>(problem, true, out);
      out.path = gram.closed_form ? PlasticPath::kTwoContactClosedForm : PlasticPath::kGram;
      if (out.converged) return;
    }
  }
  out = plastic_outcome_exact<Z>(problem, tol);
}

template <typename Z>
BasicPlasticOutcome<Z> plastic_outcome(const BasicImpactProblem<Z>& problem) {
  BasicPlasticOutcome<Z> out;
  plastic_outcome_into(problem, out);
  return out;
}

template <typename Z>
bool normals_positively_span(const BasicImpactProblem<Z>& problem) {
  using DofVector = typename Z::DofVector;
  const typename Z::ContactMatrix& a = problem.gram();
  const int k = problem.contacts();
  if (k < 2) return false;
  // Cheap certificate against: w = Σ u_j/||u_j|| with <w,u_i>_g > 0 for all i.
  // A plain loop: Eigen's general gemv costs more than the arithmetic for k ≤ 8.
  const typename Z::ContactVector inverse_norms = problem.normal_norms().cwiseInverse();
  bool certified = true;
  for (int i = 0; i < k && certified; ++i) {
    double rate = 0.0;
    for (int j = 0; j < k; ++j) rate += a(i, j) * inverse_norms[j];
    certified = rate > 1e-12 * problem.normal_norms()[i];
  }
  if (certified) return false;
  const typename Z::DofByContact& b = problem.whitened_normals();
  for (int i = 0; i < k; ++i) {
    // min |b_i + Σ μ_j b_j|² over μ ≥ 0: zero iff −u_i ∈ cone{u_j}. The residual comes from the
    // QR projection, accurate to ~ε|b_i|, so "zero" is 1e-12 |b_i| (a cone 1e-12 rad wide).
    const DofVector bi = b.col(i);
    const BasicNonnegativeLeastSquares<Z> sol = solve_nonnegative_least_squares<Z>(b, bi, 1e-14 * bi.norm());
    if (sol.y.norm() > 1e-12 * bi.norm()) return false;
  }
  return true;
}

#define SIMPACT_INSTANTIATE_PLASTIC(Z)                                                                      \
  template BasicNonnegativeLeastSquares<Z> solve_nonnegative_least_squares<Z>(const Z::DofByContact&,       \
                                                                              const Z::DofVector&, double); \
  template BasicPlasticOutcome<Z> plastic_outcome<Z>(const BasicImpactProblem<Z>&);                         \
  template void plastic_outcome_into<Z>(const BasicImpactProblem<Z>&, BasicPlasticOutcome<Z>&);             \
  template bool normals_positively_span<Z>(const BasicImpactProblem<Z>&);
SIMPACT_INSTANTIATE_PLASTIC(FixedSizes)
SIMPACT_INSTANTIATE_PLASTIC(DynamicSizes)
#undef SIMPACT_INSTANTIATE_PLASTIC

}  // namespace simpact
