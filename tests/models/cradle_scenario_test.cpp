// Newton's cradle (Fig. 2a, Example 1) through the model: the swap matrices, eq. (15), the
// [1,0,0] → [0,0,1] outcome (not the paper's set-S answer [0,1,0]), longer chains, and the
// unequal-mass chain 1,3,1,3,1,3 whose outcome is not unique.
#include "simpact/models/cradle_scenario.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../core/test_support.hpp"
#include "simpact/core/impact_diagnostics.hpp"
#include "simpact/core/impact_resolution.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/core/reset_map.hpp"

namespace simpact {
namespace {

using testing::expect_input_error;

constexpr OrderingPolicy kPolicies[] = {OrderingPolicy::kArgmin, OrderingPolicy::kArgmax,
                                        OrderingPolicy::kIndex,  OrderingPolicy::kReverse,
                                        OrderingPolicy::kRandom, OrderingPolicy::kAll};

ParameterSet cradle_params(int n, const std::vector<double>& masses = {},
                           const std::vector<double>& velocities = {}) {
  ParameterSet params;
  params.set("n", n);
  for (std::size_t i = 0; i < masses.size(); ++i) params.set("m" + std::to_string(i + 1), masses[i]);
  for (std::size_t i = 0; i < velocities.size(); ++i)
    params.set(i == 0 ? std::string("speed") : "v" + std::to_string(i + 1), velocities[i]);
  return params;
}

// Distinct outcomes (momenta) of a resolution with policy `policy`.
std::vector<DofVector> outcomes(const ImpactProblem& problem, OrderingPolicy policy,
                                ImpactResolution* out = nullptr) {
  ImpactWorkspace ws;
  ResolveOptions options;
  options.policy = policy;
  options.seed = 3;
  const ImpactResolution res = resolve_impact(problem, options, ws);
  if (out != nullptr) *out = res;
  std::vector<DofVector> result;
  for (int j = 0; j < res.outcome_count; ++j)
    result.push_back(problem.momentum_from_impulses(ws.outcomes.items[j].impulses));
  return result;
}

TEST(CradleFamily, SwapMatricesAndInvolution) {
  const ImpactProblem problem = CradleFamily().make_problem(cradle_params(3));
  ASSERT_EQ(problem.dof(), 3);
  ASSERT_EQ(problem.contacts(), 2);
  EXPECT_EQ(problem.metric().mass_matrix(), DofMatrix::Identity(3, 3));
  const DofMatrix gu = reset_map_matrix(problem.metric(), problem.normals().row(0).transpose());
  const DofMatrix gv = reset_map_matrix(problem.metric(), problem.normals().row(1).transpose());
  Eigen::Matrix3d swap_ab, swap_bc;
  swap_ab << 0, 1, 0, 1, 0, 0, 0, 0, 1;  // Example 1: Γ(u)
  swap_bc << 1, 0, 0, 0, 0, 1, 0, 1, 0;  //            Γ(v)
  EXPECT_LE((gu - swap_ab).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LE((gv - swap_bc).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LE((gu * gu - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LE((gv * gv - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff(), 1e-15);
  // u = Dφ1 = [−1, 1, 0], v = Dφ2 = [0, −1, 1].
  EXPECT_EQ(problem.normals().row(0), Eigen::RowVector3d(-1, 1, 0));
  EXPECT_EQ(problem.normals().row(1), Eigen::RowVector3d(0, -1, 1));
}

TEST(CradleFamily, BothContactsViolatedEndsReversedForEveryPolicy) {
  // p⁻ = [1, 0, −1] (A moving right, C moving left): eq. (15), p⁺ = p⁻ · antidiag = [−1, 0, 1].
  const ImpactProblem problem = CradleFamily().make_problem(cradle_params(3, {}, {1, 0, -1}));
  Eigen::Matrix3d reversal;
  reversal << 0, 0, 1, 0, 1, 0, 1, 0, 0;
  const Eigen::Vector3d expected = (Eigen::RowVector3d(1, 0, -1) * reversal).transpose();
  for (const OrderingPolicy policy : kPolicies) {
    ImpactResolution res;
    const std::vector<DofVector> out = outcomes(problem, policy, &res);
    ASSERT_EQ(out.size(), 1u) << ordering_policy_name(policy);
    EXPECT_LE((out[0] - expected).norm(), 1e-15) << ordering_policy_name(policy);
    EXPECT_EQ(res.unique, policy == OrderingPolicy::kAll);  // only the full set can tell
    EXPECT_EQ(res.status, ResolveStatus::kOk);
  }
  const ImpactDiagnostics diag = diagnose(problem);
  EXPECT_NEAR(diag.normalized_gram(0, 1), -0.5, 1e-15);
  EXPECT_EQ(diag.dihedral_m, 3);
  EXPECT_EQ(diag.theorem1_bound, 6);
  ImpactWorkspace ws;
  resolve_impact(problem, ResolveOptions{}, ws);
  EXPECT_EQ(ws.outcomes.items[0].shortest, 3);
  EXPECT_GE(diag.theorem1_bound, ws.outcomes.items[0].shortest);  // Theorem 1: 6 ≥ 3
}

TEST(CradleFamily, AnyDoublyViolatingMomentumIsReversed) {
  // Equal masses, velocities v1 > v2 > v3 (both contacts closing): p⁺ = p⁻ · antidiag, i.e. the
  // velocities are reversed in order, for every policy and as the only outcome.
  std::mt19937_64 gen(101);
  std::uniform_real_distribution<double> uniform(-2.0, 2.0);
  const CradleFamily model;
  for (int trial = 0; trial < 50; ++trial) {
    double v[3] = {uniform(gen), uniform(gen), uniform(gen)};
    std::sort(v, v + 3, [](double a, double b) { return a > b; });
    if (v[0] - v[1] < 1e-3 || v[1] - v[2] < 1e-3) continue;
    const ImpactProblem problem = model.make_problem(cradle_params(3, {2.5, 2.5, 2.5}, {v[0], v[1], v[2]}));
    const Eigen::Vector3d expected(2.5 * v[2], 2.5 * v[1], 2.5 * v[0]);
    for (const OrderingPolicy policy : kPolicies) {
      const std::vector<DofVector> out = outcomes(problem, policy);
      ASSERT_EQ(out.size(), 1u);
      EXPECT_LE((out[0] - expected).norm(), 1e-14) << ordering_policy_name(policy) << " trial " << trial;
    }
  }
}

TEST(CradleFamily, OneIncomingBallEndsWithTheLastBallMoving) {
  // Default parameters: n = 3, unit masses, ball 1 at speed 1: p⁻ = [1, 0, 0] → [0, 0, 1].
  // The paper's set S (contacts infeasible at the start) would stop at [0, 1, 0], B moving into C.
  const ImpactProblem problem = CradleFamily().make_problem(cradle_params(3));
  EXPECT_EQ(problem.momentum(), Eigen::Vector3d(1, 0, 0));
  for (const OrderingPolicy policy : kPolicies) {
    ImpactResolution res;
    const std::vector<DofVector> out = outcomes(problem, policy, &res);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_LE((out[0] - Eigen::Vector3d(0, 0, 1)).norm(), 1e-15) << ordering_policy_name(policy);
    EXPECT_EQ(out[0][1], 0.0);
    const double rate_v = problem.metric().inner(out[0], problem.normals().row(1).transpose());
    EXPECT_GE(rate_v, 0.0);                                 // feasible for contact 2
    EXPECT_EQ(res.unique, policy == OrderingPolicy::kAll);  // only the full set can tell
  }
}

TEST(CradleFamily, EqualMassChainsPassTheMomentumThrough) {
  for (const int n : {4, 5, 6}) {
    const ImpactProblem problem = CradleFamily().make_problem(cradle_params(n));
    DofVector expected = DofVector::Zero(n);
    expected[n - 1] = 1.0;
    for (const OrderingPolicy policy : kPolicies) {
      ImpactResolution res;
      const std::vector<DofVector> out = outcomes(problem, policy, &res);
      ASSERT_EQ(out.size(), 1u) << "n = " << n;
      EXPECT_LE((out[0] - expected).norm(), 1e-14) << "n = " << n << " " << ordering_policy_name(policy);
      EXPECT_EQ(res.unique, policy == OrderingPolicy::kAll);  // only the full set can tell
    }
  }
}

TEST(CradleFamily, AlternatingMassesAreNotUnique) {
  const ImpactProblem problem = CradleFamily().make_problem(cradle_params(6, {1, 3, 1, 3, 1, 3}));
  ImpactResolution res;
  const std::vector<DofVector> out = outcomes(problem, OrderingPolicy::kAll, &res);
  EXPECT_EQ(res.status, ResolveStatus::kOk);
  EXPECT_GT(res.outcome_count, 1);
  EXPECT_FALSE(res.unique);
  EXPECT_GT(res.xi, 1e-3);
  const double e0 = problem.energy_before();
  for (const DofVector& p : out) {
    EXPECT_NEAR(0.5 * problem.metric().squared_norm(p), e0, 1e-12 * e0);
    for (int i = 0; i < problem.contacts(); ++i)
      EXPECT_GE(problem.metric().inner(p, problem.normals().row(i).transpose()),
                -1e-10 * problem.momentum_norm());
    // Momentum is conserved along the line (all impulses are internal).
    EXPECT_NEAR(p.sum(), problem.momentum().sum(), 1e-12);
  }
}

TEST(CradleFamily, TwoBallClosedForm) {
  // 1-D elastic collision: v1' = (m1 − m2)/(m1 + m2) v1, v2' = 2 m1/(m1 + m2) v1.
  const double m1 = 2.0, m2 = 5.0, v1 = 1.5;
  const ImpactProblem problem = CradleFamily().make_problem(cradle_params(2, {m1, m2}, {v1}));
  EXPECT_EQ(problem.momentum(), Eigen::Vector2d(m1 * v1, 0.0));
  const std::vector<DofVector> out = outcomes(problem, OrderingPolicy::kAll);
  ASSERT_EQ(out.size(), 1u);
  const DofVector v = problem.metric().velocity(out[0]);
  EXPECT_NEAR(v[0], (m1 - m2) / (m1 + m2) * v1, 1e-15);
  EXPECT_NEAR(v[1], 2 * m1 / (m1 + m2) * v1, 1e-15);
}

TEST(CradleFamily, ParameterValidationNamesTheParameter) {
  const CradleFamily model;
  ParameterSet m7 = cradle_params(3);
  m7.set("m7", 1.0);  // ball 7 of a 3-ball cradle
  expect_input_error([&] { model.make_problem(m7); }, "m7");
  ParameterSet v5 = cradle_params(4);
  v5.set("v5", 1.0);
  expect_input_error([&] { model.make_problem(v5); }, "v5");
  expect_input_error([&] { model.make_problem(cradle_params(3, {1, -2, 1})); }, "m2");
  expect_input_error([&] { model.make_problem(cradle_params(3, {1, 0, 1})); }, "m2");
  ParameterSet r = cradle_params(3);
  r.set("r3", -1.0);
  expect_input_error([&] { model.make_problem(r); }, "r3");
  expect_input_error([&] { model.make_problem(cradle_params(kMaxCradleBalls + 1)); }, "n");
  expect_input_error([&] { model.make_problem(cradle_params(1)); }, "n");
  ParameterSet fractional;
  fractional.set("n", 2.5);
  expect_input_error([&] { model.make_problem(fractional); }, "n");
  ParameterSet restitution = cradle_params(3);
  restitution.set("restitution", 1.5);
  expect_input_error([&] { model.make_problem(restitution); }, "restitution");
  ParameterSet nan_speed = cradle_params(3);
  nan_speed.set("speed", std::numeric_limits<double>::quiet_NaN());
  expect_input_error([&] { model.make_problem(nan_speed); }, "speed");
  // The largest cradle on the fixed path has kMaxContacts contacts; one ball more takes the
  // dynamic path (make_problem refuses it, naming n), up to kMaxCradleBalls.
  const ImpactProblem largest_fixed = model.make_problem(cradle_params(kMaxContacts + 1));
  EXPECT_FALSE(model.needs_dynamic_sizes(cradle_params(kMaxContacts + 1)));
  EXPECT_EQ(largest_fixed.contacts(), kMaxContacts);
  EXPECT_TRUE(model.needs_dynamic_sizes(cradle_params(kMaxContacts + 2)));
  expect_input_error([&] { model.make_problem(cradle_params(kMaxContacts + 2)); }, "n");
  const DynamicImpactProblem largest = model.make_dynamic_problem(cradle_params(kMaxCradleBalls));
  EXPECT_EQ(largest.dof(), kMaxCradleBalls);
  EXPECT_EQ(largest.contacts(), kMaxCradleBalls - 1);
  expect_input_error([&] { model.make_dynamic_problem(cradle_params(kMaxCradleBalls + 1)); }, "n");
}

TEST(CradleFamily, VelocitiesAndRestitutionAreRead) {
  ParameterSet params = cradle_params(3, {2, 1, 4}, {1, 0.5, -0.25});
  params.set("restitution", 0.3);
  const ImpactProblem problem = CradleFamily().make_problem(params);
  EXPECT_EQ(problem.momentum(), Eigen::Vector3d(2, 0.5, -1));
  EXPECT_EQ(problem.restitution(), 0.3);
}

}  // namespace
}  // namespace simpact
