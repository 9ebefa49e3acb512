#include "simpact/models/impact_problem_at.hpp"

#include <fmt/format.h>

#include "simpact/core/input_error.hpp"

namespace simpact {

namespace {

// p⁻: given, or M q̇⁻ (checked: length d, finite).
DynVector momentum_of(const ImpactTerms& terms, const PreImpact& pre) {
  if (pre.momentum.size() > 0) return pre.momentum;
  const int d = terms.dof();
  if (pre.velocity.size() != d)
    throw InputError("velocity", fmt::format("must have length d = {} (the size of the mass matrix), not {}",
                                             d, pre.velocity.size()));
  if (!pre.velocity.allFinite()) throw InputError("velocity", "must be finite (found NaN or Inf)");
  if (terms.mass_diagonal.size() > 0) return terms.mass_diagonal.cwiseProduct(pre.velocity);
  return terms.mass * pre.velocity;
}

DynMatrix dense_mass(const ImpactTerms& terms) {
  if (terms.mass_diagonal.size() == 0) return terms.mass;
  return DynMatrix(terms.mass_diagonal.asDiagonal());
}

// Every contact closed: no gaps for the system to read.
const DynVector& gaps_of(const ImpactTerms& terms) {
  static const DynVector none;
  return terms.every_contact_closed ? none : terms.gaps;
}

}  // namespace

bool impact_fits_fixed_sizes(const ImpactTerms& terms, const PreImpact& pre) {
  return fits_fixed_sizes(terms.dof(),
                          closed_contact_count(terms.normals.rows(), gaps_of(terms), pre.gap_tolerance));
}

template <typename S>
BasicImpactProblem<S> impact_problem_at(const ImpactTerms& terms, const PreImpact& pre) {
  const DynVector momentum = momentum_of(terms, pre);
  return BasicImpactProblem<S>(BasicKineticMetric<S>(dense_mass(terms)), terms.normals, momentum,
                               pre.restitution, gaps_of(terms), pre.gap_tolerance);
}

template <typename S>
BasicImpactProblem<S> impact_problem_at(const ImpactTerms& terms, const PreImpact& pre,
                                        BasicImpactSystem<S>& system) {
  if (terms.mass_diagonal.size() > 0)
    system.assign_diagonal(terms.mass_diagonal, terms.normals, gaps_of(terms), pre.gap_tolerance);
  else
    system = BasicImpactSystem<S>(BasicKineticMetric<S>(terms.mass), terms.normals, gaps_of(terms),
                                  pre.gap_tolerance);
  return BasicImpactProblem<S>(system, momentum_of(terms, pre), pre.restitution);
}

template <typename S>
BasicImpactProblem<S> impact_problem_at(const Mechanism& mechanism, const DynVector& q,
                                        const PreImpact& pre) {
  ImpactTerms terms;
  mechanism.impact_terms(q, terms);
  return impact_problem_at<S>(terms, pre);
}

template BasicImpactProblem<FixedSizes> impact_problem_at(const ImpactTerms&, const PreImpact&);
template BasicImpactProblem<DynamicSizes> impact_problem_at(const ImpactTerms&, const PreImpact&);
template BasicImpactProblem<FixedSizes> impact_problem_at(const ImpactTerms&, const PreImpact&,
                                                          BasicImpactSystem<FixedSizes>&);
template BasicImpactProblem<DynamicSizes> impact_problem_at(const ImpactTerms&, const PreImpact&,
                                                            BasicImpactSystem<DynamicSizes>&);
template BasicImpactProblem<FixedSizes> impact_problem_at(const Mechanism&, const DynVector&,
                                                          const PreImpact&);
template BasicImpactProblem<DynamicSizes> impact_problem_at(const Mechanism&, const DynVector&,
                                                            const PreImpact&);

}  // namespace simpact
