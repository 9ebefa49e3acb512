// Uniqueness diagnostics of Sec. V: the normalized Gram matrix, Theorem 2's orthogonality flag,
// the dihedral order m (G_12 = −cos(π/m); Theorem 3 is m = 3) and Theorem 1's bound ⌈π/γ⌉.
#include "simpact/core/impact_diagnostics.hpp"

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <Eigen/QR>
#include <cmath>
#include <random>
#include <vector>

#include "simpact/core/impact_resolution.hpp"
#include "test_support.hpp"

namespace simpact {
namespace {

using testing::expect_input_error;
using testing::random_spd;
using testing::random_vector;

using RowMatrix = ImpactProblem::RowMajorMatrix;
constexpr double kPi = 3.141592653589793;

// Two normals in the metric of M with normalized cosine `g` and arbitrary lengths:
// u = (L e1)ᵀ s1, v = (L (g e1 + √(1−g²) e2))ᵀ s2 with M = LLᵀ and e1 ⊥ e2 random unit vectors.
RowMatrix normals_with_cosine(const Eigen::MatrixXd& m, double g, std::mt19937_64& gen) {
  const int d = static_cast<int>(m.rows());
  std::normal_distribution<double> normal;
  Eigen::MatrixXd x(d, 2);
  for (int i = 0; i < d; ++i) x(i, 0) = normal(gen), x(i, 1) = normal(gen);
  const Eigen::MatrixXd q =
      Eigen::HouseholderQR<Eigen::MatrixXd>(x).householderQ() * Eigen::MatrixXd::Identity(d, 2);
  const Eigen::MatrixXd l = Eigen::LLT<Eigen::MatrixXd>(m).matrixL();
  std::uniform_real_distribution<double> scale(0.2, 5.0);
  RowMatrix normals(2, d);
  normals.row(0) = scale(gen) * (l * q.col(0)).transpose();
  normals.row(1) = scale(gen) * (l * (g * q.col(0) + std::sqrt(1.0 - g * g) * q.col(1))).transpose();
  return normals;
}

ImpactProblem cradle3(const Eigen::Vector3d& p) {
  RowMatrix normals(2, 3);
  normals << -1, 1, 0, 0, -1, 1;
  return ImpactProblem(KineticMetric(Eigen::MatrixXd::Identity(3, 3)), normals, p, 1.0);
}

TEST(ImpactDiagnostics, NewtonsCradle) {
  const ImpactDiagnostics diag = diagnose(cradle3(Eigen::Vector3d(1, 0, -1)));
  EXPECT_NEAR(diag.normalized_gram(0, 1), -0.5, 1e-15);
  EXPECT_NEAR(diag.normalized_gram(1, 0), -0.5, 1e-15);
  EXPECT_NEAR(diag.normalized_gram(0, 0), 1.0, 1e-15);
  EXPECT_FALSE(diag.orthogonal);
  EXPECT_EQ(diag.dihedral_m, 3);      // Theorem 3
  EXPECT_EQ(diag.theorem1_bound, 6);  // γ = arcsin(½) = π/6
}

TEST(ImpactDiagnostics, NormalizedGramMatchesExplicitComputation) {
  std::mt19937_64 gen(51);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 30; ++trial) {
    const int d = 2 + trial % 8, k = 1 + trial % kMaxContacts;
    const Eigen::MatrixXd m = random_spd(d, gen);
    RowMatrix normals(k, d);
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < d; ++j) normals(i, j) = normal(gen);
    const ImpactProblem problem(KineticMetric(m), normals, Eigen::VectorXd::Ones(d), 1.0);
    const Eigen::MatrixXd a = normals * m.inverse() * normals.transpose();
    const ContactMatrix g = normalized_gram(problem);
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j) EXPECT_NEAR(g(i, j), a(i, j) / std::sqrt(a(i, i) * a(j, j)), 1e-12);
    EXPECT_EQ(diagnose(problem).normalized_gram, g);
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j) {
        if (i == j) continue;
        EXPECT_EQ(normalized_gram_entry(problem, i, j), g(i, j));  // bit for bit
      }
  }
}

// The table search against the closed form m = round(π / acos(−g)) accepted within the
// tolerance: every dihedral value, values just inside and just outside the tolerance, and a
// dense scan of (−1, 1).
TEST(ImpactDiagnostics, DihedralOrderEqualsTheRoundedClosedForm) {
  const auto closed_form = [](double g) {
    if (!(g > -1.0 && g < 1.0)) return 0;
    const long m = std::lround(kPi / std::acos(-g));
    return (m >= 2 && m <= kMaxDihedralOrder && std::abs(-std::cos(kPi / static_cast<double>(m)) - g) <= 1e-9)
               ? static_cast<int>(m)
               : 0;
  };
  std::vector<double> gs = {-1.0, 1.0, 0.0, -0.0, 1e-300, -1e-300, std::nan("")};
  for (int m = 2; m <= kMaxDihedralOrder + 2; ++m) {
    const double g = -std::cos(kPi / m);
    for (const double off : {0.0, 0.999e-9, -0.999e-9, 1.001e-9, -1.001e-9, 1e-7, -1e-7})
      gs.push_back(g + off);
  }
  for (int i = 1; i < 200000; ++i) gs.push_back(-1.0 + 2.0 * i / 200000.0);
  int dihedral = 0;
  for (const double g : gs) {
    EXPECT_EQ(dihedral_order(g), closed_form(g)) << "g = " << g;
    dihedral += dihedral_order(g) > 0;
  }
  EXPECT_GE(dihedral, 3 * (kMaxDihedralOrder - 1));  // exact and both just-inside values of each m
}

TEST(ImpactDiagnostics, DihedralOrderAndTheorem1Bound) {
  // G_12 = −cos(π/m) ⇒ γ = arcsin √((1+G)/2) = π/(2m) ⇒ Theorem 1's bound ⌈π/γ⌉ = 2m.
  std::mt19937_64 gen(52);
  for (int m = 2; m <= 16; ++m) {
    const Eigen::MatrixXd mass = random_spd(2 + m % 5, gen);
    const double g = -std::cos(kPi / m);
    const ImpactProblem problem(KineticMetric(mass), normals_with_cosine(mass, g, gen),
                                Eigen::VectorXd::Ones(mass.rows()), 1.0);
    const ImpactDiagnostics diag = diagnose(problem);
    EXPECT_NEAR(diag.normalized_gram(0, 1), g, 1e-12);
    EXPECT_EQ(diag.dihedral_m, m) << "m = " << m;
    EXPECT_EQ(diag.theorem1_bound, 2 * m) << "m = " << m;
    EXPECT_EQ(diag.orthogonal, m == 2);
    // Slightly off the dihedral value: no dihedral order.
    const ImpactProblem off(KineticMetric(mass), normals_with_cosine(mass, g + 1e-6, gen),
                            Eigen::VectorXd::Ones(mass.rows()), 1.0);
    EXPECT_EQ(diagnose(off).dihedral_m, 0) << "m = " << m;
  }
}

TEST(ImpactDiagnostics, NonDihedralAndDegenerateCosines) {
  std::mt19937_64 gen(53);
  const Eigen::MatrixXd mass = random_spd(4, gen);
  // G = +½ (m would be 3/2), −¼ and −0.433 (billiards at 2π/3 and 5π/6): not dihedral.
  for (const double g : {0.5, -0.25, 0.5 * std::cos(5 * kPi / 6), 0.9}) {
    const ImpactProblem problem(KineticMetric(mass), normals_with_cosine(mass, g, gen),
                                Eigen::VectorXd::Ones(4), 1.0);
    const ImpactDiagnostics diag = diagnose(problem);
    EXPECT_EQ(diag.dihedral_m, 0) << "G = " << g;
    EXPECT_EQ(diag.theorem1_bound, static_cast<int>(std::ceil(kPi / std::asin(std::sqrt((1 + g) / 2)))));
  }
  // Parallel normals u and 2u: G = 1, no angle, no bound.
  RowMatrix parallel(2, 4);
  parallel.row(0) << 1, 2, 3, 4;
  parallel.row(1) = 2.0 * parallel.row(0);
  const ImpactDiagnostics diag =
      diagnose(ImpactProblem(KineticMetric(mass), parallel, Eigen::VectorXd::Ones(4), 1.0));
  EXPECT_NEAR(diag.normalized_gram(0, 1), 1.0, 1e-12);
  EXPECT_EQ(diag.dihedral_m, 0);
  // One contact: trivially orthogonal, no pair.
  RowMatrix one(1, 4);
  one << 1, 0, 0, 0;
  const ImpactDiagnostics single =
      diagnose(ImpactProblem(KineticMetric(mass), one, Eigen::VectorXd::Ones(4), 1.0));
  EXPECT_TRUE(single.orthogonal);
  EXPECT_EQ(single.dihedral_m, 0);
  EXPECT_EQ(single.theorem1_bound, 0);
}

TEST(ImpactDiagnostics, OrthogonalityOfManyContacts) {
  // Diagonal M, normals along coordinate axes: pairwise g-orthogonal (Theorem 2), k = 3.
  Eigen::MatrixXd mass = Eigen::MatrixXd::Zero(5, 5);
  mass.diagonal() << 1, 2, 3, 4, 5;
  RowMatrix normals = RowMatrix::Zero(3, 5);
  normals(0, 0) = 1, normals(1, 2) = -2, normals(2, 4) = 0.5;
  const ImpactDiagnostics diag =
      diagnose(ImpactProblem(KineticMetric(mass), normals, Eigen::VectorXd::Ones(5), 1.0));
  EXPECT_TRUE(diag.orthogonal);
  EXPECT_EQ(diag.dihedral_m, 0);  // only defined for two contacts
  EXPECT_EQ(diag.theorem1_bound, 0);
  // A non-diagonal M breaks Euclidean orthogonality's meaning: same normals, coupled M.
  mass(0, 2) = mass(2, 0) = 0.5;
  EXPECT_FALSE(
      diagnose(ImpactProblem(KineticMetric(mass), normals, Eigen::VectorXd::Ones(5), 1.0)).orthogonal);
}

TEST(ImpactDiagnostics, Theorem1BoundsEveryTwoContactPropagation) {
  // Theorem 1 guarantees a feasible sequence no longer than ⌈π/γ⌉. Both alternating branches
  // (the only two for two contacts, Lemma 1) stay within it.
  std::mt19937_64 gen(54);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> cosine(-0.999, 0.999);
  ImpactWorkspace ws;
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int d = 2 + trial % 6;
    const Eigen::MatrixXd mass = random_spd(d, gen);
    const RowMatrix normals = normals_with_cosine(mass, cosine(gen), gen);
    Eigen::VectorXd p(d);
    for (int i = 0; i < d; ++i) p[i] = normal(gen);
    const ImpactProblem problem(KineticMetric(mass), normals, p, 1.0);
    if (problem.feasible(problem.initial_rates())) continue;
    const ImpactDiagnostics diag = diagnose(problem);
    ResolveOptions options;
    options.compute_plastic = false;
    const ImpactResolution res = resolve_impact(problem, options, ws);
    ASSERT_EQ(res.status, ResolveStatus::kOk);
    ASSERT_GE(res.outcome_count, 1);
    ASSERT_LE(res.outcome_count, 2);
    int shortest = 1 << 30;
    for (int j = 0; j < res.outcome_count; ++j) {
      const Outcome& o = ws.outcomes.items[j];
      shortest = std::min(shortest, o.shortest);
      for (int s = 0; s < o.stored_sequences; ++s) {
        EXPECT_LE(o.sequences[s].length, diag.theorem1_bound) << "trial " << trial;
        for (int t = 1; t < o.sequences[s].stored(); ++t)  // Lemma 1: alternating
          EXPECT_NE(o.sequences[s].contacts[t], o.sequences[s].contacts[t - 1]);
      }
    }
    EXPECT_LE(shortest, diag.theorem1_bound);
    ++checked;
  }
  EXPECT_GE(checked, 200);
}

}  // namespace
}  // namespace simpact
