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
      }};
  return catalog;
}

ResolveRequest parse_resolve_request(const std::string& json_text) {
  return parse_resolve_request(json_text, builtin_model_catalog());
}

CheckRequest parse_check_request(const std::string& json_text) {
  return parse_check_request(json_text, builtin_model_catalog());
}

std::string resolve_json(const std::string& json_text, int indent) {
  const ResolveRequest request = parse_resolve_request(json_text);
  // The workspace grows with the outcomes found: keep it off the stack.
  auto workspace = std::make_unique<ImpactWorkspace>(request.options.limits);
  const ImpactResolution resolution = resolve_impact(request.problem, request.options, *workspace);
  return resolution_to_json(request, resolution, *workspace, diagnose(request.problem), indent);
}

std::string check_json(const std::string& json_text, int indent) {
  const CheckRequest request = parse_check_request(json_text);
  auto workspace = std::make_unique<ImpactWorkspace>(request.impact.options.limits);
  const ImpactResolution resolution =
      resolve_impact(request.impact.problem, request.impact.options, *workspace);
  const PostImpactCheck check =
      check_post_impact_state(request.impact.problem, request.momentum_after, request.tolerance,
                              request.consistency_tolerance, resolution, *workspace);
  return check_to_json(request, check, resolution, *workspace, indent);
}

}  // namespace simpact
