// The dynamic-size path (core/fixed_size.hpp): systems beyond the fixed capacity (d > 16 or more
// than 8 closed contacts) resolve with the same code on heap-sized matrices, checked against
// closed forms (Newton's cradle of 20 and 60 equal balls, independent 2-D pairs) and against the
// fixed path on the same physics embedded in a larger system.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <vector>

#include "simpact/core/fixed_size.hpp"
#include "simpact/core/impact_diagnostics.hpp"
#include "simpact/core/impact_problem.hpp"
#include "simpact/core/impact_resolution.hpp"
#include "test_support.hpp"

namespace simpact {
namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// n balls of mass m in a row, touching: u_i = e_{i+1} − e_i; ball 1 at speed v, the rest at rest.
template <typename S>
BasicImpactProblem<S> equal_cradle(int n, double m, double v, double restitution) {
  RowMatrix normals = RowMatrix::Zero(n - 1, n);
  for (int i = 0; i + 1 < n; ++i) normals(i, i) = -1.0, normals(i, i + 1) = 1.0;
  Eigen::VectorXd p = Eigen::VectorXd::Zero(n);
  p[0] = m * v;
  return BasicImpactProblem<S>(BasicKineticMetric<S>(m * Eigen::MatrixXd::Identity(n, n)), normals, p,
                               restitution);
}

constexpr OrderingPolicy kSinglePolicies[] = {OrderingPolicy::kArgmin, OrderingPolicy::kArgmax,
                                              OrderingPolicy::kIndex, OrderingPolicy::kReverse,
                                              OrderingPolicy::kRandom};

// The equal-mass cradle hit at one end: every reflection exchanges two neighbours' velocities,
// and only the pair that has just been handed the velocity approaches, so each policy (and the
// full enumeration) follows the same chain of n − 1 reflections to p⁺ = [0, …, 0, m v].
void expect_velocity_handed_down(int n) {
  const double m = 1.5, v = 2.0;
  ASSERT_FALSE(fits_fixed_sizes(n, n - 1));
  const DynamicImpactProblem problem = equal_cradle<DynamicSizes>(n, m, v, 1.0);
  DynamicImpactWorkspace workspace;
  Eigen::VectorXd expected = Eigen::VectorXd::Zero(n);
  expected[n - 1] = m * v;
  for (OrderingPolicy policy : kSinglePolicies) {
    ResolveOptions options;
    options.policy = policy;
    options.seed = 7;
    const auto r = resolve_impact(problem, options, workspace);
    ASSERT_EQ(r.status, ResolveStatus::kOk) << ordering_policy_name(policy);
    ASSERT_EQ(r.outcome_count, 1);
    const auto& o = workspace.outcomes.items[0];
    EXPECT_LE((o.momentum - expected).cwiseAbs().maxCoeff(), 1e-12 * m * v) << ordering_policy_name(policy);
    EXPECT_NEAR(o.momentum.sum(), m * v, 1e-12 * m * v) << "momentum";
    EXPECT_NEAR(o.energy, r.energy_before, 1e-12 * r.energy_before) << "energy";
    EXPECT_EQ(o.shortest, n - 1) << "one reflection per contact";
    EXPECT_EQ(r.xi_argmin_argmax, 0.0);
  }
  ResolveOptions all;
  const auto r = resolve_impact(problem, all, workspace);
  ASSERT_EQ(r.status, ResolveStatus::kOk);
  EXPECT_TRUE(r.unique);
  EXPECT_EQ(r.xi, 0.0);
  EXPECT_EQ(r.nodes, n - 1);
  EXPECT_LE((workspace.outcomes.items[0].momentum - expected).cwiseAbs().maxCoeff(), 1e-12 * m * v);
  // The plastic outcome (computed alongside): every ball at v/n.
  ASSERT_TRUE(r.plastic.converged);
  EXPECT_LE((r.plastic.momentum.array() - m * v / n).abs().maxCoeff(), 1e-12 * m * v);
}

TEST(DynamicSize, TwentyEqualBallsHandTheVelocityToTheLast) {
  expect_velocity_handed_down(20);
}

TEST(DynamicSize, SixtyEqualBallsHandTheVelocityToTheLast) {
  expect_velocity_handed_down(60);
}

TEST(DynamicSize, PlasticCradleMovesTogether) {
  for (int n : {20, 60}) {
    const double m = 1.5, v = 2.0;
    const DynamicImpactProblem problem = equal_cradle<DynamicSizes>(n, m, v, 0.0);
    DynamicImpactWorkspace workspace;
    for (OrderingPolicy policy : {OrderingPolicy::kAll, OrderingPolicy::kArgmin, OrderingPolicy::kReverse}) {
      ResolveOptions options;
      options.policy = policy;
      const auto r = resolve_impact(problem, options, workspace);
      ASSERT_EQ(r.status, ResolveStatus::kOk);
      ASSERT_EQ(r.outcome_count, 1);
      const auto& o = workspace.outcomes.items[0];
      EXPECT_LE((o.momentum.array() - m * v / n).abs().maxCoeff(), 1e-12 * m * v) << n;
      EXPECT_NEAR(o.momentum.sum(), m * v, 1e-12 * m * v);
      // ½ (n m) (v/n)² = E_before / n
      EXPECT_NEAR(o.energy, r.energy_before / n, 1e-12 * r.energy_before);
    }
  }
}

// 15 independent pairs of discs in the plane (d = 60, 15 contacts): the normals are pairwise
// g-orthogonal (Theorem 2), so the outcome is unique and each pair collides as alone:
// Δv₁ = −(1 + e) m₂/(m₁+m₂) ((v₁ − v₂)·n) n with e = 1 (elastic) or 0 (plastic, R = 0).
TEST(DynamicSize, IndependentPlanarPairsFollowTheTwoBodyClosedForm) {
  const int pairs = 15, d = 4 * pairs;
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> unit(0.5, 2.0), angle(0.0, 6.283185307179586);
  Eigen::VectorXd masses(d), velocity(d);
  RowMatrix normals = RowMatrix::Zero(pairs, d);
  std::vector<Eigen::Vector2d> n(pairs);
  for (int k = 0; k < pairs; ++k) {
    const double m1 = unit(gen), m2 = unit(gen), a = angle(gen);
    n[k] = Eigen::Vector2d(std::cos(a), std::sin(a));  // from disc 1 to disc 2
    masses.segment<4>(4 * k) << m1, m1, m2, m2;
    // Approaching along n: disc 1 moves along +n, disc 2 along −n, plus tangential drift.
    const Eigen::Vector2d t(-n[k].y(), n[k].x());
    velocity.segment<2>(4 * k) = unit(gen) * n[k] + unit(gen) * t;
    velocity.segment<2>(4 * k + 2) = -unit(gen) * n[k] - unit(gen) * t;
    // φ = |x₂ − x₁| − r: Dφ = [−nᵀ, nᵀ].
    normals.block<1, 2>(k, 4 * k) = -n[k].transpose();
    normals.block<1, 2>(k, 4 * k + 2) = n[k].transpose();
  }
  const Eigen::MatrixXd mass = masses.asDiagonal();
  for (double restitution : {1.0, 0.0}) {
    ASSERT_FALSE(fits_fixed_sizes(d, pairs));
    const DynamicImpactProblem problem(DynamicKineticMetric(mass), normals, mass * velocity, restitution);
    EXPECT_TRUE(diagnose(problem).orthogonal);
    DynamicImpactWorkspace workspace;
    ResolveOptions options;
    options.policy = OrderingPolicy::kArgmin;
    const auto r = resolve_impact(problem, options, workspace);
    ASSERT_EQ(r.status, ResolveStatus::kOk);
    Eigen::VectorXd expected = velocity;
    for (int k = 0; k < pairs; ++k) {
      const double m1 = masses[4 * k], m2 = masses[4 * k + 2];
      const double closing = (velocity.segment<2>(4 * k) - velocity.segment<2>(4 * k + 2)).dot(n[k]);
      const double e = restitution;
      expected.segment<2>(4 * k) -= (1 + e) * m2 / (m1 + m2) * closing * n[k];
      expected.segment<2>(4 * k + 2) += (1 + e) * m1 / (m1 + m2) * closing * n[k];
    }
    const Eigen::VectorXd got = workspace.outcomes.items[0].momentum.cwiseQuotient(masses);
    EXPECT_LE((got - expected).cwiseAbs().maxCoeff(), 1e-12 * velocity.cwiseAbs().maxCoeff()) << restitution;
    if (restitution == 1.0) {
      EXPECT_EQ(workspace.outcomes.items[0].shortest, pairs) << "one reflection each";
    }
  }
}

// The same 8-ball cradle (7 contacts) on the fixed path, and embedded in larger systems that
// take the dynamic path: with 9 spectator DOF (d = 17), and with 3 spectator balls at rest
// touching each other (d = 11, 9 contacts). The spectators take no impulse; the 8 balls'
// outcomes agree to rounding.
TEST(DynamicSize, EmbeddedCradleAgreesWithTheFixedPath) {
  const int n = 8;
  const std::vector<double> m = {1.0, 3.0, 1.0, 3.0, 1.0, 3.0, 1.0, 1.0};
  const std::vector<double> v = {1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  auto build = [&](int d, int spectator_contacts, auto sizes) {
    using S = decltype(sizes);
    Eigen::MatrixXd mass = Eigen::MatrixXd::Identity(d, d);
    Eigen::VectorXd p = Eigen::VectorXd::Zero(d);
    RowMatrix normals = RowMatrix::Zero(n - 1 + spectator_contacts, d);
    for (int i = 0; i < n; ++i) mass(i, i) = m[i], p[i] = m[i] * v[i];
    for (int i = n; i < d; ++i) mass(i, i) = 0.7 + 0.1 * i;
    for (int i = 0; i + 1 < n; ++i) normals(i, i) = -1.0, normals(i, i + 1) = 1.0;
    for (int c = 0; c < spectator_contacts; ++c)
      normals(n - 1 + c, n + c) = -1.0, normals(n - 1 + c, n + c + 1) = 1.0;
    return BasicImpactProblem<S>(BasicKineticMetric<S>(mass), normals, p, 1.0);
  };
  const ImpactProblem fixed = build(n, 0, FixedSizes{});
  ASSERT_TRUE(fits_fixed_sizes(fixed.dof(), fixed.contacts()));
  ImpactWorkspace fixed_workspace;
  const ImpactResolution reference = resolve_impact(fixed, ResolveOptions{}, fixed_workspace);
  ASSERT_EQ(reference.status, ResolveStatus::kOk);
  ASSERT_EQ(reference.outcome_count, 28);  // an indeterminate cradle (93 975 nodes): the whole set

  for (const auto& [d, spectator_contacts] : {std::pair{17, 0}, std::pair{11, 2}}) {
    ASSERT_FALSE(fits_fixed_sizes(d, n - 1 + spectator_contacts));
    const DynamicImpactProblem big = build(d, spectator_contacts, DynamicSizes{});
    DynamicImpactWorkspace workspace;
    const auto r = resolve_impact(big, ResolveOptions{}, workspace);
    ASSERT_EQ(r.status, ResolveStatus::kOk);
    ASSERT_EQ(r.outcome_count, reference.outcome_count) << d;
    EXPECT_NEAR(r.xi, reference.xi, 1e-13);
    EXPECT_NEAR(r.xi_argmin_argmax, reference.xi_argmin_argmax, 1e-13);
    EXPECT_EQ(r.nodes, reference.nodes);
    const double scale = fixed.momentum_norm();
    for (int j = 0; j < r.outcome_count; ++j) {
      const auto& o = workspace.outcomes.items[static_cast<std::size_t>(j)];
      const auto& ref = fixed_workspace.outcomes.items[static_cast<std::size_t>(j)];
      EXPECT_LE((o.momentum.head(n) - ref.momentum).cwiseAbs().maxCoeff(), 1e-14 * scale) << d << " " << j;
      EXPECT_EQ(o.momentum.tail(d - n).cwiseAbs().maxCoeff(), 0.0) << "spectators untouched";
      EXPECT_EQ(o.sequence_count, ref.sequence_count);
    }
    EXPECT_LE((r.plastic.momentum.head(n) - reference.plastic.momentum).cwiseAbs().maxCoeff(), 1e-12 * scale);
  }
}

// The fixed types refuse what does not fit; the dynamic ones refuse beyond their hard limits,
// with one InputError naming the field.
TEST(DynamicSize, HardLimitsNameTheField) {
  EXPECT_TRUE(fits_fixed_sizes(kMaxDof, kMaxContacts));
  EXPECT_FALSE(fits_fixed_sizes(kMaxDof + 1, 1));
  EXPECT_FALSE(fits_fixed_sizes(2, kMaxContacts + 1));
  testing::expect_input_error(
      [] { DynamicKineticMetric{Eigen::MatrixXd::Identity(kMaxDynamicDof + 1, kMaxDynamicDof + 1)}; },
      "mass_matrix");
  const int k = kMaxDynamicContacts + 1;
  RowMatrix normals(k, 2);
  for (int i = 0; i < k; ++i) normals.row(i) << 1.0, 0.001 * i;
  testing::expect_input_error(
      [&] {
        DynamicImpactProblem(DynamicKineticMetric(Eigen::MatrixXd::Identity(2, 2)), normals,
                             Eigen::VectorXd::Constant(2, -1.0), 1.0);
      },
      "normals");
  // With gaps, only the closed contacts count (closed_contact_count is what entry points use).
  Eigen::VectorXd gaps = Eigen::VectorXd::Ones(k);
  gaps.head(kMaxContacts).setZero();
  EXPECT_EQ(closed_contact_count(k, gaps, kGapTolerance), kMaxContacts);
  EXPECT_EQ(closed_contact_count(k, Eigen::VectorXd(), kGapTolerance), k);
  const ImpactProblem fits(KineticMetric(Eigen::MatrixXd::Identity(2, 2)), normals,
                           Eigen::VectorXd::Constant(2, -1.0), 1.0, gaps);
  EXPECT_EQ(fits.contacts(), kMaxContacts);
}

}  // namespace
}  // namespace simpact
