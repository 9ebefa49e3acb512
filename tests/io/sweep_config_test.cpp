// The config loader: every valid form parses to the values it says, and every kind of mistake
// gives its one-line message naming the key path, all of them at once.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "simpact/io/sha256.hpp"
#include "simpact/io/sweep_config_yaml.hpp"

namespace simpact {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();
const double kRequired = std::nan("");

// A stand-in for the models' catalog, with the kinds of parameters the checks care about.
bool test_catalog(const std::string& model, std::vector<ParameterInfo>& parameters) {
  if (model == "billiards") {
    parameters = {
        {"theta", "rad", "angle between the contact normals", kRequired, kPi / 3, kPi, false},
        {"ratio", "1", "radius ratio", 1.0, 1e-300, kInf, false},
        {"r_a", "m", "radius of ball a", 1.0, 1e-300, kInf, false},
        {"r_b", "m", "radius of ball b", 1.0, 1e-300, kInf, false},
        {"m_c", "kg", "mass of the cue ball", 1.0, 0.0, kInf, false},
        {"psi", "rad", "cue direction", 0.0, -kPi / 2, kPi / 2, false},
        {"speed", "m s-1", "cue speed", 1.0, -kInf, kInf, false},
        {"n", "1", "number of targets", 2.0, 1.0, 8.0, true},
        {"restitution", "1", "coefficient of restitution", 1.0, 0.0, 1.0, false},
    };
    return true;
  }
  if (model == "cradle") {
    parameters = {{"balls", "1", "number of balls", kRequired, 2, 32, true}};
    return true;
  }
  if (model == "generic") {
    parameters = {};
    return true;
  }
  return false;
}

const std::vector<std::string> kModels = {"billiards", "cradle", "generic"};

SweepConfig parse(const std::string& yaml) {
  return parse_sweep_config(yaml, kModels, test_catalog);
}

// The error lines of a config that must be rejected.
std::vector<std::string> errors_of(const std::string& yaml) {
  try {
    parse(yaml);
  } catch (const ConfigErrors& e) {
    return e.lines;
  }
  ADD_FAILURE() << "config was accepted:\n" << yaml;
  return {};
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

// The example of docs/config.md, in full.
const char* kFullExample = R"(# simpact run configs/billiards_theta.yaml -o results/billiards_theta.h5
model: billiards
params:
  r_a: 1.0
  restitution: 1.0
grid:
  theta: {start: pi/3, stop: pi, num: 5}
  ratio: {start: 0.1, stop: 10, num: 3, spacing: log}
  speed: {values: [0, 0.7, 1], units: ft/s, long_name: cue speed in feet}
monte_carlo:
  samples_per_point: 1000
  seed: 42
  method: lhs
  params:
    psi: {dist: uniform, low: -0.1, high: 0.1}
    r_b: {dist: lognormal, mu: 0, sigma: 0.1}
    m_c: {dist: truncated_normal, mean: 1, std: 0.1, low: 0.5, high: 1.5}
    n:   {dist: choice, values: [3, 4, 5], weights: [1, 1, 2]}
orderings: [all, argmin, random]
minimality: definition1
seed: 7
on_task_error: record
limits: {max_steps: 50, max_depth: 16, max_nodes: 1000}
output:
  samples: true
  chunk_size: 64
  compression: 9
)";

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

// ---- errors --------------------------------------------------------------------------------

struct ErrorCase {
  std::string yaml;
  std::string line;
};

TEST(SweepConfig, EachMistakeHasItsOneLineMessage) {
  const std::string base = "model: billiards\nparams: {theta: 2}\n";
  const std::vector<ErrorCase> cases = {
      {"model: billiards\ngrid:\n  theta: {start: 1.1, stop: 3, nmu: 4}\n",
       "grid.theta.nmu: unknown key (did you mean 'num'?)"},
      {"model: billiards\ngrid:\n  theta: {start: 1.1, stop: 3, num: 4, wobble: 1}\n",
       "grid.theta.wobble: unknown key (allowed: start, stop, num, spacing, values, units, "
       "long_name)"},
      {"model: billiards\ngrid:\n  thetta: {start: 1.1, stop: 3, num: 4}\n",
       "grid.thetta: unknown parameter of model 'billiards' (did you mean 'theta'?)"},
      {"model: biliards\n",
       "model: unknown model 'biliards' (did you mean 'billiards'?; allowed: billiards, cradle, "
       "generic)"},
      {"model: trex\n", "model: unknown model 'trex' (allowed: billiards, cradle, generic)"},
      {"params: {}\n", "model: required (allowed: billiards, cradle, generic)"},
      {"model: billiards\ngrid:\n  theta: {start: 1.1, stop: 3, num: 0}\n",
       "grid.theta.num: must be a positive integer"},
      {"model: billiards\ngrid:\n  theta: {start: 1.1, stop: 3, num: 2.5}\n",
       "grid.theta.num: must be a positive integer"},
      {(base + "output: {compression: 12}\n"), "output.compression: must be an integer in 0..9"},
      {(base + "orderings: [all, argmn]\n"),
       "orderings[1]: unknown ordering 'argmn' (allowed: argmin, argmax, index, reverse, random, "
       "all)"},
      {(base + "orderings: [all, all]\n"), "orderings[1]: 'all' is listed twice"},
      {(base + "monte_carlo:\n  samples_per_point: 2\n  params:\n    r_a: {dist: unifrm}\n"),
       "monte_carlo.params.r_a.dist: unknown distribution 'unifrm' (allowed: uniform, normal, "
       "lognormal, truncated_normal, choice)"},
      {"model: billiards\ngrid:\n  theta: {values: [1.5, 2, 3, 4.5]}\n",
       "grid.theta.values[3]: 4.5 is outside the allowed range [1.0472, 3.14159] of 'theta' (rad)"},
      {"model: billiards\ngrid:\n  theta: {start: 1, stop: 3, num: 3}\n",
       "grid.theta.start: 1 is outside the allowed range [1.0472, 3.14159] of 'theta' (rad)"},
      {(base + "params: {r_a: -1}\n"), "params: duplicate key"},
      {"model: billiards\nparams: {theta: 2, r_a: -1}\n",
       "params.r_a: -1 is outside the allowed range [1e-300, inf] of 'r_a' (m)"},
      {"model: billiards\nparams: {theta: 2, n: 2.5}\n",
       "params.n: 2.5 is not an integer ('n' takes integer values)"},
      {"model: billiards\ngrid:\n  n: {start: 1, stop: 2, num: 3}\nparams: {theta: 2}\n",
       "grid.n: point 1 (1.5) is not an integer ('n' takes integer values)"},
      {"model: billiards\n",
       "params: missing required parameter 'theta' of model 'billiards' (give it in params, grid "
       "or monte_carlo.params)"},
      {"model: billiards\nparams: {theta: 2}\ngrid: {theta: [2, 3]}\n",
       "grid.theta: 'theta' is already given in params (a parameter is fixed, a grid axis or "
       "random, only one of these)"},
      {(base + "grid: {psi: [0]}\nmonte_carlo:\n  samples: 3\n  params: {psi: {dist: uniform, "
               "low: 0, high: 1}}\n"),
       "monte_carlo.params.psi: 'psi' is already given in grid (a parameter is fixed, a grid axis "
       "or random, only one of these)"},
      {(base + "grid: {ratio: {start: 0, stop: 1, num: 3, spacing: log}}\n"),
       "grid.ratio.start: must be > 0 with spacing: log (got 0)"},
      {(base + "grid: {speed: {start: 0, stop: 1, num: 3, spacing: cubic}}\n"),
       "grid.speed.spacing: unknown spacing 'cubic' (allowed: linear, log)"},
      {(base + "grid: {speed: {start: 0, num: 3}}\n"),
       "grid.speed.stop: missing (a range needs start, stop and num)"},
      {(base + "grid: {speed: {start: 0, stop: 1, num: 3, values: [1]}}\n"),
       "grid.speed: give either start/stop/num or values, not both"},
      {(base + "grid: {speed: {units: m}}\n"),
       "grid.speed: needs start, stop and num (and optional spacing), or values"},
      {(base + "grid: {speed: {values: []}}\n"), "grid.speed.values: must be a non-empty list of numbers"},
      {(base + "grid: {speed: {start: pi/, stop: 1, num: 2}}\n"),
       "grid.speed.start: invalid expression 'pi/': expected a number, pi, e, sqrt(...) or '(' at "
       "the end"},
      {(base + "monte_carlo: {samples: 4, samples_per_point: 2}\n"),
       "monte_carlo: give either samples_per_point or samples, not both"},
      {(base + "monte_carlo: {seed: 3}\n"),
       "monte_carlo: needs samples_per_point (replicas of each grid point) or samples (in total)"},
      {(base + "monte_carlo: {samples: 4, method: halton}\n"),
       "monte_carlo.method: unknown method 'halton' (allowed: random, lhs, sobol)"},
      {(base + "monte_carlo:\n  samples: 4\n  params: {speed: {dist: normal, mean: 0, std: 0}}\n"),
       "monte_carlo.params.speed.std: must be > 0 (got 0)"},
      {(base + "monte_carlo:\n  samples: 4\n  params: {m_c: {dist: normal, mean: 1, std: 0.1}}\n"),
       "monte_carlo.params.m_c.dist: normal draws can fall outside the allowed range [0, inf] of "
       "'m_c' (kg): use truncated_normal with low/high inside it"},
      {(base + "monte_carlo:\n  samples: 4\n  params: {psi: {dist: lognormal, mu: 0, sigma: 1}}\n"),
       "monte_carlo.params.psi.dist: lognormal draws can fall outside the allowed range [-1.5708, "
       "1.5708] of 'psi' (rad): use truncated_normal with low/high inside it"},
      {(base + "monte_carlo:\n  samples: 4\n  params: {psi: {dist: uniform, low: 0.2, high: 0.1}}\n"),
       "monte_carlo.params.psi.high: must be greater than low (0.2)"},
      {(base + "monte_carlo:\n  samples: 4\n  params: {psi: {dist: uniform, low: -2, high: 0.1}}\n"),
       "monte_carlo.params.psi.low: -2 is outside the allowed range [-1.5708, 1.5708] of 'psi' "
       "(rad)"},
      {(base + "monte_carlo:\n  samples: 4\n  params: {psi: {dist: uniform, low: 0, hi: 0.1}}\n"),
       "monte_carlo.params.psi.hi: unknown key (did you mean 'high'?)"},
      {(base + "monte_carlo:\n  samples: 4\n  params: {psi: {dist: uniform, mean: 0, high: 1}}\n"),
       "monte_carlo.params.psi.mean: not used by dist 'uniform' (it takes: low, high)"},
      {(base + "monte_carlo:\n  samples: 4\n  params: {psi: {dist: uniform, high: 1}}\n"),
       "monte_carlo.params.psi.low: missing (uniform needs low, high)"},
      {(base + "monte_carlo:\n  samples: 4\n  params: {n: {dist: uniform, low: 1, high: 3}}\n"),
       "monte_carlo.params.n.dist: 'n' takes integer values: use dist: choice"},
      {(base + "monte_carlo:\n  samples: 4\n  params: {n: {dist: choice, values: [1, 2], weights: "
               "[1]}}\n"),
       "monte_carlo.params.n.weights: must have one entry per value (2 values, 1 weights)"},
      {(base + "monte_carlo:\n  samples: 4\n  params: {n: {dist: choice, values: [1, 2], weights: "
               "[1, -1]}}\n"),
       "monte_carlo.params.n.weights[1]: must be a non-negative number (got -1)"},
      {(base + "monte_carlo:\n  samples: 4\n  params: {n: {dist: choice, values: [1, 9]}}\n"),
       "monte_carlo.params.n.values[1]: 9 is outside the allowed range [1, 8] of 'n'"},
      {(base + "monte_carlo:\n  samples: 4\n  params: {speed: {dist: truncated_normal, mean: 0, "
               "std: 1, low: 40, high: 50}}\n"),
       "monte_carlo.params.speed: [40, 50] lies too far in the tail of normal(mean 0, std 1) to "
       "sample"},
      {(base + "monte_carlo:\n  samples: 4\n  params: {speed: {mean: 1}}\n"),
       "monte_carlo.params.speed.dist: missing (allowed: uniform, normal, lognormal, "
       "truncated_normal, choice)"},
      {(base + "limits: {max_steps: 0}\n"), "limits.max_steps: must be a positive integer"},
      {(base + "limits: {max_depth: 3000000000}\n"), "limits.max_depth: must be at most 2147483647"},
      {(base + "limits: {max_step: 10}\n"), "limits.max_step: unknown key (did you mean 'max_steps'?)"},
      {(base + "output: {samples: maybe}\n"), "output.samples: must be true or false"},
      {(base + "output: {chunk_size: -1}\n"),
       "output.chunk_size: must be a non-negative integer (tasks per chunk, 0 = auto)"},
      {(base + "minimality: minimal\n"),
       "minimality: unknown minimality 'minimal' (allowed: propagation, definition1)"},
      {(base + "on_task_error: ignore\n"), "on_task_error: unknown mode 'ignore' (allowed: abort, record)"},
      {(base + "seed: -3\n"), "seed: must be a non-negative integer (at most 18446744073709551615)"},
      {(base + "montecarlo: {samples: 3}\n"), "montecarlo: unknown key (did you mean 'monte_carlo'?)"},
      {(base + "grid: [theta]\n"),
       "grid: must be a mapping of parameter name to {start, stop, num} or {values}"},
      {"model: billiards\nparams: {theta: [1, 2]}\n",
       "params.theta: must be a number or an expression such as pi/3"},
      {"model: billiards\nparams: {theta: 1e999}\n", "params.theta: '1e999' is not finite"},
      {(base + "grid: {speed: {start: 0, stop: 1, num: 1e9}}\n"),
       "grid.speed.num: must be at most 100000000 (points per axis)"},
      // Refused from the declared sizes, before either axis is built (25 s and 3 GB before).
      {"model: billiards\ngrid: {theta: {start: 1, stop: 3, num: 1e8}, r_c: {start: 0.5, stop: 1, num: "
       "100000000}}\n",
       "grid: 1e+08 x 1e+08 = 1e+16 grid points is too many (at most 2^40 = 1099511627776: the maps alone "
       "would "
       "take over 5.82e+05 TiB)"},
      {"model: billiards\ngrid: {theta: [2, 3]}\nmonte_carlo: {samples_per_point: 4000000000000000000}\n",
       "monte_carlo: 2 grid points x 4e+18 samples per point is too many tasks (at most 2^62)"},
      {"- just\n- a list\n",
       "config: not a mapping; expected a mapping with keys model, params, grid, monte_carlo, "
       "orderings, minimality, seed, on_task_error, limits, output, design, sensitivity, simulate, audit"},
      {"",
       "config: the file is empty; expected a mapping with keys model, params, grid, "
       "monte_carlo, orderings, minimality, seed, on_task_error, limits, output, design, sensitivity, "
       "simulate, audit"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.line);
    const auto lines = errors_of(c.yaml);
    bool found = false;
    for (const auto& line : lines) found = found || line == c.line;
    EXPECT_TRUE(found) << "got:\n" << joined(lines);
  }
}

TEST(SweepConfig, ReportsEveryErrorAtOnce) {
  const auto lines = errors_of(R"(
model: billiards
params: {theta: 2, r_a: -1}
grid:
  ratio: {start: 1, stop: 2, num: 0}
  thetta: [1]
orderings: [argmn]
output: {compression: 10, chunk: 3}
)");
  EXPECT_EQ(lines.size(), 6u) << joined(lines);
  const std::vector<std::string> expected = {
      "params.r_a: -1 is outside the allowed range [1e-300, inf] of 'r_a' (m)",
      "grid.ratio.num: must be a positive integer",
      "grid.thetta: unknown parameter of model 'billiards' (did you mean 'theta'?)",
      "orderings[0]: unknown ordering 'argmn' (allowed: argmin, argmax, index, reverse, random, "
      "all)",
      "output.chunk: unknown key (did you mean 'chunk_size'?)",
      "output.compression: must be an integer in 0..9",
  };
  for (const auto& line : expected)
    EXPECT_NE(std::find(lines.begin(), lines.end(), line), lines.end()) << line << "\n" << joined(lines);
}

TEST(SweepConfig, AMisspelledRequiredParameterIsReportedOnce) {
  const auto lines = errors_of("model: billiards\ngrid: {thetta: [1.5, 2]}\n");
  ASSERT_EQ(lines.size(), 1u) << joined(lines);
  EXPECT_EQ(lines[0], "grid.thetta: unknown parameter of model 'billiards' (did you mean 'theta'?)");
}

TEST(SweepConfig, WhatJoinsTheLines) {
  try {
    parse("model: billiards\nparams: {theta: 0, r_a: 0}\n");
    FAIL() << "accepted";
  } catch (const ConfigErrors& e) {
    ASSERT_EQ(e.lines.size(), 2u);
    EXPECT_EQ(std::string(e.what()), e.lines[0] + "\n" + e.lines[1]);
  }
}

TEST(SweepConfig, YamlSyntaxErrorIsOneLineWithPosition) {
  const auto lines = errors_of("model: billiards\ngrid:\n  theta: {start: 1, stop: 2\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("config: YAML syntax error at line 4, column 1: ", 0), 0u) << lines[0];
  const auto tabs = errors_of("model: billiards\n\tparams: {}\n");
  ASSERT_EQ(tabs.size(), 1u);
  EXPECT_EQ(tabs[0].rfind("config: YAML syntax error at line 2, column ", 0), 0u) << tabs[0];
}

TEST(SweepConfig, LoadsFilesAndNamesUnreadableOnes) {
  const std::string path = ::testing::TempDir() + "/simpact_sweep_config_test.yaml";
  {
    std::ofstream out(path, std::ios::binary);
    out << kFullExample;
  }
  const SweepConfig c = load_sweep_config(path, kModels, test_catalog);
  EXPECT_EQ(c.source_text, kFullExample);
  EXPECT_EQ(c.task_count(), 45000);

  const std::string missing = ::testing::TempDir() + "/no_such_config.yaml";
  try {
    load_sweep_config(missing, kModels, test_catalog);
    FAIL() << "accepted a missing file";
  } catch (const ConfigErrors& e) {
    ASSERT_EQ(e.lines.size(), 1u);
    EXPECT_EQ(e.lines[0], "config: cannot read '" + missing + "': No such file or directory");
  }
}

TEST(SweepConfig, Suggestions) {
  EXPECT_EQ(edit_distance("nmu", "num"), 1u);  // a transposition is one edit
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(nearest_name("thetta", {"r_a", "theta"}), "theta");
  EXPECT_EQ(nearest_name("Theta", {"r_a", "theta"}), "theta");
  EXPECT_EQ(nearest_name("omega", {"r_a", "theta"}), "");
  EXPECT_EQ(nearest_name("x", {"n"}), "");  // a one-letter word is not "near" everything
  EXPECT_EQ(nearest_name("chunk", {"samples", "chunk_size"}), "chunk_size");  // truncated
  EXPECT_EQ(nearest_name("hi", {"high", "mu"}), "high");
}

}  // namespace
}  // namespace simpact
