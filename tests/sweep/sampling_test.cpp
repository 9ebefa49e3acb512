// Monte Carlo draws: inverse CDFs against closed forms, sample moments against the
// distributions' moments, Latin hypercube strata, and Sobol points against known values.
#include "simpact/sweep/sampling.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/random/sobol.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "simpact/core/counter_rng.hpp"

namespace simpact {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double phi(double x) {
  return std::exp(-0.5 * x * x) / std::sqrt(2 * 3.14159265358979323846);
}
double cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}
double tail(double x) {
  return 0.5 * std::erfc(x / std::sqrt(2.0));
}

Distribution uniform(double low, double high) {
  Distribution d;
  d.kind = DistributionKind::kUniform;
  d.a = low;
  d.b = high;
  return d;
}
Distribution normal(DistributionKind kind, double a, double b, double low = -kInf, double high = kInf) {
  Distribution d;
  d.kind = kind;
  d.a = a;
  d.b = b;
  d.low = low;
  d.high = high;
  return d;
}
Distribution choice(std::vector<double> values, std::vector<double> weights) {
  Distribution d;
  d.kind = DistributionKind::kChoice;
  d.values = std::move(values);
  d.weights = std::move(weights);
  return d;
}

MonteCarloSpec spec_of(SamplingMethod method, std::int64_t replicas,
                       const std::vector<Distribution>& distributions, std::uint64_t seed = 42) {
  MonteCarloSpec spec;
  spec.method = method;
  spec.samples_per_point = replicas;
  spec.seed = seed;
  for (std::size_t j = 0; j < distributions.size(); ++j)
    spec.parameters.push_back({"p" + std::to_string(j), "1", "", distributions[j]});
  return spec;
}

// draws[j][r]: parameter j of replica r of grid point `grid_point`.
std::vector<std::vector<double>> draw_point(const MonteCarloSampler& sampler, std::int64_t grid_point,
                                            bool unit = false) {
  const std::int64_t replicas = sampler.spec().samples_per_point;
  std::vector<std::vector<double>> draws(sampler.dimension(), std::vector<double>(replicas));
  std::vector<double> values(sampler.dimension());
  for (std::int64_t r = 0; r < replicas; ++r) {
    const std::int64_t task = grid_point * replicas + r;
    if (unit) {
      sampler.unit_point(task, grid_point, r, values.data());
    } else {
      sampler.draw(task, grid_point, r, values.data());
    }
    for (std::size_t j = 0; j < values.size(); ++j) draws[j][r] = values[j];
  }
  return draws;
}

double mean_of(const std::vector<double>& x) {
  return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}
double variance_of(const std::vector<double>& x) {
  const double m = mean_of(x);
  double s = 0;
  for (double v : x) s += (v - m) * (v - m);
  return s / static_cast<double>(x.size() - 1);
}

// ---- quantiles -----------------------------------------------------------------------------

TEST(Sampling, NormalQuantileKnownValues) {
  EXPECT_EQ(normal_quantile(0.5), 0.0);
  EXPECT_NEAR(normal_quantile(0.975), 1.9599639845400536, 1e-14);
  EXPECT_NEAR(normal_quantile(0.025), -1.9599639845400538, 1e-14);
  EXPECT_NEAR(normal_quantile(0.3), -0.5244005127080407, 1e-14);
  EXPECT_NEAR(normal_quantile(0.999), 3.090232306167813, 1e-13);
  EXPECT_NEAR(normal_quantile(1e-10), -6.361340902404056, 1e-13);
  // Deep lower tail keeps its relative accuracy: Φ(Φ⁻¹(p)) = p.
  for (double p : {1e-20, 1e-100, 1e-300}) EXPECT_NEAR(cdf(normal_quantile(p)) / p, 1.0, 1e-10);
}

TEST(Sampling, QuantilesOfEachKind) {
  EXPECT_EQ(uniform(2, 4).quantile(0.25), 2.5);
  EXPECT_EQ(normal(DistributionKind::kNormal, 1, 2).quantile(0.5), 1.0);
  EXPECT_NEAR(normal(DistributionKind::kNormal, 1, 2).quantile(0.975), 1 + 2 * 1.9599639845400536, 1e-13);
  EXPECT_NEAR(normal(DistributionKind::kLogNormal, 0.5, 0.3).quantile(0.975),
              std::exp(0.5 + 0.3 * 1.9599639845400536), 1e-13);
  // Ends of (0, 1) are clamped to finite values.
  EXPECT_TRUE(std::isfinite(normal(DistributionKind::kNormal, 0, 1).quantile(0.0)));
  EXPECT_TRUE(std::isfinite(normal(DistributionKind::kNormal, 0, 1).quantile(1.0)));
  EXPECT_LE(uniform(2, 4).quantile(1.0), 4.0);
}

TEST(Sampling, TruncatedNormalInvertsItsCdf) {
  struct Case {
    double mean, std, low, high;
  };
  // Straddling the mean, upper tail only, lower tail only, one-sided, far tails.
  for (const Case c :
       {Case{0, 1, -0.3, 0.3}, Case{1, 0.1, 0.5, 1.5}, Case{0, 1, 5, kInf}, Case{0, 1, -kInf, -5},
        Case{0, 1, 1, 2}, Case{0, 1, 20, 21}, Case{0, 1, -30, -29}, Case{2, 3, -1, kInf}}) {
    const Distribution d = normal(DistributionKind::kTruncatedNormal, c.mean, c.std, c.low, c.high);
    const double alpha = (c.low - c.mean) / c.std, beta = (c.high - c.mean) / c.std;
    for (double u : {1e-9, 0.01, 0.3, 0.5, 0.77, 0.999, 1 - 1e-9}) {
      SCOPED_TRACE(testing::Message() << "[" << c.low << ", " << c.high << "] u=" << u);
      const double x = d.quantile(u);
      ASSERT_GE(x, c.low);
      ASSERT_LE(x, c.high);
      const double z = (x - c.mean) / c.std;
      // Compare in whichever tail is small, where the comparison has relative accuracy.
      if (alpha >= 0) {
        const double expected = tail(alpha) - u * (tail(alpha) - tail(beta));
        EXPECT_NEAR(tail(z) / expected, 1.0, 1e-9);
      } else {
        const double expected = cdf(alpha) + u * (cdf(beta) - cdf(alpha));
        EXPECT_NEAR(cdf(z) / expected, 1.0, 1e-9);
      }
    }
  }
}

TEST(Sampling, ChoiceFollowsCumulativeWeights) {
  const Distribution d = choice({3, 4, 5}, {1, 1, 2});
  EXPECT_EQ(d.quantile(0.1), 3);
  EXPECT_EQ(d.quantile(0.2499), 3);
  EXPECT_EQ(d.quantile(0.25), 4);
  EXPECT_EQ(d.quantile(0.4999), 4);
  EXPECT_EQ(d.quantile(0.5), 5);
  EXPECT_EQ(d.quantile(1.0), 5);
  const Distribution equal = choice({7, 8}, {});
  EXPECT_EQ(equal.quantile(0.49), 7);
  EXPECT_EQ(equal.quantile(0.51), 8);
  const Distribution zero_first = choice({1, 2, 3}, {0, 1, 0});
  for (double u : {0.0, 1e-300, 0.5, 1.0}) EXPECT_EQ(zero_first.quantile(u), 2);
}

// ---- sample moments over 10^5 draws, for every method ----------------------------------------

class SampleMoments : public testing::TestWithParam<SamplingMethod> {};

TEST_P(SampleMoments, MatchTheDistributions) {
  constexpr std::int64_t kN = 100000;
  const double lognormal_sigma = 0.1;
  const double tn_mean = 0, tn_std = 0.1, tn_low = -0.05, tn_high = 0.3;
  const MonteCarloSampler sampler(
      spec_of(GetParam(), kN,
              {uniform(0.9, 1.1), normal(DistributionKind::kNormal, 1, 0.1),
               normal(DistributionKind::kLogNormal, 0, lognormal_sigma),
               normal(DistributionKind::kTruncatedNormal, tn_mean, tn_std, tn_low, tn_high),
               choice({3, 4, 5}, {1, 1, 2})}));
  const auto draws = draw_point(sampler, 3);
  const double n = static_cast<double>(kN);

  // Each check: |sample mean − mean| < 5 standard errors; sample variance within 3 %.
  auto check = [&](const std::vector<double>& x, double mean, double variance, const char* what) {
    SCOPED_TRACE(what);
    EXPECT_NEAR(mean_of(x), mean, 5 * std::sqrt(variance / n));
    EXPECT_NEAR(variance_of(x) / variance, 1.0, 0.03);
  };
  check(draws[0], 1.0, 0.2 * 0.2 / 12, "uniform");
  check(draws[1], 1.0, 0.01, "normal");
  const double s2 = lognormal_sigma * lognormal_sigma;
  check(draws[2], std::exp(s2 / 2), (std::exp(s2) - 1) * std::exp(s2), "lognormal");
  const double a = (tn_low - tn_mean) / tn_std, b = (tn_high - tn_mean) / tn_std;
  const double z = cdf(b) - cdf(a), r = (phi(a) - phi(b)) / z;
  check(draws[3], tn_mean + tn_std * r, tn_std * tn_std * (1 + (a * phi(a) - b * phi(b)) / z - r * r),
        "truncated_normal");
  EXPECT_GE(*std::min_element(draws[3].begin(), draws[3].end()), tn_low);
  EXPECT_LE(*std::max_element(draws[3].begin(), draws[3].end()), tn_high);
  EXPECT_GT(*std::min_element(draws[2].begin(), draws[2].end()), 0.0);

  const double p[] = {0.25, 0.25, 0.5};
  for (int k = 0; k < 3; ++k) {
    const double count = static_cast<double>(std::count(draws[4].begin(), draws[4].end(), 3 + k));
    EXPECT_NEAR(count, n * p[k], 5 * std::sqrt(n * p[k] * (1 - p[k]))) << "choice value " << 3 + k;
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, SampleMoments,
                         testing::Values(SamplingMethod::kRandom, SamplingMethod::kLatinHypercube,
                                         SamplingMethod::kSobol),
                         [](const auto& info) {
                           return std::string(kSamplingMethodNames[static_cast<int>(info.param)]);
                         });

// ---- the methods' defining properties ------------------------------------------------------

TEST(Sampling, RandomMethodUsesOneUniformPerParameterOfTheTaskStream) {
  const MonteCarloSampler sampler(
      spec_of(SamplingMethod::kRandom, 10, {uniform(0, 1), uniform(0, 1), uniform(0, 1)}, 7));
  double u[3];
  EXPECT_EQ(sampler.unit_point(23, 2, 3, u), 3u);
  CounterRng rng(7, RandomStream::kSampling, 23);
  for (double v : u) EXPECT_EQ(v, rng.uniform_open());
}

TEST(Sampling, LatinHypercubePutsOneReplicaInEachStratum) {
  for (std::int64_t replicas : {1, 2, 7, 97, 1024}) {
    const MonteCarloSampler sampler(
        spec_of(SamplingMethod::kLatinHypercube, replicas, {uniform(0, 1), uniform(0, 1), uniform(0, 1)}, 5));
    std::vector<std::vector<std::int64_t>> strata_of_points;
    for (std::int64_t g : {0, 1, 2}) {
      const auto u = draw_point(sampler, g, /*unit=*/true);
      for (std::size_t j = 0; j < u.size(); ++j) {
        std::vector<std::int64_t> strata;
        for (double v : u[j]) {
          ASSERT_GT(v, 0.0);
          ASSERT_LT(v, 1.0);
          strata.push_back(static_cast<std::int64_t>(std::floor(v * replicas)));
        }
        std::vector<std::int64_t> sorted = strata;
        std::sort(sorted.begin(), sorted.end());
        for (std::int64_t s = 0; s < replicas; ++s)
          ASSERT_EQ(sorted[s], s) << "R=" << replicas << " grid point " << g << " parameter " << j;
        strata_of_points.push_back(strata);
      }
    }
    // Parameters and grid points get different permutations (no accidental correlation).
    if (replicas >= 7) {
      std::set<std::vector<std::int64_t>> distinct(strata_of_points.begin(), strata_of_points.end());
      EXPECT_EQ(distinct.size(), strata_of_points.size()) << "R=" << replicas;
    }
  }
}

TEST(Sampling, PermuteIndexIsABijection) {
  for (std::uint64_t n : {1u, 2u, 3u, 5u, 16u, 17u, 1000u, 4097u}) {
    for (std::uint64_t key : {0ull, 1ull, 0xdeadbeefcafef00dull}) {
      std::vector<bool> hit(n, false);
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t p = permute_index(i, n, key);
        ASSERT_LT(p, n);
        ASSERT_FALSE(hit[p]) << "n=" << n << " key=" << key;
        hit[p] = true;
      }
    }
  }
  // Large domains work without touching the other indices.
  const std::uint64_t big = (std::uint64_t{1} << 40) + 3;
  EXPECT_LT(permute_index(big - 1, big, 9), big);
  EXPECT_NE(permute_index(5, 1000, 1), permute_index(5, 1000, 2));
}

// The sampler's fast paths are the plain functions bit for bit: the table-driven Feistel rounds
// (for every n, with the fallback beyond the table and for another n), and truncated normals
// drawn with their constants computed once.
TEST(Sampling, FeistelRoundTableIsPermuteIndex) {
  for (std::uint64_t n : {0u, 1u, 2u, 3u, 17u, 1000u, 2048u, 4097u, 1048576u, 1048577u}) {
    const FeistelRoundTable table(n);
    for (std::uint64_t key : {0ull, 7ull, 0xdeadbeefcafef00dull})
      for (std::uint64_t i = 0; i < std::min<std::uint64_t>(n, 300); ++i)
        ASSERT_EQ(table.permute(i, n, key), permute_index(i, n, key)) << "n=" << n << " i=" << i;
    EXPECT_EQ(table.permute(5, 64, 3), permute_index(5, 64, 3));  // another n: computed
  }
}

// The memoized rounds (one memo per key, filled as walks reach its entries) give permute_index
// for every index, whichever order the indices come in and however full the memo already is.
TEST(Sampling, MemoizedFeistelRoundsArePermuteIndex) {
  for (std::uint64_t n : {2u, 3u, 17u, 1000u, 2048u, 4097u, 1048576u}) {
    const FeistelRoundTable table(n);
    ASSERT_EQ(table.memo_size(),
              n <= (1u << 20) ? 4 * (std::uint64_t{1} << ((64 - __builtin_clzll(n - 1) + 1) / 2)) : 0u);
    for (std::uint64_t key : {0ull, 7ull, 0xdeadbeefcafef00dull}) {
      std::vector<std::uint16_t> memo(table.memo_size(), FeistelRoundTable::kUnmemoized);
      const std::uint64_t count = std::min<std::uint64_t>(n, 5000);
      for (int pass = 0; pass < 2; ++pass)  // first pass fills the memo, second reads it
        for (std::uint64_t i = 0; i < count; ++i) {
          const std::uint64_t index = pass == 0 ? i : (i * 7919) % n;
          ASSERT_EQ(table.permute(index, n, key, memo.data()), permute_index(index, n, key))
              << "n=" << n << " key=" << key << " i=" << index;
        }
      if (n <= 4097u) {
        for (std::uint16_t entry : memo)  // unreached, or a half-width output
          EXPECT_TRUE(entry == FeistelRoundTable::kUnmemoized || entry < (1u << 7)) << "n=" << n;
      }
    }
    // An n of another width than the table's: computed, the memo untouched.
    const std::uint64_t other = std::uint64_t{1} << 22;
    std::vector<std::uint16_t> memo(table.memo_size() + 1, FeistelRoundTable::kUnmemoized);
    EXPECT_EQ(table.permute(5, other, 3, memo.data()), permute_index(5, other, 3));
    for (std::uint16_t entry : memo) EXPECT_EQ(entry, FeistelRoundTable::kUnmemoized);
  }
}

// Parameter j's LHS draw depends on j, not on how many parameters follow: its key is the grid
// point's j-th permutation draw and its jitter the task's j-th uniform. So a sampler whose
// parameters are too many to memoize (600 × 4096 round outputs > 2^21) draws its first ones
// exactly as a memoized 8-parameter sampler does, from the first task of a grid point to the last.
TEST(Sampling, LhsDrawsAreTheSameMemoizedOrNot) {
  const std::int64_t replicas = std::int64_t{1} << 20;  // the widest round table: 4 × 1024 outputs
  std::vector<Distribution> few(8, uniform(0.0, 1.0)), many(600, uniform(0.0, 1.0));
  const MonteCarloSampler memoized(spec_of(SamplingMethod::kLatinHypercube, replicas, few, 17));
  const MonteCarloSampler computed(spec_of(SamplingMethod::kLatinHypercube, replicas, many, 17));
  std::vector<double> a(few.size()), b(many.size());
  for (std::int64_t point : {0, 3})
    for (std::int64_t replica : {std::int64_t{0}, std::int64_t{1}, std::int64_t{777}, replicas - 1}) {
      const std::int64_t task = point * replicas + replica;
      memoized.unit_point(task, point, replica, a.data());
      computed.unit_point(task, point, replica, b.data());
      for (std::size_t j = 0; j < a.size(); ++j)
        ASSERT_EQ(a[j], b[j]) << "point " << point << " replica " << replica << " parameter " << j;
    }
}

TEST(Sampling, DrawsAreQuantilesOfUnitPoints) {
  const std::vector<Distribution> kinds = {
      normal(DistributionKind::kTruncatedNormal, 0.0, 0.05, -0.2, 0.2),
      normal(DistributionKind::kTruncatedNormal, 1.0, 2.0, 4.0, kInf),  // far upper tail
      normal(DistributionKind::kTruncatedNormal, 0.0, 1.0, -kInf, -3.0),
      normal(DistributionKind::kLogNormal, 1.4, 0.05), uniform(0.95, 1.05)};
  for (SamplingMethod method : {SamplingMethod::kRandom, SamplingMethod::kLatinHypercube}) {
    const MonteCarloSampler sampler(spec_of(method, 2048, kinds, 3));
    double u[5], x[5];
    for (std::int64_t task = 0; task < 4096; task += 37) {
      sampler.unit_point(task, task / 2048, task % 2048, u);
      sampler.draw(task, task / 2048, task % 2048, x);
      for (std::size_t j = 0; j < kinds.size(); ++j) ASSERT_EQ(x[j], kinds[j].quantile(u[j])) << j;
    }
  }
}

TEST(Sampling, SobolKnownPoints) {
  // Joe–Kuo direction numbers, Gray-code order (as scipy.stats.qmc.Sobol, scramble=False).
  const double expected[][3] = {{0, 0, 0},
                                {0.5, 0.5, 0.5},
                                {0.75, 0.25, 0.25},
                                {0.25, 0.75, 0.75},
                                {0.375, 0.375, 0.625},
                                {0.875, 0.875, 0.125},
                                {0.625, 0.125, 0.875},
                                {0.125, 0.625, 0.375}};
  const SobolSequence sobol(3);
  for (std::uint64_t n = 0; n < 8; ++n) {
    double x[3];
    sobol.point(n, x);
    for (int d = 0; d < 3; ++d) EXPECT_EQ(x[d], expected[n][d]) << "point " << n << " dim " << d;
  }
}

TEST(Sobol, MatchesBoostsEngineAndSeeksInLogTime) {
  constexpr std::size_t kDim = 9;
  const SobolSequence sobol(kDim);
  boost::random::sobol engine(kDim);  // starts at point 1
  double x[kDim];
  for (std::uint64_t n = 1; n <= 5000; ++n) {
    sobol.point(n, x);
    for (std::size_t d = 0; d < kDim; ++d)
      ASSERT_EQ(x[d], static_cast<double>(engine() >> 11) * 0x1.0p-53) << n << " " << d;
  }
  for (std::uint64_t n : {std::uint64_t{1} << 40, (std::uint64_t{1} << 52) + 12345}) {
    engine.seed(n - 1);
    sobol.point(n, x);
    for (std::size_t d = 0; d < kDim; ++d) EXPECT_EQ(x[d], static_cast<double>(engine() >> 11) * 0x1.0p-53);
  }
}

TEST(Sobol, FirstPowerOfTwoPointsAreBalanced) {
  // Including the origin, the first 2^m points put one point in each interval of width 2^-m, in
  // every coordinate (the reason the sampler does not drop the origin).
  const SobolSequence sobol(6);
  for (int m : {1, 4, 8, 11}) {
    const std::uint64_t count = std::uint64_t{1} << m;
    std::vector<std::vector<bool>> hit(6, std::vector<bool>(count, false));
    double x[6];
    for (std::uint64_t n = 0; n < count; ++n) {
      sobol.point(n, x);
      for (int d = 0; d < 6; ++d) {
        const auto cell = static_cast<std::uint64_t>(x[d] * static_cast<double>(count));
        ASSERT_FALSE(hit[d][cell]) << "m=" << m << " dim " << d;
        hit[d][cell] = true;
      }
    }
  }
}

TEST(Sampling, SobolMethodShiftsEachGridPointByItsOwnConstant) {
  constexpr std::int64_t kR = 64;
  const MonteCarloSampler sampler(spec_of(SamplingMethod::kSobol, kR, {uniform(0, 1), uniform(0, 1)}, 11));
  const SobolSequence sobol(2);
  double shift_of_point[2][2];
  for (std::int64_t g : {0, 1}) {
    const auto u = draw_point(sampler, g, /*unit=*/true);
    for (std::int64_t r = 0; r < kR; ++r) {
      double x[2];
      sobol.point(static_cast<std::uint64_t>(r), x);
      for (int j = 0; j < 2; ++j) {
        double shift = u[j][r] - x[j];
        if (shift < 0) shift += 1;
        if (r == 0) shift_of_point[g][j] = shift;
        EXPECT_NEAR(std::remainder(shift - shift_of_point[g][j], 1.0), 0.0, 1e-15);
      }
    }
  }
  EXPECT_NE(shift_of_point[0][0], shift_of_point[1][0]);
  EXPECT_NE(shift_of_point[0][0], shift_of_point[0][1]);
  double u[2];
  EXPECT_EQ(sampler.unit_point(5, 0, 5, u), 0u);  // no draws from the task's own stream
}

TEST(Sampling, DrawsDependOnlyOnSeedTaskAndConfig) {
  for (SamplingMethod method :
       {SamplingMethod::kRandom, SamplingMethod::kLatinHypercube, SamplingMethod::kSobol}) {
    const auto spec = spec_of(method, 8, {uniform(0, 1), normal(DistributionKind::kNormal, 0, 1)});
    const MonteCarloSampler a(spec), b(spec);
    double first[2], again[2], other[2];
    a.draw(19, 2, 3, first);
    for (std::int64_t t = 0; t < 24; ++t) b.draw(t, t / 8, t % 8, other);  // unrelated calls
    b.draw(19, 2, 3, again);
    EXPECT_EQ(first[0], again[0]);
    EXPECT_EQ(first[1], again[1]);
    const MonteCarloSampler reseeded(spec_of(method, 8, {uniform(0, 1), uniform(0, 1)}, 43));
    reseeded.draw(19, 2, 3, other);
    EXPECT_NE(first[0], other[0]);
  }
}

}  // namespace
}  // namespace simpact
