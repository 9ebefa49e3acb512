// Propagative elastic resolution, eq. (14): while some closed contact is violated
// (<p,u_i>_g < −tol_i), reflect p across one of them (eq. 7). Which one is the ordering policy;
// `enumerate_outcomes` follows every choice and collects the distinct end momenta.
#pragma once

#include <cstdint>
#include <vector>

#include "simpact/core/contact_sequence.hpp"
#include "simpact/core/counter_rng.hpp"
#include "simpact/core/fixed_size.hpp"
#include "simpact/core/impact_problem.hpp"
#include "simpact/core/ordering_policy.hpp"

namespace simpact {

struct ResolveLimits {
  int max_steps = 1000;     // reflections along one single-policy propagation
  int max_depth = 256;      // reflections along one branch of the enumeration
  long max_nodes = 200000;  // reflections in the whole enumeration tree
};

// The violated contact a single policy reflects next, or −1 when p is feasible.
int choose_violated_contact(const ImpactProblem& problem, const ContactVector& rates, OrderingPolicy policy,
                            CounterRng* rng);

struct Propagation {
  ContactVector impulses;  // λ_e: p_e = p⁻ + λᵀN
  ContactVector rates;     // <p_e,u_i>_g
  ContactSequence sequence;
  bool step_cap_hit = false;
};

// One policy (not kAll). `rng` is used by kRandom only (may be null otherwise).
Propagation propagate(const ImpactProblem& problem, OrderingPolicy policy, const ResolveLimits& limits,
                      CounterRng* rng);

inline constexpr int kMaxOutcomes = 64;
inline constexpr int kMaxSequencesPerOutcome = 4;
// Two end momenta closer than this (relative to ||p⁻||_g) are the same outcome.
inline constexpr double kOutcomeMergeTolerance = 1e-9;

struct Outcome {
  ContactVector elastic_impulses;  // λ_e of the elastic end momentum
  ContactVector impulses;          // λ⁺ = α λ_e + (1−α) λ_p (equal to λ_e when R = 1)
  double alpha = 1.0;              // restitution blend, eq. (17)
  double energy = 0.0;             // ½||p⁺||²_g [J]
  long sequence_count = 0;         // branches reaching this outcome
  int shortest = 0;                // length of the shortest such branch
  int stored_sequences = 0;
  ContactSequence sequences[kMaxSequencesPerOutcome];
  int definition1_minimal = -1;  // 1/0: some stored sequence is (is not) minimal; −1 unchecked
};

// Fixed capacity, allocated once (in the workspace): the hot path never allocates.
struct OutcomeSet {
  Outcome items[kMaxOutcomes];
  int size = 0;
  long nodes = 0;  // reflections performed by the enumeration
  bool depth_cap_hit = false;
  bool node_cap_hit = false;
  bool outcome_cap_hit = false;

  void clear() {
    size = 0;
    nodes = 0;
    depth_cap_hit = node_cap_hit = outcome_cap_hit = false;
  }
  // Adds the end momentum with impulses λ reached by `sequence`, merging it with an equal one.
  void add(const ImpactProblem& problem, const ContactVector& impulses, const ContactSequence& sequence);
};

// Scratch for the depth-first enumeration (one frame per depth), sized once.
struct EnumerationStack {
  struct Frame {
    ContactVector impulses;
    ContactVector rates;
    std::uint8_t violated[kMaxContacts];
    int violated_count = 0;
    int next = 0;
  };
  std::vector<Frame> frames;
};

// Every branch of the propagation tree (policy kAll): fills `outcomes` with the distinct ends.
void enumerate_outcomes(const ImpactProblem& problem, const ResolveLimits& limits, OutcomeSet& outcomes,
                        EnumerationStack& stack);

}  // namespace simpact
