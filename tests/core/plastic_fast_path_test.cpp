// The guarded fast paths of the plastic solve (src/core/plastic_gram.hpp): well-conditioned
// problems take the Gram form (two contacts: its closed form), nearly degenerate ones — normals
// near antiparallel or dependent, a contact on the edge of the active set — the exact QR path.
// Either way the answer equals the exact path's (solve_nonnegative_least_squares, always the full
// Lawson–Hanson with QR) to rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "simpact/core/impact_problem.hpp"
#include "simpact/core/plastic_impact.hpp"
#include "test_support.hpp"

namespace simpact {
namespace {

using RowMatrix = ImpactProblem::RowMajorMatrix;
constexpr double kPi = 3.141592653589793;

// The exact path with plastic_outcome's tolerance (1e-13 ||p⁻||_g max_i ||u_i||_g).
NonnegativeLeastSquares exact_solve(const ImpactProblem& problem) {
  const double tol = 1e-13 * problem.momentum_norm() * problem.normal_norms().maxCoeff();
  return solve_nonnegative_least_squares(problem.whitened_normals(), problem.whitened_momentum(), tol);
}

// p_p (whitened) within 1e-12 ||p⁻||_g of the exact path's, and the same active set where unique.
void expect_equal_to_exact(const PlasticOutcome& outcome, const ImpactProblem& problem) {
  const NonnegativeLeastSquares exact = exact_solve(problem);
  ASSERT_TRUE(exact.converged);
  EXPECT_TRUE(outcome.converged);
  const double p0 = problem.momentum_norm();
  EXPECT_LE((outcome.whitened - exact.y).norm(), 1e-12 * p0);
  // λ, and with it the active set, is unique only for independent normals.
  if (problem.contacts() <= problem.dof() && outcome.path != PlasticPath::kExact) {
    for (Eigen::Index i = 0; i < exact.x.size(); ++i)
      EXPECT_EQ(outcome.impulses[i] > 0.0, exact.x[i] > 0.0) << i;
  }
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

TEST(PlasticFastPath, BilliardsBreakTakesTheClosedForm) {
  // Along the bisector at θ = 2π/3 both targets are pushed: λ_a = λ_b > 0.
  const ImpactProblem both = cue(2.0 * kPi / 3.0, 0.0);
  const PlasticOutcome outcome = plastic_outcome(both);
  EXPECT_EQ(outcome.path, PlasticPath::kTwoContactClosedForm);
  EXPECT_GT(outcome.impulses[0], 0.0);
  EXPECT_NEAR(outcome.impulses[0], outcome.impulses[1], 1e-15);
  expect_equal_to_exact(outcome, both);
  // Aimed towards a: only a is pushed.
  const ImpactProblem one = cue(2.0 * kPi / 3.0, 1.2);
  const PlasticOutcome single = plastic_outcome(one);
  EXPECT_EQ(single.path, PlasticPath::kTwoContactClosedForm);
  EXPECT_EQ(single.impulses[1], 0.0);
  expect_equal_to_exact(single, one);
}

// Two unit balls on a line between walls, seen as d = 2 with normals δ from antiparallel.
ImpactProblem nearly_antiparallel(double delta) {
  RowMatrix normals(2, 2);
  normals.row(0) << 1.0, 0.0;
  normals.row(1) << -std::cos(delta), std::sin(delta);
  return ImpactProblem(KineticMetric(Eigen::MatrixXd::Identity(2, 2)), normals, Eigen::Vector2d(-1.0, -0.3),
                       0.0);
}

TEST(PlasticFastPath, NearlyDegenerateProblemsTakeTheExactPath) {
  // Antiparallel to 1e-3 … 1e-10 rad: ||G_FF⁻¹|| = 1/(1 − |g|) ~ 2/δ² is over the bound.
  for (const double delta : {1e-3, 1e-6, 1e-10}) {
    const ImpactProblem problem = nearly_antiparallel(delta);
    const PlasticOutcome outcome = plastic_outcome(problem);
    EXPECT_EQ(outcome.path, PlasticPath::kExact) << delta;
    EXPECT_TRUE(outcome.converged) << delta;
  }
  // Well away from antiparallel (0.5 rad) the same geometry is fast.
  EXPECT_NE(plastic_outcome(nearly_antiparallel(0.5)).path, PlasticPath::kExact);
  // Nearly parallel normals (1e-5 rad apart), both pushed: the active block is nearly singular.
  RowMatrix parallel(2, 3);
  parallel.row(0) << 1.0, 0.0, 0.0;
  parallel.row(1) << std::cos(1e-5), std::sin(1e-5), 0.0;
  const Eigen::Vector3d into_both = -(parallel.row(0) + parallel.row(1)).transpose();
  const ImpactProblem both(KineticMetric(Eigen::MatrixXd::Identity(3, 3)), parallel, into_both, 0.0);
  const PlasticOutcome out = plastic_outcome(both);
  EXPECT_EQ(out.path, PlasticPath::kExact);
  EXPECT_TRUE(out.converged);
  expect_equal_to_exact(out, both);
  // A contact on the edge of the active set: after contact 0's impulse contact 1 is violated by
  // 2e-13 only, so its impulse (~1e-11) is inside the Gram form's rounding bound at G₁₂ = 0.99.
  const double g = 0.99, h = std::sqrt(1.0 - g * g);
  RowMatrix edge(2, 3);
  edge.row(0) << 1.0, 0.0, 0.0;
  edge.row(1) << g, h, 0.0;
  const ImpactProblem barely(KineticMetric(Eigen::MatrixXd::Identity(3, 3)), edge,
                             Eigen::Vector3d(-1.0, -2e-13 / h, 0.3), 0.0);
  const PlasticOutcome edge_outcome = plastic_outcome(barely);
  EXPECT_EQ(edge_outcome.path, PlasticPath::kExact);
  EXPECT_TRUE(edge_outcome.converged);
  // The same geometry clearly inside the active set is fast.
  const ImpactProblem clearly(KineticMetric(Eigen::MatrixXd::Identity(3, 3)), edge,
                              Eigen::Vector3d(-1.0, -0.5, 0.3), 0.0);
  EXPECT_EQ(plastic_outcome(clearly).path, PlasticPath::kTwoContactClosedForm);
  expect_equal_to_exact(plastic_outcome(clearly), clearly);
}

TEST(PlasticFastPath, RandomSystemsAgreeWithTheExactPath) {
  // Random SPD or diagonal M, 1…6 random normals, d = 2…8: every outcome equals the exact path's
  // to 1e-12 ||p⁻||_g; well-conditioned ones (most) are fast, and both fast paths occur.
  std::mt19937_64 gen(20261125);
  std::uniform_int_distribution<int> dof(2, 8), contacts(1, 6);
  std::uniform_real_distribution<double> mass(0.2, 5.0);
  int closed_form = 0, gram = 0, exact = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int d = dof(gen), k = std::min(contacts(gen), d + 2);
    Eigen::MatrixXd m = testing::random_spd(d, gen);
    if (trial % 2 == 0) {
      m.setZero();
      for (int i = 0; i < d; ++i) m(i, i) = mass(gen);
    }
    const ImpactProblem problem(KineticMetric(m), testing::random_normals(k, d, gen),
                                testing::random_vector(d, gen), 0.0);
    const PlasticOutcome outcome = plastic_outcome(problem);
    SCOPED_TRACE(trial);
    expect_equal_to_exact(outcome, problem);
    (outcome.path == PlasticPath::kTwoContactClosedForm ? closed_form
     : outcome.path == PlasticPath::kGram               ? gram
                                                        : exact) += 1;
  }
  std::printf("[ info ] plastic paths: closed form %d, Gram %d, exact %d of 4000\n", closed_form, gram,
              exact);
  EXPECT_GT(closed_form, 500);
  EXPECT_GT(gram, 1500);
  EXPECT_GT(exact, 0);  // k > d gives dependent normals
}

}  // namespace
}  // namespace simpact
