// The one adapter from a mechanism to an impact problem (issue 34 §1): M(q), the closed contacts'
// normals Dφ_i(q) and p⁻ at one configuration. Built-in scenarios, mechanism files, the time
// stepper's reset, the audit and the JSON requests all build their problems here; nothing else
// assembles one.
#pragma once

#include <Eigen/Core>

#include "simpact/core/impact_problem.hpp"
#include "simpact/models/mechanism.hpp"

namespace simpact {

// The state just before the impact.
struct PreImpact {
  DynVector velocity;  // q̇⁻: p⁻ = M q̇⁻ (used when momentum is empty)
  DynVector momentum;  // p⁻
  double restitution = 1.0;
  double gap_tolerance = kGapTolerance;  // φ_i ≤ this: closed (negative: penetrating, closed)
};

// True when the closed contacts of `terms` fit the fixed-capacity path (core/fixed_size.hpp).
bool impact_fits_fixed_sizes(const ImpactTerms& terms, const PreImpact& pre);

// The impact of `terms` at `pre`, owning its system. Throws InputError naming the field
// ("velocity", "normals[2]", "restitution", ...).
template <typename S>
BasicImpactProblem<S> impact_problem_at(const ImpactTerms& terms, const PreImpact& pre);
// The same problem, bit for bit, built into `system` (caller-owned, reused across a sweep's
// tasks: no allocation on the fixed path) and borrowing it.
template <typename S>
BasicImpactProblem<S> impact_problem_at(const ImpactTerms& terms, const PreImpact& pre,
                                        BasicImpactSystem<S>& system);
// The mechanism's impact at configuration q: its impact_terms(q), then the above.
template <typename S>
BasicImpactProblem<S> impact_problem_at(const Mechanism& mechanism, const DynVector& q, const PreImpact& pre);

extern template BasicImpactProblem<FixedSizes> impact_problem_at(const ImpactTerms&, const PreImpact&);
extern template BasicImpactProblem<DynamicSizes> impact_problem_at(const ImpactTerms&, const PreImpact&);
extern template BasicImpactProblem<FixedSizes> impact_problem_at(const ImpactTerms&, const PreImpact&,
                                                                 BasicImpactSystem<FixedSizes>&);
extern template BasicImpactProblem<DynamicSizes> impact_problem_at(const ImpactTerms&, const PreImpact&,
                                                                   BasicImpactSystem<DynamicSizes>&);
extern template BasicImpactProblem<FixedSizes> impact_problem_at(const Mechanism&, const DynVector&,
                                                                 const PreImpact&);
extern template BasicImpactProblem<DynamicSizes> impact_problem_at(const Mechanism&, const DynVector&,
                                                                   const PreImpact&);

}  // namespace simpact
