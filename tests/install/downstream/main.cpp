// Newton's cradle through the installed library, by the models layer (the built-in scenario) and by
// the study layer (a batch of two raw cradles): p⁻ = [1,0,0] must end at [0,0,1] every time.
#include <cmath>
#include <cstdio>
#include <simpact/core/impact_resolution.hpp>
#include <simpact/models/model_catalog.hpp>
#include <simpact/study/impact_batch.hpp>

int main() {
  const auto model = simpact::make_model("cradle");
  simpact::ParameterSet params;
  params.set("n", 3);
  const simpact::ImpactProblem problem = model->make_problem(params);
  simpact::ImpactWorkspace workspace;
  const simpact::ImpactResolution r = simpact::resolve_impact(problem, {}, workspace);
  const auto p = problem.momentum_from_impulses(workspace.outcomes.items[0].impulses);
  bool ok = r.unique && std::abs(p[0]) < 1e-15 && std::abs(p[1]) < 1e-15 && std::abs(p[2] - 1) < 1e-15;
  std::printf("downstream: cradle outcome [%g %g %g] %s\n", p[0], p[1], p[2], ok ? "ok" : "WRONG");

  const double mass[2][9] = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {2, 0, 0, 0, 2, 0, 0, 0, 2}};
  const double normals[2][6] = {{-1, 1, 0, 0, -1, 1}, {-1, 1, 0, 0, -1, 1}};
  const double momentum[2][3] = {{1, 0, 0}, {2, 0, 0}};
  simpact::RawImpactBatch batch;
  batch.batch = 2;
  batch.dof = 3;
  batch.contacts = 2;
  batch.mass_matrix = &mass[0][0];
  batch.normals = &normals[0][0];
  batch.momentum = &momentum[0][0];
  const simpact::ImpactBatchResult b = simpact::resolve_batch(batch, simpact::ResolveOptions{}, 1);
  for (int i = 0; i < 2; ++i) {
    const double* q = b.outcome_momentum.data() + 3 * b.outcome_offsets[static_cast<std::size_t>(i)];
    const bool item_ok = b.outcome_count[static_cast<std::size_t>(i)] == 1 && std::abs(q[0]) < 1e-15 &&
                         std::abs(q[1]) < 1e-15 && std::abs(q[2] - momentum[i][0]) < 1e-15;
    std::printf("downstream: batch item %d outcome [%g %g %g] %s\n", i, q[0], q[1], q[2],
                item_ok ? "ok" : "WRONG");
    ok = ok && item_ok;
  }
  return ok ? 0 : 1;
}
