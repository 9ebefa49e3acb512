#include "simpact/core/impact_resolution.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "simpact/core/elastic_obstruction.hpp"
#include "simpact/core/minimality.hpp"
#include "simpact/core/restitution.hpp"

namespace simpact {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

const char* resolve_status_name(ResolveStatus status) {
  switch (status) {
    case ResolveStatus::kOk:
      return "ok";
    case ResolveStatus::kNoImpact:
      return "no_impact";
    case ResolveStatus::kNoElasticOutcome:
      return "no_elastic_outcome";
    case ResolveStatus::kCapHit:
      return "cap_hit";
    case ResolveStatus::kPlasticUnverified:
      return "plastic_unverified";
  }
  return "unknown";
}

template <typename S>
BasicImpactWorkspace<S>::BasicImpactWorkspace(const ResolveLimits& limits) {
  // Small initial storage; both grow on demand with what a resolution actually reaches.
  outcomes.items.resize(static_cast<std::size_t>(std::min(limits.max_outcomes, 64)));
  stack.frames.resize(static_cast<std::size_t>(std::min(limits.max_depth, 63)) + 1);
}

namespace {

// Eq. (17) in momentum space: p⁺ = α p_e + (1−α) p_p, α from eq. (16); inner products on the
// whitened vectors (L⁻¹p), so they stay accurate when p_p came from huge impulses. The α of p_e,
// with ye = L⁻¹p_e; `plastic_squared_norm` is |y_p|², the same for every outcome of a problem.
template <typename S>
double blend_alpha(const BasicImpactProblem<S>& problem, const BasicPlasticOutcome<S>& plastic,
                   double plastic_squared_norm, const typename S::DofVector& elastic,
                   typename S::DofVector& ye) {
  ye = elastic;
  problem.metric().whiten_in_place(ye);
  return restitution_alpha(problem.restitution(), ye.squaredNorm(), plastic_squared_norm,
                           ye.dot(plastic.whitened));
}

template <typename S>
struct Blend {
  typename S::DofVector momentum;
  typename S::ContactVector impulses;
  double alpha = 1.0;
  double energy = 0.0;
};
template <typename S>
Blend<S> blend_with_plastic(const BasicImpactProblem<S>& problem, const BasicPlasticOutcome<S>& plastic,
                            const typename S::DofVector& elastic,
                            const typename S::ContactVector& elastic_impulses) {
  typename S::DofVector ye;
  Blend<S> b;
  b.alpha = blend_alpha(problem, plastic, plastic.whitened.squaredNorm(), elastic, ye);
  b.momentum = b.alpha * elastic + (1.0 - b.alpha) * plastic.momentum;
  b.impulses = b.alpha * elastic_impulses + (1.0 - b.alpha) * plastic.impulses;
  b.energy = 0.5 * (b.alpha * ye + (1.0 - b.alpha) * plastic.whitened).squaredNorm();
  return b;
}

// The same blend written into an outcome of the set (no copy through a Blend).
template <typename S>
void blend_outcome(const BasicImpactProblem<S>& problem, const BasicPlasticOutcome<S>& plastic,
                   double plastic_squared_norm, BasicOutcome<S>& o) {
  typename S::DofVector ye;
  const double alpha = blend_alpha(problem, plastic, plastic_squared_norm, o.elastic_momentum, ye);
  o.momentum = alpha * o.elastic_momentum + (1.0 - alpha) * plastic.momentum;
  o.impulses = alpha * o.elastic_impulses + (1.0 - alpha) * plastic.impulses;
  o.alpha = alpha;
  o.energy = 0.5 * (alpha * ye + (1.0 - alpha) * plastic.whitened).squaredNorm();
}

template <typename S>
double diameter(const BasicImpactProblem<S>& problem, const BasicOutcomeSet<S>& set, bool only_minimal) {
  double d = 0.0;
  for (int a = 0; a < set.size; ++a) {
    const BasicOutcome<S>& oa = set.items[static_cast<std::size_t>(a)];
    if (only_minimal && oa.definition1_minimal != 1) continue;
    for (int b = a + 1; b < set.size; ++b) {
      const BasicOutcome<S>& ob = set.items[static_cast<std::size_t>(b)];
      if (only_minimal && ob.definition1_minimal != 1) continue;
      d = std::max(d, problem.distance(oa.momentum, ob.momentum));
    }
  }
  return d;
}

// The perfectly plastic impact (R = 0) has one outcome, p_p, whatever the ordering: no
// propagation is needed, and no elastic cap can hide it.
template <typename S>
void plastic_only_outcome(const BasicPlasticOutcome<S>& plastic, BasicOutcomeSet<S>& set) {
  set.clear();
  if (set.items.empty()) set.items.resize(1);
  BasicOutcome<S>& o = set.items[0];
  o = BasicOutcome<S>{};
  o.elastic_impulses = plastic.impulses;
  o.impulses = plastic.impulses;
  o.elastic_momentum = plastic.momentum;
  o.momentum = plastic.momentum;
  o.alpha = 0.0;
  o.energy = plastic.energy;
  o.sequence_count = 0;
  o.definition1_minimal = 1;  // reached by no reflection sequence: nothing to minimize
  set.size = 1;
}

}  // namespace

template <typename S>
BasicPrecomputedImpact<S> precompute_impact(const BasicImpactProblem<S>& problem,
                                            const ResolveOptions& options) {
  BasicPrecomputedImpact<S> pre;
  pre.initially_feasible = problem.feasible(problem.initial_rates());
  const double restitution = problem.restitution();
  if (options.compute_plastic || restitution < 1.0) {
    plastic_outcome_into(problem, pre.plastic);
    pre.plastic_computed = true;
  }
  // resolve_impact asks only for an infeasible p⁻ that is not resolved by p_p alone (R = 0).
  if (!pre.initially_feasible && restitution != 0.0)
    pre.positively_spanning = elastic_outcome_obstructed(problem);
  return pre;
}

template <typename S>
BasicImpactResolution<S> resolve_impact(const BasicImpactProblem<S>& problem, const ResolveOptions& options,
                                        BasicImpactWorkspace<S>& workspace,
                                        const BasicPrecomputedImpact<S>* precomputed,
                                        BasicPolicyBranches<S>* branches) {
  BasicPrecomputedImpact<S> own;
  const BasicPrecomputedImpact<S>* pre = precomputed;
  if constexpr (std::is_same_v<S, FixedSizes>) {
    if (pre == nullptr) pre = options.precomputed;
  } else if (options.precomputed != nullptr) {
    throw std::invalid_argument(
        "resolve_impact: options.precomputed is the fixed path's; pass the dynamic one");
  }
  if (pre == nullptr) {
    own = precompute_impact(problem, options);
    pre = &own;
  } else if (!pre->plastic_computed && (options.compute_plastic || problem.restitution() < 1.0)) {
    throw std::invalid_argument("resolve_impact: the precomputed impact lacks the plastic outcome");
  }
  BasicImpactResolution<S> res;
  BasicOutcomeSet<S>& set = workspace.outcomes;
  set.clear();
  set.capacity_limit = options.limits.max_outcomes;
  const bool definition1 = options.check_definition1 || options.minimality == Minimality::kDefinition1;
  set.definition1.enabled = definition1;
  set.definition1.budget = options.limits.max_definition1_checks;
  res.energy_before = problem.energy_before();
  const double norm = problem.momentum_norm();
  const bool initially_feasible = pre->initially_feasible;
  const double restitution = problem.restitution();
  const bool need_plastic = options.compute_plastic || restitution < 1.0;
  const BasicPlasticOutcome<S>& plastic = pre->plastic;
  if (need_plastic) {
    if (options.report_plastic) {
      res.plastic = plastic;
      res.plastic_computed = true;
    }
    if (!plastic.converged && restitution < 1.0) {
      res.status = ResolveStatus::kPlasticUnverified;
      return res;
    }
  }

  const bool plastic_only = restitution == 0.0 && !initially_feasible;
  if (plastic_only) {
    plastic_only_outcome(plastic, set);
  } else if (!initially_feasible && pre->positively_spanning) {
    res.status = ResolveStatus::kNoElasticOutcome;
    return res;
  } else if (options.policy == OrderingPolicy::kAll) {
    enumerate_outcomes(problem, options.limits, set, workspace.stack, branches);
  } else {
    CounterRng rng(options.seed, RandomStream::kOrdering, options.task);
    const BasicPropagation<S> one = propagate(problem, options.policy, options.limits, &rng);
    res.step_cap_hit = one.step_cap_hit;
    // A capped propagation ends on an infeasible momentum: it is not an outcome.
    if (!one.step_cap_hit) set.add(problem, one.impulses, one.sequence);
  }
  if (options.compare_argmin_argmax) {
    res.argmin = propagate(problem, OrderingPolicy::kArgmin, options.limits, nullptr);
    res.argmax = propagate(problem, OrderingPolicy::kArgmax, options.limits, nullptr);
  }

  if (restitution < 1.0 && !plastic_only) {
    const double plastic_squared_norm = plastic.whitened.squaredNorm();
    for (int j = 0; j < set.size; ++j)
      blend_outcome(problem, plastic, plastic_squared_norm, set.items[static_cast<std::size_t>(j)]);
    set.merge_equal_final_momenta(problem);
  } else if (!plastic_only) {
    for (int j = 0; j < set.size; ++j) {
      BasicOutcome<S>& o = set.items[static_cast<std::size_t>(j)];
      o.energy = problem.outcome_energy(o.elastic_impulses, o.momentum);
    }
  }

  if (definition1) {
    res.minimal_outcomes = 0;
    for (int j = 0; j < set.size; ++j)
      if (set.items[static_cast<std::size_t>(j)].definition1_minimal == 1) ++res.minimal_outcomes;
  }

  res.outcome_count = set.size;
  res.nodes = set.nodes;
  res.depth_cap_hit = set.depth_cap_hit;
  res.node_cap_hit = set.node_cap_hit;
  res.outcome_cap_hit = set.outcome_cap_hit;
  res.definition1_cap_hit = definition1 && set.definition1.cap_hit;
  // An unchecked Definition 1 verdict caps ξ only when ξ is taken over the minimal outcomes; with
  // minimality = propagation the verdicts are a report (unknown ones are −1), ξ is complete.
  const bool only_minimal = options.minimality == Minimality::kDefinition1;
  const bool definition1_capped = only_minimal && res.definition1_cap_hit;
  // With R = 0 every ordering ends in p_p: no elastic cap can change an outcome.
  const bool pair_capped =
      !plastic_only && options.compare_argmin_argmax && (res.argmin.step_cap_hit || res.argmax.step_cap_hit);
  const bool set_capped =
      res.step_cap_hit || res.depth_cap_hit || res.node_cap_hit || res.outcome_cap_hit || definition1_capped;
  const bool capped = set_capped || pair_capped;
  res.status =
      capped ? ResolveStatus::kCapHit : (initially_feasible ? ResolveStatus::kNoImpact : ResolveStatus::kOk);
  // Only the full enumeration can tell: one policy always ends in exactly one outcome.
  res.unique = options.policy == OrderingPolicy::kAll && set.size == 1 && !set_capped;
  if (norm > 0.0) {
    if (options.policy == OrderingPolicy::kAll) {
      const double xi = diameter(problem, set, only_minimal) / norm;
      if (!set_capped)
        res.xi = (only_minimal && res.minimal_outcomes == 0) ? kNaN : xi;
      else if (res.outcome_cap_hit && !res.step_cap_hit && !res.depth_cap_hit && !res.node_cap_hit &&
               !definition1_capped)
        res.xi_lower_bound = xi;  // every outcome found is a true outcome: a lower bound
    }
    if (options.compare_argmin_argmax && !pair_capped) {
      if (plastic_only) {
        res.xi_argmin_argmax = 0.0;
      } else {
        typename S::DofVector a = problem.momentum_from_impulses(res.argmin.impulses);
        typename S::DofVector b = problem.momentum_from_impulses(res.argmax.impulses);
        if (restitution < 1.0) {
          a = blend_with_plastic(problem, plastic, a, res.argmin.impulses).momentum;
          b = blend_with_plastic(problem, plastic, b, res.argmax.impulses).momentum;
        }
        res.xi_argmin_argmax = problem.distance(a, b) / norm;
      }
    }
  } else {
    if (options.policy == OrderingPolicy::kAll && !set_capped) res.xi = 0.0;
    if (options.compare_argmin_argmax && !pair_capped) res.xi_argmin_argmax = 0.0;
  }
  return res;
}

template <typename S>
BasicSinglePolicyOutcome<S> single_policy_outcome(const BasicImpactProblem<S>& problem,
                                                  const BasicPrecomputedImpact<S>& precomputed,
                                                  const typename BasicPolicyBranches<S>::Branch& branch,
                                                  const BasicOutcomeSet<S>& set) {
  if (!branch.found) throw std::invalid_argument("single_policy_outcome: the branch was not found");
  // resolve_impact's single-policy path after an uncapped propagation that ended on these impulses:
  // one outcome, p_e = p⁻ + λᵀN, blended with p_p when R < 1 (the set of one needs no merge).
  BasicSinglePolicyOutcome<S> out;
  out.status = precomputed.initially_feasible ? ResolveStatus::kNoImpact : ResolveStatus::kOk;
  out.steps = branch.length;
  const int k = problem.contacts();
  const auto same_impulses = [&](const BasicOutcome<S>& o) {
    return k == 0 || std::memcmp(o.elastic_impulses.data(), branch.impulses.data(),
                                 static_cast<std::size_t>(k) * sizeof(double)) == 0;
  };
  for (int j = 0; j < set.size; ++j) {
    const BasicOutcome<S>& o = set.items[static_cast<std::size_t>(j)];
    if (same_impulses(o)) {  // the same inputs gave this outcome its blend and energy
      out.momentum = o.momentum;
      out.energy = o.energy;
      return out;
    }
  }
  const typename S::DofVector p = problem.momentum_from_impulses(branch.impulses);
  if (problem.restitution() < 1.0) {
    const Blend<S> b = blend_with_plastic(problem, precomputed.plastic, p, branch.impulses);
    out.momentum = b.momentum;
    out.energy = b.energy;
  } else {
    out.momentum = p;
    out.energy = problem.outcome_energy(branch.impulses, p);
  }
  return out;
}

#define SIMPACT_INSTANTIATE_RESOLUTION(S)                                               \
  template class BasicImpactWorkspace<S>;                                               \
  template BasicPrecomputedImpact<S> precompute_impact<S>(const BasicImpactProblem<S>&, \
                                                          const ResolveOptions&);       \
  template BasicImpactResolution<S> resolve_impact<S>(                                  \
      const BasicImpactProblem<S>&, const ResolveOptions&, BasicImpactWorkspace<S>&,    \
      const BasicPrecomputedImpact<S>*, BasicPolicyBranches<S>*);                       \
  template BasicSinglePolicyOutcome<S> single_policy_outcome<S>(                        \
      const BasicImpactProblem<S>&, const BasicPrecomputedImpact<S>&,                   \
      const typename BasicPolicyBranches<S>::Branch&, const BasicOutcomeSet<S>&);
SIMPACT_INSTANTIATE_RESOLUTION(FixedSizes)
SIMPACT_INSTANTIATE_RESOLUTION(DynamicSizes)
#undef SIMPACT_INSTANTIATE_RESOLUTION

}  // namespace simpact
