#include "simpact/models/trex_geometry.hpp"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <random>

#include "simpact/core/input_error.hpp"

namespace simpact {
namespace {

constexpr double kPi = 3.14159265358979323846;

DofVector random_q(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-kPi, kPi);
  DofVector q(kTrexDof);
  for (int i = 0; i < kTrexDof; ++i) q[i] = u(rng);
  return q;
}

TEST(TrexGeometry, TailLengthIsThePaperFormula) {
  // r1 = 7 cm, r2 = 4 cm: (343 + 196 + √2·√(38416 + 21952)) / 33 − 11 cm.
  const double expected = (343.0 + 196.0 + std::sqrt(2.0) * std::sqrt(60368.0)) / 33.0 - 11.0;
  EXPECT_NEAR(trex_tail_length(0.07, 0.04), expected * 0.01, 1e-14);
  EXPECT_NEAR(expected, 15.8628, 1e-4);
  // Homogeneous of degree 1, and it grows as the radii approach each other.
  EXPECT_NEAR(trex_tail_length(0.14, 0.08), 2.0 * trex_tail_length(0.07, 0.04), 1e-14);
  EXPECT_GT(trex_tail_length(0.07, 0.06), trex_tail_length(0.07, 0.04));
}

TEST(TrexGeometry, TotalMassClosedForm) {
  const TrexDesign d{0.0669, 0.0422, 0.0781, 0.0986};
  const TrexGeometry g(d);
  const double spheres = 1000.0 * 4.0 / 3.0 * kPi * (std::pow(d.r1, 3) + std::pow(d.r2, 3));
  const double limbs = 2000.0 * 1.25e-4 * (2.0 * (d.l_u + d.l_l) + g.tail_length());
  EXPECT_NEAR(g.total_mass(), spheres + limbs, 1e-14);
  // The translational block of M is the total mass.
  std::mt19937 rng(1);
  const DofMatrix m = g.mass_matrix(random_q(rng));
  EXPECT_NEAR(m(0, 0), g.total_mass(), 1e-13);
  EXPECT_NEAR(m(1, 1), g.total_mass(), 1e-13);
  EXPECT_NEAR(m(0, 1), 0.0, 1e-15);
}

TEST(TrexGeometry, MassMatrixIsSymmetricPositiveDefiniteAndGivesTheKineticEnergy) {
  const TrexGeometry g(TrexDesign{});
  std::mt19937 rng(2);
  for (int trial = 0; trial < 20; ++trial) {
    const DofVector q = random_q(rng), v = random_q(rng);
    const DofMatrix m = g.mass_matrix(q);
    EXPECT_LT((m - m.transpose()).cwiseAbs().maxCoeff(), 1e-16);
    Eigen::LLT<DofMatrix> llt(m);
    ASSERT_EQ(llt.info(), Eigen::Success);
    EXPECT_GT(llt.matrixL().toDenseMatrix().diagonal().minCoeff(), 0.0);
    // ½vᵀMv = Σ ½m|ṙ|² + ½Iω² with ṙ by central differences of the positions.
    const double eps = 1e-6;
    double t = 0.0;
    for (const auto& b : g.bodies()) {
      const Eigen::Vector2d rd =
          (g.position(q + eps * v, b.com) - g.position(q - eps * v, b.com)) / (2 * eps);
      double omega = 0.0;
      for (int j = 0; j < kTrexDof; ++j) omega += b.a[static_cast<std::size_t>(j)] * v[j];
      t += 0.5 * b.mass * rd.squaredNorm() + 0.5 * b.inertia * omega * omega;
    }
    EXPECT_NEAR(0.5 * v.dot(m * v), t, 1e-8 * t);
  }
}

TEST(TrexGeometry, JacobiansAndMassDerivativeMatchFiniteDifferences) {
  const TrexGeometry g(TrexDesign{0.0669, 0.0422, 0.0781, 0.0986});
  std::mt19937 rng(3);
  const double eps = 1e-6;
  for (int trial = 0; trial < 10; ++trial) {
    const DofVector q = random_q(rng);
    NormalMatrix jac;
    g.gap_jacobian(q, jac);
    ASSERT_EQ(jac.rows(), kTrexContacts);
    for (int k = 0; k < kTrexDof; ++k) {
      DofVector dq = DofVector::Zero(kTrexDof);
      dq[k] = eps;
      ContactVector plus, minus;
      g.gaps(q + dq, plus);
      g.gaps(q - dq, minus);
      for (int i = 0; i < kTrexContacts; ++i) EXPECT_NEAR(jac(i, k), (plus[i] - minus[i]) / (2 * eps), 1e-9);
      const DofMatrix fd = (g.mass_matrix(q + dq) - g.mass_matrix(q - dq)) / (2 * eps);
      EXPECT_LT((g.mass_matrix_derivative(q, k) - fd).cwiseAbs().maxCoeff(), 1e-9);
      for (const auto& b : g.bodies()) {
        const TrexJacobian fdj = (g.jacobian(q + dq, b.com) - g.jacobian(q - dq, b.com)) / (2 * eps);
        EXPECT_LT((g.jacobian_derivative(q, b.com, k) - fdj).cwiseAbs().maxCoeff(), 1e-9);
      }
    }
  }
}

TEST(TrexGeometry, KinematicsFollowTheDocumentedConventions) {
  const TrexDesign d{};
  const TrexGeometry g(d);
  DofVector q = DofVector::Zero(kTrexDof);
  q[kTrexY] = 0.3;
  q[kTrexHipL] = kPi / 2;   // thigh along −e(π/2) = −y: leg straight down
  q[kTrexHipR] = -kPi / 2;  // straight up
  q[kTrexTail] = -kPi / 2;  // tail down from the posterior centre
  const auto pts = g.points(q);
  auto at = [&](const std::string& name) {
    for (const auto& [n, p] : pts)
      if (n == name) return p;
    ADD_FAILURE() << name;
    return Eigen::Vector2d(NAN, NAN);
  };
  EXPECT_NEAR((at("posterior") - Eigen::Vector2d(d.r1 + d.r2, 0.3)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((at("foot_L") - Eigen::Vector2d(0.0, 0.3 - d.l_u - d.l_l)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((at("foot_R") - Eigen::Vector2d(0.0, 0.3 + d.l_u + d.l_l)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((at("tail_tip") - Eigen::Vector2d(d.r1 + d.r2, 0.3 - g.tail_length())).norm(), 0.0, 1e-15);
  ContactVector phi;
  g.gaps(q, phi);
  EXPECT_NEAR(phi[kTrexFootL], 0.3 - d.l_u - d.l_l, 1e-15);
  EXPECT_NEAR(phi[kTrexTailTip], 0.3 - g.tail_length(), 1e-15);
}

TEST(TrexGeometry, TableOneRowsNearlyTouchWithTheRightFootAndTheTail) {
  // Our reading of Fig. 6 puts both of the paper's rows within a centimetre of the double
  // contact (right foot and tail on the floor, left leg up): docs/trex.md.
  for (const auto& row : {trex_table1_initial(), trex_table1_optimized()}) {
    const TrexGeometry g(row.design);
    ContactVector phi;
    g.gaps(row.q, phi);
    EXPECT_LT(std::abs(phi[kTrexFootR]), 0.006);
    EXPECT_LT(std::abs(phi[kTrexTailTip]), 0.007);
    EXPECT_GT(phi[kTrexFootL], 0.2);
  }
}

TEST(TrexGeometry, RejectsBadDesigns) {
  try {
    TrexGeometry g(TrexDesign{0.04, 0.05, 0.08, 0.1});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "r2");
  }
  try {
    TrexGeometry g(TrexDesign{0.07, 0.04, -0.08, 0.1});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "l_u");
  }
}

}  // namespace
}  // namespace simpact
