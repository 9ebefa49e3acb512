#include "simpact/study/impact_service.hpp"

#include <memory>

#include "simpact/core/impact_diagnostics.hpp"
#include "simpact/core/post_impact_check.hpp"
#include "simpact/models/model_catalog.hpp"

namespace simpact {

const ImpactModelCatalog& builtin_model_catalog() {
  static const ImpactModelCatalog catalog{
      model_names(), [](const std::string& model) { return make_model(model)->parameters(); },
      [](const std::string& model, const ParameterSet& params) {
        return make_model(model)->make_problem(params);
      },
      [](const std::string& model, const ParameterSet& params) {
        return make_model(model)->needs_dynamic_sizes(params);
      },
      [](const std::string& model, const ParameterSet& params) {
        return make_model(model)->make_dynamic_problem(params);
      }};
  return catalog;
}

ResolveRequest parse_resolve_request(const std::string& json_text) {
  return parse_resolve_request(json_text, builtin_model_catalog());
}

CheckRequest parse_check_request(const std::string& json_text) {
  return parse_check_request(json_text, builtin_model_catalog());
}

namespace {

// Both commands on the request's size path S (fixed unless the request is dynamic()).
template <typename S>
std::string resolve_on(const ResolveRequest& request, int indent) {
  const BasicImpactProblem<S>& problem = request.problem_on<S>();
  // The workspace grows with the outcomes found: keep it off the stack.
  auto workspace = std::make_unique<BasicImpactWorkspace<S>>(request.options.limits);
  const BasicImpactResolution<S> resolution = resolve_impact(problem, request.options, *workspace);
  return resolution_to_json(request, resolution, *workspace, diagnose(problem), indent);
}

template <typename S>
std::string check_on(const CheckRequest& request, int indent) {
  const BasicImpactProblem<S>& problem = request.impact.problem_on<S>();
  auto workspace = std::make_unique<BasicImpactWorkspace<S>>(request.impact.options.limits);
  const BasicImpactResolution<S> resolution = resolve_impact(problem, request.impact.options, *workspace);
  const PostImpactCheck check =
      check_post_impact_state(problem, typename S::DofVector(request.momentum_after), request.tolerance,
                              request.consistency_tolerance, resolution, *workspace);
  return check_to_json(request, check, resolution, *workspace, indent);
}

}  // namespace

std::string resolve_json(const std::string& json_text, int indent) {
  const ResolveRequest request = parse_resolve_request(json_text);
  return request.dynamic() ? resolve_on<DynamicSizes>(request, indent)
                           : resolve_on<FixedSizes>(request, indent);
}

std::string check_json(const std::string& json_text, int indent) {
  const CheckRequest request = parse_check_request(json_text);
  return request.impact.dynamic() ? check_on<DynamicSizes>(request, indent)
                                  : check_on<FixedSizes>(request, indent);
}

}  // namespace simpact
