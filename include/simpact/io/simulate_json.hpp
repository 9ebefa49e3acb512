// JSON front end of `simpact simulate` (the contract; extend it, do not rename):
//   in:  {"model": "chain", "params": {"n": 4, "link_length": 1, "mass": 1, "g": 9.81},
//         "q0": [...], "p0": [...] (or "v0"), "dt": 0.001, "steps": 10000 (or "t_end"),
//         "ordering": "argmin", "restitution": 1,
//         "record": {"steps": [1000, 5000, 10000]} (or {"every": 100})}
//   optional: "simultaneity_tolerance" [s] (default 1e-9·dt), "gap_tolerance" [m] (1e-9),
//         "localization_tolerance" (relative to dt, 1e-12), "newton": {"tolerance": 1e-12,
//         "max_iterations": 50}, "seed" (random ordering), "_comment".
//   q0, p0/v0 default to the model's own initial state (e.g. cradle: `gap` and `speed`).
//   out: {"records": [{"step", "t", "q", "p", "energy"}, ...],
//         "impacts": [{"t", "contacts", "sequence", "energy_before", "energy_after", "plastic",
//                      "step", "zeno", "restitution", "policy", "status", "momentum_before",
//                      "momentum_after"}, ...],
//         "max_energy_drift", "newton": {"mean", "max"}, "status", "model", "dof", "dt", "steps",
//         "coordinates"}
// Every malformed field throws InputError naming it ("dt", "record.steps[2]", "params.n").
#pragma once

#include <string>
#include <vector>

#include "simpact/integrate/simulation.hpp"
#include "simpact/models/parameter_set.hpp"

namespace simpact {

struct SimulateRequest {
  std::string model;
  ParameterSet params;
  std::vector<double> q0, p0, v0;  // empty: not given
  SimulationOptions options;
};

SimulateRequest parse_simulate_request(const std::string& json_text);

std::string simulation_to_json(const SimulateRequest& request, const std::vector<std::string>& coordinates,
                               const SimulationResult& result, int indent = -1);

}  // namespace simpact
