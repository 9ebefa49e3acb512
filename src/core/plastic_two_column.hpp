// The final least-squares solve of the predicted two-contact plastic outcome (plastic_impact.cpp,
// nnls_predicted): min |y + Bx|² for B = [b₀ b₁] (d×2) by a column-pivoting Householder QR, with
// the projection residual y − QQᵀy. Private to the core (not installed): plastic_impact.cpp uses
// it, and the tests compare the hand-written QR with Eigen's bit for bit.
#pragma once

#include "simpact/core/fixed_size.hpp"
#include "simpact/core/impact_problem.hpp"
#include "simpact/core/plastic_impact.hpp"

namespace simpact::detail {

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
