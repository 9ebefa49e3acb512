#include "simpact/core/minimality.hpp"

#include <cstdint>

#include "simpact/core/reset_map.hpp"

namespace simpact {

int definition1_minimal(const ImpactProblem& problem, const ContactSequence& sequence) {
  const int n = sequence.length;
  if (n > kMaxDefinition1Length || sequence.truncated()) return -1;
  if (n == 0) return 1;
  // The empty subsequence is p⁻ itself: feasible only if there was no impact at all.
  if (problem.feasible(problem.initial_rates())) return 0;
  const std::uint32_t full = (std::uint32_t{1} << n) - 1;
  const int k = problem.contacts();
  for (std::uint32_t mask = 1; mask < full; ++mask) {
    ContactVector impulses = ContactVector::Zero(k);
    ContactVector rates = problem.initial_rates();
    for (int j = 0; j < n; ++j)
      if (mask & (std::uint32_t{1} << j))
        reflect_in_contact_coordinates(problem.gram(), sequence.contacts[j], impulses, rates);
    if (problem.feasible(rates)) return 0;
  }
  return 1;
}

}  // namespace simpact
