// Sensitivity designs: Saltelli rows in SALib's order (A, AB_j, [BA_j,] B), Owen scrambling
// keeps the Sobol' net's stratification, Morris trajectories move one coordinate by ±Δ per step,
// explicit point lists, and the design as the replicas of a ParameterSpace.
#include "simpact/sweep/sensitivity_design.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "simpact/sweep/parameter_space.hpp"

namespace simpact {
namespace {

RandomParameter uniform(const std::string& name, double low, double high) {
  RandomParameter p;
  p.name = name;
  p.distribution.kind = DistributionKind::kUniform;
  p.distribution.a = low;
  p.distribution.b = high;
  return p;
}

DesignSpec saltelli(std::int64_t n, std::size_t d, bool second_order, bool scramble) {
  DesignSpec s;
  s.kind = DesignKind::kSaltelli;
  for (std::size_t j = 0; j < d; ++j) s.parameters.push_back(uniform("x" + std::to_string(j + 1), 0, 1));
  s.base_samples = n;
  s.second_order = second_order;
  s.scramble = scramble;
  s.seed = 5;
  return s;
}

TEST(SaltelliDesign, RowsFollowSalibOrder) {
  for (bool second : {false, true}) {
    const SensitivityDesign design(saltelli(16, 3, second, false));
    const std::int64_t rows = second ? 8 : 5;
    ASSERT_EQ(design.size(), 16 * rows);
    ASSERT_EQ(design.rows_per_base(), rows);
    // Base i uses Sobol' point i + 1 of dimension 6: A = its first 3, B = its last 3.
    const SobolSequence sobol(6);
    for (std::int64_t i = 0; i < 16; ++i) {
      double x[6];
      sobol.point(static_cast<std::uint64_t>(i + 1), x);
      std::vector<std::vector<double>> r(static_cast<std::size_t>(rows), std::vector<double>(3));
      for (std::int64_t k = 0; k < rows; ++k)
        design.unit_point(i * rows + k, r[static_cast<std::size_t>(k)].data());
      for (std::size_t j = 0; j < 3; ++j) {
        EXPECT_EQ(r[0][j], x[j]);                                       // A
        EXPECT_EQ(r[static_cast<std::size_t>(rows - 1)][j], x[3 + j]);  // B
        for (std::size_t m = 0; m < 3; ++m) {
          EXPECT_EQ(r[1 + m][j], j == m ? x[3 + j] : x[j]);  // AB_m
          if (second) {
            EXPECT_EQ(r[4 + m][j], j == m ? x[j] : x[3 + j]);  // BA_m
          }
        }
      }
    }
  }
}

TEST(SaltelliDesign, KnownFirstRowsAsSalibUnscrambled) {
  // Sobol' point 1 (Joe–Kuo) is (0.5, ..., 0.5); point 2 is (0.75, 0.25, 0.25, 0.75, ...).
  const SensitivityDesign design(saltelli(2, 2, false, false));
  double u[2];
  design.unit_point(0, u);
  EXPECT_EQ(u[0], 0.5);
  EXPECT_EQ(u[1], 0.5);
  design.unit_point(4, u);  // A of base 1
  EXPECT_EQ(u[0], 0.75);
  EXPECT_EQ(u[1], 0.25);
}

TEST(OwenScramble, KeepsOnePointPerElementaryInterval) {
  // 2^8 scrambled Sobol' points: still one per interval of width 2^-8 in every coordinate, and
  // one per 2^-4 x 2^-4 square in the first two (a (0, m, 2)-net); the points moved.
  const SobolSequence sobol(2);
  std::set<int> cells[2], squares;
  int moved = 0;
  for (std::uint64_t n = 0; n < 256; ++n) {
    double x[2];
    sobol.point(n, x);
    double s[2];
    for (int j = 0; j < 2; ++j) {
      s[j] = owen_scramble(x[j], 42, static_cast<std::uint64_t>(j));
      ASSERT_GE(s[j], 0.0);
      ASSERT_LT(s[j], 1.0);
      cells[j].insert(static_cast<int>(s[j] * 256));
      moved += s[j] != x[j];
    }
    squares.insert(static_cast<int>(s[0] * 16) * 16 + static_cast<int>(s[1] * 16));
  }
  EXPECT_EQ(cells[0].size(), 256u);
  EXPECT_EQ(cells[1].size(), 256u);
  EXPECT_EQ(squares.size(), 256u);
  EXPECT_GT(moved, 500);
  EXPECT_NE(owen_scramble(0.3, 1, 0), owen_scramble(0.3, 2, 0));  // the seed matters
  EXPECT_EQ(owen_scramble(0.3, 1, 0), owen_scramble(0.3, 1, 0));
}

TEST(MorrisDesign, EachStepMovesOneCoordinateByDelta) {
  DesignSpec s;
  s.kind = DesignKind::kMorris;
  for (int j = 0; j < 4; ++j) s.parameters.push_back(uniform("p" + std::to_string(j), -2, 2));
  s.base_samples = 30;
  s.levels = 4;
  s.seed = 9;
  const SensitivityDesign design(s);
  ASSERT_EQ(design.size(), 30 * 5);
  const double delta = 4.0 / 6.0;
  EXPECT_DOUBLE_EQ(design.morris_delta(), delta);
  for (std::int64_t t = 0; t < 30; ++t) {
    std::set<std::size_t> moved;
    double prev[4], cur[4];
    design.unit_point(t * 5, prev);
    for (double v : prev) {  // on the 4-level grid {0, 1/3, 2/3, 1}
      EXPECT_NEAR(v * 3, std::round(v * 3), 1e-12);
    }
    for (std::int64_t k = 1; k <= 4; ++k) {
      design.unit_point(t * 5 + k, cur);
      const std::size_t j = design.morris_moved(t * 5 + k);
      moved.insert(j);
      for (std::size_t m = 0; m < 4; ++m) {
        if (m == j)
          EXPECT_NEAR(cur[m] - prev[m], design.morris_step(t * 5 + k), 1e-12);
        else
          EXPECT_EQ(cur[m], prev[m]);
        EXPECT_GE(cur[m], 0.0);
        EXPECT_LE(cur[m], 1.0);
      }
      EXPECT_NEAR(std::fabs(design.morris_step(t * 5 + k)), delta, 1e-15);
      std::copy(cur, cur + 4, prev);
    }
    EXPECT_EQ(moved.size(), 4u);  // every coordinate moves once per trajectory
  }
}

TEST(DesignAsReplicas, ExplicitPointsAreTheReplicasOfEveryGridPoint) {
  SweepConfig c;
  c.model = "billiards";
  GridAxis theta;
  theta.name = "theta";
  theta.values = {2.0, 2.5};
  c.grid = {theta};
  DesignSpec d;
  d.kind = DesignKind::kZip;
  RandomParameter a, b;
  a.name = "r_a";
  b.name = "r_b";
  d.parameters = {a, b};
  d.values = {1.0, 1.1, 1.2, 1.3, 1.4, 1.5};  // three points
  c.design = d;
  const ParameterSpace space(c);
  ASSERT_EQ(space.replicas(), 3);
  ASSERT_EQ(space.task_count(), 6);
  ParameterSet p;
  EXPECT_EQ(space.parameters_of(4, p), 0u);  // grid point 1, replica 1
  EXPECT_EQ(p.get("theta", 0), 2.5);
  EXPECT_EQ(p.get("r_a", 0), 1.2);
  EXPECT_EQ(p.get("r_b", 0), 1.3);
  ASSERT_EQ(space.random_parameters().size(), 2u);
  EXPECT_EQ(space.random_parameters()[1].name, "r_b");
}

}  // namespace
}  // namespace simpact
