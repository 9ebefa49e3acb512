#include "simpact/study/design_service.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <cmath>
#include <limits>

#include "simpact/core/input_error.hpp"
#include "simpact/models/trex_design.hpp"

namespace simpact {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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

}  // namespace

DesignRun run_design(const std::string& json_text) {
  DesignRun run;
  run.request = parse_design_request(json_text);
  const DesignRequest& req = run.request;
  if (req.model != "trex")
    throw InputError("model", fmt::format("'{}' is not allowed (allowed: trex)", req.model));
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
