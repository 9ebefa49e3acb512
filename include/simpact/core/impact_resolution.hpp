// Resolving one simultaneous impact: the elastic outcome(s) by propagation, the plastic outcome
// by the unilateral LCP, the inelastic blend for R < 1, ξ and the uniqueness diagnostics.
// `ImpactProblem` is read-only; `ImpactWorkspace` (one per thread) holds every buffer, so
// `resolve_impact` allocates nothing once the workspace exists.
#pragma once

#include <cstdint>
#include <limits>

#include "simpact/core/impact_problem.hpp"
#include "simpact/core/ordering_policy.hpp"
#include "simpact/core/plastic_impact.hpp"
#include "simpact/core/propagation.hpp"

namespace simpact {

struct ResolveOptions;

// What every ordering of one impact shares, computed once when several orderings resolve the
// same problem (a sweep task): the plastic outcome p_p (eq. 10–11), the positive-span test and
// whether p⁻ is already feasible. Fill it with `precompute_impact` for the same problem and the
// options it will be resolved with (only the ones that matter: compute_plastic, and R from the
// problem); resolve_impact then reads it instead of solving again, bit for bit the same.
// Like the rest of the core, a template on the size policy S; the plain names are the fixed path.
template <typename S>
struct BasicPrecomputedImpact {
  bool initially_feasible = false;  // every closed contact has <p⁻,u_i>_g ≥ −tol_i
  bool plastic_computed = false;    // `plastic` holds p_p
  BasicPlasticOutcome<S> plastic;
  // No elastic outcome can exist: a subset of the closed normals positively spans a subspace that
  // p⁻ moves in (elastic_outcome_obstructed); evaluated only where resolve_impact consults it
  // (p⁻ infeasible and R > 0), false elsewhere.
  bool positively_spanning = false;
};
using PrecomputedImpact = BasicPrecomputedImpact<FixedSizes>;
template <typename S>
BasicPrecomputedImpact<S> precompute_impact(const BasicImpactProblem<S>& problem,
                                            const ResolveOptions& options);

struct ResolveOptions {
  OrderingPolicy policy = OrderingPolicy::kAll;
  Minimality minimality = Minimality::kPropagation;
  ResolveLimits limits;
  bool compute_plastic = true;        // forced on when R < 1 (the blend needs p_p)
  bool compare_argmin_argmax = true;  // ξ between the argmin and argmax policies
  bool check_definition1 = false;     // forced on when minimality = definition1
  std::uint64_t seed = 0;             // for the random policy: draws keyed by (seed, task)
  std::uint64_t task = 0;
  // Copy p_p into the resolution (res.plastic, plastic_computed). False for a caller that reads
  // it from the PrecomputedImpact it passes (a sweep task's orderings): p_p is used all the same.
  bool report_plastic = true;
  // Optional: the shared work of this problem, from precompute_impact(problem, options with the
  // same compute_plastic); not owned. Null: resolve_impact computes it itself. The fixed path's;
  // the dynamic path passes its own to resolve_impact (a non-null one here is refused there).
  const PrecomputedImpact* precomputed = nullptr;
};

enum class ResolveStatus {
  kOk,                 // outcome(s) found
  kNoImpact,           // p⁻ already feasible: p⁺ = p⁻
  kNoElasticOutcome,   // the closed normals positively span their span: only p_p exists
  kCapHit,             // a step/depth/node/outcome/Definition 1 cap was hit: ξ is NaN
  kPlasticUnverified,  // the plastic solve failed its KKT check: p_p and every blend are NaN
};
const char* resolve_status_name(ResolveStatus status);

// ξ is published only when it was computed exactly: NaN after any cap hit (the outcome set,
// or the two propagations, may be incomplete or infeasible), never 0.
template <typename S>
struct BasicImpactResolution {
  ResolveStatus status = ResolveStatus::kOk;
  int outcome_count = 0;                                 // distinct outcomes (workspace.outcomes)
  double xi = std::numeric_limits<double>::quiet_NaN();  // diameter / ||p⁻||_g (policy all)
  // The diameter of the outcomes found when the outcome set is incomplete (a lower bound of ξ);
  // NaN otherwise.
  double xi_lower_bound = std::numeric_limits<double>::quiet_NaN();
  double xi_argmin_argmax = std::numeric_limits<double>::quiet_NaN();
  bool unique = false;        // policy all: exactly one outcome and no cap hit
  int minimal_outcomes = -1;  // outcomes with a Definition 1 minimal sequence (−1: unchecked)
  bool step_cap_hit = false, depth_cap_hit = false, node_cap_hit = false, outcome_cap_hit = false;
  bool definition1_cap_hit = false;  // some sequence left untested (too long or past the budget)
  long nodes = 0;
  double energy_before = 0.0;  // ½||p⁻||²_g [J]
  bool plastic_computed = false;
  BasicPlasticOutcome<S> plastic;
  BasicPropagation<S> argmin, argmax;  // filled when compare_argmin_argmax
};
using ImpactResolution = BasicImpactResolution<FixedSizes>;

template <typename S>
class BasicImpactWorkspace {
 public:
  explicit BasicImpactWorkspace(const ResolveLimits& limits = {});
  BasicOutcomeSet<S> outcomes;
  BasicEnumerationStack<S> stack;
};
using ImpactWorkspace = BasicImpactWorkspace<FixedSizes>;
using DynamicImpactWorkspace = BasicImpactWorkspace<DynamicSizes>;
extern template class BasicImpactWorkspace<FixedSizes>;
extern template class BasicImpactWorkspace<DynamicSizes>;

// `precomputed` (optional) overrides options.precomputed; the dynamic path can pass it only here.
// `branches` (optional, policy kAll only): single policies whose branches the enumeration tracks
// (see single_policy_outcome); untouched where the enumeration does not run.
template <typename S>
BasicImpactResolution<S> resolve_impact(const BasicImpactProblem<S>& problem, const ResolveOptions& options,
                                        BasicImpactWorkspace<S>& workspace,
                                        const BasicPrecomputedImpact<S>* precomputed = nullptr,
                                        BasicPolicyBranches<S>* branches = nullptr);

// What resolve_impact gives under one single policy, read off a branch that the `all`
// enumeration of the same problem tracked and found (branch.found): status, p⁺, ½||p⁺||²_g and
// the branch's reflections — bit for bit, without propagating again. Valid only for options
// without Definition 1 (minimality propagation, check_definition1 false), where a single
// resolution's status cannot come from its sequence. `set`: that enumeration's outcome set (an
// outcome whose elastic impulses are this branch's, bit for bit, already holds its blend).
template <typename S>
struct BasicSinglePolicyOutcome {
  ResolveStatus status = ResolveStatus::kOk;
  typename S::DofVector momentum;  // p⁺
  double energy = 0.0;             // ½||p⁺||²_g [J]
  int steps = 0;                   // reflections
};
using SinglePolicyOutcome = BasicSinglePolicyOutcome<FixedSizes>;
template <typename S>
BasicSinglePolicyOutcome<S> single_policy_outcome(const BasicImpactProblem<S>& problem,
                                                  const BasicPrecomputedImpact<S>& precomputed,
                                                  const typename BasicPolicyBranches<S>::Branch& branch,
                                                  const BasicOutcomeSet<S>& set);

}  // namespace simpact
