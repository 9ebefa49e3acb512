// JSON front end of `simpact resolve` and `simpact check` (DESIGN §4): one impact problem in,
// its resolution (or a check of another simulator's post-impact state) out. The JSON library
// stays inside impact_json.cpp: requests come in and documents go out as text.
//
// Request (resolve): either a raw problem
//   {"mass_matrix": [[..]], "normals": [[..]], "momentum": [..] | "velocity": [..],
//    "restitution": 1.0, "ordering": "all", "gaps": [..], "minimality": "propagation",
//    "seed": 0, "limits": {"max_steps": .., "max_depth": .., "max_nodes": ..}}
// or a model, {"model": "billiards", "params": {"theta": 1.5708, "m": [1, 3, 1]}, ...} (an array
// value "m": [a, b, c] sets m1, m2, m3). A check request adds "momentum_after" or
// "velocity_after" and an optional relative "tolerance". A top-level "_comment" is ignored.
// Every malformed input throws InputError naming the field ("normals[1]", "limits.max_depth",
// "params.theta"); a JSON syntax error is InputError("input", "invalid JSON at line L, ...").
#pragma once

#include <string>
#include <vector>

#include "simpact/core/impact_diagnostics.hpp"
#include "simpact/core/impact_resolution.hpp"
#include "simpact/models/parameter_set.hpp"

namespace simpact {

// A parsed `simpact resolve` request: the validated problem and how to resolve it.
struct ResolveRequest {
  ImpactProblem problem;
  ResolveOptions options;
  std::string model;    // empty for a raw (mass_matrix, normals, momentum) request
  ParameterSet params;  // the model's parameters as given (arrays expanded)
};

ResolveRequest parse_resolve_request(const std::string& json_text);

// The `simpact resolve` output document (keys in docs and in impact_json.cpp). indent < 0
// gives one line, otherwise pretty-printed with that indent. Non-finite numbers become null.
std::string resolution_to_json(const ResolveRequest& request, const ImpactResolution& resolution,
                               const ImpactWorkspace& workspace, const ImpactDiagnostics& diagnostics,
                               int indent = -1);

// The whole `simpact resolve`: parse, resolve (Definition 1 checked), diagnose, serialize.
std::string resolve_json(const std::string& json_text, int indent = -1);

// ---- simpact check: the paper's "validation tool for existing simulation methods" ------------

// Relative tolerance for the check's violation flags (feasibility, negative impulses).
inline constexpr double kDefaultCheckTolerance = 1e-9;
// A post-impact state within this relative g-distance of a propagative outcome is consistent.
inline constexpr double kConsistencyTolerance = 1e-6;

struct CheckRequest {
  ResolveRequest impact;
  DofVector momentum_after;  // p_after, from "momentum_after" or M·"velocity_after"
  double tolerance = kDefaultCheckTolerance;
};

CheckRequest parse_check_request(const std::string& json_text);

// How p_after compares with the propagative model. "Relative" quantities are divided by
// ||p⁻||_g (or ||p_after||_g when p⁻ = 0); contact indices are those of the given normals.
struct PostImpactCheck {
  struct Violation {
    int contact;  // given normal index
    double rate;  // <p_after,u_i>_g / (||p⁻||_g ||u_i||_g), < −tolerance
  };
  double energy_before = 0.0, energy_after = 0.0;  // [J]
  double relative_energy_error = 0.0;              // (E_after − E_before)/E_before; NaN if E_before = 0
  std::vector<Violation> feasibility_violations;
  double max_feasibility_violation = 0.0;    // max(0, −normalized rate) over closed contacts
  std::vector<double> implied_impulses;      // λ with Nᵀλ ≈ p_after − p⁻ (g-least squares)
  double impulse_residual = 0.0;             // ||p_after − p⁻ − λᵀN||_g, relative
  double complementarity_residual = 0.0;     // max |λ_i <p_after,u_i>_g| / ||p⁻||²_g
  bool negative_impulses = false;            // some λ_i ||u_i||_g < −tolerance ||p⁻||_g
  double distance_to_nearest_outcome = 0.0;  // relative; NaN when there is no outcome
  int nearest_outcome = -1;
  double distance_to_plastic = 0.0;                // relative; NaN when p_p was not computed
  bool consistent_with_propagative_model = false;  // distance_to_nearest_outcome ≤ kConsistencyTolerance
};

PostImpactCheck check_post_impact_state(const ImpactProblem& problem, const DofVector& momentum_after,
                                        double tolerance, const ImpactResolution& resolution,
                                        const ImpactWorkspace& workspace);

std::string check_to_json(const CheckRequest& request, const PostImpactCheck& check,
                          const ImpactResolution& resolution, const ImpactWorkspace& workspace,
                          int indent = -1);

// The whole `simpact check`: parse, resolve, compare, serialize.
std::string check_json(const std::string& json_text, int indent = -1);

// ---- text in and out, shared by the JSON commands --------------------------------------------

// The whole file at `path`, or standard input for "-" or "". Throws IoError naming the file.
std::string read_text_input(const std::string& path);
// Writes `text` to `path` via a temporary file renamed into place, so an error never leaves a
// partial file; "-" or "" writes to standard output. Throws IoError naming the file.
void write_text_output(const std::string& path, const std::string& text);

}  // namespace simpact
