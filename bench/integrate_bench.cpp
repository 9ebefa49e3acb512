// Time stepping (issue 12): µs per step of the midpoint variational integrator.
//   taskset -c 1 build/bench/integrate_bench --benchmark_min_time=0.5 --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true        (docs/benchmarks.md, "Time stepping")
// Counters: newton_per_step (corrections), lu_per_step (Jacobian factorizations: simplified
// Newton reuses one across steps), us_per_step.
// Chain 2/4/8 and tree8 without contacts (joints 0.3 rad from rest; tree8 tumbling in free
// fall), energy monitoring off (as a trajectory run records states, not energies, every step);
// and a cradle step that contains one impact (localization + propagative reset), state restored
// before every step.
#include <benchmark/benchmark.h>

#include "simpact/integrate/simulation.hpp"
#include "simpact/integrate/trex_gait.hpp"
#include "simpact/models/billiards_scenario.hpp"
#include "simpact/models/cradle_scenario.hpp"
#include "simpact/models/dynamic_models.hpp"

namespace {

using namespace simpact;

void run_steps(benchmark::State& state, const DynamicSystem& s, const DynVector& q0, const DynVector& v0) {
  SimulationOptions o;
  o.dt = 1e-3;
  o.monitor_energy = false;
  Simulator sim(*s.model, o);
  sim.reset(q0, s.model->mass_matrix(q0) * v0);
  long iterations = 0, steps = 0;
  for (auto _ : state) {
    sim.advance();
    iterations += sim.last_step_iterations();
    ++steps;
    if (steps % 100000 == 0) sim.reset(q0, s.model->mass_matrix(q0) * v0);  // stay in the same regime
  }
  state.counters["newton_per_step"] = static_cast<double>(iterations) / static_cast<double>(steps);
  state.counters["lu_per_step"] =
      static_cast<double>(sim.jacobian_factorizations()) / static_cast<double>(steps);
  state.counters["us_per_step"] = benchmark::Counter(
      static_cast<double>(steps) * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_ChainStep(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const DynamicSystem s = make_chain(n);
  run_steps(state, s, DynVector::Constant(n, 0.3), DynVector::Zero(n));
}
BENCHMARK(BM_ChainStep)->Arg(2)->Arg(4)->Arg(8);

void BM_Tree8Step(benchmark::State& state) {
  const DynamicSystem s = make_tree8();
  DynVector q0(8), v0(8);
  q0 << 0, 10, 0.1, 0.3, -0.2, -0.4, 0.5, 0.2;
  v0 << 1, 0, 0.5, 1, -1, 0.5, 0, -2;
  run_steps(state, s, q0, v0);
}
BENCHMARK(BM_Tree8Step);

// One Δt = 1 ms step that contains exactly one impact, restarted from the same state each time.
void run_step_with_impact(benchmark::State& state, const DynamicSystem& s) {
  SimulationOptions o;
  o.dt = 1e-3;
  o.monitor_energy = false;
  Simulator sim(*s.model, o);
  const DynVector p0 = s.model->mass_matrix(s.q0) * s.v0;
  for (auto _ : state) {
    sim.reset(s.q0, p0);
    sim.advance();
    benchmark::DoNotOptimize(sim.p().data());
  }
  if (sim.impacts().size() != 1) state.SkipWithError("expected one impact in the step");
}

// Ball A reaches the touching B–C pair half-way through the step.
void BM_CradleStepWithImpact(benchmark::State& state) {
  run_step_with_impact(state, make_cradle(3, 1.0, 0.05, 0.5e-3, 1.0));
}
BENCHMARK(BM_CradleStepWithImpact);

// The 2-D billiards break (two simultaneous contacts, metric of a 6-DOF system).
void BM_BilliardsStepWithImpact(benchmark::State& state) {
  run_step_with_impact(state, make_billiards(2.0944, 1.0, 0.05, 1.0, 0.5e-3, 0.0));
}
BENCHMARK(BM_BilliardsStepWithImpact);

// TREX (issue 14): Fig. 8's optimized gait at Δt = 0.1 ms with the force split θ = 1 (as
// bench/trex_fig8 and configs/trex_fig8.yaml) — the drop from 17 cm and 100 ms after touchdown
// (≈ 2900 steps, ~35 impacts, friction μ = 0.5), restarted at the end; µs per step over the run.
void BM_TrexGaitStep(benchmark::State& state) {
  const TrexTableRow row = trex_table1_optimized();
  const DynamicSystem s =
      make_trex(row.design, trex_orthogonal_touchdown(row.design, row.q), 0.17, TrexDrive{});
  SimulationOptions o;
  o.dt = 1e-4;
  o.monitor_energy = false;
  o.newton.force_split = 1.0;
  Simulator sim(*s.model, o);
  const DynVector p0 = DynVector::Zero(kTrexDof);
  sim.reset(s.q0, p0);
  long steps = 0;
  for (auto _ : state) {
    sim.advance();
    if (++steps % 2900 == 0) sim.reset(s.q0, p0);
  }
  state.counters["us_per_step"] = benchmark::Counter(
      static_cast<double>(steps) * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_TrexGaitStep);

}  // namespace

BENCHMARK_MAIN();
