// Definition 1 (minimality): a sequence W reaching a feasible momentum is minimal when no proper
// subsequence of W (any positions deleted) also yields a feasible momentum. Feasibility is checked
// against every closed contact (DESIGN §1: the paper's set S is wrong for Newton's cradle).
#pragma once

#include "simpact/core/contact_sequence.hpp"
#include "simpact/core/impact_problem.hpp"

namespace simpact {

// Longest sequence checked exhaustively (2^n − 2 proper, non-empty subsequences).
inline constexpr int kMaxDefinition1Length = 16;  // ≤ 65534 subsequences per sequence
// Subsequences checked per resolution at most (all outcomes' stored sequences together).
inline constexpr long kDefinition1Budget = 1L << 18;

// 1: minimal, 0: some proper subsequence is feasible, −1: too long (or truncated) to check.
int definition1_minimal(const ImpactProblem& problem, const ContactSequence& sequence);

}  // namespace simpact
