// The plastic outcome, eq. (10)–(11) in Baraff–Mattikalli's unilateral form:
//   p_p = argmin ||p − p⁻||_g  s.t.  <p,u_i>_g ≥ 0,  i.e. the LCP c = c⁻ + Aλ ≥ 0, λ ≥ 0, λ·c = 0.
// Checked against closed forms (Newton's cradle), against a brute-force projection onto every
// face of the feasible cone, and with singular Gram matrices (dependent normals).
#include "simpact/core/plastic_impact.hpp"

#include <gtest/gtest.h>

#include <Eigen/SVD>
#include <cmath>
#include <limits>
#include <random>

#include "test_support.hpp"

namespace simpact {
namespace {

using testing::expect_input_error;
using testing::random_spd;
using testing::random_vector;

using RowMatrix = ImpactProblem::RowMajorMatrix;
constexpr double kPi = 3.141592653589793;

// Brute-force g-projection of p⁻ onto the cone {p : <p,u_i>_g ≥ 0}: the projection lies in the
// relative interior of some face, so it is the nearest feasible point among the projections of
// p⁻ onto {<p,u_i>_g = 0, i ∈ S} over every subset S of contacts. Independent of the library.
Eigen::VectorXd brute_force_projection(const Eigen::MatrixXd& m, const RowMatrix& normals,
                                       const Eigen::VectorXd& p) {
  const int k = static_cast<int>(normals.rows());
  const Eigen::LLT<Eigen::MatrixXd> llt(m);
  const Eigen::MatrixXd l = llt.matrixL();
  // Whitened coordinates: <a,b>_g = (L⁻¹a)·(L⁻¹b).
  const Eigen::VectorXd y0 = l.triangularView<Eigen::Lower>().solve(p);
  const Eigen::MatrixXd w = l.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd(normals.transpose()));
  double best = std::numeric_limits<double>::infinity();
  Eigen::VectorXd best_y = y0;
  for (int mask = 0; mask < (1 << k); ++mask) {
    Eigen::MatrixXd ws(w.rows(), 0);
    for (int i = 0; i < k; ++i)
      if (mask & (1 << i)) {
        ws.conservativeResize(Eigen::NoChange, ws.cols() + 1);
        ws.col(ws.cols() - 1) = w.col(i);
      }
    Eigen::VectorXd y = y0;
    if (ws.cols() > 0) {
      const Eigen::JacobiSVD<Eigen::MatrixXd> svd(ws, Eigen::ComputeThinU);
      const double smax = svd.singularValues()[0];
      for (int c = 0; c < svd.singularValues().size(); ++c)
        if (svd.singularValues()[c] > 1e-10 * smax) y -= svd.matrixU().col(c) * svd.matrixU().col(c).dot(y0);
    }
    bool feasible = true;
    for (int i = 0; i < k; ++i)
      if (w.col(i).dot(y) < -1e-11 * y0.norm() * w.col(i).norm()) feasible = false;
    const double dist = (y - y0).norm();
    if (feasible && dist < best) best = dist, best_y = y;
  }
  return l * best_y;
}

void expect_complementarity(const ImpactProblem& problem, const PlasticOutcome& out) {
  const double scale = problem.momentum_norm();
  EXPECT_TRUE(out.converged);
  EXPECT_LE(out.complementarity_residual, 1e-10);
  for (int i = 0; i < problem.contacts(); ++i) {
    EXPECT_GE(out.impulses[i], 0.0) << "λ_" << i;
    EXPECT_GE(out.rates[i], -1e-10 * scale * problem.normal_norms()[i]) << "c_" << i;
  }
  // Rates and energy are those of p_p = p⁻ + λᵀN, recomputed in the full space.
  const DofVector p = problem.momentum_from_impulses(out.impulses);
  EXPECT_NEAR(out.energy, 0.5 * problem.metric().squared_norm(p), 1e-12 * problem.energy_before());
}

// min |y + Bx|² over x ≥ 0 has the Gram form ½xᵀ(BᵀB)x + (Bᵀy)·x: the cases below are chosen
// through B so that BᵀB and Bᵀy are the matrices named in the comments.
TEST(NonnegativeLeastSquares, KnownSolutions) {
  // BᵀB = I, Bᵀy = [−1, 2]: x = [1, 0], rates c = Bᵀ(y + Bx) = [0, 2].
  DofByContact b = DofByContact::Identity(2, 2);
  DofVector y(2);
  y << -1.0, 2.0;
  NonnegativeLeastSquares s = solve_nonnegative_least_squares(b, y, 1e-14);
  EXPECT_TRUE(s.converged);
  EXPECT_NEAR(s.x[0], 1.0, 1e-15);
  EXPECT_EQ(s.x[1], 0.0);
  EXPECT_NEAR(s.c[1], 2.0, 1e-15);
  EXPECT_NEAR(s.y[0], 0.0, 1e-15);
  // B = I, y = [−1, −1]: both free, x = [1, 1], y + Bx = 0.
  y << -1.0, -1.0;
  s = solve_nonnegative_least_squares(b, y, 1e-14);
  EXPECT_NEAR(s.x[0], 1.0, 1e-15);
  EXPECT_NEAR(s.x[1], 1.0, 1e-15);
  EXPECT_LE(s.y.norm(), 1e-15);
  // Dependent columns B = [e, −e] (BᵀB = [[1,−1],[−1,1]]), y = −e: the minimum |y + (x0 − x1)e|
  // is 0 at x0 − x1 = 1; Lawson–Hanson frees only column 0 (column 1 has rate +1).
  b.resize(2, 2);
  b << 1.0, -1.0, 0.0, 0.0;
  y << -1.0, 0.0;
  s = solve_nonnegative_least_squares(b, y, 1e-14);
  EXPECT_TRUE(s.converged);
  EXPECT_NEAR(s.x[0], 1.0, 1e-14);
  EXPECT_NEAR(s.x[1], 0.0, 1e-14);
  EXPECT_LE(s.y.norm(), 1e-15);
  // Already feasible y: x = 0 immediately.
  b = DofByContact::Identity(3, 3);
  y = DofVector::Constant(3, 1.0);
  s = solve_nonnegative_least_squares(b, y, 1e-14);
  EXPECT_EQ(s.x, ContactVector::Zero(3));
  EXPECT_EQ(s.iterations, 0);
}

ImpactProblem cradle(const Eigen::Vector3d& p) {
  RowMatrix normals(2, 3);
  normals << -1, 1, 0, 0, -1, 1;
  return ImpactProblem(KineticMetric(Eigen::MatrixXd::Identity(3, 3)), normals, p, 0.0);
}

TEST(PlasticImpact, CradleClosedForms) {
  {  // p⁻ = [1,0,0]: every ball moves with the mean, p_p = [⅓,⅓,⅓], λ = [⅔, ⅓].
    const ImpactProblem problem = cradle(Eigen::Vector3d(1, 0, 0));
    const PlasticOutcome out = plastic_outcome(problem);
    expect_complementarity(problem, out);
    EXPECT_LE((problem.momentum_from_impulses(out.impulses) - Eigen::Vector3d::Constant(1.0 / 3.0)).norm(),
              1e-15);
    EXPECT_NEAR(out.impulses[0], 2.0 / 3.0, 1e-15);
    EXPECT_NEAR(out.impulses[1], 1.0 / 3.0, 1e-15);
    EXPECT_NEAR(out.energy, 1.0 / 6.0, 1e-15);
  }
  {  // p⁻ = [1,0,−1]: zero total momentum, p_p = 0, λ = [1, 1].
    const ImpactProblem problem = cradle(Eigen::Vector3d(1, 0, -1));
    const PlasticOutcome out = plastic_outcome(problem);
    expect_complementarity(problem, out);
    EXPECT_LE(problem.momentum_from_impulses(out.impulses).norm(), 1e-15);
    EXPECT_NEAR(out.impulses[0], 1.0, 1e-15);
    EXPECT_NEAR(out.impulses[1], 1.0, 1e-15);
    EXPECT_NEAR(out.energy, 0.0, 1e-15);
  }
}

TEST(PlasticImpact, SeparatingContactGetsNoAdhesiveImpulse) {
  // p⁻ = [1, 0, 5]: C runs away from B. Unilateral: A and B stick, [½, ½, 5], λ = [½, 0].
  // The paper's equality projection (eq. 11) would give [2, 2, 2], pulling C back (λ_v < 0).
  const ImpactProblem problem = cradle(Eigen::Vector3d(1, 0, 5));
  const PlasticOutcome out = plastic_outcome(problem);
  expect_complementarity(problem, out);
  EXPECT_LE((problem.momentum_from_impulses(out.impulses) - Eigen::Vector3d(0.5, 0.5, 5)).norm(), 1e-15);
  EXPECT_EQ(out.impulses[1], 0.0);
  EXPECT_NEAR(out.rates[1], 4.5, 1e-15);
}

TEST(PlasticImpact, FeasibleMomentumIsUnchanged) {
  const ImpactProblem problem = cradle(Eigen::Vector3d(0, 1, 2));
  const PlasticOutcome out = plastic_outcome(problem);
  EXPECT_EQ(out.impulses, ContactVector::Zero(2));
  EXPECT_NEAR(out.energy, problem.energy_before(), 1e-15);
  EXPECT_EQ(out.complementarity_residual, 0.0);
}

TEST(PlasticImpact, MatchesBruteForceProjection) {
  std::mt19937_64 gen(31);
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int d = 2 + trial % 7, k = 1 + trial % kMaxContacts;  // k > d: singular A
    const Eigen::MatrixXd m = random_spd(d, gen);
    RowMatrix normals(k, d);
    for (int i = 0; i < k; ++i) normals.row(i) = random_vector(d, gen).transpose();
    const Eigen::VectorXd p = random_vector(d, gen);
    const ImpactProblem problem(KineticMetric(m), normals, p, 0.0);
    const PlasticOutcome out = plastic_outcome(problem);
    expect_complementarity(problem, out);
    const Eigen::VectorXd expected = brute_force_projection(m, normals, p);
    const DofVector got = problem.momentum_from_impulses(out.impulses);
    const double scale = problem.momentum_norm();
    EXPECT_LE(std::sqrt(problem.metric().squared_norm(got - DofVector(expected))), 1e-9 * scale)
        << "trial " << trial << " d=" << d << " k=" << k;
    ++checked;
  }
  EXPECT_EQ(checked, 300);
}

// Dependent normals make A = N M⁻¹ Nᵀ singular: λ is not unique, p_p is.
TEST(PlasticImpact, DuplicateNormalsGiveTheSameMomentum) {
  std::mt19937_64 gen(32);
  for (int trial = 0; trial < 40; ++trial) {
    const int d = 3 + trial % 4;
    const Eigen::MatrixXd m = random_spd(d, gen);
    const Eigen::RowVectorXd u = random_vector(d, gen).transpose(), v = random_vector(d, gen).transpose();
    RowMatrix two(2, d), three(3, d), four(4, d);
    two << u, v;
    three << u, 2.0 * u, v;
    four << v, u, u, 0.5 * v;
    Eigen::VectorXd p = random_vector(d, gen);
    const KineticMetric metric(m);
    const double rate_u = metric.inner(DofVector(p), DofVector(u.transpose()));
    if (rate_u >= 0) p = -p;  // make sure contact u is violated
    const ImpactProblem reference(metric, two, p, 0.0);
    const DofVector expected = reference.momentum_from_impulses(plastic_outcome(reference).impulses);
    for (const RowMatrix* normals : {&three, &four}) {
      const ImpactProblem problem(metric, *normals, p, 0.0);
      const PlasticOutcome out = plastic_outcome(problem);
      expect_complementarity(problem, out);
      const DofVector got = problem.momentum_from_impulses(out.impulses);
      EXPECT_LE((got - expected).norm(), 1e-12 * p.norm()) << "trial " << trial;
    }
  }
}

TEST(PlasticImpact, CoplanarNormalsInThreeDimensions) {
  std::mt19937_64 gen(33);
  for (int trial = 0; trial < 40; ++trial) {
    const Eigen::MatrixXd m = random_spd(3, gen);
    const Eigen::RowVectorXd u1 = random_vector(3, gen).transpose(), u2 = random_vector(3, gen).transpose();
    RowMatrix two(2, 3), redundant(3, 3), coplanar(3, 3);
    two << u1, u2;
    redundant << u1, u2, u1 + u2;  // implied by the first two: dropping it changes nothing
    coplanar << u1, u2, u1 - 0.7 * u2;
    const Eigen::VectorXd p = random_vector(3, gen);
    const KineticMetric metric(m);
    const ImpactProblem reference(metric, two, p, 0.0);
    const DofVector expected = reference.momentum_from_impulses(plastic_outcome(reference).impulses);
    const ImpactProblem with_redundant(metric, redundant, p, 0.0);
    const PlasticOutcome out = plastic_outcome(with_redundant);
    expect_complementarity(with_redundant, out);
    EXPECT_LE((with_redundant.momentum_from_impulses(out.impulses) - expected).norm(), 1e-12 * p.norm());
    // Three coplanar normals: A has rank 2; compare with the face-by-face projection.
    const ImpactProblem with_coplanar(metric, coplanar, p, 0.0);
    const PlasticOutcome out3 = plastic_outcome(with_coplanar);
    expect_complementarity(with_coplanar, out3);
    EXPECT_LE((with_coplanar.momentum_from_impulses(out3.impulses) -
               DofVector(brute_force_projection(m, coplanar, p)))
                  .norm(),
              1e-10 * p.norm());
  }
}

TEST(PlasticImpact, PositivelySpanningNormalsStopEverything) {
  // d = 2, three normals at 120°: only p = 0 is feasible.
  RowMatrix tri(3, 2);
  for (int i = 0; i < 3; ++i) tri.row(i) << std::cos(2 * kPi * i / 3), std::sin(2 * kPi * i / 3);
  const ImpactProblem planar(KineticMetric(Eigen::MatrixXd::Identity(2, 2)), tri, Eigen::Vector2d(0.3, -1.0),
                             0.0);
  EXPECT_TRUE(normals_positively_span(planar));
  PlasticOutcome out = plastic_outcome(planar);
  expect_complementarity(planar, out);
  EXPECT_LE(out.energy, 1e-15);
  // The same normals in R^3 with a z-component: p_p keeps exactly the z-component.
  RowMatrix tri3 = RowMatrix::Zero(3, 3);
  tri3.leftCols(2) = tri;
  Eigen::MatrixXd m3 = Eigen::MatrixXd::Identity(3, 3);
  m3(2, 2) = 2.0;
  const ImpactProblem lifted(KineticMetric(m3), tri3, Eigen::Vector3d(0.3, -1.0, 0.7), 0.0);
  EXPECT_TRUE(normals_positively_span(lifted));
  out = plastic_outcome(lifted);
  expect_complementarity(lifted, out);
  EXPECT_LE((lifted.momentum_from_impulses(out.impulses) - Eigen::Vector3d(0, 0, 0.7)).norm(), 1e-14);
  // d = 3, tetrahedron directions.
  RowMatrix tet(4, 3);
  tet << 1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1;
  const ImpactProblem tetra(KineticMetric(Eigen::MatrixXd::Identity(3, 3)), tet, Eigen::Vector3d(1, 2, 3),
                            0.0);
  EXPECT_TRUE(normals_positively_span(tetra));
  out = plastic_outcome(tetra);
  expect_complementarity(tetra, out);
  EXPECT_LE(out.energy, 1e-14 * tetra.energy_before());
  // {u, −u} positively span their line.
  RowMatrix opposite(2, 2);
  opposite << 1, 2, -1, -2;
  EXPECT_TRUE(normals_positively_span(
      ImpactProblem(KineticMetric(Eigen::MatrixXd::Identity(2, 2)), opposite, Eigen::Vector2d(1, 0), 1.0)));
}

TEST(PlasticImpact, NonSpanningNormalsAreRecognized) {
  RowMatrix two(2, 2);
  two << 1, 0, std::cos(2 * kPi / 3), std::sin(2 * kPi / 3);  // 120° apart: a 60° feasible wedge
  EXPECT_FALSE(normals_positively_span(
      ImpactProblem(KineticMetric(Eigen::MatrixXd::Identity(2, 2)), two, Eigen::Vector2d(-1, 0), 1.0)));
  RowMatrix one(1, 2);
  one << 1, 0;
  EXPECT_FALSE(normals_positively_span(
      ImpactProblem(KineticMetric(Eigen::MatrixXd::Identity(2, 2)), one, Eigen::Vector2d(-1, 0), 1.0)));
  // Three normals in a half-plane (not spanning positively), one of them in the middle.
  RowMatrix fan(3, 2);
  fan << 1, 0, 0, 1, -1, 0.01;
  EXPECT_FALSE(normals_positively_span(
      ImpactProblem(KineticMetric(Eigen::MatrixXd::Identity(2, 2)), fan, Eigen::Vector2d(0, -1), 1.0)));
  // Tetrahedron minus one vertex: a pointed cone, not spanning.
  RowMatrix cone(3, 3);
  cone << 1, 1, 1, 1, -1, -1, -1, 1, -1;
  EXPECT_FALSE(normals_positively_span(
      ImpactProblem(KineticMetric(Eigen::MatrixXd::Identity(3, 3)), cone, Eigen::Vector3d(0, 0, -1), 1.0)));
}

}  // namespace
}  // namespace simpact
