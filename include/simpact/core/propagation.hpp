// Propagative elastic resolution, eq. (14): while some closed contact is violated
// (<p,u_i>_g < −tol_i), reflect p across one of them (eq. 7). Which one is the ordering policy;
// `enumerate_outcomes` follows every choice and collects the distinct end momenta.
#pragma once

#include <climits>
#include <cstdint>
#include <vector>

#include "simpact/core/contact_sequence.hpp"
#include "simpact/core/counter_rng.hpp"
#include "simpact/core/fixed_size.hpp"
#include "simpact/core/impact_problem.hpp"
#include "simpact/core/ordering_policy.hpp"

namespace simpact {

// Every cap of one resolution: the single source of their defaults (JSON, YAML and docs read
// these). A hit is always reported (status cap_hit) and turns the affected ξ into NaN.
struct ResolveLimits {
  int max_steps = 1000;     // reflections along one single-policy propagation
  int max_depth = 256;      // reflections along one branch of the enumeration
  long max_nodes = 200000;  // reflections in the whole enumeration tree
  int max_outcomes = 4096;  // distinct outcomes kept (storage grows on demand up to this)
  // Subsequences tested for Definition 1 per resolution (every sequence of every outcome is
  // tested until the outcome is known minimal; what the budget leaves unchecked is a cap hit).
  long max_definition1_checks = 1L << 22;
};

// Each cap a user may set (YAML `limits:`, JSON "limits"): its key, the largest value accepted,
// and its member. The one list both readers and the JSON output use. Storage grows with what a
// resolution reaches, never with a limit, so any value up to `max` costs nothing until used.
struct ResolveLimitField {
  const char* name;
  long long max;  // the core counts steps, depth and outcomes in int
  long long (*get)(const ResolveLimits&);
  void (*set)(ResolveLimits&, long long);
};
inline constexpr ResolveLimitField kResolveLimitFields[] = {
    {"max_steps", INT_MAX, [](const ResolveLimits& l) -> long long { return l.max_steps; },
     [](ResolveLimits& l, long long v) { l.max_steps = static_cast<int>(v); }},
    {"max_depth", INT_MAX, [](const ResolveLimits& l) -> long long { return l.max_depth; },
     [](ResolveLimits& l, long long v) { l.max_depth = static_cast<int>(v); }},
    {"max_nodes", 1000000000000LL, [](const ResolveLimits& l) -> long long { return l.max_nodes; },
     [](ResolveLimits& l, long long v) { l.max_nodes = static_cast<long>(v); }},
    {"max_outcomes", 1LL << 24, [](const ResolveLimits& l) -> long long { return l.max_outcomes; },
     [](ResolveLimits& l, long long v) { l.max_outcomes = static_cast<int>(v); }},
    {"max_definition1_checks", 1LL << 40,
     [](const ResolveLimits& l) -> long long { return l.max_definition1_checks; },
     [](ResolveLimits& l, long long v) { l.max_definition1_checks = static_cast<long>(v); }},
};

// Everything below is a template on the size policy S (fixed_size.hpp), instantiated for
// FixedSizes and DynamicSizes in propagation.cpp; the plain names are the fixed variant.

// The violated contact a single policy reflects next, or −1 when p is feasible.
template <typename S>
int choose_violated_contact(const BasicImpactProblem<S>& problem, const typename S::ContactVector& rates,
                            OrderingPolicy policy, CounterRng* rng);

template <typename S>
struct BasicPropagation {
  typename S::ContactVector impulses;  // λ_e: p_e = p⁻ + λᵀN
  typename S::ContactVector rates;     // <p_e,u_i>_g
  ContactSequence sequence;
  bool step_cap_hit = false;
};

using Propagation = BasicPropagation<FixedSizes>;

// One policy (not kAll). `rng` is used by kRandom only (may be null otherwise).
template <typename S>
BasicPropagation<S> propagate(const BasicImpactProblem<S>& problem, OrderingPolicy policy,
                              const ResolveLimits& limits, CounterRng* rng);

// Sequences kept per outcome for reporting (all of them are counted and, for Definition 1, tested).
inline constexpr int kMaxSequencesPerOutcome = 4;
// Two end momenta closer than this (relative to ||p⁻||_g, measured on the momentum difference)
// are the same outcome.
inline constexpr double kOutcomeMergeTolerance = 1e-9;

template <typename S>
struct BasicOutcome {
  typename S::ContactVector elastic_impulses;  // λ_e of the elastic end momentum
  typename S::ContactVector impulses;          // λ⁺ = α λ_e + (1−α) λ_p (equal to λ_e when R = 1)
  typename S::DofVector elastic_momentum;      // p_e = p⁻ + λ_eᵀN
  typename S::DofVector momentum;              // p⁺ = α p_e + (1−α) p_p (equal to p_e when R = 1)
  double alpha = 1.0;                          // restitution blend, eq. (17)
  double energy = 0.0;                         // ½||p⁺||²_g [J]
  long sequence_count = 0;                     // branches reaching this outcome
  int shortest = 0;                            // length of the shortest such branch
  int stored_sequences = 0;
  ContactSequence sequences[kMaxSequencesPerOutcome];
  // Definition 1 over every sequence reaching this outcome: 1 some sequence is minimal, 0 none
  // is, −1 unknown (a sequence too long or past the budget was left unchecked, or not asked).
  int definition1_minimal = -1;
  bool definition1_unchecked = false;  // some sequence was not tested
};
using Outcome = BasicOutcome<FixedSizes>;

// Tests Definition 1 for each sequence added to an outcome not yet known minimal, within a
// budget of subsequences (ResolveLimits::max_definition1_checks).
struct Definition1Tracker {
  bool enabled = false;
  long budget = 0;
  bool cap_hit = false;  // some sequence was left unchecked
};

// Storage grows on demand (amortized, outside the steady state: a workspace reused across
// tasks stops allocating once it has seen its largest set) up to ResolveLimits::max_outcomes.
template <typename S>
struct BasicOutcomeSet {
  using Problem = BasicImpactProblem<S>;
  std::vector<BasicOutcome<S>> items;
  int size = 0;
  int capacity_limit = ResolveLimits{}.max_outcomes;
  long nodes = 0;  // reflections performed by the enumeration
  bool depth_cap_hit = false;
  bool node_cap_hit = false;
  bool outcome_cap_hit = false;
  Definition1Tracker definition1;

  void clear() {
    size = 0;
    nodes = 0;
    depth_cap_hit = node_cap_hit = outcome_cap_hit = false;
    definition1.cap_hit = false;
  }
  // Adds the end momentum with impulses λ reached by `sequence`, merging it with an equal one
  // (compared by momentum, kOutcomeMergeTolerance · ||p⁻||_g).
  void add(const Problem& problem, const typename S::ContactVector& impulses,
           const ContactSequence& sequence);
  // Merges outcomes whose final momenta p⁺ coincide (after the restitution blend).
  void merge_equal_final_momenta(const Problem& problem);
};
using OutcomeSet = BasicOutcomeSet<FixedSizes>;

// Single policies an enumeration can follow at once (BasicPolicyBranches, below).
inline constexpr int kMaxTrackedPolicies = 4;

// Scratch for the depth-first enumeration (one frame per depth reached): grows lazily with the
// depth actually reached, so a huge max_depth costs nothing until a branch goes that deep.
template <typename S>
struct BasicEnumerationStack {
  struct Frame {
    typename S::ContactVector impulses;
    typename S::ContactVector rates;
    typename S::template ContactVectorOf<std::uint8_t> violated;  // the first violated_count
    int violated_count = 0;
    int next = 0;
    unsigned on_branches = 0;  // bit b: this state lies on tracked branch b (BasicPolicyBranches)
    std::uint8_t branch_choice[kMaxTrackedPolicies];  // for each such b: its policy's next contact
  };
  std::vector<Frame> frames;
};
using EnumerationStack = BasicEnumerationStack<FixedSizes>;

// A deterministic single policy (argmin, argmax, index, reverse) follows one branch of the
// enumeration tree, with propagate()'s arithmetic step for step (both reflect from λ = 0,
// c = c⁻ with reflect_in_contact_coordinates). An enumeration asked to track such policies records
// where each branch ends, so a caller resolving `all` and single policies enumerates once.
template <typename S>
struct BasicPolicyBranches {
  struct Branch {
    OrderingPolicy policy = OrderingPolicy::kArgmin;
    // The branch reached a feasible end within the enumeration's caps and within
    // ResolveLimits::max_steps reflections (so propagate() would end there too, uncapped).
    bool found = false;
    typename S::ContactVector impulses;  // λ_e at its end: bit for bit propagate()'s
    int length = 0;                      // reflections along it
  };
  Branch branches[kMaxTrackedPolicies];
  int count = 0;

  // The policies a tree branch stands for: deterministic ones (random draws per step).
  static bool trackable(OrderingPolicy p) {
    return p == OrderingPolicy::kArgmin || p == OrderingPolicy::kArgmax || p == OrderingPolicy::kIndex ||
           p == OrderingPolicy::kReverse;
  }
  // Adds `p` (trackable, not yet tracked, fewer than kMaxTrackedPolicies); returns its index.
  int track(OrderingPolicy p) {
    branches[count] = Branch{};
    branches[count].policy = p;
    return count++;
  }
};
using PolicyBranches = BasicPolicyBranches<FixedSizes>;

// Every branch of the propagation tree (policy kAll): fills `outcomes` with the distinct ends.
// `branches` (optional): the single policies to follow; their `found`, impulses and length are set.
template <typename S>
void enumerate_outcomes(const BasicImpactProblem<S>& problem, const ResolveLimits& limits,
                        BasicOutcomeSet<S>& outcomes, BasicEnumerationStack<S>& stack,
                        BasicPolicyBranches<S>* branches = nullptr);

}  // namespace simpact
