// Resolves Newton's cradle through the installed library: p⁻ = [1,0,0] must end at [0,0,1].
#include <cmath>
#include <cstdio>
#include <simpact/core/impact_resolution.hpp>
#include <simpact/models/model_catalog.hpp>

int main() {
  const auto model = simpact::make_model("cradle");
  simpact::ParameterSet params;
  params.set("n", 3);
  const simpact::ImpactProblem problem = model->make_problem(params);
  simpact::ImpactWorkspace workspace;
  const simpact::ImpactResolution r = simpact::resolve_impact(problem, {}, workspace);
  const auto p = problem.momentum_from_impulses(workspace.outcomes.items[0].impulses);
  const bool ok = r.unique && std::abs(p[0]) < 1e-15 && std::abs(p[1]) < 1e-15 && std::abs(p[2] - 1) < 1e-15;
  std::printf("downstream: cradle outcome [%g %g %g] %s\n", p[0], p[1], p[2], ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
