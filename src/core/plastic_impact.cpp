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

#include "plastic_two_column.hpp"

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
  bool predicted = false;      // solved on the predicted free set (nnls_predicted)
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

// The two-column solve with Eigen's ColPivHouseholderQR: the reference the hand-written QR
// reproduces (and the dynamic path's solve).
template <typename Z>
bool two_column_eigen(const BT<Z, double>& b, const YT<Z, double>& y, XT<Z, double>& x, YT<Z, double>& r,
                      double& smallest_pivot_ratio) {
  Eigen::ColPivHouseholderQR<BT<Z, double>> qr(b.rows(), 2);
  qr.compute(b);  // both columns, in order: b is its own free-set submatrix
  if (qr.rank() < 2) return false;
  x = qr.solve(YT<Z, double>(-y));
  if (!(x[0] > 0 && x[1] > 0)) return false;  // Lawson–Hanson would step back
  r = projection_residual<Z, double>(qr, y);
  const auto diag = qr.matrixQR().diagonal().head(2).cwiseAbs();
  smallest_pivot_ratio = diag.minCoeff() / diag.maxCoeff();
  return true;
}

// ---- The hand-written d×2 QR: Eigen 3.4's operations for this case, in Eigen's order ----------
// Every reduction below is Eigen's vectorized sum of an expression (Redux.h,
// LinearVectorizedTraversal, 2-wide packets): an expression has no direct access, so the packets
// start at index 0 whatever the alignment; two packet accumulators over blocks of four, a third
// packet for a remaining pair, the horizontal add, then the odd last term.
template <typename Term>
inline double eigen_sum(int n, Term term) {
  if (n == 0) return 0.0;
  const int paired = n / 2 * 2;
  if (paired == 0) return term(0);
  double a0 = term(0), a1 = term(1);
  if (paired > 2) {
    const int quads = n / 4 * 4;
    double b0 = term(2), b1 = term(3);
    for (int i = 4; i < quads; i += 4) {
      a0 += term(i);
      a1 += term(i + 1);
      b0 += term(i + 2);
      b1 += term(i + 3);
    }
    a0 += b0;
    a1 += b1;
    if (paired > quads) {
      a0 += term(quads);
      a1 += term(quads + 1);
    }
  }
  double res = a0 + a1;
  for (int i = paired; i < n; ++i) res += term(i);
  return res;
}

// v.squaredNorm() = v.cwiseAbs2().sum().
inline double squared_norm(const double* v, int n) {
  return eigen_sum(n, [v](int i) { return v[i] * v[i]; });
}

// makeHouseholderInPlace on v[0..n): the essential part over v[1..n), tau and beta.
inline void make_householder(double* v, int n, double& tau, double& beta) {
  const double tail_squared_norm = n == 1 ? 0.0 : squared_norm(v + 1, n - 1);
  const double c0 = v[0];
  if (tail_squared_norm <= std::numeric_limits<double>::min()) {
    tau = 0.0;
    beta = c0;
    for (int i = 1; i < n; ++i) v[i] = 0.0;
  } else {
    beta = std::sqrt(c0 * c0 + tail_squared_norm);
    if (c0 >= 0.0) beta = -beta;
    const double denominator = c0 - beta;
    for (int i = 1; i < n; ++i) v[i] = v[i] / denominator;
    tau = (beta - c0) / beta;
  }
}

// applyHouseholderOnTheLeft of the reflector (essential[0..n−1), tau) to x[0..n) as Eigen runs it
// on a vector (HouseholderSequence on a DofVector: the coefficient-based product for essentialᵀ x).
inline void apply_householder(double* x, int n, const double* essential, double tau) {
  if (n == 1) {
    x[0] *= 1.0 - tau;
  } else if (tau != 0.0) {
    double tmp = eigen_sum(n - 1, [essential, x](int i) { return essential[i] * x[i + 1]; });
    tmp += x[0];
    x[0] -= tau * tmp;
    for (int i = 1; i < n; ++i) x[i] -= (tau * essential[i - 1]) * tmp;
  }
}

// The outcome of the hand-written solve: kUnsupported asks for Eigen's (non-finite column norms,
// d < 2), which the hand-written QR does not reproduce.
enum class HandSolve { kSolved, kFailed, kUnsupported };

// ColPivHouseholderQR::compute, rank(), solve(−y) and projection_residual(y) for d×2 B (columns
// b₀ = b[0..d), b₁ = b[d..2d), column-major), op for op. d is a compile-time constant so that
// every loop is unrolled (the order of the operations is the same for any d).
template <int d>
HandSolve two_column_hand_written_of(const double* b, const double* y, double* x, double* r,
                                     double& smallest_pivot_ratio) {
  static_assert(d >= 2);
  constexpr double eps = std::numeric_limits<double>::epsilon();
  double q0[d], q1[d];  // the columns of m_qr, pivoted
  // computeInPlace: column norms, the pivot (maxCoeff(&i): the first of equal norms).
  double norm0 = std::sqrt(squared_norm(b, d));
  double norm1 = std::sqrt(squared_norm(b + d, d));
  if (!(std::isfinite(norm0) && std::isfinite(norm1))) return HandSolve::kUnsupported;
  const bool swapped = norm1 > norm0;
  const double* first = swapped ? b + d : b;
  const double* second = swapped ? b : b + d;
  for (int i = 0; i < d; ++i) q0[i] = first[i];
  for (int i = 0; i < d; ++i) q1[i] = second[i];
  const double largest = swapped ? norm1 : norm0;
  if (swapped) std::swap(norm0, norm1);
  const double scaled = largest * eps;
  const double threshold_helper = scaled * scaled / static_cast<double>(d);
  int nonzero_pivots = 2;
  if (largest * largest < threshold_helper * static_cast<double>(d)) nonzero_pivots = 0;
  // k = 0: the reflector of column 0, applied to column 1 (a gemv whose 1×1 result is 0 + dot).
  double tau0, beta0;
  make_householder(q0, d, tau0, beta0);
  q0[0] = beta0;
  double max_pivot = 0.0;
  if (std::abs(beta0) > max_pivot) max_pivot = std::abs(beta0);
  if (tau0 != 0.0) {
    double tmp = 0.0 + eigen_sum(d - 1, [&q0, &q1](int i) { return q0[i + 1] * q1[i + 1]; });
    tmp += q1[0];
    q1[0] -= tau0 * tmp;
    for (int i = 1; i < d; ++i) q1[i] -= (tau0 * q0[i]) * tmp;
  }
  // Column 1's norm: downdated (LAPACK's xGEQPF step), or recomputed when that is inaccurate.
  double updated1 = norm1;
  if (updated1 != 0.0) {
    double temp = std::abs(q1[0]) / updated1;
    temp = (1.0 + temp) * (1.0 - temp);
    temp = temp < 0.0 ? 0.0 : temp;
    const double ratio = updated1 / norm1;
    const double temp2 = temp * (ratio * ratio);
    if (temp2 <= std::sqrt(eps))
      updated1 = std::sqrt(squared_norm(q1 + 1, d - 1));
    else
      updated1 *= std::sqrt(temp);
  }
  // k = 1: the reflector of column 1 below the diagonal (nothing right of it to apply it to).
  if (nonzero_pivots == 2 && updated1 * updated1 < threshold_helper * static_cast<double>(d - 1))
    nonzero_pivots = 1;
  double tau1, beta1;
  make_householder(q1 + 1, d - 1, tau1, beta1);
  q1[1] = beta1;
  if (std::abs(beta1) > max_pivot) max_pivot = std::abs(beta1);
  // rank(): pivots above |max pivot| · ε · 2, among the nonzero ones.
  const double premultiplied_threshold = std::abs(max_pivot) * (eps * 2.0);
  int rank = 0;
  if (nonzero_pivots > 0) rank += std::abs(beta0) > premultiplied_threshold;
  if (nonzero_pivots > 1) rank += std::abs(beta1) > premultiplied_threshold;
  if (rank < 2) return HandSolve::kFailed;
  // t = Qᵀy (H₀ then H₁). solve(−y) applies the same reflectors to −y: every operation is odd
  // in y, so its Qᵀ(−y) equals −t wherever it is nonzero (the zeros may differ in sign only),
  // and the triangular solve below then gives the same coefficients wherever they are nonzero.
  double t[d];
  for (int i = 0; i < d; ++i) t[i] = y[i];
  apply_householder(t, d, q0 + 1, tau0);
  apply_householder(t + 1, d - 1, q1 + 2, tau1);
  // The upper-triangular solve (triangular_solve_vector, back substitution skipping zeros), then
  // the column permutation.
  double c0 = -t[0], c1 = -t[1];
  if (c1 != 0.0) {
    c1 /= beta1;
    c0 -= c1 * q1[0];
  }
  if (c0 != 0.0) c0 /= beta0;
  x[swapped ? 1 : 0] = c0;
  x[swapped ? 0 : 1] = c1;
  if (!(x[0] > 0 && x[1] > 0)) return HandSolve::kFailed;  // Lawson–Hanson would step back
  // projection_residual: Q (Qᵀy with its head zeroed), H₁ then H₀.
  t[0] = 0.0;
  t[1] = 0.0;
  apply_householder(t + 1, d - 1, q1 + 2, tau1);
  apply_householder(t, d, q0 + 1, tau0);
  for (int i = 0; i < d; ++i) r[i] = t[i];
  const double abs0 = std::abs(beta0), abs1 = std::abs(beta1);
  smallest_pivot_ratio = std::min(abs0, abs1) / std::max(abs0, abs1);
  return HandSolve::kSolved;
}

// two_column_hand_written_of<d> for d = 2…kMaxDof, indexed by d − 2.
using HandSolver = HandSolve (*)(const double*, const double*, double*, double*, double&);
template <int... i>
constexpr std::array<HandSolver, sizeof...(i)> hand_solvers(std::integer_sequence<int, i...>) {
  return {&two_column_hand_written_of<i + 2>...};
}
constexpr std::array<HandSolver, kMaxDof - 1> kHandSolvers =
    hand_solvers(std::make_integer_sequence<int, kMaxDof - 1>{});

HandSolve two_column_hand_written(const double* b, int d, const double* y, double* x, double* r,
                                  double& smallest_pivot_ratio) {
  if (d < 2 || d > kMaxDof) return HandSolve::kUnsupported;
  return kHandSolvers[d - 2](b, y, x, r, smallest_pivot_ratio);
}

// Eigen's arithmetic is the one reproduced above: SSE2 2-wide double packets (x86-64 without
// -march), no fused multiply-add. Any other build runs Eigen's QR.
#if defined(EIGEN_VECTORIZE_SSE2) && !defined(EIGEN_VECTORIZE_AVX) && !defined(__FMA__) && \
    !defined(EIGEN_DONT_VECTORIZE)
constexpr bool kHandWrittenQr = true;
#else
constexpr bool kHandWrittenQr = false;
#endif
static_assert(!kHandWrittenQr || Eigen::internal::packet_traits<double>::size == 2);

// bᵀy for one column b of B, as Eigen's Bᵀy runs it for two columns (GemvProduct: the row-major
// general_matrix_vector_product's two-row block into a zeroed result, α = 1): one packet
// accumulator over pairs, a·b + c without FMA, its horizontal add, the odd last term.
inline double gemv_dot(const double* b, const double* y, int d) {
  double even = 0.0, odd = 0.0;
  int j = 0;
  for (; j + 2 <= d; j += 2) {
    even = b[j] * y[j] + even;
    odd = b[j + 1] * y[j + 1] + odd;
  }
  double sum = even + odd;
  for (; j < d; ++j) sum += b[j] * y[j];
  return 0.0 + 1.0 * sum;
}

// Bᵀy for two-column B: the prediction's rates, hand-written where the QR is.
template <typename Z>
XT<Z, double> two_column_rates(const BT<Z, double>& b, const YT<Z, double>& y, detail::TwoColumnQr which) {
  if constexpr (std::is_same_v<Z, FixedSizes>) {
    if (kHandWrittenQr && which == detail::TwoColumnQr::kHandWritten) {
      const int d = static_cast<int>(b.rows());
      XT<Z, double> c(2);
      c[0] = gemv_dot(b.data(), y.data(), d);
      c[1] = gemv_dot(b.data() + d, y.data(), d);
      return c;
    }
  }
  return b.transpose() * y;
}

// The final solve of the prediction: the hand-written QR on the fixed path where it applies,
// else Eigen's.
template <typename Z>
bool two_column_solve(const BT<Z, double>& b, const YT<Z, double>& y, detail::TwoColumnQr which,
                      XT<Z, double>& x, YT<Z, double>& r, double& smallest_pivot_ratio) {
  if constexpr (std::is_same_v<Z, FixedSizes>) {
    if (kHandWrittenQr && which == detail::TwoColumnQr::kHandWritten) {
      const int d = static_cast<int>(b.rows());
      x.resize(2);
      r.resize(d);
      const HandSolve s =
          two_column_hand_written(b.data(), d, y.data(), x.data(), r.data(), smallest_pivot_ratio);
      if (s != HandSolve::kUnsupported) return s == HandSolve::kSolved;
    }
  }
  return two_column_eigen<Z>(b, y, x, r, smallest_pivot_ratio);
}

// Lawson–Hanson's result without its iterations where its path is certain: two contacts, both
// ending free (the billiards break: the cue ball pushes both targets). Lawson–Hanson frees the
// column j with the most negative rate, solves on {j} alone, then frees the other column o if its
// rate there, c_o − A_oj c_j / A_jj (exact arithmetic), is below −tolerance, and stops on {0, 1}
// when both least-squares coefficients are positive. The prediction asks for that rate below
// −tolerance by a margin far above rounding (1e-9 |b_o| |y|), then runs the final iteration's own
// arithmetic — the same QR of the same columns in the same order (on the fixed path the
// hand-written copy of Eigen's, without its generic machinery) — so its result is Lawson–
// Hanson's bit for bit. False (nothing decided: run nnls) when any condition fails.
template <typename Z>
bool nnls_predicted(const BT<Z, double>& b, const YT<Z, double>& y, double tolerance,
                    const BasicImpactProblem<Z>& problem, detail::TwoColumnQr which, Nnls<Z, double>& out) {
  if (b.cols() != 2) return false;
  const XT<Z, double> c = two_column_rates<Z>(b, y, which);  // Lawson–Hanson's first rates
  int j = -1;
  double most_negative = -tolerance;
  for (int i = 0; i < 2; ++i)
    if (c[i] < most_negative) {
      most_negative = c[i];
      j = i;
    }
  if (j < 0) return false;  // nothing enters: Lawson–Hanson returns at once anyway
  const int o = 1 - j;
  const typename Z::ContactMatrix& a = problem.gram();
  const double rate_after_j = c[o] - a(o, j) * c[j] / a(j, j);
  const double margin = 1e-9 * problem.normal_norms()[o] * problem.momentum_norm();
  if (!(rate_after_j < -tolerance - margin)) return false;
  // The final iteration: free set {0, 1}, as nnls computes it.
  if (!two_column_solve<Z>(b, y, which, out.x, out.y, out.smallest_pivot_ratio)) return false;
  out.c = two_column_rates<Z>(b, out.y, which);
  out.iterations = 2;
  out.converged = true;
  out.predicted = true;
  return true;
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

template <typename Z>
BasicPlasticOutcome<Z> plastic_outcome_impl(const BasicImpactProblem<Z>& problem, detail::TwoColumnQr which) {
  BasicPlasticOutcome<Z> out;
  const double scale = problem.momentum_norm();
  const int k = problem.contacts();
  // With every contact open (by its gap) there is no constraint: maxCoeff() of the empty
  // vector would be undefined.
  const double tol = k == 0 ? 0.0 : 1e-13 * scale * problem.normal_norms().maxCoeff();
  Nnls<Z, double> sol;
  if (!nnls_predicted<Z>(problem.whitened_normals(), problem.whitened_momentum(), tol, problem, which, sol))
    sol = nnls<Z, double>(problem.whitened_normals(), problem.whitened_momentum(), tol);
  out.free_set_predicted = sol.predicted;
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
  double residual = 0.0;
  bool kkt = solved;
  const typename Z::ContactVector& tolerances = problem.tolerances();
  for (int i = 0; i < k; ++i) {
    residual = std::max(residual, std::abs(out.impulses[i] * out.rates[i]));
    if (out.rates[i] < -tolerances[i]) kkt = false;                                    // feasibility
    if (out.impulses[i] < 0.0) kkt = false;                                            // dual sign
    if (out.impulses[i] > 0.0 && std::abs(out.rates[i]) > tolerances[i]) kkt = false;  // complementarity
  }
  // Stationarity in primal form: p_p − p⁻ is g-orthogonal to p_p (a projection onto a cone).
  if (std::abs((out.whitened - problem.whitened_momentum()).dot(out.whitened)) > 1e-9 * scale * scale)
    kkt = false;
  out.complementarity_residual = scale > 0.0 ? residual / (scale * scale) : residual;
  out.converged = kkt;
  return out;
}

}  // namespace

template <typename Z>
BasicPlasticOutcome<Z> plastic_outcome(const BasicImpactProblem<Z>& problem) {
  return plastic_outcome_impl<Z>(problem, detail::TwoColumnQr::kHandWritten);
}

namespace detail {

bool hand_written_qr_available() {
  return kHandWrittenQr;
}

bool two_column_least_squares(const DofByContact& b, const DofVector& y, TwoColumnQr qr,
                              TwoColumnLeastSquares& out) {
  return two_column_solve<FixedSizes>(b, y, qr, out.x, out.y, out.smallest_pivot_ratio);
}

PlasticOutcome plastic_outcome_with(const ImpactProblem& problem, TwoColumnQr qr) {
  return plastic_outcome_impl<FixedSizes>(problem, qr);
}

}  // namespace detail

template <typename Z>
bool normals_positively_span(const BasicImpactProblem<Z>& problem) {
  using ContactVector = typename Z::ContactVector;
  using DofVector = typename Z::DofVector;
  const typename Z::ContactMatrix& a = problem.gram();
  const int k = problem.contacts();
  if (k < 2) return false;
  // Cheap certificate against: w = Σ u_j/||u_j|| with <w,u_i>_g > 0 for all i.
  const ContactVector unit_sum_rates = a * problem.normal_norms().cwiseInverse();
  if ((unit_sum_rates.array() > 1e-12 * problem.normal_norms().array()).all()) return false;
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
  template bool normals_positively_span<Z>(const BasicImpactProblem<Z>&);
SIMPACT_INSTANTIATE_PLASTIC(FixedSizes)
SIMPACT_INSTANTIATE_PLASTIC(DynamicSizes)
#undef SIMPACT_INSTANTIATE_PLASTIC

}  // namespace simpact
