#include "simpact/study/design_service.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "simpact/core/input_error.hpp"
#include "simpact/models/mujoco_mechanism.hpp"
#include "simpact/models/trex_design.hpp"

namespace simpact {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// A placed angle that moved more than this from its start flags the placement as far [rad]: the
// biped's designed touchdown pitches its torso 0.59 rad from level; a branch at 76° (1.33 rad)
// is another posture, not a nearby one.
constexpr double kMaxPlaceChange = 1.0;

int variable(const std::string& name, const std::string& field, bool coordinates, bool design) {
  const int i = trex_variable_index(name);
  const bool ok = i >= 0 && ((coordinates && i < kTrexDof) || (design && i >= kTrexDof));
  if (!ok) {
    std::string allowed;
    for (int k = 0; k < kTrexVariables; ++k)
      if ((coordinates && k < kTrexDof) || (design && k >= kTrexDof))
        allowed += (allowed.empty() ? "" : ", ") + trex_variable_names()[k];
    throw InputError(field, fmt::format("unknown variable '{}' (allowed: {})", name, allowed));
  }
  return i;
}

DesignRow make_row(const std::string& name, const DesignResult& result, TrexContact foot) {
  DesignRow row;
  row.name = name;
  row.status = to_string(result.status);
  row.iterations = result.iterations;
  const auto& names = trex_variable_names();
  for (int i = 0; i < kTrexVariables; ++i)
    (i < kTrexDof ? row.configuration : row.design).emplace_back(names[i], result.w[i]);
  const TrexGeometry geometry(trex_design_of(result.w));
  const DofVector q = trex_configuration(result.w);
  DesignPoint point;
  trex_design_evaluator(foot)(result.w, point);
  row.tail_length = geometry.tail_length();
  row.metric_product = metric_product(point);
  row.normalized_product = normalized_metric_cosine(point);
  row.gaps = {{TrexGeometry::contact_names()[foot], point.gap_a},
              {TrexGeometry::contact_names()[kTrexTailTip], point.gap_b}};
  for (const auto& [point_name, r] : geometry.points(q)) row.points.push_back({point_name, {r.x(), r.y()}});
  return row;
}

// ---- any mechanism file ---------------------------------------------------------------------

// The design variables of a mechanism: every parameter but velocities and restitution, by name.
struct MechanismVariables {
  std::vector<std::string> names;
  std::vector<double> scales;  // "nearby": 1 rad for angles, 0.01 m for lengths, 10 % for masses

  int index(const std::string& name, const std::string& field) const {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end())
      throw InputError(
          field, fmt::format("unknown parameter '{}' of the mechanism (see `simpact models FILE`)", name));
    return static_cast<int>(it - names.begin());
  }
};

// w with every ball or free joint's quaternion entries scaled to norm 1: the design moves them as
// plain numbers (MuJoCo normalizes when it evaluates), a reply holds the configuration evaluated,
// which `resolve` then takes as given.
Eigen::VectorXd with_unit_quaternions(const MujocoMechanism& mechanism, const MechanismVariables& vars,
                                      Eigen::VectorXd w) {
  for (const MechanismElement& e : mechanism.elements()) {
    if (e.kind != "joint" || (e.type != "free" && e.type != "ball")) continue;
    const int first = e.type == "free" ? 3 : 0;
    std::array<Eigen::Index, 4> at{};
    for (int k = 0; k < 4; ++k) {
      const auto it =
          std::find(vars.names.begin(), vars.names.end(), fmt::format("qpos.{}[{}]", e.name, first + k));
      if (it == vars.names.end()) return w;  // not a design variable: nothing to report
      at[static_cast<std::size_t>(k)] = it - vars.names.begin();
    }
    double norm = 0.0;
    for (Eigen::Index i : at) norm += w[i] * w[i];
    norm = std::sqrt(norm);
    if (norm > 0.0)
      for (Eigen::Index i : at) w[i] /= norm;
  }
  return w;
}

DesignRow mechanism_row(const std::string& name, const DesignResult& result, const MechanismVariables& vars,
                        const DesignEvaluator& evaluate, const DesignRequest& req) {
  DesignRow row;
  row.name = name;
  row.status = to_string(result.status);
  row.iterations = result.iterations;
  for (std::size_t i = 0; i < vars.names.size(); ++i)
    if (vars.names[i].rfind("qpos.", 0) == 0)
      row.configuration.emplace_back(vars.names[i], result.w[static_cast<Eigen::Index>(i)]);
  for (const auto& [param, value] : req.params)  // the design parameters given, at their values
    if (param.rfind("qpos.", 0) != 0)
      row.design.emplace_back(param, result.w[vars.index(param, "params." + param)]);
  if (req.free)
    for (const auto& f : *req.free)
      if (f.name.rfind("qpos.", 0) != 0 && std::none_of(row.design.begin(), row.design.end(),
                                                        [&](const auto& d) { return d.first == f.name; }))
        row.design.emplace_back(f.name, result.w[vars.index(f.name, "free." + f.name)]);
  DesignPoint point;
  evaluate(result.w, point);
  row.tail_length = std::numeric_limits<double>::quiet_NaN();  // TREX's only
  row.metric_product = metric_product(point);
  row.normalized_product = normalized_metric_cosine(point);
  const auto& c = req.mechanism->contacts;
  row.gaps = {{c[0].first + "-" + c[0].second, point.gap_a}, {c[1].first + "-" + c[1].second, point.gap_b}};
  return row;
}

// The rotation angle between two quaternions (w, x, y, z; not necessarily unit) [rad].
double rotation_between(const Eigen::Vector4d& a, const Eigen::Vector4d& b) {
  const double c = std::abs(a.dot(b)) / (a.norm() * b.norm());
  return 2.0 * std::acos(std::min(1.0, c));
}

// The placement branch of a mechanism design (DesignPlacement): every `place` coordinate's start,
// initial and optimized values, and the largest angle any of them moved from its start — a hinge
// coordinate directly, a ball or free joint's quaternion entry as the joint's rotation.
DesignPlacement placement_of(const MujocoMechanism& mechanism, const MechanismVariables& vars,
                             const std::vector<std::string>& place, const Eigen::VectorXd& start,
                             const DesignResult& initial, const DesignResult& optimized, double limit) {
  DesignPlacement out;
  out.max_place_change = limit;
  const auto units_of = [&](const std::string& name) {
    for (const ParameterInfo& p : mechanism.parameters())
      if (p.name == name) return p.units;
    return std::string();
  };
  const auto consider = [&](double change, const std::string& where) {
    if (change > out.max_angle_change) {
      out.max_angle_change = change;
      out.max_angle_coordinate = where;
    }
  };
  for (const std::string& name : place) {
    const int i = vars.index(name, "place");
    DesignPlacedCoordinate c{name, units_of(name), start[i], initial.w[i], optimized.w[i]};
    if (c.units == "rad") {
      consider(std::abs(c.initial - c.start), name);
      consider(std::abs(c.optimized - c.start), name);
    } else if (c.units == "1") {  // a quaternion entry qpos.J[k]: the joint's whole rotation
      const std::string joint = name.substr(0, name.rfind('['));
      const int first =
          std::find(vars.names.begin(), vars.names.end(), joint + "[6]") != vars.names.end() ? 3 : 0;
      Eigen::Vector4d q0, q1, q2;
      for (int k = 0; k < 4; ++k) {
        const int j = vars.index(fmt::format("{}[{}]", joint, first + k), "place");
        q0[k] = start[j];
        q1[k] = initial.w[j];
        q2[k] = optimized.w[j];
      }
      consider(rotation_between(q0, q1), joint + " (rotation)");
      consider(rotation_between(q0, q2), joint + " (rotation)");
    }
    out.coordinates.push_back(std::move(c));
  }
  out.far = out.max_angle_change > limit;
  return out;
}

DesignRun run_mechanism_design(DesignRun run) {
  const DesignRequest& req = run.request;
  MechanismSpec spec;
  spec.file = req.mechanism->file;
  spec.contacts = req.mechanism->contacts;
  const auto mechanism = std::make_shared<const MujocoMechanism>(spec);
  MechanismVariables vars;
  std::vector<double> start;
  for (const auto& p : mechanism->parameters()) {
    if (p.name.rfind("qvel.", 0) == 0 || p.name == "restitution") continue;
    vars.names.push_back(p.name);
    // Lengths in units of the mechanism (0.01 m in a file of about a metre): a file in mm moves
    // as the metre file does.
    vars.scales.push_back(p.units == "rad"  ? 1.0
                          : p.units == "kg" ? 0.1 * std::max(p.default_value, 1e-3)
                                            : 0.01 * mechanism->length_scale());
    start.push_back(p.default_value);
  }
  Eigen::VectorXd w =
      Eigen::Map<const Eigen::VectorXd>(start.data(), static_cast<Eigen::Index>(start.size()));
  for (const auto& [name, v] : req.params) w[vars.index(name, "params." + name)] = v;
  auto workspace = std::shared_ptr<MujocoMechanism::Workspace>(mechanism->make_workspace().release(),
                                                               MujocoMechanism::WorkspaceDeleter());
  const DesignEvaluator evaluate = [mechanism, vars, workspace](const Eigen::VectorXd& x, DesignPoint& out) {
    ParameterSet params;
    for (std::size_t i = 0; i < vars.names.size(); ++i)
      params.set(vars.names[i], x[static_cast<Eigen::Index>(i)]);
    const MechanismState state = mechanism->state_from(params);
    MechanismEvaluation e;
    mechanism->evaluate(state, state.qpos, *workspace, e);
    out.mass = e.mass;
    out.normal_a = e.normals.row(0);
    out.normal_b = e.normals.row(1);
    out.gap_a = e.gaps[0];
    out.gap_b = e.gaps[1];
  };
  try {
    DesignPoint check;
    evaluate(w, check);
  } catch (const InputError& e) {  // a start value out of its range names the parameter
    throw InputError("params." + e.field(), std::string(e.what()).substr(e.field().size() + 2));
  }

  DesignSolverOptions options;
  // The defaults follow the mechanism's length scale L (a file in mm: 1000× the metre file's);
  // given values are in the file's length unit.
  options.gap_tolerance *= mechanism->length_scale();
  options.length_scale *= mechanism->length_scale();
  if (req.cosine_tolerance) options.cosine_tolerance = *req.cosine_tolerance;
  if (req.gap_tolerance) options.gap_tolerance = *req.gap_tolerance;
  if (req.length_scale) options.length_scale = *req.length_scale;
  if (req.max_iterations) options.max_iterations = *req.max_iterations;
  if (req.dihedral_m) options.target_cosine = -std::cos(3.141592653589793 / *req.dihedral_m);

  std::vector<FreeVariable> placed;
  if (req.place)
    for (std::size_t k = 0; k < req.place->size(); ++k) {
      const int i = vars.index((*req.place)[k], fmt::format("place[{}]", k));
      placed.push_back({i, -kInf, kInf, vars.scales[static_cast<std::size_t>(i)]});
    }
  DesignSolverOptions placing = options;
  placing.orthogonality = false;
  placing.max_iterations = 50;
  if (placed.empty()) {  // no `place`: the contacts must touch as given (the initial row claims it)
    DesignPoint start;
    evaluate(w, start);
    if (std::abs(start.gap_a) > options.gap_tolerance || std::abs(start.gap_b) > options.gap_tolerance)
      throw InputError("place",
                       fmt::format("required: the contacts do not touch as given (gaps {:.3g} and {:.3g} "
                                   "m): name the coordinates to solve so both touch, e.g. [\"{}\"]",
                                   start.gap_a, start.gap_b, vars.names.front()));
  }
  const DesignResult initial = placed.empty() ? DesignResult{w, 0, 0, 0, 0, DesignStatus::kConverged, {}}
                                              : solve_impact_design(evaluate, w, placed, placing);
  if (initial.status != DesignStatus::kConverged)
    throw InputError("place",
                     fmt::format("could not close both contacts by moving the `place` coordinates ({})",
                                 to_string(initial.status)));
  if (!req.free || req.free->empty())
    throw InputError(
        "free", "name the parameters the design may move, e.g. {\"qpos.hip_r\": {\"min\": -1, \"max\": 1}}");
  std::vector<FreeVariable> free;
  for (const DesignFreeVariable& f : *req.free) {
    const int i = vars.index(f.name, "free." + f.name);
    FreeVariable v{i, f.min.value_or(-kInf), f.max.value_or(kInf),
                   f.scale.value_or(vars.scales[static_cast<std::size_t>(i)])};
    if (initial.w[i] < v.lower || initial.w[i] > v.upper)
      throw InputError("free." + f.name, fmt::format("the initial value {} is outside [{}, {}]", initial.w[i],
                                                     v.lower, v.upper));
    free.push_back(v);
  }
  // The `place` coordinates move with the design to keep both contacts closed, listed in `free`
  // or not (unbounded there, at their scale).
  for (const FreeVariable& p : placed)
    if (std::none_of(free.begin(), free.end(), [&](const FreeVariable& f) { return f.index == p.index; }))
      free.push_back(p);
  DesignResult optimized = solve_impact_design(evaluate, initial.w, free, options);
  optimized.w = with_unit_quaternions(*mechanism, vars, std::move(optimized.w));
  DesignReport& report = run.report;
  report.model = req.model;
  report.rows.push_back(mechanism_row("initial", initial, vars, evaluate, req));
  report.rows.push_back(mechanism_row("optimized", optimized, vars, evaluate, req));
  for (int i : optimized.at_bound) report.at_bound.push_back(vars.names[static_cast<std::size_t>(i)]);
  for (std::size_t i = 0; i < vars.names.size(); ++i)
    if (vars.names[i].rfind("qpos.", 0) == 0)
      report.placed_qpos.emplace_back(vars.names[i], optimized.w[static_cast<Eigen::Index>(i)]);
  if (req.place && !req.place->empty())
    report.placement = placement_of(*mechanism, vars, *req.place, w, initial, optimized,
                                    req.max_place_change.value_or(kMaxPlaceChange));
  return run;
}

}  // namespace

DesignRun run_design(const std::string& json_text, const std::string& base_dir) {
  DesignRun run;
  run.request = parse_design_request(json_text, base_dir);
  if (run.request.mechanism) return run_mechanism_design(std::move(run));
  const DesignRequest& req = run.request;
  if (req.model != "trex")
    throw InputError("model", fmt::format("'{}' is not allowed (allowed: trex)", req.model));
  if (req.max_place_change)
    throw InputError("max_place_change", "applies to a mechanism file's placement, not to trex");
  const TrexContact foot = req.foot == "left" ? kTrexFootL : kTrexFootR;

  const TrexTableRow table = trex_table1_initial();
  Eigen::VectorXd w = trex_variables(table.q, table.design);
  for (const auto& [name, v] : req.configuration) w[variable(name, "configuration." + name, true, false)] = v;
  for (const auto& [name, v] : req.design) w[variable(name, "design." + name, false, true)] = v;
  try {
    const TrexGeometry check(trex_design_of(w));
  } catch (const InputError& e) {  // the geometry names the bare length ("r1: ..."): keep one prefix
    const std::string what = e.what();
    throw InputError("design." + e.field(), what.substr(std::min(what.size(), e.field().size() + 2)));
  }

  DesignSolverOptions options;
  if (req.cosine_tolerance) options.cosine_tolerance = *req.cosine_tolerance;
  if (req.gap_tolerance) options.gap_tolerance = *req.gap_tolerance;
  if (req.length_scale) options.length_scale = *req.length_scale;
  if (req.max_iterations) options.max_iterations = *req.max_iterations;
  const DesignEvaluator evaluate = trex_design_evaluator(foot);

  // The initial row: the given configuration with `place` solved so both contacts touch.
  const std::vector<std::string> place = req.place ? *req.place : std::vector<std::string>{"y", "theta"};
  std::vector<FreeVariable> placed;
  for (std::size_t k = 0; k < place.size(); ++k) {
    const int i = variable(place[k], fmt::format("place[{}]", k), true, true);
    placed.push_back({i, -kInf, kInf, trex_variable_scale(i)});
  }
  DesignSolverOptions placing = options;
  placing.orthogonality = false;
  placing.max_iterations = 50;  // Newton on two gaps: a handful of steps (max_iterations is the design's)
  const DesignResult initial = solve_impact_design(evaluate, w, placed, placing);
  if (initial.status != DesignStatus::kConverged) {
    std::string moved;
    for (const auto& name : place) moved += (moved.empty() ? "" : ", ") + name;
    throw InputError("place",
                     fmt::format("could not put {} and the tail tip on the floor by moving {} ({})",
                                 TrexGeometry::contact_names()[foot], moved, to_string(initial.status)));
  }

  // The optimized row: every variable but x by default (x moves nothing: the floor is flat).
  std::vector<FreeVariable> free;
  if (req.free) {
    for (const DesignFreeVariable& f : *req.free) {
      const int i = variable(f.name, "free." + f.name, true, true);
      FreeVariable v{i, f.min.value_or(-kInf), f.max.value_or(kInf),
                     f.scale.value_or(trex_variable_scale(i))};
      if (initial.w[i] < v.lower || initial.w[i] > v.upper)
        throw InputError("free." + f.name, fmt::format("the initial value {} is outside [{}, {}]",
                                                       initial.w[i], v.lower, v.upper));
      free.push_back(v);
    }
  } else {
    for (int i = kTrexY; i < kTrexVariables; ++i) free.push_back({i, -kInf, kInf, trex_variable_scale(i)});
  }
  const DesignResult optimized = solve_impact_design(evaluate, initial.w, free, options);

  DesignReport& report = run.report;
  report.model = req.model;
  report.foot = req.foot;
  report.rows.push_back(make_row("initial", initial, foot));
  report.rows.push_back(make_row("optimized", optimized, foot));
  for (int i : optimized.at_bound) report.at_bound.push_back(trex_variable_names()[i]);
  return run;
}

}  // namespace simpact
