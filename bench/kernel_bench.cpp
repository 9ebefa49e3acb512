// Sweep-task throughput of the impact kernel (one core), beside the core's own rate. Run:
//   build/bench/kernel_bench --benchmark_min_time=0.5
// BM_BilliardsMcTask is one task of configs/billiards_mc.yaml without the sweep around it
// (parameters → model → orderings all, argmin, argmax at R = 0.9 → every result column);
// BM_BilliardsBuildAndResolve (also in core_bench) is the core's build + one ordering. Their ratio
// bounds what a sweep can reach per rank (issue 8: the sweep ≥ 0.25 of the core's rate).
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "simpact/analysis/impact_task_kernel.hpp"
#include "simpact/core/impact_resolution.hpp"
#include "simpact/models/billiards_scenario.hpp"

namespace {

using namespace simpact;

// 64 parameter sets spread like billiards_mc's draws (θ over [1.3, π], radii ±5 %, m_c, ψ).
std::vector<ParameterSet> billiards_mc_params() {
  std::vector<ParameterSet> sets;
  for (int i = 0; i < 64; ++i) {
    const double f = (i + 0.5) / 64.0;
    ParameterSet p;
    p.set("speed", 1.0);
    p.set("restitution", 0.9);
    p.set("theta", 1.3 + f * (3.141592653589793 - 1.3));
    p.set("r_a", 0.95 + 0.1 * f);
    p.set("r_b", 1.05 - 0.1 * f);
    p.set("r_c", 0.95 + 0.1 * ((i * 37) % 64) / 64.0);
    p.set("m_c", 4.0 + 0.2 * f);
    p.set("psi", 0.1 * (f - 0.5));
    sets.push_back(p);
  }
  return sets;
}

void BM_BilliardsMcTask(benchmark::State& state) {
  ImpactStudyOptions options;  // orderings all, argmin, argmax
  const ImpactTaskKernel kernel(std::make_unique<BilliardsFamily>(), options);
  const std::vector<ParameterSet> sets = billiards_mc_params();
  auto scratch = kernel.make_scratch();
  std::vector<double> values(static_cast<std::size_t>(values_per_task(kernel)));
  std::int64_t task = 0;
  for (auto _ : state) {
    const TaskStatus s =
        kernel.evaluate(task, sets[static_cast<std::size_t>(task & 63)], *scratch, values.data());
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(values.data());
    ++task;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BilliardsMcTask);

// The same as core_bench's: parameters → problem → one resolution (argmin, no plastic).
void BM_BilliardsBuildAndResolve(benchmark::State& state) {
  const BilliardsFamily model;
  ParameterSet params;
  params.set("theta", 2.0);
  ImpactWorkspace ws;
  ResolveOptions options;
  options.policy = OrderingPolicy::kArgmin;
  options.compare_argmin_argmax = false;
  options.compute_plastic = false;
  double theta = 2.0;
  for (auto _ : state) {
    theta = theta > 3.0 ? 1.2 : theta + 1e-3;
    params.set("theta", theta);
    const ImpactProblem problem = model.make_problem(params);
    ImpactResolution res = resolve_impact(problem, options, ws);
    benchmark::DoNotOptimize(res);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BilliardsBuildAndResolve);

}  // namespace

BENCHMARK_MAIN();
