#include "simpact/core/minimality.hpp"

#include "simpact/core/reset_map.hpp"

namespace simpact {

namespace {

// Depth-first over keep/drop choices for positions pos..n−1 of the sequence: true when some
// subsequence other than the whole sequence ends feasible. Each node costs one O(k) reflection,
// so a length-n sequence costs at most 2^(n+1) reflections.
template <typename S>
bool some_proper_subsequence_feasible(const BasicImpactProblem<S>& problem, const ContactSequence& sequence,
                                      int pos, const typename S::ContactVector& impulses,
                                      const typename S::ContactVector& rates, bool whole) {
  using ContactVector = typename S::ContactVector;
  if (pos == sequence.length) return !whole && problem.feasible(rates);
  if (some_proper_subsequence_feasible(problem, sequence, pos + 1, impulses, rates, false)) return true;
  ContactVector kept_impulses = impulses, kept_rates = rates;
  reflect_in_contact_coordinates(problem.gram(), sequence.contacts[static_cast<std::size_t>(pos)],
                                 kept_impulses, kept_rates);
  return some_proper_subsequence_feasible(problem, sequence, pos + 1, kept_impulses, kept_rates, whole);
}

}  // namespace

template <typename S>
int definition1_minimal(const BasicImpactProblem<S>& problem, const ContactSequence& sequence) {
  using ContactVector = typename S::ContactVector;
  const int n = sequence.length;
  if (n > kMaxDefinition1Length || sequence.truncated()) return -1;
  if (n == 0) return 1;
  // The empty subsequence is p⁻ itself: feasible only if there was no impact at all.
  if (problem.feasible(problem.initial_rates())) return 0;
  const ContactVector zero = ContactVector::Zero(problem.contacts());
  return some_proper_subsequence_feasible(problem, sequence, 0, zero, problem.initial_rates(), true) ? 0 : 1;
}

template int definition1_minimal<FixedSizes>(const BasicImpactProblem<FixedSizes>&, const ContactSequence&);
template int definition1_minimal<DynamicSizes>(const BasicImpactProblem<DynamicSizes>&,
                                               const ContactSequence&);

}  // namespace simpact
