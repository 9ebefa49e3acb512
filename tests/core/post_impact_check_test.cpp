// core/post_impact_check.hpp: validating another simulator's post-impact state.
#include "simpact/core/post_impact_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "simpact/models/cradle_scenario.hpp"

namespace simpact {
namespace {

struct Checked {
  ImpactProblem problem;
  ImpactWorkspace workspace;
  ImpactResolution resolution;
};

// Newton's cradle, three equal balls, ball 1 at speed 1: the propagative outcome is [0, 0, 1].
Checked cradle() {
  Checked c{CradleFamily().make_problem({}), ImpactWorkspace{}, {}};
  c.resolution = resolve_impact(c.problem, ResolveOptions{}, c.workspace);
  return c;
}

// The 3-ball equal-mass cradle built directly: M = I, u1 = [−1,1,0], u2 = [0,−1,1], p⁻ = [1,0,0].
// With `masses`, ball i has mass masses[i].
Checked cradle_with_restitution(double restitution, const Eigen::Vector3d& masses = Eigen::Vector3d::Ones()) {
  ImpactProblem::RowMajorMatrix normals(2, 3);
  normals << -1, 1, 0, 0, -1, 1;
  Checked c{ImpactProblem(KineticMetric(Eigen::Matrix3d(masses.asDiagonal())), normals,
                          Eigen::Vector3d(1, 0, 0), restitution),
            ImpactWorkspace{},
            {}};
  c.resolution = resolve_impact(c.problem, ResolveOptions{}, c.workspace);
  return c;
}

PostImpactCheck check_with(const Checked& c, const DofVector& p_after,
                           double consistency_tolerance = kMinConsistencyTolerance) {
  return check_post_impact_state(c.problem, p_after, kDefaultCheckTolerance, consistency_tolerance,
                                 c.resolution, c.workspace);
}

// Each component printed with printf("%.6g") and read back.
Eigen::VectorXd printed_to_6_digits(const DofVector& p) {
  Eigen::VectorXd out(p.size());
  char buf[40];
  for (Eigen::Index i = 0; i < p.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%.6g", p[i]);
    out[i] = std::strtod(buf, nullptr);
  }
  return out;
}

TEST(PostImpactCheck, ThePropagativeOutcomeIsConsistent) {
  Checked c = cradle();
  const PostImpactCheck r =
      check_post_impact_state(c.problem, Eigen::Vector3d(0, 0, 1), kDefaultCheckTolerance,
                              kMinConsistencyTolerance, c.resolution, c.workspace);
  EXPECT_TRUE(r.consistent_with_propagative_model);
  EXPECT_LE(r.distance_to_nearest_outcome, 1e-15);
  EXPECT_NEAR(r.relative_energy_error, 0.0, 1e-15);
  EXPECT_TRUE(r.feasibility_violations.empty());
  EXPECT_FALSE(r.negative_impulses);
  // implied impulses: λ1 = λ2 = 1 move the momentum from ball 1 through ball 2 to ball 3
  EXPECT_NEAR(r.implied_impulses[0], 1.0, 1e-15);
  EXPECT_NEAR(r.implied_impulses[1], 1.0, 1e-15);
  EXPECT_LE(r.impulse_residual, 1e-15);
  // plastic: all three move together at 1/3: ||[0,0,1] − [1/3,1/3,1/3]|| = √(2/3)
  EXPECT_NEAR(r.distance_to_plastic, std::sqrt(2.0 / 3.0), 1e-15);
}

TEST(PostImpactCheck, TheSetSAnswerIsInfeasibleAndFlagged) {
  // [0, 1, 0] is what the paper's set S would give: ball 2 moving into ball 3.
  Checked c = cradle();
  const PostImpactCheck r =
      check_post_impact_state(c.problem, Eigen::Vector3d(0, 1, 0), kDefaultCheckTolerance,
                              kMinConsistencyTolerance, c.resolution, c.workspace);
  EXPECT_FALSE(r.consistent_with_propagative_model);
  ASSERT_EQ(r.feasibility_violations.size(), 1u);
  EXPECT_EQ(r.feasibility_violations[0].contact, 1);
  EXPECT_NEAR(r.feasibility_violations[0].rate, -1.0 / std::sqrt(2.0), 1e-15);  // <p,u>/(||p⁻|| ||u||)
  EXPECT_NEAR(r.distance_to_nearest_outcome, std::sqrt(2.0), 1e-15);
}

TEST(PostImpactCheck, EnergyGainAndAdhesiveImpulsesAreReported) {
  Checked c = cradle();
  // ball 3 leaves at speed 2: four times the energy, +300 %
  const PostImpactCheck gain =
      check_post_impact_state(c.problem, Eigen::Vector3d(0, 0, 2), kDefaultCheckTolerance,
                              kMinConsistencyTolerance, c.resolution, c.workspace);
  EXPECT_NEAR(gain.relative_energy_error, 3.0, 1e-15);
  // p = [2, −1, 0]: Δp = [1, −1, 0] = λ1·(−1, 1, 0) with λ1 = −1 — contact 1 pulling (adhesion)
  const PostImpactCheck pull =
      check_post_impact_state(c.problem, Eigen::Vector3d(2, -1, 0), kDefaultCheckTolerance,
                              kMinConsistencyTolerance, c.resolution, c.workspace);
  EXPECT_TRUE(pull.negative_impulses);
  EXPECT_NEAR(pull.implied_impulses[0], -1.0, 1e-15);
}

TEST(PostImpactCheck, SignificantDigitsOfTheShortestRoundTrip) {
  EXPECT_EQ(significant_digits(0.0), 0);
  EXPECT_EQ(significant_digits(0.5), 1);
  EXPECT_EQ(significant_digits(1e-7), 1);
  EXPECT_EQ(significant_digits(-123.25), 5);
  EXPECT_EQ(significant_digits(0.333333), 6);
  EXPECT_EQ(significant_digits(1.0 / 3.0), 16);
  EXPECT_EQ(significant_digits(0.1 + 0.2), 17);
}

TEST(PostImpactCheck, AnExactAnswerPrintedTo6DigitsIsConsistentByDefault) {
  // COR 0.7, masses 1, 2, 3: p⁺ has long decimals; printed to 6 digits it is ~1e-6 (relative)
  // from the exact outcome, the old fixed 1e-6 tolerance's own size.
  Checked c = cradle_with_restitution(0.7, Eigen::Vector3d(1, 2, 3));
  ASSERT_EQ(c.workspace.outcomes.size, 1);
  const DofVector exact = c.workspace.outcomes.items[0].momentum;
  const Eigen::VectorXd printed = printed_to_6_digits(exact);
  ASSERT_GT(c.problem.distance(DofVector(printed), exact), 1e-7);  // the rounding is real
  const PrintedPrecision precision = printed_precision(c.problem, printed, false);
  EXPECT_EQ(precision.digits, 6);
  // Σ ½·10⁻⁵·|x_i|/√m_i (||e_i||_g = 1/√m_i, ||p⁻||_g = 1), doubled.
  EXPECT_NEAR(precision.relative_rounding,
              0.5e-5 * (std::abs(printed[0]) + std::abs(printed[1]) / std::sqrt(2.0) +
                        std::abs(printed[2]) / std::sqrt(3.0)),
              1e-18);
  EXPECT_NEAR(precision.consistency_tolerance, 2 * precision.relative_rounding, 1e-18);
  const PostImpactCheck r = check_with(c, DofVector(printed), precision.consistency_tolerance);
  EXPECT_TRUE(r.consistent_with_propagative_model);
  EXPECT_LE(r.distance_to_nearest_outcome, precision.relative_rounding);
  // The same state against a tolerance the printed digits cannot meet is inconsistent.
  EXPECT_FALSE(check_with(c, DofVector(printed), 1e-9).consistent_with_propagative_model);
  // An exact input (16 significant digits) keeps the tight floor, and a wrong answer at 6 digits
  // (the plastic outcome, ~0.4 away) stays inconsistent.
  const PrintedPrecision full =
      printed_precision(c.problem, Eigen::Vector3d(1.0 / 3, 1.0 / 3, 1.0 / 3), false);
  EXPECT_EQ(full.digits, 16);
  EXPECT_EQ(full.consistency_tolerance, kMinConsistencyTolerance);
  const Eigen::VectorXd plastic6 = printed_to_6_digits(c.resolution.plastic.momentum);
  const PostImpactCheck wrong =
      check_with(c, DofVector(plastic6), printed_precision(c.problem, plastic6, false).consistency_tolerance);
  EXPECT_GT(wrong.distance_to_nearest_outcome, 0.1);
  EXPECT_FALSE(wrong.consistent_with_propagative_model);
  // velocity_after with M = 4I: δp = Mδv, ||·||_g = 2|δv| per axis; ||p⁻||_g = 1/2 for p⁻ = [1,0,0].
  ImpactProblem::RowMajorMatrix normals(2, 3);
  normals << -1, 1, 0, 0, -1, 1;
  const ImpactProblem heavy(KineticMetric(4 * Eigen::Matrix3d::Identity()), normals, Eigen::Vector3d(1, 0, 0),
                            1);
  EXPECT_NEAR(printed_precision(heavy, Eigen::Vector3d(0, 0, 0.25), true).relative_rounding,
              0.5e-5 * 0.25 * 2 / 0.5, 1e-18);
}

TEST(PostImpactCheck, EnergyErrorAgainstTheModelIsZeroForTheModelAnswer) {
  // COR 0.7: the model loses (1 − R²)(E⁻ − E_p)/E⁻ = 0.51 · 2/3 = 0.34 of the energy.
  Checked c = cradle_with_restitution(0.7);
  ASSERT_EQ(c.workspace.outcomes.size, 1);
  const PostImpactCheck r = check_with(c, c.workspace.outcomes.items[0].momentum);
  EXPECT_NEAR(r.relative_energy_error, -0.34, 1e-12);
  EXPECT_NEAR(r.relative_energy_error_vs_model, 0.0, 1e-12);
  EXPECT_NEAR(r.predicted_energy_after, 0.5 * 0.66, 1e-12);
  EXPECT_TRUE(r.consistent_with_propagative_model);
  // The elastic answer [0,0,1] conserves energy, which is 0.34 more than the model predicts.
  const PostImpactCheck elastic = check_with(c, Eigen::Vector3d(0, 0, 1));
  EXPECT_NEAR(elastic.relative_energy_error, 0.0, 1e-12);
  EXPECT_NEAR(elastic.relative_energy_error_vs_model, 0.34, 1e-12);
  EXPECT_FALSE(elastic.consistent_with_propagative_model);
}

TEST(PostImpactCheck, ThePropagativeOutcomeHasZeroComplementarityForEveryRestitution) {
  for (const double restitution : {0.0, 0.5, 1.0}) {
    Checked c = cradle_with_restitution(restitution);
    ASSERT_EQ(c.workspace.outcomes.size, 1) << restitution;
    const PostImpactCheck r = check_with(c, c.workspace.outcomes.items[0].momentum);
    EXPECT_LE(r.complementarity_residual, 1e-12) << restitution;
    EXPECT_FALSE(r.negative_impulses) << restitution;
    EXPECT_LE(r.distance_to_nearest_outcome, 1e-12) << restitution;
  }
  // At R = 1 the plastic state [1,1,1]/3 is reached by λ = (2/3, 1/3); contact 2 then closes at
  // rate 0 where the model separates at rate 1: |λ_2 · (0 − 1)| / ||p⁻||² = 1/3.
  Checked elastic = cradle_with_restitution(1.0);
  const PostImpactCheck plastic = check_with(elastic, Eigen::Vector3d(1.0 / 3, 1.0 / 3, 1.0 / 3));
  EXPECT_NEAR(plastic.complementarity_residual, 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(plastic.implied_impulses[0], 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(plastic.implied_impulses[1], 1.0 / 3.0, 1e-12);
}

TEST(PostImpactCheck, RedundantNormalsUseNonNegativeImpulses) {
  // u3 = u1 + u2; Δp = 1·u1 + 0.1·u2. The minimum-norm least-squares λ is
  // (1,0.1,0) + t(−1,−1,1) at t = 1.1/3: (0.633, −0.267, 0.367), negative although (1, 0.1, 0) ≥ 0
  // reproduces Δp exactly.
  ImpactProblem::RowMajorMatrix normals(3, 3);
  normals << 1, 0, 0, 0, 1, 0, 1, 1, 0;
  const Eigen::Vector3d before(-1, -0.1, 0.5);
  Checked c{
      ImpactProblem(KineticMetric(Eigen::Matrix3d::Identity()), normals, before, 1.0), ImpactWorkspace{}, {}};
  c.resolution = resolve_impact(c.problem, ResolveOptions{}, c.workspace);
  const Eigen::Vector3d delta(1, 0.1, 0);
  const PostImpactCheck r = check_with(c, before + delta);
  EXPECT_FALSE(r.negative_impulses);
  EXPECT_LE(r.nonnegative_impulse_residual, 1e-12);
  EXPECT_LE(r.impulse_residual, 1e-12);
  ASSERT_EQ(r.implied_impulses.size(), 3u);
  Eigen::Vector3d reproduced = Eigen::Vector3d::Zero();
  for (int i = 0; i < 3; ++i) {
    EXPECT_GE(r.implied_impulses[static_cast<std::size_t>(i)], 0.0) << i;
    reproduced += r.implied_impulses[static_cast<std::size_t>(i)] * normals.row(i).transpose();
  }
  EXPECT_LE((reproduced - delta).norm(), 1e-12);
  // Pulling along u1 (Δp = −u1 = −u3 + u2): no λ ≥ 0 gives it; the minimum-norm λ is reported.
  const PostImpactCheck pull = check_with(c, before - Eigen::Vector3d(1, 0, 0));
  EXPECT_TRUE(pull.negative_impulses);
  EXPECT_GT(pull.nonnegative_impulse_residual, 0.5);
  EXPECT_LE(pull.impulse_residual, 1e-12);
  // min |λ| with λ1 + λ3 = −1, λ2 + λ3 = 0: λ = (−2/3, 1/3, −1/3).
  EXPECT_NEAR(pull.implied_impulses[0], -2.0 / 3.0, 1e-12);
  EXPECT_NEAR(pull.implied_impulses[1], 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(pull.implied_impulses[2], -1.0 / 3.0, 1e-12);
}

TEST(PostImpactCheck, AChangeOutsideTheNormalsIsNotCalledPulling) {
  // Cradle, Δp = [−2/3, 1/3, 4/3]: λ = (1, 1) ≥ 0 plus [1,1,1]/3 outside span{u_i}.
  Checked c = cradle();
  const PostImpactCheck r = check_with(c, Eigen::Vector3d(1.0 / 3, 1.0 / 3, 4.0 / 3));
  EXPECT_FALSE(r.negative_impulses);
  EXPECT_NEAR(r.impulse_residual, std::sqrt(1.0 / 3.0), 1e-12);
  EXPECT_NEAR(r.nonnegative_impulse_residual, std::sqrt(1.0 / 3.0), 1e-12);
  EXPECT_NEAR(r.implied_impulses[0], 1.0, 1e-12);
  EXPECT_NEAR(r.implied_impulses[1], 1.0, 1e-12);
}

}  // namespace
}  // namespace simpact
