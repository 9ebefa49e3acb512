// JSON front end of `simpact resolve` and `simpact check` (DESIGN §4): one impact problem in,
// its resolution (or a check of another simulator's post-impact state) out. The JSON library
// stays inside io/: requests come in and documents go out as text.
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

#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "simpact/core/impact_diagnostics.hpp"
#include "simpact/core/impact_resolution.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/core/parameter_info.hpp"
#include "simpact/core/parameter_set.hpp"
#include "simpact/core/post_impact_check.hpp"

namespace simpact {

// Several problems in one request: one InputError per problem (what() has one line each). The
// first one is this exception's own field, so a caller that wants only one still gets it.
class InputErrors : public InputError {
 public:
  explicit InputErrors(std::vector<InputError> errors);
  const std::vector<InputError>& errors() const noexcept { return errors_; }

 private:
  std::vector<InputError> errors_;
};

// A parsed `simpact resolve` request: the validated problem and how to resolve it. The problem
// is on the fixed-capacity path when it fits (fits_fixed_sizes: d ≤ kMaxDof, ≤ kMaxContacts
// closed contacts), else on the dynamic path: `dynamic_problem` is set and `problem` is empty.
struct ResolveRequest {
  ImpactProblem problem;
  std::optional<DynamicImpactProblem> dynamic_problem;
  ResolveOptions options;
  std::string model;    // empty for a raw (mass_matrix, normals, momentum) request
  ParameterSet params;  // the model's parameters as given (arrays expanded)
  // A mechanism request: the configuration resolved at (after `place`), every qpos coordinate by
  // name ("qpos.root_z"); empty otherwise. Replies echo it as placed_qpos.
  std::vector<std::pair<std::string, double>> placed_qpos;
  // A mechanism request: the problem's rows (its given contacts, in order), each a witness point
  // of a named contact. Replies list them as contact_points.
  struct ContactPoint {
    std::string a, b;  // the contact's two names as given
    Eigen::Vector3d position = Eigen::Vector3d::Zero();
    Eigen::Vector3d normal = Eigen::Vector3d::Zero();
    double gap = 0.0;
  };
  std::vector<ContactPoint> contact_points;

  bool dynamic() const { return dynamic_problem.has_value(); }
  // The problem on size path S (the one that is set: see dynamic()).
  template <typename S>
  const BasicImpactProblem<S>& problem_on() const {
    if constexpr (std::is_same_v<S, FixedSizes>)
      return problem;
    else
      return *dynamic_problem;
  }
};

// A request's `mechanism` (DESIGN §4 "Mechanisms from files"), read by io/ as plain data and
// built by the caller's catalogue: the file (resolved from the request's folder), the geom pairs,
// the coordinates to place, the state and the parameter edits.
struct MechanismRequest {
  std::string file;
  std::vector<std::pair<std::string, std::string>> contacts;
  std::vector<std::string> place;
  double gap_tolerance = kGapTolerance;     // relative to the mechanism's length scale
  std::string witnesses = "all";            // "all" | "deepest"
  std::optional<Eigen::VectorXd> qpos;      // absent: the file's qpos0 (and params' qpos.*)
  std::optional<Eigen::VectorXd> qvel;      // "qvel" (MuJoCo's velocity coordinates)
  std::optional<Eigen::VectorXd> momentum;  // or "momentum" = M·qvel
  std::optional<double> restitution;
  ParameterSet params;  // qpos.*, qvel.*, mass.*, size.*, pos.* (names of the mechanism's schema)
};

// The models a request may name, supplied by the caller (study/impact_service.hpp gives the
// built-in catalogue), so that io/ reads formats and never depends on models/.
struct ImpactModelCatalog {
  std::vector<std::string> names;
  std::function<std::vector<ParameterInfo>(const std::string& model)> parameters;
  // Throws InputError naming the bare parameter ("theta") for invalid parameters.
  std::function<ImpactProblem(const std::string& model, const ParameterSet& params)> make_problem;
  // Optional: a model's systems beyond the fixed capacity (MechanismFamily::needs_dynamic_sizes).
  std::function<bool(const std::string& model, const ParameterSet& params)> needs_dynamic_sizes;
  std::function<DynamicImpactProblem(const std::string& model, const ParameterSet& params)>
      make_dynamic_problem;
  // Optional: builds a `mechanism` request's problem into request.problem (or dynamic_problem).
  // Throws InputError naming the field ("mechanism.file", "qpos[3]", "params.mass.ball").
  std::function<void(const MechanismRequest& mechanism, ResolveRequest& request)> make_mechanism_problem;
};

// A raw request's numbers (mass_matrix, normals, momentum or velocity, gaps, ...), however they
// were read: JSON here, NumPy arrays in the Python module. One construction for both, so both
// give the same problem bit for bit and the same InputError for the same bad number.
struct RawProblemInput {
  Eigen::MatrixXd mass_matrix, normals;
  Eigen::VectorXd momentum, velocity, gaps;  // velocity non-empty: p⁻ = M q̇⁻ (momentum unused)
  double gap_tolerance = kGapTolerance;
  double restitution = 1.0;
};
// Throws InputError naming the field ("mass_matrix", "normals[1]", "momentum", "gaps[0]").
template <typename S>
BasicImpactProblem<S> make_raw_problem(const RawProblemInput& input);
// The fixed-capacity path fits (d ≤ kMaxDof, ≤ kMaxContacts closed contacts); else dynamic.
bool raw_problem_fits_fixed_sizes(const RawProblemInput& input);

// The options of a request alone ({"ordering", "minimality", "seed", "limits"}, as in a request),
// with a request's defaults and messages: how another front end gets the same ResolveOptions.
ResolveOptions parse_resolve_options(const std::string& json_text);

// base_dir: the folder relative mechanism files are resolved from (the request file's folder;
// empty: the working directory).
ResolveRequest parse_resolve_request(const std::string& json_text, const ImpactModelCatalog& catalog,
                                     const std::string& base_dir = "");

// The `simpact resolve` output document (keys in docs and in impact_json_format.cpp). indent < 0
// gives one line, otherwise pretty-printed with that indent. Non-finite numbers become null.
// S: the request's size path (FixedSizes unless request.dynamic()).
template <typename S>
std::string resolution_to_json(const ResolveRequest& request, const BasicImpactResolution<S>& resolution,
                               const BasicImpactWorkspace<S>& workspace,
                               const BasicImpactDiagnostics<S>& diagnostics, int indent = -1);

// ---- simpact check: the paper's "validation tool for existing simulation methods" ------------

struct CheckRequest {
  ResolveRequest impact;
  Eigen::VectorXd momentum_after;  // p_after, from "momentum_after" or M·"velocity_after"
  // Violation flags: "tolerance", else max(kDefaultCheckTolerance, precision.consistency_tolerance).
  double tolerance = kDefaultCheckTolerance;
  // Verdict: "consistency_tolerance", else precision.consistency_tolerance.
  double consistency_tolerance = kMinConsistencyTolerance;
  bool tolerance_given = false, consistency_tolerance_given = false;
  PrintedPrecision precision;  // of the numbers given in momentum_after / velocity_after
};

CheckRequest parse_check_request(const std::string& json_text, const ImpactModelCatalog& catalog,
                                 const std::string& base_dir = "");

// A check's post-impact state for a valid problem: momentum_after from the numbers as given
// (`velocity`: velocity_after, p_after = M·v) and their printed precision. Throws InputError
// naming "momentum_after" or "velocity_after" (length, magnitude).
template <typename S>
void set_check_state(const BasicImpactProblem<S>& problem, const Eigen::VectorXd& values, bool velocity,
                     CheckRequest& request);
// A given "tolerance" or "consistency_tolerance" (`name`): in (0, 1) and computable, else InputError.
double checked_check_tolerance(double value, const std::string& name);
// The tolerances not given (the *_given flags) from request.precision.
void set_default_check_tolerances(CheckRequest& request);

template <typename S>
std::string check_to_json(const CheckRequest& request, const PostImpactCheck& check,
                          const BasicImpactResolution<S>& resolution,
                          const BasicImpactWorkspace<S>& workspace, int indent = -1);

}  // namespace simpact
