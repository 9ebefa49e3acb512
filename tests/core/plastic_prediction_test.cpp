// The predicted free set of the two-contact plastic solve (plastic_impact.cpp, nnls_predicted):
// where Lawson–Hanson's path certainly ends with both contacts free, plastic_outcome runs only
// its final least-squares solve. The result must be Lawson–Hanson's bit for bit — compared here
// with solve_nonnegative_least_squares (always the full iteration) on the same B, y⁻, tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "simpact/core/impact_problem.hpp"
#include "simpact/core/plastic_impact.hpp"
#include "test_support.hpp"

namespace simpact {
namespace {

using RowMatrix = ImpactProblem::RowMajorMatrix;

// The full solve with plastic_outcome's tolerance (1e-13 ||p⁻||_g max_i ||u_i||_g).
NonnegativeLeastSquares full_solve(const ImpactProblem& problem) {
  const double tol = 1e-13 * problem.momentum_norm() * problem.normal_norms().maxCoeff();
  return solve_nonnegative_least_squares(problem.whitened_normals(), problem.whitened_momentum(), tol);
}

// Every number the outcome takes from the solve, compared exactly (EXPECT_EQ, not NEAR).
void expect_bit_identical(const PlasticOutcome& outcome, const NonnegativeLeastSquares& full,
                          const ImpactProblem& problem) {
  ASSERT_TRUE(full.converged);
  ASSERT_EQ(outcome.impulses.size(), full.x.size());
  for (Eigen::Index i = 0; i < full.x.size(); ++i) {
    EXPECT_EQ(outcome.impulses[i], full.x[i]) << "impulse " << i;
    EXPECT_EQ(outcome.rates[i], full.c[i]) << "rate " << i;
  }
  for (Eigen::Index i = 0; i < full.y.size(); ++i) EXPECT_EQ(outcome.whitened[i], full.y[i]) << "y " << i;
  const DofVector momentum = problem.metric().unwhiten(full.y);
  for (Eigen::Index i = 0; i < momentum.size(); ++i) EXPECT_EQ(outcome.momentum[i], momentum[i]);
}

// Billiards-like: the cue ball (unit mass, last two coordinates) touching two unit balls at ±θ/2.
ImpactProblem cue(double theta, double psi) {
  RowMatrix normals = RowMatrix::Zero(2, 6);
  const double c = std::cos(theta / 2), s = std::sin(theta / 2);
  normals.row(0) << c, s, 0, 0, -c, -s;
  normals.row(1) << 0, 0, c, -s, -c, s;
  Eigen::VectorXd p = Eigen::VectorXd::Zero(6);
  p[4] = std::cos(psi);
  p[5] = std::sin(psi);
  return ImpactProblem(KineticMetric(Eigen::MatrixXd::Identity(6, 6)), normals, p, 0.0);
}

TEST(PlasticPrediction, BothContactsActiveIsPredictedAndBitIdentical) {
  // Along the bisector at θ = 2π/3 both targets are pushed: λ_a = λ_b > 0.
  const ImpactProblem problem = cue(2.0 * 3.141592653589793 / 3.0, 0.0);
  const PlasticOutcome outcome = plastic_outcome(problem);
  EXPECT_TRUE(outcome.free_set_predicted);
  EXPECT_TRUE(outcome.converged);
  EXPECT_GT(outcome.impulses[0], 0.0);
  EXPECT_NEAR(outcome.impulses[0], outcome.impulses[1], 1e-15);
  expect_bit_identical(outcome, full_solve(problem), problem);
}

TEST(PlasticPrediction, OneContactActiveFallsBackToTheFullSolve) {
  // The cue aimed well off the bisector, towards a: after solving on a alone, b's rate is
  // positive, so Lawson–Hanson stops with one free column — no prediction, the same result.
  const ImpactProblem problem = cue(2.0 * 3.141592653589793 / 3.0, 1.2);
  const PlasticOutcome outcome = plastic_outcome(problem);
  EXPECT_FALSE(outcome.free_set_predicted);
  EXPECT_TRUE(outcome.converged);
  EXPECT_EQ(outcome.impulses[1], 0.0);
  EXPECT_GT(outcome.impulses[0], 0.0);
  expect_bit_identical(outcome, full_solve(problem), problem);
}

TEST(PlasticPrediction, NoImpactAndOtherContactCountsAreNotPredicted) {
  // Moving away from both targets: nothing enters.
  const ImpactProblem away = cue(2.0 * 3.141592653589793 / 3.0, 3.141592653589793);
  const PlasticOutcome still = plastic_outcome(away);
  EXPECT_FALSE(still.free_set_predicted);
  EXPECT_EQ(still.impulses.cwiseAbs().maxCoeff(), 0.0);
  expect_bit_identical(still, full_solve(away), away);
  // One contact (two balls on a line, approaching), and three contacts, are never predicted.
  RowMatrix one(1, 2);
  one << 1, -1;
  const ImpactProblem single(KineticMetric(Eigen::MatrixXd::Identity(2, 2)), one, Eigen::Vector2d(-1, 1),
                             0.0);
  EXPECT_FALSE(plastic_outcome(single).free_set_predicted);
  std::mt19937_64 gen(7);
  const ImpactProblem three(KineticMetric(testing::random_spd(5, gen)), testing::random_normals(3, 5, gen),
                            testing::random_vector(5, gen), 0.0);
  const PlasticOutcome outcome = plastic_outcome(three);
  EXPECT_FALSE(outcome.free_set_predicted);
  expect_bit_identical(outcome, full_solve(three), three);
}

TEST(PlasticPrediction, RandomTwoContactSystemsMatchTheFullSolveBitForBit) {
  // Random SPD or diagonal M, random normals and p⁻ in d = 2…8: every outcome, predicted or not,
  // equals the full solve exactly; both kinds occur, and a predicted one always has both
  // contacts active in the full solve.
  std::mt19937_64 gen(20261125);
  std::uniform_int_distribution<int> dof(2, 8);
  std::uniform_real_distribution<double> mass(0.2, 5.0);
  int predicted = 0, fallback = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int d = dof(gen);
    Eigen::MatrixXd m = testing::random_spd(d, gen);
    if (trial % 2 == 0) {
      m.setZero();
      for (int i = 0; i < d; ++i) m(i, i) = mass(gen);
    }
    const ImpactProblem problem(KineticMetric(m), testing::random_normals(2, d, gen),
                                testing::random_vector(d, gen), 0.0);
    const PlasticOutcome outcome = plastic_outcome(problem);
    const NonnegativeLeastSquares full = full_solve(problem);
    SCOPED_TRACE(trial);
    expect_bit_identical(outcome, full, problem);
    if (outcome.free_set_predicted) {
      ++predicted;
      EXPECT_GT(full.x[0], 0.0);
      EXPECT_GT(full.x[1], 0.0);
    } else {
      ++fallback;
    }
  }
  EXPECT_GT(predicted, 500);
  EXPECT_GT(fallback, 500);
}

}  // namespace
}  // namespace simpact
