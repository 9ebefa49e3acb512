// Issue 9: the core's edge cases, each with its right answer from a closed form or from the
// independent brute force of brute_force.hpp (long double, full d-space, no simpact code).
//   1 capped billiards → NaN ξ (never 0); with larger limits ξ = 4.99843242e-5 (mpmath, 50 digits)
//   2 Definition 1 tests every sequence; too long / over budget → cap_hit, NaN ξ
//   3 dependent normals merge into one outcome
//   4 plastic accuracy for normals 1e-8 rad from antiparallel
//   5 negative gaps close a contact
//   6 scale-free positive definiteness, covariance under unit changes
//   7 R = 0: p_p alone even where the elastic enumeration caps
//   8 magnitudes outside the computable range are input errors; 1e±30 scalings keep ξ
//   9 more than 64 outcomes; max_outcomes below the count → cap_hit with a lower bound
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "brute_force.hpp"
#include "simpact/core/impact_resolution.hpp"
#include "simpact/core/minimality.hpp"
#include "simpact/models/billiards_scenario.hpp"
#include "test_support.hpp"

namespace simpact {
namespace {

using RowMatrix = ImpactProblem::RowMajorMatrix;
using testing::expect_input_error;

// ξ of the billiards break θ = 3.14, r_c = 0.01 (r_a = r_b = 1, equal density): two outcomes,
// branches of 1475 reflections; computed by an independent 50-digit mpmath enumeration.
constexpr double kBilliardsXi = 4.99843242203485e-5;

ImpactProblem capped_billiards(double restitution = 1.0) {
  ParameterSet params;
  params.set("theta", 3.14);
  params.set("r_c", 0.01);
  params.set("restitution", restitution);
  return BilliardsFamily().make_problem(params);
}

ResolveLimits large_limits() {
  ResolveLimits limits;
  limits.max_steps = 5000;
  limits.max_depth = 5000;
  limits.max_nodes = 1000000;
  return limits;
}

ImpactResolution resolve(const ImpactProblem& problem, const ResolveOptions& options, ImpactWorkspace& ws) {
  return resolve_impact(problem, options, ws);
}

brute::System brute_of(const Eigen::MatrixXd& m, const Eigen::MatrixXd& n, const Eigen::VectorXd& p) {
  return brute::System(m, n, p);
}

// ---- 1 ----------------------------------------------------------------------------------------

TEST(Issue9Billiards, DefaultLimitsCapAndXiIsNaN) {
  const ImpactProblem problem = capped_billiards();
  ImpactWorkspace ws;
  const ImpactResolution res = resolve(problem, ResolveOptions{}, ws);
  EXPECT_EQ(res.status, ResolveStatus::kCapHit);
  EXPECT_TRUE(res.depth_cap_hit);  // a branch needs 1475 > 256 reflections
  EXPECT_TRUE(std::isnan(res.xi)) << res.xi;
  EXPECT_TRUE(std::isnan(res.xi_argmin_argmax)) << res.xi_argmin_argmax;  // 1475 > max_steps
  EXPECT_FALSE(res.unique);
  EXPECT_FALSE(res.xi == 0.0);
}

TEST(Issue9Billiards, LargeLimitsGiveTheReferenceXi) {
  const ImpactProblem problem = capped_billiards();
  ResolveOptions options;
  options.limits = large_limits();
  ImpactWorkspace ws(options.limits);
  const ImpactResolution res = resolve(problem, options, ws);
  ASSERT_EQ(res.status, ResolveStatus::kOk);
  EXPECT_EQ(res.outcome_count, 2);
  EXPECT_EQ(res.nodes, 2 * 1475);
  EXPECT_NEAR(res.xi, kBilliardsXi, 1e-6 * kBilliardsXi);
  // Symmetric cue: argmin takes contact a first, argmax contact b; the two branches.
  EXPECT_NEAR(res.xi_argmin_argmax, kBilliardsXi, 1e-6 * kBilliardsXi);
  for (int j = 0; j < 2; ++j) EXPECT_EQ(ws.outcomes.items[static_cast<std::size_t>(j)].shortest, 1475);
}

// `simpact resolve` always asks for the Definition 1 verdicts (check_definition1): in propagation
// mode an unchecked verdict (1475 > kMaxDefinition1Length) is reported but must not void ξ.
TEST(Issue9Billiards, Definition1ReportDoesNotCapPropagationXi) {
  const ImpactProblem problem = capped_billiards();
  ResolveOptions options;
  options.limits = large_limits();
  options.check_definition1 = true;
  ImpactWorkspace ws(options.limits);
  const ImpactResolution res = resolve(problem, options, ws);
  EXPECT_TRUE(res.definition1_cap_hit);  // reported
  ASSERT_EQ(res.status, ResolveStatus::kOk);
  EXPECT_NEAR(res.xi, kBilliardsXi, 1e-6 * kBilliardsXi);
  for (int j = 0; j < res.outcome_count; ++j)
    EXPECT_EQ(ws.outcomes.items[static_cast<std::size_t>(j)].definition1_minimal, -1);  // unknown
}

// ---- 2 ----------------------------------------------------------------------------------------

// Five balls on a line, masses 3 3 1 1 3, velocities 1/3 1/3 3 −1 −2/3: one outcome is reached
// by 25 branches; the first 20 in depth-first order (length 10) are not minimal, the 21st
// (2 3 2 1 0 2 1 3 2, length 9) is. Found and checked by the brute force.
struct Chain5 {
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(5, 5);
  RowMatrix n = RowMatrix::Zero(4, 5);
  Eigen::VectorXd p = Eigen::VectorXd(5);
  Chain5() {
    m.diagonal() << 3, 3, 1, 1, 3;
    for (int i = 0; i < 4; ++i) n(i, i) = -1, n(i, i + 1) = 1;
    p << 1, 1, 3, -1, -2;
  }
  ImpactProblem problem() const { return ImpactProblem(KineticMetric(m), n, p, 1.0); }
};

TEST(Issue9Definition1, MinimalSequenceBeyondTheStoredOnesCounts) {
  const Chain5 c;
  const ImpactProblem problem = c.problem();
  const brute::System sys = brute_of(c.m, c.n, c.p);
  const brute::Enumeration e = sys.enumerate(40, 100000);
  ASSERT_FALSE(e.capped);
  ASSERT_EQ(e.outcomes.size(), 2u);

  ResolveOptions options;
  options.minimality = Minimality::kDefinition1;
  ImpactWorkspace ws;
  const ImpactResolution res = resolve(problem, options, ws);
  ASSERT_EQ(res.status, ResolveStatus::kOk);
  ASSERT_EQ(res.outcome_count, 2);
  int checked = 0;
  for (const auto& bo : e.outcomes) {
    const Eigen::VectorXd p = sys.momentum(bo.y);
    // The matching simpact outcome.
    int match = -1;
    for (int j = 0; j < res.outcome_count; ++j)
      if ((ws.outcomes.items[static_cast<std::size_t>(j)].momentum - p).norm() <= 1e-9 * c.p.norm())
        match = j;
    ASSERT_GE(match, 0);
    const Outcome& o = ws.outcomes.items[static_cast<std::size_t>(match)];
    EXPECT_EQ(o.sequence_count, static_cast<long>(bo.sequences.size()));
    bool any_minimal = false;
    int first_minimal = -1;
    for (std::size_t s = 0; s < bo.sequences.size(); ++s)
      if (sys.definition1(bo.sequences[s])) {
        any_minimal = true;
        if (first_minimal < 0) first_minimal = static_cast<int>(s);
      }
    EXPECT_EQ(o.definition1_minimal, any_minimal ? 1 : 0);
    if (bo.sequences.size() == 25) {
      ++checked;
      EXPECT_EQ(first_minimal, 20);  // the premise: not among the first 4 (nor 20)
      ASSERT_EQ(o.stored_sequences, kMaxSequencesPerOutcome);
      for (int s = 0; s < o.stored_sequences; ++s) {
        EXPECT_EQ(o.sequences[s].length, static_cast<int>(bo.sequences[static_cast<std::size_t>(s)].size()));
        EXPECT_EQ(definition1_minimal(problem, o.sequences[s]), 0);  // stored ones: not minimal
      }
      EXPECT_EQ(o.definition1_minimal, 1);
    }
  }
  EXPECT_EQ(checked, 1);
  EXPECT_EQ(res.minimal_outcomes, 2);
  // Both outcomes minimal: ξ over the minimal ones is the full diameter.
  std::vector<brute::RVec> ys;
  for (const auto& bo : e.outcomes) ys.push_back(bo.y);
  EXPECT_NEAR(res.xi, static_cast<double>(sys.xi(ys)), 1e-12);
  // And the sequence itself: 2 3 2 1 0 2 1 3 2 is minimal, by simpact's own checker too.
  ContactSequence seq;
  for (int i : {2, 3, 2, 1, 0, 2, 1, 3, 2}) seq.push(i);
  EXPECT_EQ(definition1_minimal(problem, seq), 1);
}

TEST(Issue9Definition1, TooLongSequencesAreACapNeverOk) {
  const ImpactProblem problem = capped_billiards();
  ResolveOptions options;
  options.limits = large_limits();
  options.minimality = Minimality::kDefinition1;
  ImpactWorkspace ws(options.limits);
  const ImpactResolution res = resolve(problem, options, ws);
  EXPECT_EQ(res.status, ResolveStatus::kCapHit);
  EXPECT_TRUE(res.definition1_cap_hit);  // 1475 > kMaxDefinition1Length
  EXPECT_TRUE(std::isnan(res.xi));
  EXPECT_FALSE(res.unique);
  static_assert(kMaxDefinition1Length < 1475);
  ContactSequence seq;
  for (int t = 0; t < kMaxDefinition1Length + 1; ++t) seq.push(t % 2);
  EXPECT_EQ(definition1_minimal(problem, seq), -1);
}

TEST(Issue9Definition1, BudgetExhaustedIsACapNeverOk) {
  const Chain5 c;
  const ImpactProblem problem = c.problem();
  ResolveOptions options;
  options.minimality = Minimality::kDefinition1;
  options.limits.max_definition1_checks = 1L << 9;  // one length-9 sequence, not a length-10 one
  ImpactWorkspace ws;
  const ImpactResolution res = resolve(problem, options, ws);
  EXPECT_EQ(res.status, ResolveStatus::kCapHit);
  EXPECT_TRUE(res.definition1_cap_hit);
  EXPECT_TRUE(std::isnan(res.xi));
  // Propagation mode ignores the budget.
  options.minimality = Minimality::kPropagation;
  const ImpactResolution full = resolve(problem, options, ws);
  EXPECT_EQ(full.status, ResolveStatus::kOk);
  EXPECT_TRUE(std::isfinite(full.xi));
}

// ---- 3 ----------------------------------------------------------------------------------------

TEST(Issue9DependentNormals, MergeIntoOneOutcome) {
  RowMatrix n(3, 3);
  n << -0.3, 0.3, 0, 0, -0.7, 0.7, -0.1, 0, 0.1;  // u3 = u1/3 + u2/7
  const Eigen::Vector3d p(0.9, 0.1, 0);
  const ImpactProblem problem(KineticMetric(Eigen::Matrix3d::Identity()), n, p, 1.0);
  ImpactWorkspace ws;
  const ImpactResolution res = resolve(problem, ResolveOptions{}, ws);
  ASSERT_EQ(res.status, ResolveStatus::kOk);
  EXPECT_EQ(res.outcome_count, 1);
  EXPECT_TRUE(res.unique);
  EXPECT_EQ(res.xi, 0.0);
  // Balls 1 and 3 exchange momenta (equal masses, u3 couples them directly).
  EXPECT_LE((ws.outcomes.items[0].momentum - Eigen::Vector3d(0, 0.1, 0.9)).norm(), 1e-12);
  // The brute force agrees: every branch ends there.
  const brute::Enumeration e = brute_of(Eigen::Matrix3d::Identity(), n, p).enumerate(40, 100000);
  ASSERT_FALSE(e.capped);
  EXPECT_EQ(e.outcomes.size(), 1u);
  EXPECT_EQ(ws.outcomes.items[0].sequence_count, static_cast<long>(e.outcomes[0].sequences.size()));
}

// ---- 4 ----------------------------------------------------------------------------------------

TEST(Issue9Plastic, NearlyAntiparallelNormalsGiveTheApex) {
  RowMatrix n(2, 2);
  n << 1, 0, -1, 1e-8;
  const Eigen::Vector2d p(-0.3, -1.0);
  // The cone 0 ≤ p_1 ≤ 1e-8 p_2 is a sliver around +p_2; p⁻ has a negative product with both of
  // its edge rays, so its projection is the apex 0.
  const ImpactProblem problem(KineticMetric(Eigen::Matrix2d::Identity()), n, p, 0.0);
  const PlasticOutcome plastic = plastic_outcome(problem);
  EXPECT_TRUE(plastic.converged);
  EXPECT_LE(plastic.momentum.norm(), 1e-12 * p.norm()) << plastic.momentum.transpose();
  EXPECT_TRUE(problem.feasible(plastic.rates));
  EXPECT_TRUE(problem.feasible(n * plastic.momentum));  // M = I: rates = N p
  ImpactWorkspace ws;
  const ImpactResolution res = resolve(problem, ResolveOptions{}, ws);
  EXPECT_EQ(res.status, ResolveStatus::kOk);
  EXPECT_EQ(res.outcome_count, 1);
  EXPECT_LE(ws.outcomes.items[0].momentum.norm(), 1e-12 * p.norm());
  // Long-double brute force agrees.
  const brute::System sys = brute_of(Eigen::Matrix2d::Identity(), n, p);
  EXPECT_LE(static_cast<double>(sys.plastic().norm()), 1e-15);
}

// ---- 5 ----------------------------------------------------------------------------------------

TEST(Issue9Gaps, NegativeGapIsClosedAndReported) {
  RowMatrix n(2, 3);
  n << -1, 1, 0, 0, -1, 1;
  const Eigen::Vector3d p(1, 0, 0);
  const ImpactProblem problem(KineticMetric(Eigen::Matrix3d::Identity()), n, p, 1.0,
                              Eigen::Vector2d(0, -0.001));
  EXPECT_EQ(problem.contacts(), 2);
  ASSERT_EQ(problem.penetrating_contacts(), 1);
  EXPECT_EQ(problem.penetrating_index(0), 1);
  ImpactWorkspace ws;
  const ImpactResolution res = resolve(problem, ResolveOptions{}, ws);
  ASSERT_EQ(res.status, ResolveStatus::kOk);
  ASSERT_EQ(res.outcome_count, 1);
  EXPECT_LE((ws.outcomes.items[0].momentum - Eigen::Vector3d(0, 0, 1)).norm(), 1e-14);  // not [0,1,0]
  // An open contact (positive gap) is dropped: then the middle ball keeps the momentum.
  const ImpactProblem open(KineticMetric(Eigen::Matrix3d::Identity()), n, p, 1.0, Eigen::Vector2d(0, 0.001));
  EXPECT_EQ(open.contacts(), 1);
  EXPECT_EQ(open.penetrating_contacts(), 0);
  const ImpactResolution r2 = resolve(open, ResolveOptions{}, ws);
  EXPECT_LE((ws.outcomes.items[0].momentum - Eigen::Vector3d(0, 1, 0)).norm(), 1e-14);
  EXPECT_EQ(r2.outcome_count, 1);
}

// ---- 6 ----------------------------------------------------------------------------------------

Eigen::MatrixXd kron(const Eigen::Matrix2d& a, const Eigen::Matrix2d& b) {
  Eigen::MatrixXd m(4, 4);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) m.block(2 * i, 2 * j, 2, 2) = a(i, j) * b;
  return m;
}

// [[2,1],[1,2]] ⊗ [[3,1],[1,2]]: symmetric positive definite, fully coupled.
Eigen::MatrixXd coupled_mass() {
  Eigen::Matrix2d a, b;
  a << 2, 1, 1, 2;
  b << 3, 1, 1, 2;
  return kron(a, b);
}

TEST(Issue9MassMatrix, UnitChangesAreAcceptedAndCovariant) {
  const Eigen::MatrixXd m = coupled_mass();
  RowMatrix n(3, 4);
  n << 1, -1, 0.5, 0, 0, 1, -1, 0.25, -0.5, 0, 1, -1;
  Eigen::Vector4d p(1.0, 0.5, -2.0, 1.5);
  const ImpactProblem base(KineticMetric(m), n, p, 1.0);
  ImpactWorkspace ws0;
  const ImpactResolution r0 = resolve(base, ResolveOptions{}, ws0);
  ASSERT_EQ(r0.status, ResolveStatus::kOk);
  ASSERT_GE(r0.outcome_count, 2);  // a non-trivial ξ to transform
  // Independent check of the base case.
  const brute::Enumeration e = brute_of(m, n, p).enumerate(60, 100000);
  ASSERT_FALSE(e.capped);
  EXPECT_EQ(static_cast<int>(e.outcomes.size()), r0.outcome_count);

  for (const Eigen::Vector4d& dvec :
       {Eigen::Vector4d(1e-6, 1e6, 1e3, 1e-3), Eigen::Vector4d(1e6, 1e-6, 1e-6, 1e6),
        Eigen::Vector4d(1e-3, 1, 1e6, 1e-6)}) {
    // q = D q': M' = D M D, p' = D p, u' = u D.
    const Eigen::DiagonalMatrix<double, 4> dm(dvec);
    const Eigen::MatrixXd m2 = dm * m * dm;
    const RowMatrix n2 = n * dm;
    const Eigen::Vector4d p2 = dm * p;
    const ImpactProblem scaled(KineticMetric(m2), n2, p2, 1.0);  // must not throw
    ImpactWorkspace ws;
    const ImpactResolution r = resolve(scaled, ResolveOptions{}, ws);
    ASSERT_EQ(r.status, ResolveStatus::kOk) << dvec.transpose();
    ASSERT_EQ(r.outcome_count, r0.outcome_count);
    EXPECT_NEAR(r.xi, r0.xi, 1e-9 * r0.xi);
    EXPECT_NEAR(r.xi_argmin_argmax, r0.xi_argmin_argmax, 1e-9 + 1e-9 * r0.xi_argmin_argmax);
    for (int j = 0; j < r.outcome_count; ++j) {
      const DofVector expected = dm * ws0.outcomes.items[static_cast<std::size_t>(j)].momentum;
      double best = std::numeric_limits<double>::infinity();
      for (int i = 0; i < r.outcome_count; ++i)
        best = std::min(best,
                        scaled.distance(ws.outcomes.items[static_cast<std::size_t>(i)].momentum, expected));
      EXPECT_LE(best, 1e-9 * scaled.momentum_norm()) << "outcome " << j;
    }
  }
}

TEST(Issue9MassMatrix, IndefiniteOrSingularCoupledMassIsRejected) {
  Eigen::Matrix2d indefinite, singular;
  indefinite << 1, 2, 2, 1;
  singular << 1, 1, 1, 1;
  expect_input_error([&] { (void)KineticMetric(indefinite); }, "mass_matrix");
  expect_input_error([&] { (void)KineticMetric(singular); }, "mass_matrix");
  const Eigen::DiagonalMatrix<double, 2> dm(1e-6, 1e6);
  expect_input_error([&] { (void)KineticMetric(Eigen::Matrix2d(dm * singular * dm)); }, "mass_matrix");
  expect_input_error([&] { (void)KineticMetric(Eigen::Matrix2d(dm * indefinite * dm)); }, "mass_matrix");
  // A singular 4×4 Kronecker product [[1,1],[1,1]] ⊗ b under a wide unit change.
  Eigen::Matrix2d ones, b;
  ones << 1, 1, 1, 1;
  b << 3, 1, 1, 2;
  const Eigen::MatrixXd m = kron(ones, b);
  const Eigen::Vector4d dvec(1e-6, 1e6, 1e3, 1e-3);
  const Eigen::DiagonalMatrix<double, 4> d4(dvec);
  expect_input_error([&] { (void)KineticMetric(Eigen::MatrixXd(d4 * m * d4)); }, "mass_matrix");
}

// ---- 7 ----------------------------------------------------------------------------------------

TEST(Issue9Plastic, RestitutionZeroIsThePlasticOutcomeAlone) {
  const ImpactProblem problem = capped_billiards(0.0);
  ImpactWorkspace ws;
  const ImpactResolution res = resolve(problem, ResolveOptions{}, ws);  // default limits
  ASSERT_EQ(res.status, ResolveStatus::kOk);
  EXPECT_EQ(res.outcome_count, 1);
  EXPECT_TRUE(res.unique);
  EXPECT_EQ(res.xi, 0.0);
  EXPECT_EQ(res.xi_argmin_argmax, 0.0);
  EXPECT_TRUE(res.plastic.converged);
  const brute::System sys = brute_of(problem.metric().mass_matrix(), problem.normals(), problem.momentum());
  const Eigen::VectorXd pp = sys.momentum(sys.plastic());
  EXPECT_LE(problem.distance(ws.outcomes.items[0].momentum, pp), 1e-10 * problem.momentum_norm());
  // Momentum is conserved along the cue direction: the total x momentum stays m_c·speed. (The
  // g-norm accuracy ε||p⁻||_g allows Euclidean errors √(m_a/m_c) = 1000 times larger in a's
  // and b's components; measured 8e-12 relative.)
  const DofVector& q = ws.outcomes.items[0].momentum;
  EXPECT_NEAR(q[0] + q[2] + q[4], problem.momentum()[4], 1e-9 * problem.momentum()[4]);
  EXPECT_NEAR(q[1] + q[3] + q[5], 0.0, 1e-9 * problem.momentum()[4]);
}

// ---- 8 ----------------------------------------------------------------------------------------

TEST(Issue9Magnitudes, OutOfRangeInputsNameTheField) {
  RowMatrix n(2, 3);
  n << -1, 1, 0, 0, -1, 1;
  const Eigen::Matrix3d eye = Eigen::Matrix3d::Identity();
  expect_input_error([&] { (void)ImpactProblem(KineticMetric(eye), n, Eigen::Vector3d(1e200, 0, 0), 1.0); },
                     "momentum");
  Eigen::Matrix3d tiny = eye;
  tiny(1, 1) = 1e-300;
  expect_input_error([&] { (void)KineticMetric(tiny); }, "mass_matrix");
  for (const double speed : {1e60, 1e-170}) {
    ParameterSet params;
    params.set("theta", 2.0);
    params.set("speed", speed);
    expect_input_error([&] { BilliardsFamily().make_problem(params); }, "momentum");
  }
}

TEST(Issue9Magnitudes, ScaledSystemsKeepXi) {
  const Chain5 c;
  ImpactWorkspace ws;
  const ImpactResolution r0 = resolve(c.problem(), ResolveOptions{}, ws);
  ASSERT_EQ(r0.status, ResolveStatus::kOk);
  ASSERT_GT(r0.xi, 0.0);
  for (const double s : {1e30, 1e-30}) {
    // Mass in s kg, momentum in s kg·m/s, normals in 1/s: every product stays in range.
    const ImpactProblem scaled(KineticMetric(Eigen::MatrixXd(s * c.m)), RowMatrix(c.n / s),
                               Eigen::VectorXd(s * c.p), 1.0);
    const ImpactResolution r = resolve(scaled, ResolveOptions{}, ws);
    ASSERT_EQ(r.status, ResolveStatus::kOk) << s;
    EXPECT_EQ(r.outcome_count, r0.outcome_count);
    EXPECT_NEAR(r.xi, r0.xi, 1e-12 * r0.xi) << s;
    const ImpactProblem p_only(KineticMetric(c.m), c.n, Eigen::VectorXd(s * c.p), 1.0);
    EXPECT_NEAR(resolve(p_only, ResolveOptions{}, ws).xi, r0.xi, 1e-12 * r0.xi) << s;
  }
}

// ---- 9 ----------------------------------------------------------------------------------------

// d = 4, M = I, four contacts: 1382 distinct outcomes, every branch its own (found by the
// brute force; all of them within 24 reflections).
struct Many {
  Eigen::MatrixXd m = Eigen::MatrixXd::Identity(4, 4);
  RowMatrix n = RowMatrix(4, 4);
  Eigen::VectorXd p = Eigen::VectorXd(4);
  Many() {
    n << 0.75, 0.5, 0.25, -0.25, -0.5, 0, 0.75, -2, -0.5, 0.75, -2, -2.75, -0.5, -0.25, -0.5, 0.75;
    p << 0, -0.25, 1.5, -0.75;
  }
};

TEST(Issue9Outcomes, MoreThan64OutcomesAndTheOutcomeCap) {
  const Many s;
  const ImpactProblem problem(KineticMetric(s.m), s.n, s.p, 1.0);
  const brute::System sys = brute_of(s.m, s.n, s.p);
  const brute::Enumeration e = sys.enumerate(60, 1000000);
  ASSERT_FALSE(e.capped);
  const int count = static_cast<int>(e.outcomes.size());
  ASSERT_GT(count, 64);
  std::vector<brute::RVec> ys;
  for (const auto& o : e.outcomes) ys.push_back(o.y);
  const double xi = static_cast<double>(sys.xi(ys));

  ImpactWorkspace ws;
  ResolveOptions options;
  const ImpactResolution res = resolve(problem, options, ws);
  ASSERT_EQ(res.status, ResolveStatus::kOk);
  EXPECT_EQ(res.outcome_count, count);
  EXPECT_NEAR(res.xi, xi, 1e-9 * xi);
  EXPECT_TRUE(std::isnan(res.xi_lower_bound));
  // Every brute-force outcome is among simpact's.
  for (const auto& o : e.outcomes) {
    const Eigen::VectorXd p = sys.momentum(o.y);
    double best = std::numeric_limits<double>::infinity();
    for (int j = 0; j < res.outcome_count; ++j)
      best = std::min(best, problem.distance(ws.outcomes.items[static_cast<std::size_t>(j)].momentum, p));
    EXPECT_LE(best, 1e-9 * problem.momentum_norm());
  }

  options.limits.max_outcomes = count - 100;
  ImpactWorkspace small(options.limits);
  const ImpactResolution capped = resolve(problem, options, small);
  EXPECT_EQ(capped.status, ResolveStatus::kCapHit);
  EXPECT_TRUE(capped.outcome_cap_hit);
  EXPECT_EQ(capped.outcome_count, count - 100);
  EXPECT_TRUE(std::isnan(capped.xi));
  EXPECT_FALSE(capped.unique);
  ASSERT_TRUE(std::isfinite(capped.xi_lower_bound));
  EXPECT_GT(capped.xi_lower_bound, 0.0);
  EXPECT_LE(capped.xi_lower_bound, xi * (1 + 1e-12));
}

}  // namespace
}  // namespace simpact
