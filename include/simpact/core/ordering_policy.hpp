// Which violated contact the propagative resolution reflects next (DESIGN §1).
#pragma once

#include <array>
#include <string_view>

namespace simpact {

enum class OrderingPolicy {
  kArgmin,   // most negative normalized <p,u_i>_g first (the paper's TREX choice)
  kArgmax,   // least negative normalized <p,u_i>_g first
  kIndex,    // lowest violated contact index first
  kReverse,  // highest violated contact index first
  kRandom,   // uniformly among the violated contacts, from a counter-based generator
  kAll,      // every branch: the full outcome set
};

inline constexpr std::array<std::string_view, 6> kOrderingPolicyNames = {"argmin",  "argmax", "index",
                                                                         "reverse", "random", "all"};

// The orderings a sweep resolves each task under when its config names none: the full outcome
// set and the paper's two orders (ξ between argmin and argmax). The one definition of the default.
inline constexpr std::array<OrderingPolicy, 3> kDefaultSweepOrderings = {
    OrderingPolicy::kAll, OrderingPolicy::kArgmin, OrderingPolicy::kArgmax};

inline std::string_view ordering_policy_name(OrderingPolicy policy) {
  return kOrderingPolicyNames[static_cast<int>(policy)];
}

// Returns false when `name` is not one of kOrderingPolicyNames.
inline bool parse_ordering_policy(std::string_view name, OrderingPolicy& policy) {
  for (std::size_t i = 0; i < kOrderingPolicyNames.size(); ++i) {
    if (kOrderingPolicyNames[i] == name) {
      policy = static_cast<OrderingPolicy>(i);
      return true;
    }
  }
  return false;
}

// Which outcome set ξ is computed over (DESIGN §1): every propagation outcome, or only the
// outcomes reached by a sequence that is minimal in the sense of the paper's Definition 1.
enum class Minimality { kPropagation, kDefinition1 };

}  // namespace simpact
