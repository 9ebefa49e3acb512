// JSON front end of `simpact design` (impact design by root finding, Sec. VII-B, Table I):
//   in:  {"model": "trex", "foot": "right",
//         "configuration": {"y": 0.1238, "theta": 5.78, ...},   (default: Table I "Initial")
//         "design": {"r1": 0.07, "r2": 0.04, "l_u": 0.08, "l_l": 0.10},  (default: the same)
//         "place": ["y", "theta"],     (solved first so both contacts touch: the "initial" row)
//         "free": {"theta": {}, "r1": {"min": 0.06, "max": 0.08}, ...},  (each may give
//                  "min", "max", "scale"; the "optimized" row solves for these)
//         optional: "cosine_tolerance" (1e-12), "gap_tolerance" [m] (1e-13), "length_scale" [m]
//         (0.01), "max_iterations" (100), "max_place_change" [rad] (1, a mechanism's), "_comment"}
//   out: {"model", "foot", "status", "iterations", "at_bound": [names],
//         a mechanism's "placed_qpos": {qpos name: value} (the optimized row's configuration) and
//         "placement": {"coordinates": {name: {"start", "initial", "optimized", "units"}},
//                       "max_angle_change", "max_angle_coordinate", "max_place_change", "far"},
//         "rows": [{"name": "initial"|"optimized", "status", "iterations", "configuration": {..},
//                   "design": {..}, "tail_length", "metric_product", "normalized_product",
//                   "gaps": {contact: φ}, "points": {name: [x, y]}}, ...]}
// io knows formats only: names are checked against the model by the study layer's service.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace simpact {

using NamedValues = std::vector<std::pair<std::string, double>>;

struct DesignFreeVariable {
  std::string name;
  std::optional<double> min, max, scale;
};

// "mechanism": {"file": ..., "contacts": [[a, b], [c, d]]} in place of "model" (any mechanism
// file, DESIGN §2): "params" give the start values by parameter name (qpos.*, mass.*, size.*,
// pos.*), "place" and "free" name parameters, "dihedral_m": m aims at G_12 = −cos(π/m) instead of 0.
struct DesignMechanism {
  std::string file;
  std::vector<std::pair<std::string, std::string>> contacts;
};

struct DesignRequest {
  std::string model;                         // "trex", or the mechanism's file
  std::optional<DesignMechanism> mechanism;  // set: a mechanism file instead of a model
  NamedValues params;                        // a mechanism's start values
  std::optional<int> dihedral_m;
  std::string foot = "right";
  NamedValues configuration, design;  // overrides of the model's defaults, in the order given
  std::optional<std::vector<std::string>> place;
  std::optional<std::vector<DesignFreeVariable>> free;
  std::optional<double> cosine_tolerance, gap_tolerance, length_scale;
  std::optional<int> max_iterations;
  std::optional<double> max_place_change;  // [rad] a placed angle may move from its start
};

struct DesignRow {
  std::string name;    // "initial" or "optimized"
  std::string status;  // of the solve that produced the row: converged, max_iterations, stalled
  int iterations = 0;
  NamedValues configuration, design, gaps;
  double tail_length = 0.0;         // [m]
  double metric_product = 0.0;      // <u,v>_g [kg-1 for normals of length gaps]
  double normalized_product = 0.0;  // <u,v>_g / (||u||_g ||v||_g)
  std::vector<std::pair<std::string, std::array<double, 2>>> points;  // for drawing [m]
};

// The placement branch a mechanism design used: each `place` coordinate at its start (the
// request's params or the file's qpos0), after placing (the initial row) and in the optimized
// row. An angle — a hinge coordinate, or the rotation of a ball or free joint with a placed
// quaternion entry — that moved more than max_place_change from its start makes it `far`: a
// branch the start did not mean (a trunk pitched 76° when it started level).
struct DesignPlacedCoordinate {
  std::string name, units;
  double start = 0.0, initial = 0.0, optimized = 0.0;
};
struct DesignPlacement {
  std::vector<DesignPlacedCoordinate> coordinates;
  double max_angle_change = 0.0;     // [rad], over the initial and optimized rows
  std::string max_angle_coordinate;  // where it is ("" without placed angles)
  double max_place_change = 1.0;     // [rad] the limit
  bool far = false;                  // max_angle_change > max_place_change
};

struct DesignReport {
  std::string model, foot;
  std::vector<DesignRow> rows;
  std::vector<std::string> at_bound;
  NamedValues placed_qpos;                   // a mechanism's: the optimized row's qpos by name
  std::optional<DesignPlacement> placement;  // a mechanism design with `place`
  bool converged() const { return !rows.empty() && rows.back().status == "converged"; }
  bool far_placement() const { return placement && placement->far; }
};

// Throws InputError naming the field ("free.r1.min", "place[1]", "foot"). base_dir: the folder a
// mechanism's relative file is resolved from.
DesignRequest parse_design_request(const std::string& json_text, const std::string& base_dir = "");

std::string design_to_json(const DesignReport& report, int indent = -1);

// The rows as Table I prints them (lengths in cm, angles in rad, normalized <u,v>_g).
std::string design_table_text(const DesignReport& report);

}  // namespace simpact
