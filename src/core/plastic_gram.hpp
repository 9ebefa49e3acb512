// The guarded fast path of the plastic LCP (plastic_impact.cpp): c = c⁻ + Aλ ≥ 0, λ ≥ 0, λ·c = 0
// solved in the Gram form on the normalized matrix G = D⁻¹AD⁻¹ (D = diag ||u_i||_g) — a closed
// form for two contacts, Lawson–Hanson with a Cholesky of the free block otherwise. The Gram
// form squares the conditioning of the normals, so its answer is accepted only when a cheap test
// certifies it: the free block's ||G_FF⁻¹|| is small (well-conditioned active normals), every
// active impulse and every inactive rate clears the rounding bound by a margin (a certain active
// set), and the KKT conditions, re-evaluated in the whitened form afterwards, hold. Anything
// else — nearly dependent or antiparallel active normals, a contact on the edge of the active
// set — returns false and takes the exact QR path. Private to the core (not installed).
#pragma once

#include "simpact/core/fixed_size.hpp"
#include "simpact/core/impact_problem.hpp"

namespace simpact::detail {

// Largest accepted bound on ||G_FF⁻¹||₂ for the active block (G has a unit diagonal, so this is
// ≥ the condition number over k). The Gram form's error in p_p is ~ε·||G_FF⁻¹||·||p⁻||_g: below
// 1e-11 ||p⁻||_g here, far inside the 1e-9 the tests demand.
inline constexpr double kMaxGramInverseNorm = 1e4;

// What the Gram form decided (impulses λ, not normalized), or false: take the exact path.
struct GramPlastic {
  ContactVector impulses;
  bool closed_form = false;  // two contacts: the 2×2 closed form, no iteration
};

// False when the problem is not on the fixed path's small sizes or any guard fails. tolerance:
// the entering tolerance on c_i that the exact path's Lawson–Hanson uses.
bool gram_plastic(const ImpactProblem& problem, double tolerance, GramPlastic& out);

}  // namespace simpact::detail
