// The config loader: every valid form parses to the values it says (the docs' full example included).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sweep_config_test_support.hpp"

namespace simpact {
namespace {

using namespace sweep_config_test;

TEST(SweepConfig, ParsesTheFullExample) {
  const SweepConfig c = parse(kFullExample);
  EXPECT_EQ(c.model, "billiards");
  EXPECT_EQ(c.fixed.entries().size(), 2u);
  EXPECT_EQ(c.fixed.get("r_a", 0), 1.0);
  EXPECT_EQ(c.fixed.get("restitution", 0), 1.0);

  ASSERT_EQ(c.grid.size(), 3u);  // document order = slowest first
  EXPECT_EQ(c.grid[0].name, "theta");
  EXPECT_EQ(c.grid[1].name, "ratio");
  EXPECT_EQ(c.grid[2].name, "speed");
  const std::vector<double> theta = {kPi / 3, kPi / 3 + kPi / 6, kPi / 3 + 2 * kPi / 6, kPi / 3 + 3 * kPi / 6,
                                     kPi};
  ASSERT_EQ(c.grid[0].values.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(c.grid[0].values[i], theta[i], 1e-15);
  EXPECT_EQ(c.grid[0].values.front(), kPi / 3);  // endpoints exact
  EXPECT_EQ(c.grid[0].values.back(), kPi);
  EXPECT_EQ(c.grid[0].units, "rad");  // from the model's ParameterInfo
  EXPECT_EQ(c.grid[0].long_name, "angle between the contact normals");
  ASSERT_EQ(c.grid[1].values.size(), 3u);
  EXPECT_EQ(c.grid[1].values[0], 0.1);
  EXPECT_NEAR(c.grid[1].values[1], 1.0, 1e-15);  // geometric midpoint
  EXPECT_EQ(c.grid[1].values[2], 10.0);
  EXPECT_EQ(c.grid[2].values, (std::vector<double>{0, 0.7, 1}));
  EXPECT_EQ(c.grid[2].units, "ft/s");  // overrides
  EXPECT_EQ(c.grid[2].long_name, "cue speed in feet");

  ASSERT_TRUE(c.monte_carlo.has_value());
  const MonteCarloSpec& mc = *c.monte_carlo;
  EXPECT_EQ(mc.samples_per_point, 1000);
  EXPECT_EQ(mc.seed, 42u);
  EXPECT_EQ(mc.method, SamplingMethod::kLatinHypercube);
  ASSERT_EQ(mc.parameters.size(), 4u);
  EXPECT_EQ(mc.parameters[0].name, "psi");
  EXPECT_EQ(mc.parameters[0].units, "rad");
  EXPECT_EQ(mc.parameters[0].distribution.kind, DistributionKind::kUniform);
  EXPECT_EQ(mc.parameters[0].distribution.a, -0.1);
  EXPECT_EQ(mc.parameters[0].distribution.b, 0.1);
  EXPECT_EQ(mc.parameters[1].distribution.kind, DistributionKind::kLogNormal);
  EXPECT_EQ(mc.parameters[1].distribution.b, 0.1);
  const Distribution& tn = mc.parameters[2].distribution;
  EXPECT_EQ(tn.kind, DistributionKind::kTruncatedNormal);
  EXPECT_EQ(tn.a, 1.0);
  EXPECT_EQ(tn.b, 0.1);
  EXPECT_EQ(tn.low, 0.5);
  EXPECT_EQ(tn.high, 1.5);
  const Distribution& choice = mc.parameters[3].distribution;
  EXPECT_EQ(choice.kind, DistributionKind::kChoice);
  EXPECT_EQ(choice.values, (std::vector<double>{3, 4, 5}));
  EXPECT_EQ(choice.weights, (std::vector<double>{1, 1, 2}));

  EXPECT_EQ(c.orderings, (std::vector<OrderingPolicy>{OrderingPolicy::kAll, OrderingPolicy::kArgmin,
                                                      OrderingPolicy::kRandom}));
  EXPECT_EQ(c.minimality, Minimality::kDefinition1);
  EXPECT_EQ(c.seed, 7u);
  EXPECT_EQ(c.on_task_error, TaskErrorMode::kRecord);
  EXPECT_EQ(c.limits.max_steps, 50);
  EXPECT_EQ(c.limits.max_depth, 16);
  EXPECT_EQ(c.limits.max_nodes, 1000);
  EXPECT_TRUE(c.output.samples);
  EXPECT_EQ(c.output.chunk_size, 64);
  EXPECT_EQ(c.output.compression, 9);

  EXPECT_EQ(c.grid_points(), 5 * 3 * 3);
  EXPECT_EQ(c.replicas(), 1000);
  EXPECT_EQ(c.task_count(), 45 * 1000);
  EXPECT_EQ(c.source_text, kFullExample);
  EXPECT_EQ(c.source_hash, sha256_hex(kFullExample));
}

TEST(SweepConfig, DefaultsOfAMinimalConfig) {
  const SweepConfig c = parse("model: billiards\nparams: {theta: pi/2}\n");
  EXPECT_EQ(c.fixed.get("theta", 0), kPi / 2);
  EXPECT_TRUE(c.grid.empty());
  EXPECT_FALSE(c.monte_carlo.has_value());
  EXPECT_EQ(c.orderings, (std::vector<OrderingPolicy>{OrderingPolicy::kAll, OrderingPolicy::kArgmin,
                                                      OrderingPolicy::kArgmax}));
  EXPECT_EQ(c.minimality, Minimality::kPropagation);
  EXPECT_EQ(c.seed, 0u);
  EXPECT_EQ(c.on_task_error, TaskErrorMode::kAbort);
  EXPECT_EQ(c.limits.max_steps, 1000);
  EXPECT_EQ(c.limits.max_depth, 256);
  EXPECT_EQ(c.limits.max_nodes, 200000);
  EXPECT_FALSE(c.output.samples);
  EXPECT_EQ(c.output.chunk_size, 0);
  EXPECT_EQ(c.output.compression, 4);
  EXPECT_EQ(c.grid_points(), 1);
  EXPECT_EQ(c.replicas(), 1);
  EXPECT_EQ(c.task_count(), 1);
}

TEST(SweepConfig, GridForms) {
  const SweepConfig c = parse(R"(
model: billiards
grid:
  theta: {start: pi/2, stop: pi/3, num: 1}     # one point: [start]
  n: {start: 1, stop: 8, num: 8}               # integer parameter on an integral range
  speed: [-1, "2*e", 1e-3]                     # a plain list is a values axis
  m_c: {start: 1, stop: 4, num: 3, spacing: linear}
)");
  ASSERT_EQ(c.grid.size(), 4u);
  EXPECT_EQ(c.grid[0].values, std::vector<double>{kPi / 2});
  EXPECT_EQ(c.grid[1].values, (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(c.grid[2].values, (std::vector<double>{-1, 2 * std::exp(1.0), 1e-3}));
  EXPECT_EQ(c.grid[3].values, (std::vector<double>{1, 2.5, 4}));
  EXPECT_EQ(c.grid_points(), 1 * 8 * 3 * 3);
}

TEST(SweepConfig, LogAxisIsGeometric) {
  const SweepConfig c = parse(
      "model: billiards\nparams: {theta: 2}\ngrid:\n  ratio: {start: 0.01, stop: 100, num: 5, "
      "spacing: log}\n");
  const std::vector<double> expected = {0.01, 0.1, 1, 10, 100};
  ASSERT_EQ(c.grid[0].values.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(c.grid[0].values[i], expected[i], 1e-14 * expected[i]);
  for (int i = 1; i < 4; ++i)  // constant ratio between neighbours
    EXPECT_NEAR(c.grid[0].values[i + 1] / c.grid[0].values[i], 10.0, 1e-13);
}

TEST(SweepConfig, TotalSamplesAreSpreadOverGridPoints) {
  const SweepConfig c = parse(R"(
model: billiards
grid: {theta: {start: 1.1, stop: 3, num: 7}}
monte_carlo:
  samples: 1e3          # an integral expression is an integer
  params: {psi: {dist: uniform, low: -0.1, high: 0.1}}
)");
  EXPECT_EQ(c.monte_carlo->samples_per_point, 143);  // ceil(1000 / 7)
  EXPECT_EQ(c.task_count(), 7 * 143);
  EXPECT_EQ(c.monte_carlo->method, SamplingMethod::kRandom);
}

TEST(SweepConfig, SeedDefaultsToTheMonteCarloSeed) {
  const SweepConfig c = parse(
      "model: billiards\nparams: {theta: 2}\nmonte_carlo: {samples_per_point: 2, seed: "
      "18446744073709551615}\n");
  EXPECT_EQ(c.monte_carlo->seed, 18446744073709551615u);
  EXPECT_EQ(c.seed, 18446744073709551615u);
  EXPECT_TRUE(c.monte_carlo->parameters.empty());
}

TEST(SweepConfig, TruncatedNormalBoundsDefaultToTheParameterRange) {
  const SweepConfig c = parse(
      "model: billiards\nparams: {theta: 2}\nmonte_carlo:\n  samples_per_point: 4\n  params:\n"
      "    psi: {dist: truncated_normal, mean: 0, std: 1}\n"
      "    speed: {dist: normal, mean: 1, std: 2}\n");
  const Distribution& d = c.monte_carlo->parameters[0].distribution;
  EXPECT_EQ(d.low, -kPi / 2);
  EXPECT_EQ(d.high, kPi / 2);
  EXPECT_EQ(c.monte_carlo->parameters[1].distribution.kind, DistributionKind::kNormal);
}

TEST(SweepConfig, OrderingsAndOptions) {
  const SweepConfig c = parse(
      "model: cradle\nparams: {balls: 3}\norderings: index\nminimality: propagation\n"
      "on_task_error: abort\noutput: {samples: no, compression: 0}\n");
  EXPECT_EQ(c.orderings, std::vector<OrderingPolicy>{OrderingPolicy::kIndex});
  EXPECT_FALSE(c.output.samples);
  EXPECT_EQ(c.output.compression, 0);
  // A model without parameters still has restitution.
  const SweepConfig g = parse("model: generic\ngrid: {restitution: [0, 0.5, 1]}\n");
  EXPECT_EQ(g.grid[0].units, "1");
}

TEST(SweepConfig, WithoutACatalogOnlyModelNamesAreChecked) {
  const SweepConfig c = parse_sweep_config("model: cradle\nparams: {anything: 3}\n", kModels, {});
  EXPECT_EQ(c.fixed.get("anything", 0), 3.0);
}

}  // namespace
}  // namespace simpact
