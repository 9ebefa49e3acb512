// Sobol' indices and elementary effects against closed forms: Ishigami (a = 7, b = 0.1) and
// Sobol' G from a Saltelli design of 2^14 base samples, bootstrap intervals covering the truth,
// second-order Ishigami indices, Morris/radial on linear and additive functions, determinism.
#include "simpact/analysis/sobol_indices.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "simpact/analysis/morris_indices.hpp"
#include "simpact/models/test_functions.hpp"
#include "simpact/sweep/sensitivity_design.hpp"

namespace simpact {
namespace {

constexpr double kPi = 3.14159265358979323846;

DesignSpec saltelli(const TestFunction& f, std::size_t d, double low, double high, std::int64_t n,
                    bool second, bool scramble) {
  DesignSpec s;
  s.kind = DesignKind::kSaltelli;
  for (std::size_t j = 0; j < d; ++j) {
    RandomParameter p;
    p.name = f.parameters()[j].name;
    p.distribution.a = low;
    p.distribution.b = high;
    s.parameters.push_back(p);
  }
  s.base_samples = n;
  s.second_order = second;
  s.scramble = scramble;
  s.seed = 3;
  return s;
}

std::vector<double> evaluate(const TestFunction& f, const SensitivityDesign& design) {
  std::vector<double> y(static_cast<std::size_t>(design.size()));
  std::vector<double> x(design.dimension());
  ParameterSet p;
  for (std::int64_t k = 0; k < design.size(); ++k) {
    design.point(k, x.data());
    for (std::size_t j = 0; j < x.size(); ++j) p.set(design.spec().parameters[j].name, x[j]);
    y[static_cast<std::size_t>(k)] = f.evaluate(p);
  }
  return y;
}

TEST(SobolIndices, IshigamiWithin002OfClosedFormAndIntervalsCoverIt) {
  const auto f = make_test_function("ishigami");
  const ExactIndices exact = ishigami_indices(7.0, 0.1);
  EXPECT_NEAR(exact.first[0], 0.3139, 1e-4);
  EXPECT_NEAR(exact.first[1], 0.4424, 1e-4);
  EXPECT_NEAR(exact.total[2], 0.2437, 1e-4);
  for (bool scramble : {false, true}) {
    const SensitivityDesign design(saltelli(*f, 3, -kPi, kPi, 1 << 14, false, scramble));
    const auto y = evaluate(*f, design);
    const SobolIndices s = sobol_indices(y.data(), 1 << 14, 3, false, {1000, 1, 0.95}, 0);
    for (std::size_t j = 0; j < 3; ++j) {
      SCOPED_TRACE("x" + std::to_string(j + 1) + (scramble ? " scrambled" : ""));
      EXPECT_NEAR(s.first[j], exact.first[j], 0.02);
      EXPECT_NEAR(s.total[j], exact.total[j], 0.02);
      EXPECT_LE(std::fabs(s.first[j] - exact.first[j]), s.first_conf[j]);
      EXPECT_LE(std::fabs(s.total[j] - exact.total[j]), s.total_conf[j]);
      EXPECT_GT(s.first_conf[j], 0.0);
      EXPECT_LT(s.first_conf[j], 0.05);
    }
    EXPECT_EQ(s.nonfinite, 0);
  }
}

TEST(SobolIndices, IshigamiSecondOrderOnlyX1X3Interact) {
  const auto f = make_test_function("ishigami");
  const SensitivityDesign design(saltelli(*f, 3, -kPi, kPi, 1 << 13, true, false));
  const auto y = evaluate(*f, design);
  const SobolIndices s = sobol_indices(y.data(), 1 << 13, 3, true, {200, 1, 0.95}, 0);
  const ExactIndices exact = ishigami_indices(7.0, 0.1);
  const double s13 = exact.total[2];  // x3 acts only through its interaction with x1
  EXPECT_NEAR(s.second[0 * 3 + 2], s13, 0.03);
  EXPECT_NEAR(s.second[0 * 3 + 1], 0.0, 0.03);
  EXPECT_NEAR(s.second[1 * 3 + 2], 0.0, 0.03);
  EXPECT_TRUE(std::isnan(s.second[1 * 3 + 0]));  // lower triangle and diagonal: NaN
  EXPECT_TRUE(std::isnan(s.second[0]));
  for (std::size_t j = 0; j < 3; ++j) EXPECT_NEAR(s.first[j], exact.first[j], 0.02);
}

TEST(SobolIndices, SobolGWithin002OfClosedForm) {
  const auto f = make_test_function("sobol_g");
  const std::vector<double> a = {0, 1, 4.5, 9, 99, 99, 99, 99};
  const ExactIndices exact = sobol_g_indices(a);
  EXPECT_NEAR(exact.first[0], 0.7162, 1e-4);
  EXPECT_NEAR(exact.total[0], 0.7871, 1e-4);
  const SensitivityDesign design(saltelli(*f, 8, 0, 1, 1 << 13, false, true));
  const auto y = evaluate(*f, design);
  const SobolIndices s = sobol_indices(y.data(), 1 << 13, 8, false, {300, 2, 0.95}, 0);
  for (std::size_t j = 0; j < 8; ++j) {
    SCOPED_TRACE("x" + std::to_string(j + 1));
    EXPECT_NEAR(s.first[j], exact.first[j], 0.02);
    EXPECT_NEAR(s.total[j], exact.total[j], 0.02);
  }
}

TEST(SobolIndices, BitIdenticalForTheSameInputsAndSeedSensitive) {
  const auto f = make_test_function("ishigami");
  const SensitivityDesign design(saltelli(*f, 3, -kPi, kPi, 1024, false, false));
  const auto y = evaluate(*f, design);
  const SobolIndices a = sobol_indices(y.data(), 1024, 3, false, {100, 7, 0.95}, 4);
  const SobolIndices b = sobol_indices(y.data(), 1024, 3, false, {100, 7, 0.95}, 4);
  const SobolIndices c = sobol_indices(y.data(), 1024, 3, false, {100, 8, 0.95}, 4);
  EXPECT_EQ(std::memcmp(a.first_conf.data(), b.first_conf.data(), 3 * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(a.total.data(), b.total.data(), 3 * sizeof(double)), 0);
  EXPECT_NE(a.first_conf[0], c.first_conf[0]);
  EXPECT_EQ(a.first[0], c.first[0]);  // the estimate itself does not depend on the bootstrap
}

TEST(SobolIndices, NonFiniteBaseSamplesAreLeftOutAndCounted) {
  const auto f = make_test_function("ishigami");
  const SensitivityDesign design(saltelli(*f, 3, -kPi, kPi, 4096, false, false));
  auto y = evaluate(*f, design);
  y[5 * 7 + 2] = std::nan("");  // one value of base 7
  const SobolIndices s = sobol_indices(y.data(), 4096, 3, false, {0, 0, 0.95}, 0);
  EXPECT_EQ(s.nonfinite, 1);
  EXPECT_NEAR(s.total[1], ishigami_indices(7, 0.1).total[1], 0.03);
  EXPECT_TRUE(std::isnan(s.first_conf[0]));  // no bootstrap asked
}

TEST(MorrisIndices, LinearFunctionGivesItsCoefficientsExactly) {
  // y = 3 x1 − 2 x2 + 0 x3 on [0, 2]^3: every elementary effect (per unit-cube step) of x_j
  // is c_j · 2, so μ = μ* (up to sign) and σ = 0.
  DesignSpec s;
  s.kind = DesignKind::kMorris;
  for (int j = 0; j < 3; ++j) {
    RandomParameter p;
    p.name = "x" + std::to_string(j);
    p.distribution.a = 0;
    p.distribution.b = 2;
    s.parameters.push_back(p);
  }
  s.base_samples = 20;
  s.levels = 4;
  const SensitivityDesign design(s);
  std::vector<double> y(static_cast<std::size_t>(design.size()));
  double x[3];
  for (std::int64_t k = 0; k < design.size(); ++k) {
    design.point(k, x);
    y[static_cast<std::size_t>(k)] = 3 * x[0] - 2 * x[1];
  }
  std::vector<std::size_t> moved;
  std::vector<double> step;
  for (std::int64_t t = 0; t < 20; ++t)
    for (std::int64_t k = 1; k <= 3; ++k) {
      moved.push_back(design.morris_moved(t * 4 + k));
      step.push_back(design.morris_step(t * 4 + k));
    }
  const MorrisIndices m = morris_indices(y.data(), 20, 3, moved, step, false, {100, 1, 0.95}, 0);
  EXPECT_NEAR(m.mu[0], 6.0, 1e-9);
  EXPECT_NEAR(m.mu_star[0], 6.0, 1e-9);
  EXPECT_NEAR(m.mu[1], -4.0, 1e-9);
  EXPECT_NEAR(m.mu_star[1], 4.0, 1e-9);
  EXPECT_NEAR(m.mu_star[2], 0.0, 1e-12);
  EXPECT_NEAR(m.sigma[0], 0.0, 1e-9);
  EXPECT_NEAR(m.mu_star_conf[0], 0.0, 1e-9);
}

TEST(MorrisIndices, RadialDesignOnIshigamiRanksX1X2AboveX3AndSeesX1Interaction) {
  const auto f = make_test_function("ishigami");
  DesignSpec s = saltelli(*f, 3, -kPi, kPi, 512, false, false);
  s.kind = DesignKind::kRadial;
  const SensitivityDesign design(s);
  const auto y = evaluate(*f, design);
  std::vector<std::size_t> moved;
  std::vector<double> step;
  double u0[3], u1[3];
  for (std::int64_t b = 0; b < 512; ++b)
    for (std::size_t j = 0; j < 3; ++j) {
      design.unit_point(b * 4, u0);
      design.unit_point(b * 4 + 1 + static_cast<std::int64_t>(j), u1);
      moved.push_back(j);
      step.push_back(u1[j] - u0[j]);
    }
  const MorrisIndices m = morris_indices(y.data(), 512, 3, moved, step, true, {0, 0, 0.95}, 0);
  EXPECT_GT(m.mu_star[0], m.mu_star[2]);
  EXPECT_GT(m.mu_star[1], m.mu_star[2]);
  EXPECT_GT(m.sigma[0], 1.0);  // x1's effect depends on x3
}

}  // namespace
}  // namespace simpact
