// The perfectly plastic outcome (eq. 10–11, in Baraff–Mattikalli's unilateral form):
//   p_p = argmin ||p − p⁻||_g  subject to  <p,u_i>_g ≥ 0 for every closed contact,
// i.e. p_p = p⁻ + λᵀN with the LCP  c = c⁻ + Aλ ≥ 0, λ ≥ 0, λ·c = 0  (A = N M⁻¹ Nᵀ PSD).
// Solved as non-negative least squares in whitened coordinates, min_λ≥0 |y⁻ + Bλ|² with
// B = L⁻¹Nᵀ, y⁻ = L⁻¹p⁻ (M = LLᵀ): Lawson–Hanson with a QR of the free columns of B, so the
// condition number is never squared (the Gram form A = BᵀB loses normals 1e-8 rad from
// antiparallel entirely). p_p is computed as the QR projection residual, exact to rounding in
// ||p⁻||_g even when λ is huge, and the KKT conditions are verified after the solve.
// Well-conditioned problems take a guarded Gram-form fast path instead (PlasticPath).
#pragma once

#include "simpact/core/fixed_size.hpp"
#include "simpact/core/impact_problem.hpp"

namespace simpact {

// Templates on the size policy S (fixed_size.hpp); the plain names are the fixed variant.
template <typename S>
struct BasicNonnegativeLeastSquares {
  typename S::ContactVector x;  // minimizer, x ≥ 0
  typename S::DofVector y;      // y + Bx at the minimizer, from the QR projection (accurate for huge x)
  typename S::ContactVector c;  // Bᵀ(y + Bx): ≥ −tol where x = 0, ≈ 0 where x > 0
  int iterations = 0;
  bool converged = false;
};
using NonnegativeLeastSquares = BasicNonnegativeLeastSquares<FixedSizes>;

// min_x≥0 |y + Bx|² for B (d×k, k ≤ S::kContactLimit). A column enters while its rate
// b_iᵀ(y + Bx) is below −tolerance. Allocation-free on the fixed path.
template <typename S>
BasicNonnegativeLeastSquares<S> solve_nonnegative_least_squares(const typename S::DofByContact& b,
                                                                const typename S::DofVector& y,
                                                                double tolerance);
// The fixed path's entry (B deduces no size policy).
inline NonnegativeLeastSquares solve_nonnegative_least_squares(const DofByContact& b, const DofVector& y,
                                                               double tolerance) {
  return solve_nonnegative_least_squares<FixedSizes>(b, y, tolerance);
}

// The exact path: Lawson–Hanson with a QR of the free columns of B (long double when they are
// nearly dependent). The fast paths (fixed sizes only), taken when a cheap test certifies them —
// well-conditioned active normals, a margin on the active set, the KKT conditions afterwards:
// the Gram form A's Lawson–Hanson with a Cholesky of the free block, and for two contacts the
// 2×2 closed form.
enum class PlasticPath { kExact, kGram, kTwoContactClosedForm };

template <typename S>
struct BasicPlasticOutcome {
  typename S::ContactVector impulses;  // λ ≥ 0 [kg·m/s per unit normal] (not unique for dependent normals)
  typename S::DofVector momentum;      // p_p = L y_p, accurate to rounding in ||p⁻||_g
  typename S::DofVector whitened;      // y_p = L⁻¹p_p (so <a,p_p>_g = (L⁻¹a)·y_p)
  typename S::ContactVector rates;     // <p_p,u_i>_g ≥ −tol_i
  double energy = 0.0;                 // ½||p_p||²_g [J]
  // max_i |λ_i c_i| / ||p⁻||_g² : complementarity residual, relative (0 = exact)
  double complementarity_residual = 0.0;
  // The KKT conditions hold after the solve: feasibility c_i ≥ −tol_i, λ ≥ 0, complementarity
  // |c_i| ≤ tol_i wherever λ_i > 0, and <p_p − p⁻, p_p>_g ≈ 0. False means: do not trust p_p.
  bool converged = false;
  // Which solve gave p_p (for tests and benchmarks): the guarded Gram-form fast path, or the exact
  // one. The guarantees above are the same for all three; the last bits may differ between them.
  PlasticPath path = PlasticPath::kExact;
};
using PlasticOutcome = BasicPlasticOutcome<FixedSizes>;

template <typename S>
BasicPlasticOutcome<S> plastic_outcome(const BasicImpactProblem<S>& problem);
// The same into `out`, a default-constructed outcome (a sweep task's precomputation holds one:
// no copy of the result on the common path).
template <typename S>
void plastic_outcome_into(const BasicImpactProblem<S>& problem, BasicPlasticOutcome<S>& out);

// True when the normals positively span their own span (only p with no component in
// span{u_i} is feasible, so an infeasible p⁻ has no energy-conserving feasible outcome):
// checked as −u_i ∈ cone{u_j} for every i, by the same NNLS.
template <typename S>
bool normals_positively_span(const BasicImpactProblem<S>& problem);

}  // namespace simpact
