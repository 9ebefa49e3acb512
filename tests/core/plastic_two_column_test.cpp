// The hand-written d×2 QR of the predicted two-contact plastic solve (src/core/plastic_two_column.hpp)
// against Eigen's ColPivHouseholderQR, which it replaces: both solves, and the whole plastic
// outcome through each, must agree bit for bit (compared as bit patterns, not with a tolerance)
// on random systems built to reach every branch — pivot ties and swaps, reflectors with a zero
// tail (τ = 0), the norm downdate and its recomputation, rank < 2, non-positive coefficients.
#include "../../src/core/plastic_two_column.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "simpact/core/impact_problem.hpp"
#include "simpact/core/plastic_impact.hpp"
#include "test_support.hpp"

namespace simpact {
namespace {

using detail::TwoColumnLeastSquares;
using detail::TwoColumnQr;
using RowMatrix = ImpactProblem::RowMajorMatrix;

std::uint64_t bits(double v) {
  std::uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

// Column shapes: the relations between b₀ and b₁ that steer the QR's branches.
enum class Shape { kRandom, kNearlyParallel, kNearlyAntiparallel, kOrthogonal, kSignFlipped, kSparse, kAxis };
constexpr int kShapes = 7;

struct Columns {
  Eigen::VectorXd b0, b1;
};

// b₀, b₁ in R^d of the given shape, each scaled by 10^U(−6, 6) (kSignFlipped: the same scale,
// so the column norms tie exactly and the pivot stays on column 0).
Columns random_columns(int d, Shape shape, std::mt19937_64& gen) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> exponent(-6.0, 6.0), tilt_exponent(-12.0, -1.0);
  std::bernoulli_distribution coin(0.5);
  Columns c{testing::random_vector(d, gen), testing::random_vector(d, gen)};
  const double tilt = std::pow(10.0, tilt_exponent(gen));
  switch (shape) {
    case Shape::kRandom:
      break;
    case Shape::kNearlyParallel:
      c.b1 = c.b0 + tilt * c.b1;
      break;
    case Shape::kNearlyAntiparallel:
      c.b1 = -c.b0 + tilt * c.b1;
      break;
    case Shape::kOrthogonal:
      c.b1 -= (c.b1.dot(c.b0) / c.b0.squaredNorm()) * c.b0;
      break;
    case Shape::kSignFlipped:
      c.b1 = c.b0;
      for (int i = 0; i < d; ++i)
        if (coin(gen)) c.b1[i] = -c.b1[i];
      break;
    case Shape::kSparse:  // entries zero at random, as in block-structured normals
      for (int i = 0; i < d; ++i) {
        if (coin(gen)) c.b0[i] = 0.0;
        if (coin(gen)) c.b1[i] = 0.0;
      }
      if (c.b0.squaredNorm() == 0.0) c.b0[0] = 1.0;
      if (c.b1.squaredNorm() == 0.0) c.b1[d - 1] = 1.0;
      break;
    case Shape::kAxis:  // one column along the first axis: its reflector's tail is zero (τ = 0)
      c.b0.setZero();
      c.b0[0] = normal(gen);
      if (coin(gen)) std::swap(c.b0, c.b1);
      break;
  }
  const double s0 = std::pow(10.0, exponent(gen));
  const double s1 = shape == Shape::kSignFlipped ? s0 : std::pow(10.0, exponent(gen));
  c.b0 *= s0;
  c.b1 *= s1;
  return c;
}

TEST(PlasticTwoColumn, HandWrittenQrIsThisBuildsSolve) {
  // The default x86-64 build (SSE2, no AVX, no FMA) runs the hand-written QR; any other
  // instruction set runs Eigen's for both (its reductions are ordered differently there).
#if defined(__x86_64__) && !defined(__AVX__) && !defined(__FMA__)
  constexpr bool kDefaultBuild = true;
#else
  constexpr bool kDefaultBuild = false;
#endif
  EXPECT_EQ(detail::hand_written_qr_available(), kDefaultBuild);
}

TEST(PlasticTwoColumn, SolveMatchesEigenBitForBit) {
  // d = 2…16, every shape, y random or built as −Bx + noise with x > 0 (so both coefficients are
  // positive often): the same verdict, and the same x, y − QQᵀy and pivot ratio.
  std::mt19937_64 gen(20261125);
  std::uniform_int_distribution<int> dof(2, kMaxDof), shape_of(0, kShapes - 1);
  std::uniform_real_distribution<double> positive(0.1, 2.0), exponent(-6.0, 6.0), noise_exponent(-14.0, 0.0);
  int solved = 0, failed = 0, swapped = 0, extended = 0;
  for (int trial = 0; trial < 60000; ++trial) {
    const int d = dof(gen);
    const Columns c = random_columns(d, static_cast<Shape>(shape_of(gen)), gen);
    DofByContact b(d, 2);
    b.col(0) = c.b0;
    b.col(1) = c.b1;
    DofVector y(d);
    if (trial % 2 == 0) {
      y = std::pow(10.0, exponent(gen)) * testing::random_vector(d, gen);
    } else {
      y = -(positive(gen) * c.b0 + positive(gen) * c.b1);
      y += std::pow(10.0, noise_exponent(gen)) * y.norm() * testing::random_vector(d, gen);
    }
    TwoColumnLeastSquares hand, eigen;
    const bool hand_ok = detail::two_column_least_squares(b, y, TwoColumnQr::kHandWritten, hand);
    const bool eigen_ok = detail::two_column_least_squares(b, y, TwoColumnQr::kEigen, eigen);
    SCOPED_TRACE(::testing::Message() << "trial " << trial << ", d = " << d);
    ASSERT_EQ(hand_ok, eigen_ok);
    if (!eigen_ok) {
      ++failed;
      continue;
    }
    ++solved;
    if (c.b1.norm() > c.b0.norm()) ++swapped;
    if (eigen.smallest_pivot_ratio < 1e-6) ++extended;
    ASSERT_EQ(hand.x.size(), 2);
    ASSERT_EQ(hand.y.size(), d);
    for (int i = 0; i < 2; ++i) ASSERT_EQ(bits(hand.x[i]), bits(eigen.x[i])) << "x " << i;
    for (int i = 0; i < d; ++i) ASSERT_EQ(bits(hand.y[i]), bits(eigen.y[i])) << "y " << i;
    ASSERT_EQ(bits(hand.smallest_pivot_ratio), bits(eigen.smallest_pivot_ratio));
  }
  // Every branch of the verdict and the pivot is exercised.
  EXPECT_GT(solved, 15000);
  EXPECT_GT(failed, 15000);
  EXPECT_GT(swapped, 5000);
  EXPECT_GT(extended, 500);
}

TEST(PlasticTwoColumn, RankDeficientAndTinyColumnsFailAlike) {
  // Exactly parallel columns (rank 1), a zero column beside a nonzero one, and columns 1e-15 …
  // 1e-200 apart in scale: Eigen's rank and nonzero-pivot tests, reproduced.
  for (int d = 2; d <= kMaxDof; ++d) {
    std::mt19937_64 gen(d);
    const Eigen::VectorXd u = testing::random_vector(d, gen);
    const DofVector y = -testing::random_vector(d, gen);
    for (const double scale : {2.0, -3.0, 0.0, 1e-15, 1e-17, 1e-200, 1e200}) {
      DofByContact b(d, 2);
      b.col(0) = u;
      b.col(1) = scale * u;
      if (std::abs(scale) < 1e-14 || scale > 1e100) b.col(1) = scale * testing::random_vector(d, gen);
      TwoColumnLeastSquares hand, eigen;
      const bool hand_ok = detail::two_column_least_squares(b, y, TwoColumnQr::kHandWritten, hand);
      const bool eigen_ok = detail::two_column_least_squares(b, y, TwoColumnQr::kEigen, eigen);
      EXPECT_EQ(hand_ok, eigen_ok) << "d = " << d << ", scale " << scale;
      if (scale == 2.0 || scale == -3.0 || scale == 0.0) {
        EXPECT_FALSE(eigen_ok);
      }
      if (hand_ok && eigen_ok) {
        for (int i = 0; i < 2; ++i) EXPECT_EQ(bits(hand.x[i]), bits(eigen.x[i]));
        for (int i = 0; i < d; ++i) EXPECT_EQ(bits(hand.y[i]), bits(eigen.y[i]));
      }
    }
  }
}

// Every number of the outcome, compared as bit patterns.
void expect_same_outcome(const PlasticOutcome& a, const PlasticOutcome& b) {
  ASSERT_EQ(a.impulses.size(), b.impulses.size());
  ASSERT_EQ(a.momentum.size(), b.momentum.size());
  for (Eigen::Index i = 0; i < a.impulses.size(); ++i) {
    EXPECT_EQ(bits(a.impulses[i]), bits(b.impulses[i])) << "impulse " << i;
    EXPECT_EQ(bits(a.rates[i]), bits(b.rates[i])) << "rate " << i;
  }
  for (Eigen::Index i = 0; i < a.momentum.size(); ++i) {
    EXPECT_EQ(bits(a.momentum[i]), bits(b.momentum[i])) << "momentum " << i;
    EXPECT_EQ(bits(a.whitened[i]), bits(b.whitened[i])) << "whitened " << i;
  }
  EXPECT_EQ(bits(a.energy), bits(b.energy));
  EXPECT_EQ(bits(a.complementarity_residual), bits(b.complementarity_residual));
  EXPECT_EQ(a.converged, b.converged);
  EXPECT_EQ(a.free_set_predicted, b.free_set_predicted);
}

TEST(PlasticTwoColumn, PlasticOutcomeMatchesEigenBitForBit) {
  // Random two-contact impacts: diagonal or SPD M, d = 2…16, normals of every shape, p⁻ random or
  // aimed between the normals (both contacts pushed): plastic_outcome (the hand-written QR) and
  // the same outcome through Eigen's QR agree in every number; the reference (kEigen) is
  // checked against the full Lawson–Hanson iteration on the predicted cases as well.
  std::mt19937_64 gen(7);
  std::uniform_int_distribution<int> dof(2, kMaxDof), shape_of(0, kShapes - 1);
  std::uniform_real_distribution<double> mass(0.2, 5.0), positive(0.1, 2.0), exponent(-6.0, 6.0);
  int predicted = 0, not_predicted = 0;
  for (int trial = 0; trial < 30000; ++trial) {
    const int d = dof(gen);
    Eigen::MatrixXd m = testing::random_spd(d, gen);
    if (trial % 2 == 0) {
      m.setZero();
      for (int i = 0; i < d; ++i) m(i, i) = mass(gen);
    }
    const Columns c = random_columns(d, static_cast<Shape>(shape_of(gen)), gen);
    RowMatrix normals(2, d);
    normals.row(0) = c.b0.transpose();
    normals.row(1) = c.b1.transpose();
    // Aimed: p⁻ = −M(α₀u₀ + α₁u₁)ᵀ·scale pushes into both contacts.
    Eigen::VectorXd p = testing::random_vector(d, gen);
    if (trial % 3 != 0) p = -(m * (positive(gen) * c.b0 / c.b0.norm() + positive(gen) * c.b1 / c.b1.norm()));
    p *= std::pow(10.0, exponent(gen));
    const ImpactProblem problem(KineticMetric(m), normals, p, 0.0);
    const PlasticOutcome hand = plastic_outcome(problem);
    const PlasticOutcome eigen = detail::plastic_outcome_with(problem, TwoColumnQr::kEigen);
    SCOPED_TRACE(::testing::Message() << "trial " << trial << ", d = " << d);
    expect_same_outcome(hand, eigen);
    if (::testing::Test::HasFailure()) return;
    (eigen.free_set_predicted ? predicted : not_predicted) += 1;
  }
  EXPECT_GT(predicted, 10000);
  EXPECT_GT(not_predicted, 5000);
}

}  // namespace
}  // namespace simpact
