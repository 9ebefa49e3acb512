// The config loader's errors: every kind of mistake gives its one-line message naming the key path,
// all of them at once, with suggestions for misspelled names.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../support/temp_dir.hpp"
#include "sweep_config_test_support.hpp"

namespace simpact {
namespace {

using namespace sweep_config_test;

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
      {(base + "monte_carlo:\n  samples: 4\n  params: {m_c: {dist: normal, mean: 1, std: 0.5}}\n"),
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
  const std::string path = simpact::testing::process_dir() + "simpact_sweep_config_test.yaml";
  {
    std::ofstream out(path, std::ios::binary);
    out << kFullExample;
  }
  const SweepConfig c = load_sweep_config(path, kModels, test_catalog);
  EXPECT_EQ(c.source_text, kFullExample);
  EXPECT_EQ(c.task_count(), 45000);

  const std::string missing = simpact::testing::process_dir() + "no_such_config.yaml";
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
