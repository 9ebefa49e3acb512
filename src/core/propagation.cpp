#include "simpact/core/propagation.hpp"

#include <algorithm>

#include "simpact/core/minimality.hpp"
#include "simpact/core/reset_map.hpp"

namespace simpact {

namespace {

// One policy's choice among the violated contacts, fed one violated contact at a time in index
// order with its normalized rate <p,u_i/||u_i||>_g (choose_violated_contact, choose_for_branches).
struct PolicyChoice {
  int chosen = -1;
  double best = 0.0;
  void consider(OrderingPolicy policy, int i, double normalized) {
    switch (policy) {
      case OrderingPolicy::kArgmin:
        if (chosen < 0 || normalized < best) chosen = i, best = normalized;
        break;
      case OrderingPolicy::kArgmax:  // ties go to the last index, so argmin ≠ argmax on ties
        if (chosen < 0 || normalized >= best) chosen = i, best = normalized;
        break;
      case OrderingPolicy::kIndex:
        if (chosen < 0) chosen = i;
        break;
      case OrderingPolicy::kReverse:
      case OrderingPolicy::kRandom:
      case OrderingPolicy::kAll:
        chosen = i;
        break;
    }
  }
};

// choose_violated_contact for every tracked branch in `on` at once (deterministic policies: no
// generator): each normalized rate computed once. choices[b] for each bit b of `on`.
template <typename S>
void choose_for_branches(const BasicImpactProblem<S>& problem, const typename S::ContactVector& rates,
                         const BasicPolicyBranches<S>& branches, unsigned on, std::uint8_t* choices) {
  PolicyChoice choice[kMaxTrackedPolicies];
  const int k = problem.contacts();
  for (int i = 0; i < k; ++i) {
    if (rates[i] >= -problem.tolerances()[i]) continue;
    const double normalized = rates[i] / problem.normal_norms()[i];
    for (unsigned b = 0, bits = on; bits != 0; ++b, bits >>= 1)
      if (bits & 1u) choice[b].consider(branches.branches[b].policy, i, normalized);
  }
  for (unsigned b = 0, bits = on; bits != 0; ++b, bits >>= 1)
    if (bits & 1u) choices[b] = static_cast<std::uint8_t>(choice[b].chosen);
}

}  // namespace

template <typename S>
int choose_violated_contact(const BasicImpactProblem<S>& problem, const typename S::ContactVector& rates,
                            OrderingPolicy policy, CounterRng* rng) {
  using ContactVector = typename S::ContactVector;
  const ContactVector& tol = problem.tolerances();
  const ContactVector& norms = problem.normal_norms();
  const int k = problem.contacts();
  PolicyChoice choice;
  int violated_count = 0;
  for (int i = 0; i < k; ++i) {
    if (rates[i] >= -tol[i]) continue;
    ++violated_count;
    choice.consider(policy, i, rates[i] / norms[i]);  // <p,u_i/||u_i||>_g
  }
  const int chosen = choice.chosen;
  if (policy == OrderingPolicy::kRandom && violated_count > 1 && rng != nullptr) {
    auto pick = static_cast<int>(rng->below(static_cast<std::uint64_t>(violated_count)));
    for (int i = 0; i < k; ++i) {
      if (rates[i] >= -tol[i]) continue;
      if (pick-- == 0) return i;
    }
  }
  return chosen;
}

template <typename S>
BasicPropagation<S> propagate(const BasicImpactProblem<S>& problem, OrderingPolicy policy,
                              const ResolveLimits& limits, CounterRng* rng) {
  BasicPropagation<S> out;
  out.impulses = S::ContactVector::Zero(problem.contacts());
  out.rates = problem.initial_rates();
  for (;;) {
    const int i = choose_violated_contact(problem, out.rates, policy, rng);
    if (i < 0) break;
    if (out.sequence.length >= limits.max_steps) {
      out.step_cap_hit = true;
      break;
    }
    reflect_in_contact_coordinates(problem.gram(), i, out.impulses, out.rates);
    out.sequence.push(i);
  }
  return out;
}

namespace {

template <typename S>
void record_sequence(BasicOutcome<S>& o, const ContactSequence& sequence) {
  ++o.sequence_count;
  o.shortest = std::min(o.shortest, sequence.length);
  if (o.stored_sequences < kMaxSequencesPerOutcome) o.sequences[o.stored_sequences++] = sequence;
}

// Definition 1 for one more sequence of `o`, unless `o` is already known minimal.
template <typename S>
void test_definition1(const BasicImpactProblem<S>& problem, Definition1Tracker& tracker, BasicOutcome<S>& o,
                      const ContactSequence& sequence) {
  if (!tracker.enabled || o.definition1_minimal == 1) return;
  const int n = sequence.length;
  const long cost = (n <= kMaxDefinition1Length && !sequence.truncated()) ? (1L << n) : -1;
  if (cost < 0 || cost > tracker.budget) {
    o.definition1_unchecked = true;
    tracker.cap_hit = true;
  } else {
    tracker.budget -= cost;
    if (definition1_minimal(problem, sequence) == 1) o.definition1_minimal = 1;
  }
  if (o.definition1_minimal != 1) o.definition1_minimal = o.definition1_unchecked ? -1 : 0;
}

}  // namespace

template <typename S>
void BasicOutcomeSet<S>::add(const Problem& problem, const typename S::ContactVector& impulses,
                             const ContactSequence& sequence) {
  const double merge = kOutcomeMergeTolerance * problem.momentum_norm();
  const typename S::DofVector p = problem.momentum_from_impulses(impulses);
  for (int j = 0; j < size; ++j) {
    BasicOutcome<S>& o = items[static_cast<std::size_t>(j)];
    if (problem.certainly_farther(o.elastic_impulses, impulses, merge)) continue;
    if (problem.distance(o.elastic_momentum, p) <= merge) {
      record_sequence(o, sequence);
      test_definition1(problem, definition1, o, sequence);
      return;
    }
  }
  if (size >= capacity_limit) {
    outcome_cap_hit = true;
    return;
  }
  if (static_cast<std::size_t>(size) == items.size())
    items.resize(items.size() + std::max<std::size_t>(8, items.size()));
  BasicOutcome<S>& o = items[static_cast<std::size_t>(size++)];
  o.elastic_impulses = impulses;
  o.impulses = impulses;
  o.elastic_momentum = p;
  o.momentum = p;
  o.alpha = 1.0;
  o.energy = 0.0;
  o.sequence_count = 0;
  o.shortest = sequence.length;
  o.stored_sequences = 0;
  o.definition1_minimal = -1;
  o.definition1_unchecked = false;
  record_sequence(o, sequence);
  test_definition1(problem, definition1, o, sequence);
}

template <typename S>
void BasicOutcomeSet<S>::merge_equal_final_momenta(const Problem& problem) {
  const double merge = kOutcomeMergeTolerance * problem.momentum_norm();
  int kept = 0;
  for (int j = 0; j < size; ++j) {
    BasicOutcome<S>& o = items[static_cast<std::size_t>(j)];
    int into = -1;
    for (int m = 0; m < kept && into < 0; ++m)
      if (problem.distance(items[static_cast<std::size_t>(m)].momentum, o.momentum) <= merge) into = m;
    if (into < 0) {
      if (kept != j) std::swap(items[static_cast<std::size_t>(kept)], o);
      ++kept;
      continue;
    }
    BasicOutcome<S>& target = items[static_cast<std::size_t>(into)];
    target.sequence_count += o.sequence_count;
    for (int s = 0; s < o.stored_sequences && target.stored_sequences < kMaxSequencesPerOutcome; ++s)
      target.sequences[target.stored_sequences++] = o.sequences[s];
    target.shortest = std::min(target.shortest, o.shortest);
    target.definition1_unchecked = target.definition1_unchecked || o.definition1_unchecked;
    if (o.definition1_minimal == 1 || target.definition1_minimal == 1)
      target.definition1_minimal = 1;
    else if (o.definition1_minimal == -1 || target.definition1_minimal == -1)
      target.definition1_minimal = -1;
  }
  size = kept;
}

template <typename S>
void enumerate_outcomes(const BasicImpactProblem<S>& problem, const ResolveLimits& limits,
                        BasicOutcomeSet<S>& outcomes, BasicEnumerationStack<S>& stack,
                        BasicPolicyBranches<S>* branches) {
  outcomes.clear();
  const int k = problem.contacts();
  const typename S::ContactVector& tol = problem.tolerances();
  if (stack.frames.empty()) stack.frames.resize(16);
  ContactSequence path;

  auto open_frame = [&](typename BasicEnumerationStack<S>::Frame& f) {
    f.violated_count = 0;
    f.next = 0;
    f.violated.resize(k);  // no-op once sized (fixed path: no allocation ever)
    for (int i = 0; i < k; ++i)
      if (f.rates[i] < -tol[i]) f.violated[f.violated_count++] = static_cast<std::uint8_t>(i);
    if (f.on_branches != 0 && f.violated_count > 0)
      choose_for_branches(problem, f.rates, *branches, f.on_branches, f.branch_choice);
  };

  // A leaf ends every tracked branch it lies on (within max_steps, where propagate would stop).
  auto end_branches = [&](const typename BasicEnumerationStack<S>::Frame& leaf) {
    if (path.length > limits.max_steps) return;
    for (unsigned b = 0, on = leaf.on_branches; on != 0; ++b, on >>= 1)
      if (on & 1u) {
        auto& branch = branches->branches[b];
        branch.found = true;
        branch.impulses = leaf.impulses;
        branch.length = path.length;
      }
  };
  // The tracked branches through `parent` that reflect contact i next (the policy's own choice).
  auto branches_through = [&](const typename BasicEnumerationStack<S>::Frame& parent, int i) {
    unsigned on = 0;
    for (unsigned b = 0, bits = parent.on_branches; bits != 0; ++b, bits >>= 1)
      if ((bits & 1u) && parent.branch_choice[b] == i) on |= 1u << b;
    return on;
  };

  int depth = 0;
  auto& root = stack.frames[0];
  root.impulses = S::ContactVector::Zero(k);
  root.rates = problem.initial_rates();
  root.on_branches = branches != nullptr ? (1u << branches->count) - 1u : 0u;
  open_frame(root);
  if (root.violated_count == 0) {
    if (root.on_branches != 0) end_branches(root);
    outcomes.add(problem, root.impulses, path);
    return;
  }
  // Iterative depth-first search; frame d holds the state after d reflections.
  while (depth >= 0) {
    auto* frame = &stack.frames[static_cast<std::size_t>(depth)];
    if (frame->next == frame->violated_count) {  // every branch below this state explored
      --depth;
      if (depth >= 0) path.pop();
      continue;
    }
    const int i = frame->violated[frame->next++];
    if (depth == limits.max_depth) {
      outcomes.depth_cap_hit = true;
      frame->next = frame->violated_count;
      continue;
    }
    if (outcomes.nodes >= limits.max_nodes) {
      outcomes.node_cap_hit = true;
      return;
    }
    ++outcomes.nodes;
    // The stack grows with the depth reached (doubling), never with the limit.
    if (static_cast<std::size_t>(depth) + 1 >= stack.frames.size()) {
      stack.frames.resize(2 * stack.frames.size());
      frame = &stack.frames[static_cast<std::size_t>(depth)];
    }
    auto& child = stack.frames[static_cast<std::size_t>(depth) + 1];
    child.impulses = frame->impulses;
    child.rates = frame->rates;
    reflect_in_contact_coordinates(problem.gram(), i, child.impulses, child.rates);
    path.push(i);
    child.on_branches = frame->on_branches != 0 ? branches_through(*frame, i) : 0u;
    open_frame(child);
    if (child.violated_count == 0) {
      if (child.on_branches != 0) end_branches(child);
      outcomes.add(problem, child.impulses, path);
      path.pop();
      if (outcomes.outcome_cap_hit) return;  // the set is incomplete anyway: stop searching
    } else {
      ++depth;
    }
  }
}

#define SIMPACT_INSTANTIATE_PROPAGATION(S)                                                       \
  template int choose_violated_contact<S>(const BasicImpactProblem<S>&, const S::ContactVector&, \
                                          OrderingPolicy, CounterRng*);                          \
  template BasicPropagation<S> propagate<S>(const BasicImpactProblem<S>&, OrderingPolicy,        \
                                            const ResolveLimits&, CounterRng*);                  \
  template struct BasicOutcomeSet<S>;                                                            \
  template void enumerate_outcomes<S>(const BasicImpactProblem<S>&, const ResolveLimits&,        \
                                      BasicOutcomeSet<S>&, BasicEnumerationStack<S>&,            \
                                      BasicPolicyBranches<S>*);
SIMPACT_INSTANTIATE_PROPAGATION(FixedSizes)
SIMPACT_INSTANTIATE_PROPAGATION(DynamicSizes)
#undef SIMPACT_INSTANTIATE_PROPAGATION

}  // namespace simpact
