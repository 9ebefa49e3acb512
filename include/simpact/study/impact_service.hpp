// `simpact resolve` and `simpact check` as services: the JSON formats (io/impact_json.hpp) joined
// with the built-in model catalogue (models/) and the impact core. io reads and writes; this
// layer runs the physics.
#pragma once

#include <string>

#include "simpact/io/impact_json.hpp"
#include "simpact/models/mujoco_mechanism.hpp"

namespace simpact {

// The built-in models (billiards, cradle, ...) as io's request catalogue.
const ImpactModelCatalog& builtin_model_catalog();

// A `mechanism` request's problem from an already loaded mechanism (what `simpact resolve` does
// after loading the file): parameter edits, then qpos, qvel or momentum, placement, M, φ, Dφ.
void make_mechanism_request_problem(const MujocoMechanism& mechanism, MujocoMechanism::Workspace& workspace,
                                    const MechanismRequest& request, ResolveRequest& out);

// Requests parsed against the built-in catalogue.
// base_dir: the folder a request's relative mechanism file is resolved from (the request
// file's folder; empty: the working directory).
ResolveRequest parse_resolve_request(const std::string& json_text, const std::string& base_dir = "");
CheckRequest parse_check_request(const std::string& json_text, const std::string& base_dir = "");

// The whole `simpact resolve`: parse, resolve, diagnose, serialize.
std::string resolve_json(const std::string& json_text, int indent = -1, const std::string& base_dir = "");

// The whole `simpact check`: parse, resolve, compare, serialize.
std::string check_json(const std::string& json_text, int indent = -1, const std::string& base_dir = "");

// `simpact check` with its verdict: the JSON report and whether the state is consistent with the
// propagative model (the command exits 5 when it is not).
struct CheckReport {
  std::string json;
  bool consistent = false;
};
CheckReport check_report(const std::string& json_text, int indent = -1, const std::string& base_dir = "");

// `simpact check --jsonl`: JSON Lines, one request per line → one compact report per line, in order.
// A trailing newline ends the last line; any other empty line is a bad line. Every bad line is
// reported, each error line prefixed "line N: " (N from 1), by ConfigErrors, before any report.
struct CheckLinesReport {
  std::string text;       // the reports, one per line, each ending in '\n'
  long requests = 0;      // lines read
  long inconsistent = 0;  // of which not consistent with the propagative model
};
CheckLinesReport check_json_lines(const std::string& jsonl_text, const std::string& base_dir = "");

}  // namespace simpact
