// resolve_impact: statuses, ξ, the single policies against the full outcome set, and the
// uniqueness theorems of Sec. V with their closed forms — Theorem 2 (pairwise g-orthogonal
// normals: p_f = p − 2 Σ_violated <p,û_i>_g û_i, one reflection per violated contact, any order)
// and Theorem 3 (G_12 = −½: p_f = p − 2(<p,û>_g + <p,v̂>_g)(û + v̂), three reflections).
#include "simpact/core/impact_resolution.hpp"

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <Eigen/QR>
#include <chrono>
#include <cmath>
#include <random>
#include <set>
#include <string>

#include "simpact/core/impact_diagnostics.hpp"
#include "test_support.hpp"

namespace simpact {
namespace {

using testing::expect_input_error;
using testing::random_spd;
using testing::random_vector;

using RowMatrix = ImpactProblem::RowMajorMatrix;
constexpr double kPi = 3.141592653589793;
// Three balls with masses 1, 3, 1 hit from both ends: two distinct outcomes.
ImpactProblem cradle_131() {
  RowMatrix normals(2, 3);
  normals << -1, 1, 0, 0, -1, 1;
  Eigen::MatrixXd m = Eigen::MatrixXd::Identity(3, 3);
  m(1, 1) = 3.0;
  return ImpactProblem(KineticMetric(m), normals, Eigen::Vector3d(1, 0, -0.5), 1.0);
}

constexpr OrderingPolicy kSinglePolicies[] = {OrderingPolicy::kArgmin, OrderingPolicy::kArgmax,
                                              OrderingPolicy::kIndex, OrderingPolicy::kReverse,
                                              OrderingPolicy::kRandom};

// k normals with the prescribed normalized Gram matrix G (G = Eᵀ E for unit columns e_i in
// whitened coordinates): u_i = s_i (L Q e_i)ᵀ, M = LLᵀ, Q a random orthogonal matrix.
RowMatrix normals_with_gram(const Eigen::MatrixXd& m, const Eigen::MatrixXd& unit_columns,
                            std::mt19937_64& gen) {
  const int d = static_cast<int>(m.rows()), k = static_cast<int>(unit_columns.cols());
  Eigen::MatrixXd x(d, d);
  for (int i = 0; i < d; ++i) x.col(i) = random_vector(d, gen);
  const Eigen::MatrixXd q = Eigen::HouseholderQR<Eigen::MatrixXd>(x).householderQ();
  const Eigen::MatrixXd l = Eigen::LLT<Eigen::MatrixXd>(m).matrixL();
  std::uniform_real_distribution<double> scale(0.3, 3.0);
  RowMatrix normals(k, d);
  for (int i = 0; i < k; ++i) {
    Eigen::VectorXd e = Eigen::VectorXd::Zero(d);
    e.head(unit_columns.rows()) = unit_columns.col(i);
    normals.row(i) = scale(gen) * (l * q * e).transpose();
  }
  return normals;
}

DofVector unit_normal(const ImpactProblem& problem, int i) {
  return problem.normals().row(i).transpose() / problem.normal_norms()[i];
}

DofVector outcome_momentum(const ImpactProblem& problem, const ImpactWorkspace& ws, int j) {
  return problem.momentum_from_impulses(ws.outcomes.items[j].impulses);
}

double g_distance(const ImpactProblem& problem, const DofVector& a, const DofVector& b) {
  return std::sqrt(problem.metric().squared_norm(a - b));
}

ImpactProblem cradle3(const Eigen::Vector3d& p, double restitution = 1.0) {
  RowMatrix normals(2, 3);
  normals << -1, 1, 0, 0, -1, 1;
  return ImpactProblem(KineticMetric(Eigen::MatrixXd::Identity(3, 3)), normals, p, restitution);
}

TEST(ImpactResolution, StatusNames) {
  EXPECT_EQ(std::string(resolve_status_name(ResolveStatus::kOk)), "ok");
  EXPECT_EQ(std::string(resolve_status_name(ResolveStatus::kNoImpact)), "no_impact");
  EXPECT_EQ(std::string(resolve_status_name(ResolveStatus::kNoElasticOutcome)), "no_elastic_outcome");
  EXPECT_EQ(std::string(resolve_status_name(ResolveStatus::kCapHit)), "cap_hit");
}

TEST(ImpactResolution, NewtonsCradleIsUniqueForEveryPolicy) {
  const ImpactProblem problem = cradle3(Eigen::Vector3d(1, 0, -1));
  ImpactWorkspace ws;
  const ImpactResolution all = resolve_impact(problem, ResolveOptions{}, ws);
  EXPECT_EQ(all.status, ResolveStatus::kOk);
  EXPECT_EQ(all.outcome_count, 1);
  EXPECT_TRUE(all.unique);
  EXPECT_EQ(all.xi, 0.0);
  EXPECT_EQ(all.xi_argmin_argmax, 0.0);
  EXPECT_LE((outcome_momentum(problem, ws, 0) - Eigen::Vector3d(-1, 0, 1)).norm(), 1e-15);
  EXPECT_EQ(all.argmin.sequence.contacts[0], 0);  // tie: argmin takes the first, argmax the last
  EXPECT_EQ(all.argmax.sequence.contacts[0], 1);
  EXPECT_NEAR(all.energy_before, 1.0, 1e-15);
  EXPECT_TRUE(all.plastic_computed);
  EXPECT_LE(problem.momentum_from_impulses(all.plastic.impulses).norm(), 1e-15);
  for (const OrderingPolicy policy : kSinglePolicies) {
    ResolveOptions options;
    options.policy = policy;
    options.seed = 5;
    const ImpactResolution one = resolve_impact(problem, options, ws);
    EXPECT_EQ(one.status, ResolveStatus::kOk);
    ASSERT_EQ(one.outcome_count, 1);
    EXPECT_TRUE(std::isnan(one.xi));  // ξ over the outcome set needs policy all
    EXPECT_EQ(one.xi_argmin_argmax, 0.0);
    EXPECT_LE((outcome_momentum(problem, ws, 0) - Eigen::Vector3d(-1, 0, 1)).norm(), 1e-15)
        << ordering_policy_name(policy);
  }
}

TEST(ImpactResolution, FeasibleMomentumIsNoImpact) {
  const ImpactProblem problem = cradle3(Eigen::Vector3d(0, 1, 2));
  ImpactWorkspace ws;
  const ImpactResolution res = resolve_impact(problem, ResolveOptions{}, ws);
  EXPECT_EQ(res.status, ResolveStatus::kNoImpact);
  ASSERT_EQ(res.outcome_count, 1);
  EXPECT_TRUE(res.unique);
  EXPECT_EQ(res.xi, 0.0);
  EXPECT_EQ(ws.outcomes.items[0].impulses, ContactVector::Zero(2));
  EXPECT_NEAR(ws.outcomes.items[0].energy, problem.energy_before(), 1e-15 * problem.energy_before());
  // Zero momentum: nothing moves, ξ is 0 rather than 0/0.
  const ImpactProblem rest = cradle3(Eigen::Vector3d::Zero());
  const ImpactResolution zero = resolve_impact(rest, ResolveOptions{}, ws);
  EXPECT_EQ(zero.status, ResolveStatus::kNoImpact);
  EXPECT_EQ(zero.xi, 0.0);
  EXPECT_EQ(zero.xi_argmin_argmax, 0.0);
}

TEST(ImpactResolution, XiIsTheOutcomeSetDiameter) {
  // Masses 1, 3, 1 (Sec. III: unequal masses are not unique): ξ = ||p_ab − p_ba||_g/||p⁻||_g.
  const ImpactProblem problem = cradle_131();
  ImpactWorkspace ws;
  const ImpactResolution res = resolve_impact(problem, ResolveOptions{}, ws);
  ASSERT_EQ(res.outcome_count, 2);
  EXPECT_FALSE(res.unique);
  const DofVector ab = outcome_momentum(problem, ws, 0), ba = outcome_momentum(problem, ws, 1);
  const double expected = g_distance(problem, ab, ba) / problem.momentum_norm();
  EXPECT_GT(expected, 1e-3);
  EXPECT_NEAR(res.xi, expected, 1e-14);
  // Two contacts, both violated, no tie: argmin and argmax start differently and reach the two
  // outcomes, so the paper's ξ (two orders) equals the diameter.
  EXPECT_NE(res.argmin.sequence.contacts[0], res.argmax.sequence.contacts[0]);
  EXPECT_NEAR(res.xi_argmin_argmax, expected, 1e-14);
  // No comparison asked: NaN.
  ResolveOptions no_compare;
  no_compare.compare_argmin_argmax = false;
  EXPECT_TRUE(std::isnan(resolve_impact(problem, no_compare, ws).xi_argmin_argmax));
}

TEST(ImpactResolution, PositivelySpanningNormalsHaveNoElasticOutcome) {
  // Returns promptly with kNoElasticOutcome (no enumeration to the caps) and p_p = 0.
  struct Case {
    const char* name;
    RowMatrix normals;
    Eigen::VectorXd p;
  };
  std::vector<Case> cases;
  RowMatrix tri(3, 2);
  for (int i = 0; i < 3; ++i) tri.row(i) << std::cos(2 * kPi * i / 3), std::sin(2 * kPi * i / 3);
  cases.push_back({"d=2, 120 degrees", tri, Eigen::Vector2d(0.3, -1.0)});
  RowMatrix tet(4, 3);
  tet << 1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1;
  cases.push_back({"d=3, tetrahedron", tet, Eigen::Vector3d(1, 2, 3)});
  RowMatrix square(4, 2);
  square << 1, 0, 0, 1, -1, 0, 0, -1;
  cases.push_back({"d=2, square", square, Eigen::Vector2d(1, 0.5)});
  RowMatrix pentagon(5, 2);
  for (int i = 0; i < 5; ++i)
    pentagon.row(i) << std::cos(2 * kPi * i / 5 + 0.1), std::sin(2 * kPi * i / 5 + 0.1);
  cases.push_back({"d=2, pentagon", pentagon, Eigen::Vector2d(-1, 0.2)});
  for (const Case& c : cases) {
    const int d = static_cast<int>(c.p.size());
    const ImpactProblem problem(KineticMetric(Eigen::MatrixXd::Identity(d, d)), c.normals, c.p, 1.0);
    ImpactWorkspace ws;
    const auto start = std::chrono::steady_clock::now();
    const ImpactResolution res = resolve_impact(problem, ResolveOptions{}, ws);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(res.status, ResolveStatus::kNoElasticOutcome)
        << c.name << ": got " << resolve_status_name(res.status) << " after " << res.nodes << " nodes";
    EXPECT_EQ(res.nodes, 0) << c.name;
    EXPECT_LT(seconds, 0.5) << c.name;
    EXPECT_TRUE(res.plastic_computed) << c.name;
    EXPECT_LE(res.plastic.energy, 1e-14 * problem.energy_before()) << c.name;
    EXPECT_FALSE(res.unique) << c.name;
  }
}

TEST(ImpactResolution, CapsAreReportedNotDropped) {
  // Nearly antiparallel normals (G = −cos(π/40.5)): very long propagations.
  std::mt19937_64 gen(71);
  const Eigen::MatrixXd m = random_spd(3, gen);
  Eigen::MatrixXd e(2, 2);
  const double phi = kPi - kPi / 40.5;
  e << 1, std::cos(phi), 0, std::sin(phi);
  const RowMatrix normals = normals_with_gram(m, e, gen);
  // p = Nᵀ A⁻¹ c puts the rates at c = [−1, −1]: both contacts violated.
  const Eigen::MatrixXd a = normals * m.inverse() * normals.transpose();
  const Eigen::VectorXd p = normals.transpose() * a.ldlt().solve(Eigen::Vector2d(-1, -1));
  const ImpactProblem problem(KineticMetric(m), normals, p, 1.0);
  ASSERT_NEAR(problem.initial_rates()[0], -1.0, 1e-9);
  ASSERT_NEAR(problem.initial_rates()[1], -1.0, 1e-9);
  ResolveOptions options;
  options.limits.max_nodes = 3;
  options.compare_argmin_argmax = false;
  ImpactWorkspace ws;
  ImpactResolution res = resolve_impact(problem, options, ws);
  EXPECT_EQ(res.status, ResolveStatus::kCapHit);
  EXPECT_TRUE(res.node_cap_hit);
  EXPECT_FALSE(res.unique);
  options.limits = ResolveLimits{};
  options.limits.max_depth = 3;
  res = resolve_impact(problem, options, ws);
  EXPECT_EQ(res.status, ResolveStatus::kCapHit);
  EXPECT_TRUE(res.depth_cap_hit);
  options.limits = ResolveLimits{};
  options.limits.max_steps = 3;
  options.policy = OrderingPolicy::kArgmin;
  res = resolve_impact(problem, options, ws);
  EXPECT_EQ(res.status, ResolveStatus::kCapHit);
  EXPECT_TRUE(res.step_cap_hit);
  // Without caps the same problem resolves.
  options = ResolveOptions{};
  res = resolve_impact(problem, options, ws);
  EXPECT_EQ(res.status, ResolveStatus::kOk);
  EXPECT_GT(ws.outcomes.items[0].shortest, 3);
}

TEST(ImpactResolution, Theorem2OrthogonalNormals) {
  std::mt19937_64 gen(72);
  int checked = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int d = 4 + trial % 5, k = 2 + trial % 3;
    const Eigen::MatrixXd m = random_spd(d, gen);
    const RowMatrix normals = normals_with_gram(m, Eigen::MatrixXd::Identity(k, k), gen);
    const Eigen::VectorXd p = random_vector(d, gen);
    const ImpactProblem problem(KineticMetric(m), normals, p, 1.0);
    const ImpactDiagnostics diag = diagnose(problem);
    ASSERT_TRUE(diag.orthogonal);
    int violated = 0;
    DofVector expected = p;
    for (int i = 0; i < k; ++i) {
      const DofVector u = unit_normal(problem, i);
      const double rate = problem.metric().inner(DofVector(p), u);
      if (rate < 0) ++violated, expected -= 2.0 * rate * u;
    }
    if (violated < 2) continue;
    ImpactWorkspace ws;
    const ImpactResolution res = resolve_impact(problem, ResolveOptions{}, ws);
    ASSERT_EQ(res.outcome_count, 1) << "trial " << trial;
    EXPECT_TRUE(res.unique);
    EXPECT_LE(res.xi, 1e-12);
    EXPECT_LE(res.xi_argmin_argmax, 1e-12);
    const Outcome& o = ws.outcomes.items[0];
    EXPECT_LE(g_distance(problem, outcome_momentum(problem, ws, 0), expected),
              1e-12 * problem.momentum_norm());
    // Every order: each violated contact once. violated! branches.
    long factorial = 1;
    for (int f = 2; f <= violated; ++f) factorial *= f;
    EXPECT_EQ(o.sequence_count, factorial);
    for (int s = 0; s < o.stored_sequences; ++s) EXPECT_EQ(o.sequences[s].length, violated);
    for (const OrderingPolicy policy : kSinglePolicies) {
      ResolveOptions options;
      options.policy = policy;
      const ImpactResolution one = resolve_impact(problem, options, ws);
      EXPECT_EQ(ws.outcomes.items[0].shortest, violated);
      EXPECT_LE(g_distance(problem, outcome_momentum(problem, ws, 0), expected),
                1e-12 * problem.momentum_norm());
      (void)one;
    }
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

TEST(ImpactResolution, Theorem3HalfCosineIsUniqueInThreeSteps) {
  std::mt19937_64 gen(73);
  Eigen::MatrixXd e(2, 2);
  e << 1, -0.5, 0, std::sqrt(0.75);  // unit columns with cosine −½
  int checked = 0;
  for (int trial = 0; trial < 80; ++trial) {
    const int d = 2 + trial % 6;
    const Eigen::MatrixXd m = random_spd(d, gen);
    const RowMatrix normals = normals_with_gram(m, e, gen);
    const Eigen::VectorXd p = random_vector(d, gen);
    const ImpactProblem problem(KineticMetric(m), normals, p, 1.0);
    const DofVector u = unit_normal(problem, 0), v = unit_normal(problem, 1);
    const double a = problem.metric().inner(DofVector(p), u), b = problem.metric().inner(DofVector(p), v);
    if (!(a < 0 && b < 0)) continue;
    EXPECT_EQ(diagnose(problem).dihedral_m, 3);
    ImpactWorkspace ws;
    const ImpactResolution res = resolve_impact(problem, ResolveOptions{}, ws);
    ASSERT_EQ(res.outcome_count, 1) << "trial " << trial;
    EXPECT_TRUE(res.unique);
    EXPECT_LE(res.xi_argmin_argmax, 1e-12);
    const Outcome& o = ws.outcomes.items[0];
    EXPECT_EQ(o.sequence_count, 2);
    EXPECT_EQ(o.shortest, 3);
    for (int s = 0; s < o.stored_sequences; ++s) EXPECT_EQ(o.sequences[s].length, 3);
    const DofVector expected = DofVector(p) - 2.0 * (a + b) * (u + v);
    EXPECT_LE(g_distance(problem, outcome_momentum(problem, ws, 0), expected),
              1e-12 * problem.momentum_norm());
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

TEST(ImpactResolution, PositiveHalfCosineIsNotUnique) {
  // Theorem 3's forward direction: with G_12 = +½ some momenta violating both contacts have
  // two different outcomes.
  std::mt19937_64 gen(74);
  Eigen::MatrixXd e(2, 2);
  e << 1, 0.5, 0, std::sqrt(0.75);
  int non_unique = 0;
  for (int trial = 0; trial < 100; ++trial) {
    const int d = 2 + trial % 4;
    const Eigen::MatrixXd m = random_spd(d, gen);
    const ImpactProblem problem(KineticMetric(m), normals_with_gram(m, e, gen), random_vector(d, gen), 1.0);
    if (problem.initial_rates()[0] >= 0 || problem.initial_rates()[1] >= 0) continue;
    ImpactWorkspace ws;
    const ImpactResolution res = resolve_impact(problem, ResolveOptions{}, ws);
    if (res.outcome_count > 1) {
      ++non_unique;
      EXPECT_GT(res.xi, 1e-6);
    }
  }
  EXPECT_GT(non_unique, 0);
}

TEST(ImpactResolution, DihedralNormalsAreUniqueInMSteps) {
  // The project's generalization of Theorem 3: G_12 = −cos(π/m) ⇒ one outcome. The reflections
  // generate the dihedral group of order 2m whose chamber is the feasible cone; each reflection
  // across a violated wall shortens the group element by one, so a momentum violating both
  // contacts (the opposite chamber, the longest element) takes exactly m reflections, any other
  // at most m.
  std::mt19937_64 gen(75);
  for (int mm = 2; mm <= 9; ++mm) {
    Eigen::MatrixXd e(2, 2);
    const double phi = kPi - kPi / mm;
    e << 1, std::cos(phi), 0, std::sin(phi);
    int checked = 0;
    for (int trial = 0; trial < 60; ++trial) {
      const int d = 2 + trial % 5;
      const Eigen::MatrixXd m = random_spd(d, gen);
      const ImpactProblem problem(KineticMetric(m), normals_with_gram(m, e, gen), random_vector(d, gen), 1.0);
      if (problem.feasible(problem.initial_rates())) continue;
      ImpactWorkspace ws;
      const ImpactResolution res = resolve_impact(problem, ResolveOptions{}, ws);
      EXPECT_EQ(diagnose(problem).dihedral_m, mm);
      ASSERT_EQ(res.outcome_count, 1) << "m = " << mm << " trial " << trial;
      EXPECT_LE(res.xi_argmin_argmax, 1e-10);
      const Outcome& o = ws.outcomes.items[0];
      for (int s = 0; s < o.stored_sequences; ++s) EXPECT_LE(o.sequences[s].length, mm);
      if (problem.initial_rates()[0] < 0 && problem.initial_rates()[1] < 0) {
        for (int s = 0; s < o.stored_sequences; ++s) EXPECT_EQ(o.sequences[s].length, mm) << "m = " << mm;
      }
      ++checked;
    }
    EXPECT_GE(checked, 20);
  }
}

TEST(ImpactResolution, RandomPolicyIsReproducibleAndReachesEveryBranch) {
  const ImpactProblem problem = cradle_131();
  ImpactWorkspace ws;
  ResolveOptions options;
  options.policy = OrderingPolicy::kRandom;
  options.seed = 1234;
  std::set<int> first_contacts;
  for (std::uint64_t task = 0; task < 64; ++task) {
    options.task = task;
    resolve_impact(problem, options, ws);
    const ContactVector a = ws.outcomes.items[0].impulses;
    first_contacts.insert(ws.outcomes.items[0].sequences[0].contacts[0]);
    resolve_impact(problem, options, ws);
    EXPECT_EQ(ws.outcomes.items[0].impulses, a);  // same (seed, task): same outcome, bit for bit
  }
  EXPECT_EQ(first_contacts, (std::set<int>{0, 1}));
}

TEST(ImpactResolution, InelasticForcesThePlasticOutcome) {
  const ImpactProblem problem = cradle3(Eigen::Vector3d(1, 0, 0), 0.5);
  ImpactWorkspace ws;
  ResolveOptions options;
  options.compute_plastic = false;
  const ImpactResolution res = resolve_impact(problem, options, ws);
  EXPECT_TRUE(res.plastic_computed);
  EXPECT_NEAR(res.plastic.energy, 1.0 / 6.0, 1e-15);
  const ImpactResolution elastic = resolve_impact(cradle3(Eigen::Vector3d(1, 0, 0)), options, ws);
  EXPECT_FALSE(elastic.plastic_computed);
}

TEST(ImpactResolution, XiArgminArgmaxUsesTheBlendedMomenta) {
  // With R < 1 both named-policy outcomes are blended with the same p_p; for these momenta
  // every contact stays active in the plastic impact, so α = R and ξ scales by R.
  RowMatrix normals(2, 3);
  normals << -1, 1, 0, 0, -1, 1;
  Eigen::MatrixXd m = Eigen::MatrixXd::Identity(3, 3);
  m(1, 1) = 3.0;
  const Eigen::Vector3d p(1, 0, -0.5);
  ImpactWorkspace ws;
  const double xi_elastic =
      resolve_impact(ImpactProblem(KineticMetric(m), normals, p, 1.0), ResolveOptions{}, ws).xi;
  const ImpactProblem inelastic(KineticMetric(m), normals, p, 0.4);
  const ImpactResolution res = resolve_impact(inelastic, ResolveOptions{}, ws);
  ASSERT_EQ(res.outcome_count, 2);
  ASSERT_GT(res.plastic.impulses.minCoeff(), 0.0);
  EXPECT_NEAR(res.xi, 0.4 * xi_elastic, 1e-14);
  EXPECT_NEAR(res.xi_argmin_argmax, 0.4 * xi_elastic, 1e-14);
}

// The enumeration stack grows with the depth a resolution reaches, never with the limit: a
// limit of 2e9 costs nothing (issue: a typo in max_depth used to allocate hundreds of GB).
TEST(ImpactResolution, WorkspaceGrowsWithTheDepthReachedNotTheLimit) {
  const ImpactProblem problem = cradle3(Eigen::Vector3d(1, 0, -1));
  ResolveLimits huge;
  huge.max_depth = 2000000000;
  huge.max_outcomes = 1 << 24;
  ImpactWorkspace ws(huge);
  EXPECT_LE(ws.stack.frames.size(), 64u);
  EXPECT_LE(ws.outcomes.items.size(), 64u);
  ResolveOptions options;
  options.limits = huge;
  const ImpactResolution res = resolve_impact(problem, options, ws);
  EXPECT_EQ(res.outcome_count, 1);
  EXPECT_EQ(res.status, ResolveStatus::kOk);
  EXPECT_LE(ws.stack.frames.size(), 64u);
}

}  // namespace
}  // namespace simpact

namespace simpact {
namespace {

// Found by fuzzing: with every contact open (by its gap) there is no closed contact at all; the
// plastic solve took maxCoeff() of an empty vector. Nothing happens: p⁺ = p⁻, no impact.
TEST(ImpactResolution, EveryContactOpenIsNoImpact) {
  const ImpactProblem problem(KineticMetric(Eigen::MatrixXd::Identity(2, 2)),
                              ImpactProblem::RowMajorMatrix::Identity(1, 2), Eigen::Vector2d(-1, 0), 1.0,
                              Eigen::VectorXd::Constant(1, 0.5));
  EXPECT_EQ(problem.contacts(), 0);
  ImpactWorkspace ws;
  const ImpactResolution r = resolve_impact(problem, ResolveOptions{}, ws);
  EXPECT_EQ(r.status, ResolveStatus::kNoImpact);
  ASSERT_EQ(r.outcome_count, 1);
  EXPECT_EQ(problem.momentum_from_impulses(ws.outcomes.items[0].impulses), Eigen::Vector2d(-1, 0));
  EXPECT_EQ(r.xi, 0.0);
  EXPECT_EQ(r.plastic.energy, 0.5);
}

}  // namespace
}  // namespace simpact
