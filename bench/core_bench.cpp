// Impact-core throughput (one core). Run:
//   build/core_bench --benchmark_min_time=0.5
// items_per_second = impact resolutions per second. Targets (issue): billiards (d = 6, 2 contacts)
// ≥ 5e6/s with a single policy, ≥ 1e6/s with the full outcome set and ξ.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "simpact/core/impact_resolution.hpp"
#include "simpact/core/plastic_impact.hpp"
#include "simpact/models/billiards_model.hpp"
#include "simpact/models/cradle_model.hpp"

namespace {

using namespace simpact;

constexpr double kPi = 3.141592653589793;

ParameterSet billiards_params(double theta) {
  ParameterSet params;
  params.set("theta", theta);
  return params;
}

// θ = 2π/3: both contacts violated, two distinct outcomes (a typical non-unique break).
const ImpactProblem& billiards_problem() {
  static const ImpactProblem problem = BilliardsModel().make_problem(billiards_params(2 * kPi / 3));
  return problem;
}

void BM_BilliardsResolveSinglePolicy(benchmark::State& state) {
  const ImpactProblem& problem = billiards_problem();
  ImpactWorkspace ws;
  ResolveOptions options;
  options.policy = OrderingPolicy::kArgmin;
  options.compare_argmin_argmax = false;
  options.compute_plastic = false;
  for (auto _ : state) {
    ImpactResolution res = resolve_impact(problem, options, ws);
    benchmark::DoNotOptimize(res);
    benchmark::DoNotOptimize(ws.outcomes.items[0].impulses.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BilliardsResolveSinglePolicy);

void BM_BilliardsResolveAllWithXi(benchmark::State& state) {
  const ImpactProblem& problem = billiards_problem();
  ImpactWorkspace ws;
  ResolveOptions options;
  options.policy = OrderingPolicy::kAll;
  options.compare_argmin_argmax = true;
  options.compute_plastic = false;
  for (auto _ : state) {
    ImpactResolution res = resolve_impact(problem, options, ws);
    benchmark::DoNotOptimize(res);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BilliardsResolveAllWithXi);

// What a sweep task does: parameters → problem → one resolution.
void BM_BilliardsBuildAndResolve(benchmark::State& state) {
  const BilliardsModel model;
  ParameterSet params = billiards_params(2 * kPi / 3);
  ImpactWorkspace ws;
  ResolveOptions options;
  options.policy = OrderingPolicy::kArgmin;
  options.compare_argmin_argmax = false;
  options.compute_plastic = false;
  double theta = 2.0;
  for (auto _ : state) {
    theta = theta > 3.0 ? 1.2 : theta + 1e-3;  // a sweep's changing input
    params.set("theta", theta);
    const ImpactProblem problem = model.make_problem(params);
    ImpactResolution res = resolve_impact(problem, options, ws);
    benchmark::DoNotOptimize(res);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BilliardsBuildAndResolve);

// Six-ball cradle with alternating masses 1,3,1,3,1,3: several outcomes, the whole tree.
void BM_Cradle6All(benchmark::State& state) {
  ParameterSet params;
  params.set("n", 6);
  for (int i = 1; i <= 6; ++i) params.set("m" + std::to_string(i), i % 2 == 1 ? 1.0 : 3.0);
  const ImpactProblem problem = CradleModel().make_problem(params);
  ImpactWorkspace ws;
  ResolveOptions options;
  options.compute_plastic = false;
  long nodes = 0;
  int outcomes = 0;
  for (auto _ : state) {
    ImpactResolution res = resolve_impact(problem, options, ws);
    benchmark::DoNotOptimize(res);
    nodes = res.nodes;
    outcomes = res.outcome_count;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["outcomes"] = outcomes;
}
BENCHMARK(BM_Cradle6All);

// The dynamic-size path: 20 equal balls (d = 20, 19 contacts), the first moving, policy all with
// the plastic outcome and ξ(argmin, argmax) — the velocity is handed down a chain of 19 reflections.
void BM_Cradle20DynamicAll(benchmark::State& state) {
  ParameterSet params;
  params.set("n", 20);
  const CradleModel model;
  const DynamicImpactProblem problem = model.make_dynamic_problem(params);
  DynamicImpactWorkspace ws;
  const ResolveOptions options;
  for (auto _ : state) {
    auto res = resolve_impact(problem, options, ws);
    benchmark::DoNotOptimize(res);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Cradle20DynamicAll);

// 64 random systems, d = 7, 4 closed contacts, SPD M = AᵀA + dI, restitution R (fixed seed).
std::vector<ImpactProblem> random_4contact_problems(double restitution) {
  std::mt19937_64 gen(5);
  std::normal_distribution<double> normal;
  std::vector<ImpactProblem> problems;
  const int d = 7;
  for (int n = 0; n < 64; ++n) {
    Eigen::MatrixXd a(d, d);
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j) a(i, j) = normal(gen);
    const Eigen::MatrixXd m = a.transpose() * a + d * Eigen::MatrixXd::Identity(d, d);
    ImpactProblem::RowMajorMatrix normals(4, d);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < d; ++j) normals(i, j) = normal(gen);
    Eigen::VectorXd p(d);
    for (int i = 0; i < d; ++i) p[i] = normal(gen);
    problems.emplace_back(KineticMetric(m), normals, p, restitution);
  }
  return problems;
}

// The plastic LCP (Lawson–Hanson NNLS) on random 4-contact systems, d = 7.
void BM_Random4ContactPlastic(benchmark::State& state) {
  const std::vector<ImpactProblem> problems = random_4contact_problems(0.0);
  std::size_t next = 0;
  for (auto _ : state) {
    PlasticOutcome out = plastic_outcome(problems[next]);
    benchmark::DoNotOptimize(out);
    next = (next + 1) % problems.size();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Random4ContactPlastic);

// Full resolution with R = 0.5 on the same random systems (all outcomes, plastic blend, ξ).
void BM_Random4ContactInelasticAll(benchmark::State& state) {
  const std::vector<ImpactProblem> problems = random_4contact_problems(0.5);
  ImpactWorkspace ws;
  ResolveOptions options;
  std::size_t next = 0;
  for (auto _ : state) {
    ImpactResolution res = resolve_impact(problems[next], options, ws);
    benchmark::DoNotOptimize(res);
    next = (next + 1) % problems.size();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Random4ContactInelasticAll);

}  // namespace

BENCHMARK_MAIN();
