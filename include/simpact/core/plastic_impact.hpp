// The perfectly plastic outcome (eq. 10–11, in Baraff–Mattikalli's unilateral form):
//   p_p = argmin ||p − p⁻||_g  subject to  <p,u_i>_g ≥ 0 for every closed contact,
// i.e. p_p = p⁻ + λᵀN with the LCP  c = c⁻ + Aλ ≥ 0, λ ≥ 0, λ·c = 0  (A = N M⁻¹ Nᵀ PSD).
// Solved exactly by Lawson–Hanson non-negative least squares in Gram form: finite, and p_p is
// unique even when A is singular (dependent normals), although λ then is not.
#pragma once

#include "simpact/core/fixed_size.hpp"
#include "simpact/core/impact_problem.hpp"

namespace simpact {

struct NonnegativeSolution {
  ContactVector x;         // minimizer, x ≥ 0
  ContactVector gradient;  // b + A x (≥ 0 where x = 0, ≈ 0 where x > 0)
  int iterations = 0;
  bool converged = false;
};

// min_x ½ xᵀAx + bᵀx over x ≥ 0, for symmetric positive semidefinite A (k ≤ kMaxContacts).
// `tolerance` bounds the negative gradient accepted at the optimum. Allocation-free.
NonnegativeSolution solve_nonnegative_quadratic(const ContactMatrix& a, const ContactVector& b,
                                                double tolerance);

struct PlasticOutcome {
  ContactVector impulses;  // λ ≥ 0 [kg·m/s per unit normal]
  ContactVector rates;     // <p_p,u_i>_g ≥ 0
  double energy = 0.0;     // ½||p_p||²_g [J]
  // max_i |λ_i c_i| / (||p⁻||_g² ) : complementarity residual, relative (0 = exact)
  double complementarity_residual = 0.0;
  bool converged = false;
};

PlasticOutcome plastic_outcome(const ImpactProblem& problem);

// True when the normals positively span their own span (only p with no component in
// span{u_i} is feasible, so an infeasible p⁻ has no energy-conserving feasible outcome):
// checked as −u_i ∈ cone{u_j} for every i, by the same NNLS.
bool normals_positively_span(const ImpactProblem& problem);

}  // namespace simpact
