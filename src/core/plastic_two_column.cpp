// The hand-written d×2 column-pivoting Householder QR of the predicted two-contact plastic solve
// (plastic_two_column.hpp): Eigen 3.4's operations for this case, in Eigen's order, without its
// dynamic-size machinery. tests/core/plastic_two_column_test.cpp compares it with Eigen's QR bit
// for bit.
#include "plastic_two_column.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace simpact::detail {

namespace {

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

}  // namespace

HandSolve two_column_hand_written(const double* b, int d, const double* y, double* x, double* r,
                                  double& smallest_pivot_ratio) {
  if (d < 2 || d > kMaxDof) return HandSolve::kUnsupported;
  return kHandSolvers[d - 2](b, y, x, r, smallest_pivot_ratio);
}

}  // namespace simpact::detail
