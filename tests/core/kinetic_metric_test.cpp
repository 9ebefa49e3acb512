// The kinetic metric <a,b>_g = a M⁻¹ bᵀ (eq. 5): checked against an explicitly inverted M
// (acceptable in a test, never in the library) and against input validation.
#include "simpact/core/kinetic_metric.hpp"

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>
#include <limits>
#include <random>

#include "simpact/core/input_error.hpp"
#include "test_support.hpp"

namespace simpact {
namespace {

using testing::expect_input_error;
using testing::random_spd;
using testing::random_vector;

TEST(KineticMetric, InnerProductMatchesExplicitInverse) {
  std::mt19937_64 gen(11);
  for (int d = 1; d <= kMaxDof; ++d) {
    const Eigen::MatrixXd m = random_spd(d, gen);
    const Eigen::MatrixXd m_inv = m.inverse();
    const KineticMetric metric(m);
    EXPECT_EQ(metric.dof(), d);
    EXPECT_FALSE(d > 1 && metric.diagonal());
    const DofVector a = random_vector(d, gen), b = random_vector(d, gen);
    const double expected = a.transpose() * m_inv * b;
    const double scale = a.norm() * b.norm() * m_inv.norm();
    EXPECT_NEAR(metric.inner(a, b), expected, 1e-12 * scale) << "d = " << d;
    EXPECT_NEAR(metric.inner(a, b), metric.inner(b, a), 1e-12 * scale);  // symmetric
    EXPECT_GT(metric.squared_norm(a), 0.0);                              // positive definite
  }
}

TEST(KineticMetric, VelocityInvertsTheMassMatrix) {
  std::mt19937_64 gen(12);
  const int d = 7;
  const Eigen::MatrixXd m = random_spd(d, gen);
  const KineticMetric metric(m);
  const DofVector qdot = random_vector(d, gen);
  const DofVector p = m * qdot;  // p = M q̇
  EXPECT_LE((metric.velocity(p) - qdot).norm(), 1e-12 * qdot.norm());
  // Twice the kinetic energy: <p,p>_g = q̇ᵀ M q̇.
  EXPECT_NEAR(metric.squared_norm(p), qdot.dot(m * qdot), 1e-12 * qdot.dot(m * qdot));
  // solve_in_place works column by column on a block of momenta.
  DofMatrix block(d, 3);
  for (int c = 0; c < 3; ++c) block.col(c) = m * random_vector(d, gen);
  DofMatrix solved = block;
  metric.solve_in_place(solved);
  EXPECT_LE((m * solved - block).norm(), 1e-12 * block.norm());
}

TEST(KineticMetric, DiagonalMassIsInvertedEntrywise) {
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(4, 4);
  m.diagonal() << 1.0, 3.0, 0.5, 7.0;
  const KineticMetric metric(m);
  EXPECT_TRUE(metric.diagonal());
  DofVector a(4), b(4);
  a << 1.0, -2.0, 3.0, 0.5;
  b << 2.0, 1.0, -1.0, 4.0;
  const double expected = 1.0 * 2.0 / 1.0 + -2.0 * 1.0 / 3.0 + 3.0 * -1.0 / 0.5 + 0.5 * 4.0 / 7.0;
  EXPECT_NEAR(metric.inner(a, b), expected, 1e-15);
  // The same M with a zero off-diagonal perturbation made non-zero goes through Cholesky and
  // gives the same answer in the limit.
  Eigen::MatrixXd m2 = m;
  m2(0, 1) = m2(1, 0) = 1e-14;
  const KineticMetric dense(m2);
  EXPECT_FALSE(dense.diagonal());
  EXPECT_NEAR(dense.inner(a, b), expected, 1e-12);
  EXPECT_EQ(metric.mass_matrix(), DofMatrix(m));
}

TEST(KineticMetric, RejectsBadMassMatrices) {
  const std::string field = "mass_matrix";
  expect_input_error([] { KineticMetric{Eigen::MatrixXd(0, 0)}; }, field);
  expect_input_error([] { KineticMetric{Eigen::MatrixXd::Identity(2, 3)}; }, field);
  expect_input_error([] { KineticMetric{Eigen::MatrixXd::Identity(kMaxDof + 1, kMaxDof + 1)}; }, field);
  Eigen::MatrixXd nan = Eigen::MatrixXd::Identity(3, 3);
  nan(1, 1) = std::numeric_limits<double>::quiet_NaN();
  expect_input_error([&] { KineticMetric{nan}; }, field);
  Eigen::MatrixXd asym = Eigen::MatrixXd::Identity(3, 3);
  asym(0, 1) = 0.5;
  expect_input_error([&] { KineticMetric{asym}; }, field);
  Eigen::MatrixXd negative_diag = Eigen::MatrixXd::Identity(3, 3);
  negative_diag(2, 2) = -1.0;
  expect_input_error([&] { KineticMetric{negative_diag}; }, field);
  Eigen::MatrixXd zero_diag = Eigen::MatrixXd::Identity(3, 3);
  zero_diag(2, 2) = 0.0;
  expect_input_error([&] { KineticMetric{zero_diag}; }, field);
  Eigen::Matrix2d indefinite;
  indefinite << 1.0, 2.0, 2.0, 1.0;  // eigenvalues 3 and −1
  expect_input_error([&] { KineticMetric{Eigen::MatrixXd(indefinite)}; }, field);
  Eigen::Matrix2d singular;
  singular << 1.0, 1.0, 1.0, 1.0;
  expect_input_error([&] { KineticMetric{Eigen::MatrixXd(singular)}; }, field);
}

TEST(KineticMetric, AcceptsTheLargestSize) {
  std::mt19937_64 gen(13);
  EXPECT_NO_THROW(KineticMetric{random_spd(kMaxDof, gen)});
  EXPECT_NO_THROW(KineticMetric{Eigen::MatrixXd::Identity(1, 1)});
}

}  // namespace
}  // namespace simpact
