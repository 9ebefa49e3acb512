// ImpactProblem: the precomputed contact coordinates (A = N M⁻¹ Nᵀ, c⁻ = N M⁻¹ p⁻ᵀ, tolerances),
// open contacts dropped by their gaps, and input validation naming the field.
#include "simpact/core/impact_problem.hpp"

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "simpact/core/input_error.hpp"
#include "test_support.hpp"

namespace simpact {
namespace {

using testing::expect_input_error;

using RowMatrix = ImpactProblem::RowMajorMatrix;

TEST(ImpactProblem, ContactCoordinatesMatchExplicitFormulas) {
  std::mt19937_64 gen(81);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 30; ++trial) {
    const int d = 2 + trial % 9, k = 1 + trial % kMaxContacts;
    const Eigen::MatrixXd m = testing::random_spd(d, gen);
    const RowMatrix normals = testing::random_normals(k, d, gen);
    const Eigen::VectorXd p = testing::random_vector(d, gen);
    const ImpactProblem problem(KineticMetric(m), normals, p, 0.7);
    const Eigen::MatrixXd m_inv = m.inverse();
    const Eigen::MatrixXd gram = normals * m_inv * normals.transpose();
    const Eigen::VectorXd rates = normals * m_inv * p;
    EXPECT_EQ(problem.dof(), d);
    EXPECT_EQ(problem.contacts(), k);
    EXPECT_EQ(problem.given_contacts(), k);
    EXPECT_EQ(problem.restitution(), 0.7);
    EXPECT_LE((problem.gram() - gram).cwiseAbs().maxCoeff(), 1e-12 * gram.cwiseAbs().maxCoeff());
    EXPECT_EQ(problem.gram(), problem.gram().transpose());  // exactly symmetric
    EXPECT_LE((problem.initial_rates() - rates).cwiseAbs().maxCoeff(),
              1e-12 * (1 + rates.cwiseAbs().maxCoeff()));
    const double norm = std::sqrt(p.dot(m_inv * p));
    EXPECT_NEAR(problem.momentum_norm(), norm, 1e-12 * norm);
    EXPECT_NEAR(problem.energy_before(), 0.5 * norm * norm, 1e-12 * norm * norm);
    for (int i = 0; i < k; ++i) {
      EXPECT_NEAR(problem.normal_norms()[i], std::sqrt(gram(i, i)), 1e-12 * std::sqrt(gram(i, i)));
      EXPECT_NEAR(problem.tolerances()[i], kFeasibilityTolerance * norm * std::sqrt(gram(i, i)),
                  1e-12 * norm * std::sqrt(gram(i, i)));
      EXPECT_EQ(problem.given_index(i), i);
    }
    // p = p⁻ + λᵀN and its rates, energy and distances in contact coordinates.
    ContactVector lambda(k), mu(k);
    for (int i = 0; i < k; ++i) lambda[i] = normal(gen), mu[i] = normal(gen);
    const Eigen::VectorXd pl = p + normals.transpose() * Eigen::VectorXd(lambda);
    const Eigen::VectorXd pm = p + normals.transpose() * Eigen::VectorXd(mu);
    const double scale = 1.0 + pl.norm();
    EXPECT_LE((problem.momentum_from_impulses(lambda) - pl).norm(), 1e-12 * scale);
    EXPECT_LE((problem.rates_from_impulses(lambda) - normals * m_inv * pl).norm(), 1e-11 * scale);
    EXPECT_NEAR(problem.energy_from_impulses(lambda), 0.5 * pl.dot(m_inv * pl), 1e-11 * scale * scale);
    EXPECT_NEAR(problem.distance_between(lambda, mu), std::sqrt((pl - pm).dot(m_inv * (pl - pm))),
                1e-10 * scale);
  }
}

TEST(ImpactProblem, OpenContactsAreDropped) {
  // Three given normals, the middle one open (gap 0.1 > kGapTolerance).
  RowMatrix normals(3, 2);
  normals << 1, 0, 0, 1, -1, 1;
  Eigen::Vector3d gaps(0.0, 0.1, -5e-10);  // within the gap tolerance counts as closed
  const ImpactProblem problem(KineticMetric(Eigen::MatrixXd::Identity(2, 2)), normals,
                              Eigen::Vector2d(-1, -1), 1.0, gaps);
  EXPECT_EQ(problem.given_contacts(), 3);
  ASSERT_EQ(problem.contacts(), 2);
  EXPECT_EQ(problem.given_index(0), 0);
  EXPECT_EQ(problem.given_index(1), 2);
  EXPECT_EQ(problem.normals().row(1), normals.row(2));
  EXPECT_NEAR(problem.initial_rates()[1], 0.0, 1e-15);  // <[−1,−1], [−1,1]> = 0
  // p⁻ violates the open contact [0, 1] too, but only closed contacts constrain it.
  EXPECT_NEAR(problem.initial_rates()[0], -1.0, 1e-15);
  EXPECT_FALSE(problem.feasible(problem.initial_rates()));
}

TEST(ImpactProblem, RejectsBadInputNamingTheField) {
  const KineticMetric metric(Eigen::MatrixXd::Identity(3, 3));
  RowMatrix normals(2, 3);
  normals << -1, 1, 0, 0, -1, 1;
  const Eigen::Vector3d p(1, 0, 0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_input_error([&] { ImpactProblem(metric, normals, Eigen::Vector2d(1, 0), 1.0); }, "momentum");
  expect_input_error([&] { ImpactProblem(metric, normals, Eigen::Vector3d(1, nan, 0), 1.0); }, "momentum");
  expect_input_error([&] { ImpactProblem(metric, RowMatrix(0, 3), p, 1.0); }, "normals");
  expect_input_error([&] { ImpactProblem(metric, RowMatrix::Ones(2, 4), p, 1.0); }, "normals");
  for (const double r : {-0.1, 1.1, nan})
    expect_input_error([&] { ImpactProblem(metric, normals, p, r); }, "restitution");
  RowMatrix bad = normals;
  bad(1, 2) = std::numeric_limits<double>::infinity();
  expect_input_error([&] { ImpactProblem(metric, bad, p, 1.0); }, "normals[1]");
  RowMatrix zero = RowMatrix::Zero(3, 3);
  zero.topRows(2) = normals;
  expect_input_error([&] { ImpactProblem(metric, zero, p, 1.0); }, "normals[2]");
  expect_input_error([&] { ImpactProblem(metric, normals, p, 1.0, Eigen::Vector3d(0, 0, 0)); }, "gaps");
  expect_input_error([&] { ImpactProblem(metric, normals, p, 1.0, Eigen::Vector2d(0, nan)); }, "gaps[1]");
  // More than kMaxContacts closed contacts; the same number with some open is fine.
  RowMatrix many(kMaxContacts + 1, 3);
  for (int i = 0; i <= kMaxContacts; ++i) many.row(i) << 1, 0.1 * i, 0;
  expect_input_error([&] { ImpactProblem(metric, many, p, 1.0); }, "normals");
  Eigen::VectorXd gaps = Eigen::VectorXd::Zero(kMaxContacts + 1);
  gaps[3] = 1.0;
  EXPECT_EQ(ImpactProblem(metric, many, p, 1.0, gaps).contacts(), kMaxContacts);
}

}  // namespace
}  // namespace simpact
