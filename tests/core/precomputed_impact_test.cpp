// PrecomputedImpact: resolving with p_p, the positive-span test and feasibility computed once
// (precompute_impact) gives the very bits of resolve_impact computing them itself, for every
// policy, restitution and status; a precomputed impact without p_p is refused where p_p is needed.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <stdexcept>

#include "simpact/core/impact_resolution.hpp"
#include "test_support.hpp"

namespace simpact {
namespace {

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

void expect_same(const ImpactResolution& a, const ImpactResolution& b, const ImpactWorkspace& wa,
                 const ImpactWorkspace& wb, const char* what) {
  EXPECT_EQ(a.status, b.status) << what;
  EXPECT_EQ(a.outcome_count, b.outcome_count) << what;
  EXPECT_TRUE(same_bits(a.xi, b.xi)) << what;
  EXPECT_TRUE(same_bits(a.xi_argmin_argmax, b.xi_argmin_argmax)) << what;
  EXPECT_EQ(a.unique, b.unique) << what;
  EXPECT_EQ(a.plastic_computed, b.plastic_computed) << what;
  EXPECT_TRUE(same_bits(a.plastic.energy, b.plastic.energy)) << what;
  EXPECT_EQ(a.plastic.converged, b.plastic.converged) << what;
  for (int j = 0; j < a.outcome_count && j < b.outcome_count; ++j) {
    const Outcome& oa = wa.outcomes.items[static_cast<std::size_t>(j)];
    const Outcome& ob = wb.outcomes.items[static_cast<std::size_t>(j)];
    EXPECT_TRUE(same_bits(oa.energy, ob.energy)) << what;
    EXPECT_EQ(oa.momentum, ob.momentum) << what;
  }
}

TEST(PrecomputedImpact, SameBitsAsResolvingAlone) {
  std::mt19937_64 gen(11);
  const OrderingPolicy policies[] = {OrderingPolicy::kAll, OrderingPolicy::kArgmin, OrderingPolicy::kArgmax,
                                     OrderingPolicy::kRandom};
  int no_elastic = 0, no_impact = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int d = 3 + trial % 5, k = 2 + trial % 3;
    const double restitution = (trial % 4) / 3.0;  // 0, 1/3, 2/3, 1
    Eigen::MatrixXd normals = testing::random_normals(k, d, gen);
    // Every fifth system: antiparallel-free but positively spanning (u, −u + ε, ...).
    if (trial % 5 == 0) normals.row(1) = -normals.row(0);
    const ImpactProblem problem(KineticMetric(testing::random_spd(d, gen)), normals,
                                testing::random_vector(d, gen), restitution);
    for (OrderingPolicy policy : policies) {
      ResolveOptions options;
      options.policy = policy;
      options.seed = 3;
      options.task = static_cast<std::uint64_t>(trial);
      options.compute_plastic = trial % 2 == 0;
      ImpactWorkspace alone_ws, shared_ws;
      const ImpactResolution alone = resolve_impact(problem, options, alone_ws);
      const PrecomputedImpact pre = precompute_impact(problem, options);
      options.precomputed = &pre;
      const ImpactResolution shared = resolve_impact(problem, options, shared_ws);
      expect_same(alone, shared, alone_ws, shared_ws, ordering_policy_name(policy).data());
      no_elastic += alone.status == ResolveStatus::kNoElasticOutcome;
      no_impact += alone.status == ResolveStatus::kNoImpact;
    }
  }
  EXPECT_GT(no_elastic, 0);  // the positive-span path was exercised
  EXPECT_GT(no_impact, 0);   // and the feasible one
}

TEST(PrecomputedImpact, MissingPlasticIsRefused) {
  std::mt19937_64 gen(5);
  const ImpactProblem problem(KineticMetric(testing::random_spd(4, gen)), testing::random_normals(2, 4, gen),
                              testing::random_vector(4, gen), 0.5);
  ResolveOptions without;
  without.compute_plastic = false;
  const PrecomputedImpact pre = precompute_impact(problem, without);
  EXPECT_TRUE(pre.plastic_computed);  // R < 1 needs p_p whatever compute_plastic says
  PrecomputedImpact empty = pre;
  empty.plastic_computed = false;
  ResolveOptions options;
  options.precomputed = &empty;
  ImpactWorkspace ws;
  EXPECT_THROW(resolve_impact(problem, options, ws), std::invalid_argument);
}

}  // namespace
}  // namespace simpact
