// MJCF-mechanism tasks against built-in ones (issue 22's goal: an MJCF task costs at most 3× a
// built-in task of the same size): each iteration builds the task's impact problem from its
// parameters (a sweep's changing input) and resolves it under `all` with the plastic outcome,
// as a sweep task does. Run: build/bench/mechanism_bench (from the repository root).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "simpact/core/impact_resolution.hpp"
#include "simpact/models/cradle_model.hpp"
#include "simpact/models/mechanism_impact_model.hpp"

namespace {

using namespace simpact;

std::shared_ptr<const MujocoMechanism> load(const std::string& file,
                                            std::vector<std::pair<std::string, std::string>> contacts,
                                            std::vector<std::string> place = {}) {
  MechanismSpec spec;
  spec.file = "examples/mechanisms/" + file;
  spec.contacts = std::move(contacts);
  spec.place = std::move(place);
  return std::make_shared<const MujocoMechanism>(spec);
}

void resolve_loop(benchmark::State& state, const ImpactModel& model, ParameterSet params,
                  const std::string& varied, double lo, double hi) {
  ImpactWorkspace ws;
  ResolveOptions options;  // policy all, plastic outcome computed
  double x = lo;
  for (auto _ : state) {
    x = x > hi ? lo : x + 1e-3;
    params.set(varied, x);
    const ImpactProblem problem = model.make_problem(params);
    ImpactResolution res = resolve_impact(problem, options, ws);
    benchmark::DoNotOptimize(res);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_BuiltinCradle3Task(benchmark::State& state) {
  ParameterSet params;
  params.set("n", 3);
  params.set("speed", 1.0);
  resolve_loop(state, CradleModel(), params, "m2", 0.5, 3.0);
}
BENCHMARK(BM_BuiltinCradle3Task);

void BM_MjcfCradle3Task(benchmark::State& state) {
  const MechanismImpactModel model(load("cradle3.xml", {{"ball_a", "ball_b"}, {"ball_b", "ball_c"}}));
  ParameterSet params;
  params.set("qvel.x_a", 1.0);
  resolve_loop(state, model, params, "mass.b", 0.5, 3.0);
}
BENCHMARK(BM_MjcfCradle3Task);

// The biped's touchdown: the torso placed (root_z, root_pitch) so both feet touch, then resolved.
void BM_MjcfBipedTouchdownTask(benchmark::State& state) {
  const MechanismImpactModel model(
      load("biped.xml", {{"floor", "foot_l"}, {"floor", "foot_r"}}, {"qpos.root_z", "qpos.root_pitch"}));
  ParameterSet params;
  params.set("qpos.root_z", -0.1);
  params.set("qpos.knee_l", -0.4);
  params.set("qpos.knee_r", -0.4);
  params.set("qpos.hip_l", 0.3);
  params.set("qvel.root_x", 0.5);
  params.set("qvel.root_z", -1.0);
  resolve_loop(state, model, params, "qpos.hip_r", -0.6, 0.2);
}
BENCHMARK(BM_MjcfBipedTouchdownTask);

}  // namespace

BENCHMARK_MAIN();
