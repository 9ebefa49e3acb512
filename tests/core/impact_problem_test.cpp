// ImpactProblem: the precomputed contact coordinates (A = N M⁻¹ Nᵀ, c⁻ = N M⁻¹ p⁻ᵀ, tolerances),
// open contacts dropped by their gaps, and input validation naming the field.
#include "simpact/core/impact_problem.hpp"

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "simpact/core/impact_resolution.hpp"
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

namespace simpact {
namespace {

// A system reassigned in place for a diagonal M (a sweep's per-task build) equals one constructed
// from diag(M) bit for bit, whatever it held before (another d, a non-diagonal M, gaps), and
// refuses what the constructor refuses with the same field and message.
TEST(ImpactSystem, AssignDiagonalEqualsConstructionAndKeepsItsErrors) {
  std::mt19937_64 gen(83);
  std::uniform_real_distribution<double> mass(0.1, 10.0);
  ImpactSystem reused(KineticMetric(testing::random_spd(5, gen)), testing::random_normals(3, 5, gen),
                      Eigen::Vector3d(-1.0, 0.0, 1.0));
  for (int trial = 0; trial < 40; ++trial) {
    const int d = 1 + trial % kMaxDof, k = 1 + trial % kMaxContacts;
    Eigen::VectorXd masses(d);
    for (int i = 0; i < d; ++i) masses[i] = mass(gen);
    const RowMatrix normals = testing::random_normals(k, d, gen);
    Eigen::VectorXd gaps = Eigen::VectorXd::Zero(k);
    if (trial % 3 == 0) gaps[0] = 1.0;        // open: dropped
    if (trial % 4 == 0) gaps[k - 1] = -1e-3;  // penetrating
    const Eigen::MatrixXd m = masses.asDiagonal();
    const ImpactSystem built(KineticMetric(m), normals, gaps);
    reused.assign_diagonal(masses, normals, gaps);
    EXPECT_TRUE(reused.metric().diagonal());
    EXPECT_EQ(reused.metric().mass_matrix(), built.metric().mass_matrix());
    EXPECT_EQ(reused.contacts(), built.contacts());
    EXPECT_EQ(reused.penetrating_contacts(), built.penetrating_contacts());
    EXPECT_EQ(reused.normals(), built.normals());
    EXPECT_EQ(reused.gram(), built.gram());
    EXPECT_EQ(reused.normal_norms(), built.normal_norms());
    EXPECT_EQ(reused.whitened_normals(), built.whitened_normals());
    EXPECT_EQ(reused.velocity_directions(), built.velocity_directions());
    const Eigen::VectorXd p = Eigen::VectorXd::Ones(d);
    EXPECT_EQ(ImpactProblem(reused, p, 0.5).whitened_momentum(),
              ImpactProblem(built, p, 0.5).whitened_momentum());
  }
  RowMatrix normals(1, 2);
  normals << 1.0, -1.0;
  expect_input_error([&] { reused.assign_diagonal(Eigen::Vector2d(1.0, -1.0), normals); }, "mass_matrix");
  expect_input_error([&] { reused.assign_diagonal(Eigen::Vector2d(1.0, NAN), normals); }, "mass_matrix");
  expect_input_error([&] { reused.assign_diagonal(Eigen::Vector2d(1.0, 1e70), normals); }, "mass_matrix");
  expect_input_error([&] { reused.assign_diagonal(Eigen::VectorXd(), normals); }, "mass_matrix");
  expect_input_error([&] { reused.assign_diagonal(Eigen::VectorXd::Ones(kMaxDof + 1), normals); },
                     "mass_matrix");
  expect_input_error([&] { reused.assign_diagonal(Eigen::Vector3d(1.0, 1.0, 1.0), normals); }, "normals");
}

// One system, many states (issue: the system was refactored per impact): a problem that borrows
// an ImpactSystem resolves exactly like one that builds its own, copies keep pointing at a live
// system, and the borrowed path never refactors M (checked by identical Gram matrices and rates).
TEST(ImpactSystem, BorrowedSystemGivesTheSameProblemAsAnOwnedOne) {
  Eigen::MatrixXd m(3, 3);
  m << 2.0, 0.3, 0.0, 0.3, 1.0, 0.1, 0.0, 0.1, 3.0;
  ImpactProblem::RowMajorMatrix normals(2, 3);
  normals << -1.0, 1.0, 0.0, 0.0, -1.0, 1.0;
  const ImpactSystem system(KineticMetric(m), normals);
  for (const Eigen::Vector3d& p :
       {Eigen::Vector3d(1, 0, 0), Eigen::Vector3d(2, -1, 0.5), Eigen::Vector3d(0, 0, -1)}) {
    for (double r : {0.0, 0.6, 1.0}) {
      const ImpactProblem owned(KineticMetric(m), normals, p, r);
      const ImpactProblem borrowed(system, p, r);
      EXPECT_EQ(&borrowed.system(), &system);
      EXPECT_EQ(owned.gram(), borrowed.gram());
      EXPECT_EQ(owned.initial_rates(), borrowed.initial_rates());
      EXPECT_EQ(owned.momentum_norm(), borrowed.momentum_norm());
      ImpactWorkspace wa, wb;
      const ImpactResolution a = resolve_impact(owned, ResolveOptions{}, wa);
      const ImpactResolution b = resolve_impact(borrowed, ResolveOptions{}, wb);
      ASSERT_EQ(a.outcome_count, b.outcome_count);
      EXPECT_EQ(a.status, b.status);
      for (int j = 0; j < a.outcome_count; ++j)
        EXPECT_EQ(wa.outcomes.items[static_cast<std::size_t>(j)].momentum,
                  wb.outcomes.items[static_cast<std::size_t>(j)].momentum);
      if (std::isnan(a.xi)) {
        EXPECT_TRUE(std::isnan(b.xi));
      } else {
        EXPECT_EQ(a.xi, b.xi);
      }
    }
  }
  // Copies and moves of an owning problem point at their own system, not the source's.
  ImpactProblem original(KineticMetric(m), normals, Eigen::Vector3d(1, 0, 0), 1.0);
  ImpactProblem copy = original;
  EXPECT_NE(&copy.system(), &original.system());
  EXPECT_EQ(copy.gram(), original.gram());
  ImpactProblem moved = std::move(copy);
  EXPECT_EQ(moved.gram(), original.gram());
  ImpactProblem assigned;
  assigned = moved;
  EXPECT_NE(&assigned.system(), &moved.system());
  EXPECT_EQ(assigned.initial_rates(), original.initial_rates());
  // A borrowed copy shares the caller's system.
  const ImpactProblem b1(system, Eigen::Vector3d(1, 0, 0), 1.0);
  const ImpactProblem b2 = b1;
  EXPECT_EQ(&b2.system(), &system);
  // The state is still validated.
  EXPECT_THROW(ImpactProblem(system, Eigen::Vector2d(1, 0), 1.0), InputError);
  EXPECT_THROW(ImpactProblem(system, Eigen::Vector3d(1, 0, 0), 1.5), InputError);
}

}  // namespace
}  // namespace simpact
