// JSON front end of `simpact simulate` (the contract; extend it, do not rename):
//   in:  {"model": "chain", "params": {"n": 4, "link_length": 1, "mass": 1, "g": 9.81},
//         "q0": [...], "p0": [...] (or "v0"), "dt": 0.001, "steps": 10000 (or "t_end"),
//         "ordering": "argmin", "restitution": 1,
//         "record": {"steps": [1000, 5000, 10000]} (or {"every": 100})}
//   optional: "simultaneity_tolerance" [s] (default 1e-9·dt), "gap_tolerance" [m] (1e-9),
//         "localization_tolerance" (relative to dt, 1e-12), "newton": {"tolerance": 1e-12,
//         "max_iterations": 50, "force_split": 0.5 (θ ∈ [0.5, 1], NewtonOptions::force_split)},
//         "seed" (random ordering), "_comment".
//   q0, p0/v0 default to the model's own initial state (e.g. cradle: `gap` and `speed`).
//   out: {"records": [{"step", "t", "q", "p", "energy"}, ...],
//         "impacts": [{"t", "contacts", "sequence", "energy_before", "energy_after", "plastic",
//                      "step", "zeno", "restitution", "policy", "status", "momentum_before",
//                      "momentum_after"}, ...],
//         "zeno": {"impacts", "energy_change"} (the impacts made plastic as Zeno chatter, and
//         the energy they took: energy_change <= 0),
//         "max_energy_drift", "energy": {"initial", "final", "work": {source: J, ...}, "residual",
//         "relative_residual"}, "newton": {"mean", "max"}, "status", "model", "dof", "dt",
//         "steps", "coordinates"}
// Every malformed field throws InputError naming it ("dt", "record.steps[2]", "params.n"); a
// repeated key or a number beyond the doubles (1e999) is an error too. Bounds: dt in [1e-12, 1e6]
// s, steps ≤ SimulateLimits::max_steps, at most SimulateLimits::max_records recorded states, the
// model's and the parameters' names 1–64 printable ASCII characters.
#pragma once

// io knows formats only: the request and the report are plain values; the study layer's
// simulate service turns them into SimulationOptions and back from a SimulationResult.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "simpact/core/ordering_policy.hpp"
#include "simpact/core/parameter_set.hpp"

namespace simpact {

// "mechanism": {"file": "robot.xml", "contacts": [["geom_a", "geom_b"], ...]} in place of "model":
// a mechanism file (DESIGN §4), its path resolved from the request's folder.
struct SimulateMechanism {
  std::string file;
  std::vector<std::pair<std::string, std::string>> contacts;
};

struct SimulateRequest {
  std::string model;                           // a built-in model, or the mechanism's file
  std::optional<SimulateMechanism> mechanism;  // set: a mechanism file instead of a model
  ParameterSet params;
  std::vector<double> q0, p0, v0;  // empty: not given
  double dt = 0.0;
  long steps = 0;
  OrderingPolicy policy = OrderingPolicy::kArgmin;
  double restitution = 1.0;
  // Not given: the integrator's defaults.
  std::optional<double> simultaneity_tolerance, gap_tolerance, localization_tolerance, newton_tolerance,
      force_split;
  std::optional<int> newton_max_iterations;
  std::uint64_t seed = 0;
  std::vector<long> record_steps;
};

struct SimulateReport {
  struct State {
    long step = 0;
    double t = 0.0;
    std::vector<double> q, p;
    double energy = 0.0;
  };
  struct Impact {
    long step = 0;
    double t = 0.0;
    std::vector<int> contacts, sequence;
    double energy_before = 0.0, energy_after = 0.0, restitution = 1.0;
    bool plastic = false, zeno = false;
    OrderingPolicy policy = OrderingPolicy::kArgmin;
    std::string status;
    std::vector<double> momentum_before, momentum_after;
  };
  std::vector<std::string> coordinates;
  std::vector<std::string> coordinate_units;  // "m", "rad" or "" (unknown), per coordinate
  // The configuration's coordinates (records' q) when they differ from the velocities' (a ball or
  // free joint: quaternions, nq > nv); empty: q has the `coordinates` above.
  std::vector<std::string> configuration;
  std::vector<std::string> configuration_units;  // "m", "rad", "1" (a quaternion component)
  std::vector<State> records;
  std::vector<Impact> impacts;
  double max_energy_drift = 0.0;
  double newton_mean = 0.0;
  int newton_max = 0;
  // Energy bookkeeping [J]: initial, final, the work by source, the residual final − initial − Σ.
  double energy_initial = 0.0, energy_final = 0.0, energy_residual = 0.0;
  std::vector<std::string> work_sources;
  std::vector<double> work;
};

// The most work a request may ask for; a request beyond them is refused before it runs, with the
// bound in the message. The defaults are the command's; a caller with a budget (the fuzz harness,
// a service with a deadline) passes tighter ones.
struct SimulateLimits {
  long max_steps = 1'000'000'000;  // steps of dt (also t_end / dt)
  long max_records = 100'000;      // recorded states (record.steps entries, or steps / every + 1)
};

// The time step's range [s] (as dt of a time-stepped sweep, simulation_sweep_parameters).
inline constexpr double kMinSimulateDt = 1e-12;
inline constexpr double kMaxSimulateDt = 1e6;
// A model or parameter name: 1 to kMaxSimulateName printable ASCII characters.
inline constexpr std::size_t kMaxSimulateName = 64;

// base_dir: the folder a mechanism's relative file is resolved from (empty: the working directory).
SimulateRequest parse_simulate_request(const std::string& json_text, const SimulateLimits& limits = {},
                                       const std::string& base_dir = "");

std::string simulation_to_json(const SimulateRequest& request, const SimulateReport& report, int indent = -1);

}  // namespace simpact
