// A resolution under `all` as plain values, for comparing two models of one impact (a built-in
// model and its MJCF file): outcome momenta sorted, their energies, ξ, the plastic outcome.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "simpact/core/impact_resolution.hpp"

namespace simpact::test_support {

struct ResolutionSummary {
  std::vector<std::vector<double>> outcomes;  // momenta, sorted
  std::vector<double> energies;               // in the order of `outcomes`
  std::vector<double> plastic;                // empty when not computed
  double xi = 0, energy_before = 0;
  int status = 0;
};

inline ResolutionSummary summarize(const ImpactProblem& problem) {
  ImpactWorkspace ws;
  ResolveOptions options;
  options.policy = OrderingPolicy::kAll;
  const ImpactResolution res = resolve_impact(problem, options, ws);
  ResolutionSummary s;
  s.xi = res.xi;
  s.status = static_cast<int>(res.status);
  s.energy_before = res.energy_before;
  std::vector<std::pair<std::vector<double>, double>> items;
  for (int j = 0; j < res.outcome_count; ++j) {
    const auto& o = ws.outcomes.items[j];
    items.emplace_back(std::vector<double>(o.momentum.data(), o.momentum.data() + o.momentum.size()),
                       o.energy);
  }
  // Sorted component by component on a grid of 1e-9·||p⁻||: a component that is 0 up to rounding
  // (a coordinate no contact moves) ties instead of ordering the outcomes by its noise.
  const double grid = 1e-9 * problem.momentum_norm();
  auto key = [grid](const std::vector<double>& p) {
    std::vector<double> k(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) k[i] = grid > 0 ? std::round(p[i] / grid) : p[i];
    return k;
  };
  std::stable_sort(items.begin(), items.end(),
                   [&](const auto& a, const auto& b) { return key(a.first) < key(b.first); });
  for (auto& [p, e] : items) {
    s.outcomes.push_back(p);
    s.energies.push_back(e);
  }
  if (res.plastic_computed)
    s.plastic.assign(res.plastic.momentum.data(), res.plastic.momentum.data() + res.plastic.momentum.size());
  return s;
}

}  // namespace simpact::test_support
