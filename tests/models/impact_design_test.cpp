// The design solver on a problem with a closed-form orthogonality locus: three discs, c fixed at
// the origin, a and b free in the plane, each touching c (|a| = |b| = 2r). The normals are
// Dφ_a = [n_a, 0, −n_a], Dφ_b = [0, n_b, −n_b], so <u,v>_g = n_a·n_b / m_c (eq. 31) for any
// masses: orthogonal exactly when a ⊥ b. The minimum-norm iteration is equivariant under the
// reflection that swaps a and b, so from a symmetric start it ends on the symmetric solution.
#include "simpact/models/impact_design.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace simpact {
namespace {

constexpr double kPi = 3.141592653589793;
constexpr double kContact = 1.0;  // 2r

// w = [x_a, y_a, x_b, y_b]; q = [x_a, y_a, x_b, y_b, x_c, y_c] with c at the origin.
DesignEvaluator three_discs(double m_a, double m_b, double m_c) {
  return [=](const Eigen::VectorXd& w, DesignPoint& out) {
    const Eigen::Vector2d a = w.segment<2>(0), b = w.segment<2>(2);
    out.mass = Eigen::VectorXd((Eigen::VectorXd(6) << m_a, m_a, m_b, m_b, m_c, m_c).finished()).asDiagonal();
    const Eigen::Vector2d na = a.normalized(), nb = b.normalized();
    out.normal_a = Eigen::RowVectorXd::Zero(6);
    out.normal_b = Eigen::RowVectorXd::Zero(6);
    out.normal_a << na.x(), na.y(), 0, 0, -na.x(), -na.y();
    out.normal_b << 0, 0, nb.x(), nb.y(), -nb.x(), -nb.y();
    out.gap_a = a.norm() - kContact;
    out.gap_b = b.norm() - kContact;
  };
}

Eigen::VectorXd at_angles(double alpha_a, double alpha_b, double radius_a = 1.0, double radius_b = 1.0) {
  Eigen::VectorXd w(4);
  w << radius_a * std::cos(alpha_a), radius_a * std::sin(alpha_a), radius_b * std::cos(alpha_b),
      radius_b * std::sin(alpha_b);
  return w;
}

std::vector<FreeVariable> all_free() {
  return {{0}, {1}, {2}, {3}};
}

TEST(ImpactDesign, NormalizedCosineMatchesEquation31) {
  const double m_a = 1.0, m_b = 3.0, m_c = 2.0, theta = 2.0;
  DesignPoint p;
  three_discs(m_a, m_b, m_c)(at_angles(0.0, theta), p);
  const double expected = std::cos(theta) / (m_c * std::sqrt((1 / m_a + 1 / m_c) * (1 / m_b + 1 / m_c)));
  EXPECT_NEAR(normalized_metric_cosine(p), expected, 1e-15);
}

TEST(ImpactDesign, SymmetricStartEndsOnTheSymmetricOrthogonalPair) {
  // θ = 2 rad about the bisector at 1 rad: the solution is θ = π/2 about the same bisector.
  const DesignResult r =
      solve_impact_design(three_discs(1.0, 1.0, 1.0), at_angles(0.0, 2.0), all_free(), DesignSolverOptions{});
  ASSERT_EQ(r.status, DesignStatus::kConverged) << to_string(r.status);
  EXPECT_LE(std::abs(r.cosine), 1e-12);
  EXPECT_LE(std::abs(r.gap_a), 1e-13);
  EXPECT_LE(std::abs(r.gap_b), 1e-13);
  EXPECT_NEAR(std::atan2(r.w[1], r.w[0]), 1.0 - kPi / 4, 1e-9);
  EXPECT_NEAR(std::atan2(r.w[3], r.w[2]), 1.0 + kPi / 4, 1e-9);
  EXPECT_GT(r.iterations, 1);
  EXPECT_LT(r.iterations, 15);
}

TEST(ImpactDesign, StartWithOpenGapsClosesThemToo) {
  // Neither disc touches at the start (radii 1.3 and 0.8); masses differ (the locus does not).
  const DesignResult r = solve_impact_design(three_discs(1.0, 4.0, 0.5), at_angles(0.3, 2.6, 1.3, 0.8),
                                             all_free(), DesignSolverOptions{});
  ASSERT_EQ(r.status, DesignStatus::kConverged);
  const Eigen::Vector2d a = r.w.segment<2>(0), b = r.w.segment<2>(2);
  EXPECT_NEAR(a.norm(), 1.0, 1e-13);
  EXPECT_NEAR(b.norm(), 1.0, 1e-13);
  EXPECT_NEAR(a.dot(b), 0.0, 1e-12);
}

TEST(ImpactDesign, BoundCutsOffTheNearestSolution) {
  // The locus is a = (cos ρ, sin ρ), b = (−sin ρ, cos ρ): y_b = cos ρ. The bound y_b ≤ 0.95 cuts
  // off the symmetric solution (ρ = 1 − π/4, y_b = 0.977); the iterate must end on the locus with
  // y_b ≤ 0.95, i.e. |ρ| ≥ acos 0.95.
  std::vector<FreeVariable> free = all_free();
  free[3].upper = 0.95;
  const DesignResult r =
      solve_impact_design(three_discs(1.0, 1.0, 1.0), at_angles(0.0, 2.0), free, DesignSolverOptions{});
  ASSERT_EQ(r.status, DesignStatus::kConverged);
  const Eigen::Vector2d a = r.w.segment<2>(0), b = r.w.segment<2>(2);
  EXPECT_LE(b.y(), 0.95);
  EXPECT_NEAR(a.norm(), 1.0, 1e-13);
  EXPECT_NEAR(b.norm(), 1.0, 1e-13);
  EXPECT_NEAR(a.dot(b), 0.0, 1e-12);
  EXPECT_NEAR(b.x(), -a.y(), 1e-12);  // the orientation nearest the start
  EXPECT_GE(std::abs(std::atan2(a.y(), a.x())), std::acos(0.95) - 1e-12);
}

TEST(ImpactDesign, FixedVariablesStayAndPlacementOnlyClosesGaps) {
  // Only b's coordinates free and orthogonality off: b moves radially onto |b| = 1, a untouched.
  DesignSolverOptions options;
  options.orthogonality = false;
  const Eigen::VectorXd w0 = at_angles(0.0, 2.0, 1.0, 1.5);
  const DesignResult r = solve_impact_design(three_discs(1.0, 1.0, 1.0), w0, {{2}, {3}}, options);
  ASSERT_EQ(r.status, DesignStatus::kConverged);
  EXPECT_EQ(r.w[0], w0[0]);
  EXPECT_EQ(r.w[1], w0[1]);
  EXPECT_NEAR(std::atan2(r.w[3], r.w[2]), 2.0, 1e-9);  // the minimum-norm move is radial
  EXPECT_NEAR(r.w.segment<2>(2).norm(), 1.0, 1e-13);
  EXPECT_NEAR(r.cosine, 0.5 * std::cos(2.0), 1e-12);  // untouched by the placement
}

TEST(ImpactDesign, UnreachableTargetStopsWithoutConverging) {
  // With a pinned on the x axis and b's angle limited to [1.7, 2.5], a ⊥ b is impossible.
  const Eigen::VectorXd w0 = at_angles(0.0, 2.0);
  std::vector<FreeVariable> free = {{2, -1.0, std::cos(1.7)}, {3, std::sin(2.5), 1.0}};
  const DesignResult r = solve_impact_design(three_discs(1.0, 1.0, 1.0), w0, free, DesignSolverOptions{});
  EXPECT_NE(r.status, DesignStatus::kConverged);
  EXPECT_GT(std::abs(r.cosine), 1e-3);
}

TEST(ImpactDesign, AStallAgainstABoundListsThatBound) {
  // a's x fixed at cos 0.3: |a| = 1 needs y_a = sin 0.3 = 0.296, beyond its bound 0.2. Every
  // step pushes y_a against that bound and fails to close the gap: the solve stalls inside the
  // bound, and at_bound must name the bound that stopped it (it listed only variables ending
  // exactly on a bound, so a stall against one read as at_bound: []).
  Eigen::VectorXd w0 = at_angles(0.0, 2.0);
  w0[0] = std::cos(0.3);
  w0[1] = 0.1;
  const std::vector<FreeVariable> free = {{1, -1.0, 0.2}, {2}, {3}};
  const DesignResult r = solve_impact_design(three_discs(1.0, 1.0, 1.0), w0, free, DesignSolverOptions{});
  ASSERT_NE(r.status, DesignStatus::kConverged);
  EXPECT_LT(r.w[1], 0.2);
  ASSERT_EQ(r.at_bound.size(), 1u);
  EXPECT_EQ(r.at_bound[0], 1);
  // Far from every bound: nothing listed.
  const DesignResult free_run =
      solve_impact_design(three_discs(1.0, 1.0, 1.0), at_angles(0.0, 2.0), all_free(), DesignSolverOptions{});
  ASSERT_EQ(free_run.status, DesignStatus::kConverged);
  EXPECT_TRUE(free_run.at_bound.empty());
}

TEST(ImpactDesign, RepeatedRunsAreIdentical) {
  const DesignEvaluator e = three_discs(1.0, 2.0, 3.0);
  const DesignResult a = solve_impact_design(e, at_angles(0.2, 2.4), all_free(), DesignSolverOptions{});
  const DesignResult b = solve_impact_design(e, at_angles(0.2, 2.4), all_free(), DesignSolverOptions{});
  EXPECT_EQ(a.iterations, b.iterations);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(a.w[i], b.w[i]);
}

TEST(ImpactDesign, BadFreeListIsRefused) {
  const DesignEvaluator e = three_discs(1.0, 1.0, 1.0);
  EXPECT_THROW(solve_impact_design(e, at_angles(0, 2), {{7}}, {}), std::invalid_argument);
  EXPECT_THROW(solve_impact_design(e, at_angles(0, 2), {{0, 2.0, 3.0}}, {}), std::invalid_argument);
  EXPECT_THROW(solve_impact_design(e, at_angles(0, 2), {{0, -1, 1, 0.0}}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace simpact
