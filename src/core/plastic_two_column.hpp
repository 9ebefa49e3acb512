// The final least-squares solve of the predicted two-contact plastic outcome (plastic_impact.cpp,
// nnls_predicted): min |y + Bx|² for B = [b₀ b₁] (d×2) by a column-pivoting Householder QR, with
// the projection residual y − QQᵀy. Private to the core (not installed): plastic_impact.cpp uses
// it, and the tests compare the hand-written QR with Eigen's bit for bit.
#pragma once

#include <Eigen/Core>

#include "simpact/core/fixed_size.hpp"
#include "simpact/core/impact_problem.hpp"
#include "simpact/core/plastic_impact.hpp"

namespace simpact::detail {

// The Eigen arithmetic the hand-written QR reproduces: SSE2 2-wide double packets (x86-64 without
// -march), no fused multiply-add. Any other build runs Eigen's QR.
#if defined(EIGEN_VECTORIZE_SSE2) && !defined(EIGEN_VECTORIZE_AVX) && !defined(__FMA__) && \
    !defined(EIGEN_DONT_VECTORIZE)
constexpr bool kHandWrittenQr = true;
#else
constexpr bool kHandWrittenQr = false;
#endif
static_assert(!kHandWrittenQr || Eigen::internal::packet_traits<double>::size == 2);

// The outcome of the hand-written solve: kUnsupported asks for Eigen's (non-finite column norms,
// d < 2), which the hand-written QR does not reproduce.
enum class HandSolve { kSolved, kFailed, kUnsupported };

// ColPivHouseholderQR::compute, rank(), solve(−y) and projection_residual(y) for d×2 B (columns
// b₀ = b[0..d), b₁ = b[d..2d), column-major), hand-written op for op in Eigen's order
// (plastic_two_column.cpp); only where kHandWrittenQr.
HandSolve two_column_hand_written(const double* b, int d, const double* y, double* x, double* r,
                                  double& smallest_pivot_ratio);

// bᵀy for one column b of B, as Eigen's Bᵀy runs it for two columns (GemvProduct: the row-major
// general_matrix_vector_product's two-row block into a zeroed result, α = 1): one packet
// accumulator over pairs, a·b + c without FMA, its horizontal add, the odd last term.
inline double two_column_rate(const double* b, const double* y, int d) {
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

// Which QR runs the two-column solve: Eigen's ColPivHouseholderQR (the reference), or the
// hand-written d×2 one that performs the same floating-point operations in the same order.
enum class TwoColumnQr { kHandWritten, kEigen };

// True when this build's Eigen arithmetic is the one the hand-written QR reproduces (SSE2 2-wide
// packets, no FMA); otherwise kHandWritten runs Eigen's QR too.
bool hand_written_qr_available();

struct TwoColumnLeastSquares {
  ContactVector x;                    // the least-squares coefficients, both > 0
  DofVector y;                        // y − QQᵀy (the plastic outcome's whitened momentum)
  double smallest_pivot_ratio = 1.0;  // min/max |R_ii|
};

// False (out unspecified) when the QR's rank is below 2 or a coefficient is not positive: the
// prediction fails and Lawson–Hanson runs instead. B must have two columns.
bool two_column_least_squares(const DofByContact& b, const DofVector& y, TwoColumnQr qr,
                              TwoColumnLeastSquares& out);

// plastic_outcome with the predicted solve's QR chosen (plastic_outcome runs kHandWritten).
PlasticOutcome plastic_outcome_with(const ImpactProblem& problem, TwoColumnQr qr);

}  // namespace simpact::detail
