#include "simpact/core/impact_resolution.hpp"

#include <algorithm>
#include <cmath>

#include "simpact/core/minimality.hpp"
#include "simpact/core/restitution.hpp"

namespace simpact {

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
  }
  return "unknown";
}

ImpactWorkspace::ImpactWorkspace(const ResolveLimits& limits) {
  stack.frames.resize(static_cast<std::size_t>(limits.max_depth) + 1);
}

namespace {

// Eq. (17) in contact coordinates: λ⁺ = α λ_e + (1−α) λ_p (p⁺ is affine in λ), α from eq. (16).
ContactVector blend_with_plastic(const ImpactProblem& problem, const PlasticOutcome& plastic,
                                 const ContactVector& elastic, double& alpha) {
  const double e_sq = 2.0 * problem.energy_from_impulses(elastic);
  // <p_e,p_p>_g = ||p⁻||² + λ_e·c⁻ + λ_p·c⁻ + λ_eᵀAλ_p
  const double x = 2.0 * problem.energy_before() + elastic.dot(problem.initial_rates()) +
                   plastic.impulses.dot(problem.initial_rates()) +
                   elastic.dot(problem.gram() * plastic.impulses);
  alpha = restitution_alpha(problem.restitution(), e_sq, 2.0 * plastic.energy, x);
  return alpha * elastic + (1.0 - alpha) * plastic.impulses;
}

double diameter(const ImpactProblem& problem, const OutcomeSet& set, bool only_minimal) {
  double d = 0.0;
  for (int a = 0; a < set.size; ++a) {
    if (only_minimal && set.items[a].definition1_minimal != 1) continue;
    for (int b = a + 1; b < set.size; ++b) {
      if (only_minimal && set.items[b].definition1_minimal != 1) continue;
      d = std::max(d, problem.distance_between(set.items[a].impulses, set.items[b].impulses));
    }
  }
  return d;
}

}  // namespace

ImpactResolution resolve_impact(const ImpactProblem& problem, const ResolveOptions& options,
                                ImpactWorkspace& workspace) {
  ImpactResolution res;
  OutcomeSet& set = workspace.outcomes;
  set.clear();
  res.energy_before = problem.energy_before();
  const double norm = problem.momentum_norm();
  const bool initially_feasible = problem.feasible(problem.initial_rates());
  const bool need_plastic = options.compute_plastic || problem.restitution() < 1.0;
  if (need_plastic) {
    res.plastic = plastic_outcome(problem);
    res.plastic_computed = true;
  }

  if (!initially_feasible && normals_positively_span(problem)) {
    res.status = ResolveStatus::kNoElasticOutcome;
    return res;
  }

  if (options.policy == OrderingPolicy::kAll) {
    enumerate_outcomes(problem, options.limits, set, workspace.stack);
  } else {
    CounterRng rng(options.seed, RandomStream::kOrdering, options.task);
    const Propagation one = propagate(problem, options.policy, options.limits, &rng);
    set.add(problem, one.impulses, one.sequence);
    res.step_cap_hit = one.step_cap_hit;
  }
  if (options.compare_argmin_argmax) {
    res.argmin = propagate(problem, OrderingPolicy::kArgmin, options.limits, nullptr);
    res.argmax = propagate(problem, OrderingPolicy::kArgmax, options.limits, nullptr);
    res.step_cap_hit = res.step_cap_hit || res.argmin.step_cap_hit || res.argmax.step_cap_hit;
  }

  if (problem.restitution() < 1.0)
    for (int j = 0; j < set.size; ++j)
      set.items[j].impulses =
          blend_with_plastic(problem, res.plastic, set.items[j].elastic_impulses, set.items[j].alpha);
  for (int j = 0; j < set.size; ++j)
    set.items[j].energy = problem.energy_from_impulses(set.items[j].impulses);

  const bool definition1 = options.check_definition1 || options.minimality == Minimality::kDefinition1;
  if (definition1) {
    res.minimal_outcomes = 0;
    // Each check enumerates 2^n subsequences: bound the total so one resolve stays fast; a
    // sequence left over is reported unchecked (−1), never guessed.
    long budget = kDefinition1Budget;
    for (int j = 0; j < set.size; ++j) {
      Outcome& o = set.items[j];
      o.definition1_minimal = 0;
      for (int s = 0; s < o.stored_sequences; ++s) {
        const int n = o.sequences[s].length;
        const long cost = n <= kMaxDefinition1Length ? (1L << n) : 0;
        if (cost > budget) {
          o.definition1_minimal = -1;
          continue;
        }
        budget -= cost;
        const int m = definition1_minimal(problem, o.sequences[s]);
        if (m == 1) {
          o.definition1_minimal = 1;
          break;
        }
        if (m < 0) o.definition1_minimal = -1;
      }
      if (o.definition1_minimal == 1) ++res.minimal_outcomes;
    }
  }

  res.outcome_count = set.size;
  res.nodes = set.nodes;
  res.depth_cap_hit = set.depth_cap_hit;
  res.node_cap_hit = set.node_cap_hit;
  res.outcome_cap_hit = set.outcome_cap_hit;
  const bool capped = res.step_cap_hit || res.depth_cap_hit || res.node_cap_hit || res.outcome_cap_hit;
  res.status =
      capped ? ResolveStatus::kCapHit : (initially_feasible ? ResolveStatus::kNoImpact : ResolveStatus::kOk);
  // Only the full enumeration can tell: one policy always ends in exactly one outcome.
  res.unique = options.policy == OrderingPolicy::kAll && set.size == 1 && !capped;
  if (norm > 0.0) {
    if (options.policy == OrderingPolicy::kAll) {
      const bool only_minimal = options.minimality == Minimality::kDefinition1;
      res.xi = (only_minimal && res.minimal_outcomes == 0) ? std::numeric_limits<double>::quiet_NaN()
                                                           : diameter(problem, set, only_minimal) / norm;
    }
    if (options.compare_argmin_argmax) {
      // Both policies end in elastic momenta; with R < 1 each is blended with the same p_p.
      ContactVector a = res.argmin.impulses, b = res.argmax.impulses;
      if (problem.restitution() < 1.0) {
        double alpha = 1.0;
        a = blend_with_plastic(problem, res.plastic, a, alpha);
        b = blend_with_plastic(problem, res.plastic, b, alpha);
      }
      res.xi_argmin_argmax = problem.distance_between(a, b) / norm;
    }
  } else {
    res.xi = options.policy == OrderingPolicy::kAll ? 0.0 : res.xi;
    if (options.compare_argmin_argmax) res.xi_argmin_argmax = 0.0;
  }
  return res;
}

}  // namespace simpact
