// When an elastic (R = 1) outcome cannot exist, decided on the subset of the closed contacts
// that matters — not only when all of them positively span.
#pragma once

#include "simpact/core/impact_problem.hpp"

namespace simpact {

// True when a subset S of the closed normals positively spans a subspace L ≠ {0} (S: the u_i with
// −u_i ∈ cone{u_j}, which span the lineality space of the cone), every other normal is
// g-orthogonal to L, and p⁻ approaches some contact of S. Then every elastic reflection keeps
// |v_L| (those on S reflect within L, the others leave v_L alone), while a feasible outcome has
// v_L = 0: no elastic outcome exists, and enumerating them only runs to its cap. Example: a slot
// (±e₁) and a floor (e₂) with p⁻ = (−1, 0.5). With S = all contacts this is the paper's case
// (the normals positively span their span).
template <typename S>
bool elastic_outcome_obstructed(const BasicImpactProblem<S>& problem);

}  // namespace simpact
