// Definition 1 (minimality): a sequence W reaching a feasible momentum is minimal when no proper
// subsequence of W (any positions deleted) also yields a feasible momentum. Feasibility is checked
// against every closed contact (DESIGN §1: the paper's set S is wrong for Newton's cradle).
#pragma once

#include "simpact/core/contact_sequence.hpp"
#include "simpact/core/impact_problem.hpp"

namespace simpact {

// Longest sequence checked exhaustively (2^n − 2 proper, non-empty subsequences, by a
// depth-first search costing ≤ 2^(n+1) reflections). Longer sequences are reported unchecked
// (a cap hit); the per-resolution budget is ResolveLimits::max_definition1_checks.
inline constexpr int kMaxDefinition1Length = 24;

// 1: minimal, 0: some proper subsequence is feasible, −1: too long (or truncated) to check.
template <typename S>
int definition1_minimal(const BasicImpactProblem<S>& problem, const ContactSequence& sequence);

}  // namespace simpact
