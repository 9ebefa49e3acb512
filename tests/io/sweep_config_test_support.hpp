// Shared helpers of the config loader's tests (sweep_config_test.cpp, sweep_config_errors_test.cpp):
// a stand-in model catalog, parsing with it, and the error lines of a bad config.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "simpact/io/sha256.hpp"
#include "simpact/io/sweep_config_yaml.hpp"

namespace simpact::sweep_config_test {
inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline const double kRequired = std::nan("");

// A stand-in for the models' catalog, with the kinds of parameters the checks care about.
inline bool test_catalog(const std::string& model, std::vector<ParameterInfo>& parameters) {
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

inline SweepConfig parse(const std::string& yaml) {
  return parse_sweep_config(yaml, kModels, test_catalog);
}

// The error lines of a config that must be rejected.
inline std::vector<std::string> errors_of(const std::string& yaml) {
  try {
    parse(yaml);
  } catch (const ConfigErrors& e) {
    return e.lines;
  }
  ADD_FAILURE() << "config was accepted:\n" << yaml;
  return {};
}

inline std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

// The example of docs/config.md, in full.
inline const char* const kFullExample =
    R"(# simpact run configs/billiards_theta.yaml -o results/billiards_theta.h5
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

}  // namespace simpact::sweep_config_test
