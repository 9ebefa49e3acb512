// The reset map of eq. (7): Example 1's swap matrices, Γ² = I (eq. 8), Γ(αu) = Γ(u) (eq. 9),
// energy preservation (eq. 4b), conformality (Lemma 5), and agreement between the d-dimensional
// form and the O(k) contact-coordinate form the propagation uses.
#include "simpact/core/reset_map.hpp"

#include <gtest/gtest.h>

#include <random>

#include "simpact/core/impact_problem.hpp"
#include "test_support.hpp"

namespace simpact {
namespace {

using testing::expect_input_error;
using testing::random_spd;
using testing::random_vector;

DofVector vec3(double a, double b, double c) {
  DofVector v(3);
  v << a, b, c;
  return v;
}

// Example 1 (Newton's cradle, M = mI): u = [−1, 1, 0], v = [0, −1, 1].
TEST(ResetMap, NewtonsCradleSwapMatricesOfExample1) {
  for (const double m : {1.0, 2.5, 1e-3}) {
    const KineticMetric metric(m * Eigen::MatrixXd::Identity(3, 3));
    const DofMatrix gu = reset_map_matrix(metric, vec3(-1, 1, 0));
    const DofMatrix gv = reset_map_matrix(metric, vec3(0, -1, 1));
    Eigen::Matrix3d swap_ab, swap_bc;
    swap_ab << 0, 1, 0, 1, 0, 0, 0, 0, 1;
    swap_bc << 1, 0, 0, 0, 0, 1, 0, 1, 0;
    EXPECT_LE((gu - swap_ab).cwiseAbs().maxCoeff(), 1e-15) << "m = " << m << "\n" << gu;
    EXPECT_LE((gv - swap_bc).cwiseAbs().maxCoeff(), 1e-15) << "m = " << m << "\n" << gv;
    // Eq. (15): Γ(u)Γ(v)Γ(u) = Γ(v)Γ(u)Γ(v) = the reversal permutation.
    Eigen::Matrix3d reversal;
    reversal << 0, 0, 1, 0, 1, 0, 1, 0, 0;
    EXPECT_LE((gu * gv * gu - reversal).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_LE((gv * gu * gv - reversal).cwiseAbs().maxCoeff(), 1e-15);
  }
}

TEST(ResetMap, InvolutionScaleInvarianceAndEnergy) {
  std::mt19937_64 gen(21);
  for (int trial = 0; trial < 50; ++trial) {
    const int d = 2 + trial % 12;
    const KineticMetric metric(random_spd(d, gen));
    const DofVector u = random_vector(d, gen);
    const DofMatrix gamma = reset_map_matrix(metric, u);
    const DofMatrix identity = DofMatrix::Identity(d, d);
    EXPECT_LE((gamma * gamma - identity).cwiseAbs().maxCoeff(), 1e-12) << "eq. (8), d = " << d;
    for (const double alpha : {-3.0, 0.1, 1e4}) {
      const DofVector scaled = alpha * u;
      EXPECT_LE((reset_map_matrix(metric, scaled) - gamma).cwiseAbs().maxCoeff(), 1e-12) << "eq. (9)";
    }
    const DofVector p = random_vector(d, gen), q = random_vector(d, gen);
    // p⁺ = p⁻ Γ (row covector from the left): as columns, p⁺ = Γᵀ p⁻.
    const DofVector p_plus = apply_reset_map(metric, u, p);
    EXPECT_LE((p_plus - gamma.transpose() * p).norm(), 1e-12 * p.norm());
    const double e = metric.squared_norm(p);
    EXPECT_NEAR(metric.squared_norm(p_plus), e, 1e-12 * e) << "eq. (4b)";
    // Lemma 5: Γ preserves every inner product.
    const DofVector q_plus = apply_reset_map(metric, u, q);
    EXPECT_NEAR(metric.inner(p_plus, q_plus), metric.inner(p, q),
                1e-12 * std::sqrt(e * metric.squared_norm(q)));
    // The rate along u flips sign; the impulse is along u with λ = −2<p,u>_g/||u||²_g.
    EXPECT_NEAR(metric.inner(p_plus, u), -metric.inner(p, u), 1e-12 * std::sqrt(e * metric.squared_norm(u)));
    const double lambda = -2.0 * metric.inner(p, u) / metric.squared_norm(u);
    EXPECT_LE((p_plus - p - lambda * u).norm(), 1e-12 * (p.norm() + std::abs(lambda) * u.norm()));
    // Components g-orthogonal to u are untouched.
    const DofVector w = q - metric.inner(q, u) / metric.squared_norm(u) * u;
    EXPECT_LE((apply_reset_map(metric, u, w) - w).norm(), 1e-12 * q.norm());
  }
}

TEST(ResetMap, InfeasibleMomentumGetsPositiveImpulse) {
  const KineticMetric metric(Eigen::MatrixXd::Identity(3, 3));
  const DofVector u = vec3(-1, 1, 0);
  const DofVector p = vec3(1, 0, 0);  // <p,u>_g = −1 < 0: infeasible (eq. 6)
  const DofVector p_plus = apply_reset_map(metric, u, p);
  EXPECT_EQ(p_plus, vec3(0, 1, 0));
  EXPECT_GT(metric.inner(p_plus, u), 0.0);
}

TEST(ResetMap, ContactCoordinatesAgreeWithFullSpace) {
  std::mt19937_64 gen(22);
  for (int trial = 0; trial < 40; ++trial) {
    const int d = 3 + trial % 6, k = 2 + trial % 4;
    const Eigen::MatrixXd m = random_spd(d, gen);
    ImpactProblem::RowMajorMatrix normals(k, d);
    for (int i = 0; i < k; ++i) normals.row(i) = random_vector(d, gen).transpose();
    const Eigen::VectorXd p0 = random_vector(d, gen);
    const ImpactProblem problem(KineticMetric(m), normals, p0, 1.0);
    ContactVector impulses = ContactVector::Zero(k);
    ContactVector rates = problem.initial_rates();
    DofVector p = p0;
    std::uniform_int_distribution<int> pick(0, k - 1);
    for (int step = 0; step < 12; ++step) {
      const int i = pick(gen);
      reflect_in_contact_coordinates(problem.gram(), i, impulses, rates);
      p = apply_reset_map(problem.metric(), DofVector(normals.row(i).transpose()), p);
    }
    const double scale = p0.norm() * (1.0 + normals.norm());
    EXPECT_LE((problem.momentum_from_impulses(impulses) - p).norm(), 1e-10 * scale);
    for (int i = 0; i < k; ++i)
      EXPECT_NEAR(rates[i], problem.metric().inner(p, DofVector(normals.row(i).transpose())), 1e-10 * scale);
    EXPECT_NEAR(problem.energy_from_impulses(impulses), problem.energy_before(),
                1e-10 * problem.energy_before());
  }
}

}  // namespace
}  // namespace simpact
