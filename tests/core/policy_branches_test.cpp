// Single policies read off the `all` enumeration (propagation.hpp: BasicPolicyBranches;
// impact_resolution.hpp: single_policy_outcome): each deterministic policy's branch ends where its
// own propagation ends, bit for bit, and the outcome read off it is resolve_impact's under that
// policy — status, p⁺, energy and reflections — for elastic and inelastic impacts, systems with
// several outcomes, and under caps that cut the tree (then the branch is not found).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "simpact/core/impact_resolution.hpp"
#include "test_support.hpp"

namespace simpact {
namespace {

using RowMatrix = ImpactProblem::RowMajorMatrix;

constexpr OrderingPolicy kTracked[] = {OrderingPolicy::kArgmin, OrderingPolicy::kArgmax,
                                       OrderingPolicy::kIndex, OrderingPolicy::kReverse};

bool same_bits(const double* a, const double* b, Eigen::Index n) {
  return std::memcmp(a, b, static_cast<std::size_t>(n) * sizeof(double)) == 0;
}

// A chain of n balls on a line with masses `m`, every neighbour touching: contact i between
// balls i and i+1, normal (… −1 +1 …), so both ends striking makes several contacts violated.
ImpactProblem chain(const std::vector<double>& m, const Eigen::VectorXd& velocity, double restitution) {
  const int n = static_cast<int>(m.size());
  Eigen::MatrixXd mass = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) mass(i, i) = m[static_cast<std::size_t>(i)];
  RowMatrix normals = RowMatrix::Zero(n - 1, n);
  for (int i = 0; i + 1 < n; ++i) normals(i, i) = -1.0, normals(i, i + 1) = 1.0;
  return ImpactProblem(KineticMetric(mass), normals, mass * velocity, restitution);
}

// Checks every tracked policy of `problem` under `limits`; returns how many branches were found.
int check_problem(const ImpactProblem& problem, const ResolveLimits& limits) {
  ResolveOptions options;
  options.limits = limits;
  options.compare_argmin_argmax = false;
  const PrecomputedImpact pre = precompute_impact(problem, options);
  PolicyBranches branches;
  for (const OrderingPolicy p : kTracked) branches.track(p);
  ImpactWorkspace all_ws;
  options.policy = OrderingPolicy::kAll;
  resolve_impact(problem, options, all_ws, &pre, &branches);
  int found = 0;
  for (int b = 0; b < branches.count; ++b) {
    const PolicyBranches::Branch& branch = branches.branches[b];
    const Propagation own = propagate(problem, branch.policy, limits, nullptr);
    ImpactWorkspace ws;
    options.policy = branch.policy;
    const ImpactResolution single = resolve_impact(problem, options, ws, &pre);
    if (!branch.found) continue;  // a cap cut the tree here: the caller propagates instead
    ++found;
    const int k = problem.contacts();
    EXPECT_FALSE(own.step_cap_hit);
    EXPECT_EQ(branch.length, own.sequence.length);
    EXPECT_TRUE(same_bits(branch.impulses.data(), own.impulses.data(), k));
    const SinglePolicyOutcome read = single_policy_outcome(problem, pre, branch, all_ws.outcomes);
    EXPECT_EQ(read.status, single.status);
    EXPECT_EQ(single.outcome_count, 1);
    if (single.outcome_count != 1) continue;
    const Outcome& o = ws.outcomes.items[0];
    EXPECT_TRUE(same_bits(read.momentum.data(), o.momentum.data(), problem.dof()));
    EXPECT_TRUE(same_bits(&read.energy, &o.energy, 1));
    EXPECT_EQ(read.steps, o.shortest);
  }
  return found;
}

TEST(PolicyBranches, EveryTrackedPolicyEndsWhereItsOwnPropagationEnds) {
  std::mt19937_64 gen(91);
  std::uniform_real_distribution<double> mass(0.2, 5.0), speed(-2.0, 2.0);
  int found = 0, several_outcomes = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int n = 3 + trial % 3;  // 2..4 contacts
    std::vector<double> m(static_cast<std::size_t>(n));
    for (double& x : m) x = mass(gen);
    Eigen::VectorXd v(n);
    for (int i = 0; i < n; ++i) v[i] = speed(gen);
    v[0] = 1.5, v[n - 1] = -1.5;  // both ends strike: at least two violated contacts
    for (const double r : {1.0, 0.6, 0.0}) {
      const ImpactProblem problem = chain(m, v, r);
      found += check_problem(problem, ResolveLimits{});
      ImpactWorkspace ws;
      ResolveOptions o;
      if (r == 1.0) several_outcomes += resolve_impact(problem, o, ws).outcome_count > 1;
    }
  }
  EXPECT_GT(several_outcomes, 40);         // the branches differ: this is not one path tested four times
  EXPECT_GT(found, 120 * 2 * 4 * 9 / 10);  // R = 0 resolves by p_p alone: no enumeration, no branch
}

TEST(PolicyBranches, RandomSystemsInTheKineticMetric) {
  std::mt19937_64 gen(92);
  int found = 0;
  for (int trial = 0; trial < 100; ++trial) {
    const int d = 2 + trial % 7, k = 1 + trial % 4;
    const ImpactProblem problem(KineticMetric(testing::random_spd(d, gen)),
                                testing::random_normals(k, d, gen), testing::random_vector(d, gen),
                                trial % 2 == 0 ? 1.0 : 0.4);
    found += check_problem(problem, ResolveLimits{});
  }
  EXPECT_GT(found, 100);
}

// Caps: a depth of 1 or a step cap of 1 cuts every branch longer than one reflection (not found:
// resolve_impact's own propagation reports the cap); an outcome cap of 1 stops the enumeration
// after the first outcome. Every branch that is found still matches exactly.
TEST(PolicyBranches, CapsCutBranchesButNeverChangeOne) {
  const ImpactProblem problem = chain({1.0, 3.0, 1.0, 2.0}, Eigen::Vector4d(1.0, 0.0, 0.3, -1.0), 1.0);
  EXPECT_EQ(check_problem(problem, ResolveLimits{}), 4);
  for (const auto& cap :
       {&ResolveLimits::max_depth, &ResolveLimits::max_steps, &ResolveLimits::max_outcomes}) {
    ResolveLimits limits;
    limits.*cap = 1;
    EXPECT_LT(check_problem(problem, limits), 4);
  }
  // A feasible p⁻ is the root's leaf: every branch is found with no reflection.
  const ImpactProblem resting = chain({1.0, 1.0, 1.0}, Eigen::Vector3d(0.0, 1.0, 2.0), 0.5);
  ASSERT_EQ(check_problem(resting, ResolveLimits{}), 4);
}

}  // namespace
}  // namespace simpact
