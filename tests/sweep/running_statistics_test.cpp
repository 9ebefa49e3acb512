// RunningStatistics (Welford) against numpy-style closed forms: mean, population std (ddof 0),
// min, max, count; non-finite values skipped; the same values in the same order give the same
// bits (the sweep's determinism rests on it), and NaN for an empty set; merged partials agree with
// the fold, keep its bits when merged into an empty set, and the same merge order gives the same bits.
#include "simpact/sweep/running_statistics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace simpact {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

RunningStatistics of(const std::vector<double>& xs) {
  RunningStatistics s;
  for (double x : xs) s.add(x);
  return s;
}

TEST(RunningStatistics, SmallSetsMatchClosedForms) {
  // numpy: mean([2,4,4,4,5,5,7,9]) = 5, std(ddof=0) = 2 exactly.
  const RunningStatistics s = of({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(s.count(), 8);
  EXPECT_DOUBLE_EQ(s.mean(), 5.0);
  EXPECT_DOUBLE_EQ(s.std(), 2.0);
  EXPECT_EQ(s.min(), 2.0);
  EXPECT_EQ(s.max(), 9.0);
  // One value: std 0 (ddof 0), min = max = mean.
  const RunningStatistics one = of({-3.25});
  EXPECT_EQ(one.count(), 1);
  EXPECT_EQ(one.mean(), -3.25);
  EXPECT_EQ(one.std(), 0.0);
  EXPECT_EQ(one.min(), -3.25);
  EXPECT_EQ(one.max(), -3.25);
  // 1..n: mean (n+1)/2, variance (n²−1)/12.
  std::vector<double> ramp;
  for (int i = 1; i <= 1001; ++i) ramp.push_back(i);
  const RunningStatistics r = of(ramp);
  EXPECT_NEAR(r.mean(), 501.0, 1e-12);
  EXPECT_NEAR(r.std(), std::sqrt((1001.0 * 1001.0 - 1.0) / 12.0), 1e-10);
}

TEST(RunningStatistics, AgreesWithTwoPassOnRandomData) {
  std::mt19937_64 gen(3);
  std::normal_distribution<double> normal(1e3, 1e-2);  // large mean, small spread: Welford's case
  std::vector<double> xs(10000);
  for (double& x : xs) x = normal(gen);
  double mean = 0.0;
  for (double x : xs) mean += x;
  mean /= static_cast<double>(xs.size());
  double var = 0.0;
  for (double x : xs) var += (x - mean) * (x - mean);
  var /= static_cast<double>(xs.size());
  const RunningStatistics s = of(xs);
  EXPECT_NEAR(s.mean(), mean, 1e-12 * mean);
  EXPECT_NEAR(s.std(), std::sqrt(var), 1e-9 * std::sqrt(var));
  EXPECT_EQ(s.min(), *std::min_element(xs.begin(), xs.end()));
  EXPECT_EQ(s.max(), *std::max_element(xs.begin(), xs.end()));
}

TEST(RunningStatistics, NonFiniteValuesAreNotCounted) {
  const RunningStatistics s = of({kNaN, 1.0, kInf, 3.0, -kInf, kNaN});
  EXPECT_EQ(s.count(), 2);
  EXPECT_EQ(s.mean(), 2.0);
  EXPECT_EQ(s.std(), 1.0);
  EXPECT_EQ(s.min(), 1.0);
  EXPECT_EQ(s.max(), 3.0);
  // Only NaN (or nothing): every statistic NaN, count 0.
  for (const RunningStatistics& e : {of({kNaN, kNaN}), of({})}) {
    EXPECT_EQ(e.count(), 0);
    EXPECT_TRUE(std::isnan(e.mean()));
    EXPECT_TRUE(std::isnan(e.std()));
    EXPECT_TRUE(std::isnan(e.min()));
    EXPECT_TRUE(std::isnan(e.max()));
  }
}

TEST(RunningStatistics, SameOrderSameBits) {
  std::mt19937_64 gen(9);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> xs(4097);
  for (double& x : xs) x = u(gen) * std::exp(10 * u(gen));
  const RunningStatistics a = of(xs), b = of(xs);
  EXPECT_TRUE(same_bits(a.mean(), b.mean()));
  EXPECT_TRUE(same_bits(a.std(), b.std()));
  // Interleaving NaNs (tasks with no value) does not change a bit of the others' statistics.
  std::vector<double> holes;
  for (double x : xs) {
    holes.push_back(x);
    holes.push_back(kNaN);
  }
  const RunningStatistics c = of(holes);
  EXPECT_TRUE(same_bits(a.mean(), c.mean()));
  EXPECT_TRUE(same_bits(a.std(), c.std()));
  EXPECT_EQ(a.count(), c.count());
}

// The merge of partials (what the final write does with the journal's per-chunk statistics).
RunningStatistics merged(const std::vector<double>& xs, std::size_t cut) {
  RunningStatistics a = of({xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(cut)});
  a.merge(of({xs.begin() + static_cast<std::ptrdiff_t>(cut), xs.end()}));
  return a;
}

TEST(RunningStatistics, MergeMatchesClosedFormsAndTheSequentialFold) {
  // {2,4,4,4} ∪ {5,5,7,9}: mean 5, population std 2 exactly, as the sequential fold.
  const std::vector<double> xs{2, 4, 4, 4, 5, 5, 7, 9};
  const RunningStatistics m = merged(xs, 4);
  EXPECT_EQ(m.count(), 8);
  EXPECT_DOUBLE_EQ(m.mean(), 5.0);
  EXPECT_DOUBLE_EQ(m.std(), 2.0);
  EXPECT_EQ(m.min(), 2.0);
  EXPECT_EQ(m.max(), 9.0);
  // Large mean, small spread (Welford's hard case): every split agrees with the fold to rounding,
  // and min/max/count exactly.
  std::mt19937_64 gen(5);
  std::normal_distribution<double> normal(1e3, 1e-2);
  std::vector<double> ys(2048);
  for (double& y : ys) y = normal(gen);
  const RunningStatistics fold = of(ys);
  for (std::size_t cut : {1u, 7u, 256u, 1024u, 2047u}) {
    const RunningStatistics s = merged(ys, cut);
    EXPECT_EQ(s.count(), fold.count());
    EXPECT_NEAR(s.mean(), fold.mean(), 1e-12 * std::abs(fold.mean())) << cut;
    EXPECT_NEAR(s.std(), fold.std(), 1e-9 * fold.std()) << cut;
    EXPECT_EQ(s.min(), fold.min());
    EXPECT_EQ(s.max(), fold.max());
  }
}

TEST(RunningStatistics, MergeWithAnEmptySetKeepsEveryBit) {
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> xs(1000);
  for (double& x : xs) x = u(gen) * std::exp(5 * u(gen));
  const RunningStatistics fold = of(xs);
  // A grid point inside one chunk: its one partial merged into the empty accumulator.
  RunningStatistics into_empty;
  into_empty.merge(fold);
  RunningStatistics with_empty = fold;
  with_empty.merge(RunningStatistics{});
  with_empty.merge(of({kNaN, kInf}));  // a partial with no finite value is empty too
  for (const RunningStatistics& s : {into_empty, with_empty}) {
    EXPECT_TRUE(same_bits(s.mean(), fold.mean()));
    EXPECT_TRUE(same_bits(s.std(), fold.std()));
    EXPECT_EQ(s.count(), fold.count());
    EXPECT_EQ(s.min(), fold.min());
    EXPECT_EQ(s.max(), fold.max());
  }
  // The journal's state round trip is exact.
  const RunningStatistics back = RunningStatistics::from_state(fold.state());
  EXPECT_TRUE(same_bits(back.mean(), fold.mean()));
  EXPECT_TRUE(same_bits(back.std(), fold.std()));
  // Empty stays empty (NaN statistics, count 0).
  RunningStatistics none;
  none.merge(RunningStatistics{});
  EXPECT_EQ(none.count(), 0);
  EXPECT_TRUE(std::isnan(none.mean()));
}

TEST(RunningStatistics, SameMergeOrderSameBits) {
  std::mt19937_64 gen(13);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> xs(999);
  for (double& x : xs) x = u(gen) * std::exp(8 * u(gen));
  auto in_chunks = [&](std::size_t chunk) {
    RunningStatistics total;
    for (std::size_t a = 0; a < xs.size(); a += chunk)
      total.merge(of({xs.begin() + static_cast<std::ptrdiff_t>(a),
                      xs.begin() + static_cast<std::ptrdiff_t>(std::min(xs.size(), a + chunk))}));
    return total;
  };
  const RunningStatistics a = in_chunks(64), b = in_chunks(64);
  EXPECT_TRUE(same_bits(a.mean(), b.mean()));
  EXPECT_TRUE(same_bits(a.std(), b.std()));
  EXPECT_NEAR(in_chunks(7).mean(), a.mean(), 1e-12 * std::abs(a.mean()) + 1e-15);
}

}  // namespace
}  // namespace simpact
