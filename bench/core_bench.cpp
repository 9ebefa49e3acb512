// Impact-core throughput (one core). Run:
//   build/core_bench --benchmark_min_time=0.5
// items_per_second = impact resolutions per second. Targets (issue): billiards (d = 6, 2 contacts)
// ≥ 5e6/s with a single policy, ≥ 1e6/s with the full outcome set and ξ.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "simpact/core/impact_resolution.hpp"
#include "simpact/core/plastic_impact.hpp"
#include "simpact/models/billiards_model.hpp"
#include "simpact/models/cradle_model.hpp"
#include "simpact/study/impact_batch.hpp"

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

// The batch of bench/python_resolve.py (random θ, masses and cue direction; d = 6, 2 contacts) as
// flat row-major arrays, for the batch path (what simpact.resolve runs) and the core alone on it.
struct BilliardsBatch {
  long count = 0;
  std::vector<double> mass, normals, momentum;
};
const BilliardsBatch& billiards_batch() {
  static const BilliardsBatch batch = [] {
    BilliardsBatch b;
    b.count = 4096;
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> theta_d(kPi / 3 + 0.05, kPi), mass_d(0.5, 2.0), angle_d(-0.2, 0.2);
    b.mass.assign(static_cast<std::size_t>(b.count) * 36, 0.0);
    b.normals.assign(static_cast<std::size_t>(b.count) * 12, 0.0);
    b.momentum.assign(static_cast<std::size_t>(b.count) * 6, 0.0);
    for (long i = 0; i < b.count; ++i) {
      const double theta = theta_d(rng), angle = angle_d(rng);
      double m[3];
      for (double& mi : m) mi = mass_d(rng);
      double* M = b.mass.data() + i * 36;
      for (int j = 0; j < 3; ++j) M[(2 * j) * 6 + 2 * j] = M[(2 * j + 1) * 6 + 2 * j + 1] = m[j];
      double* N = b.normals.data() + i * 12;
      const double c = std::cos(theta / 2), s = std::sin(theta / 2);
      N[0] = c, N[1] = s, N[4] = -c, N[5] = -s;
      N[6 + 2] = c, N[6 + 3] = -s, N[6 + 4] = -c, N[6 + 5] = s;
      double* p = b.momentum.data() + i * 6;
      p[4] = m[2] * std::cos(angle), p[5] = m[2] * std::sin(angle);
    }
    return b;
  }();
  return batch;
}

RawImpactBatch raw_billiards_batch() {
  const BilliardsBatch& b = billiards_batch();
  RawImpactBatch raw;
  raw.batch = b.count;
  raw.dof = 6;
  raw.contacts = 2;
  raw.mass_matrix = b.mass.data();
  raw.normals = b.normals.data();
  raw.momentum = b.momentum.data();
  return raw;
}

// The core alone on that batch with `options`: problems built beforehand, not timed.
void resolve_prebuilt_billiards(benchmark::State& state, const ResolveOptions& options) {
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const BilliardsBatch& b = billiards_batch();
  std::vector<ImpactProblem> problems;
  for (long i = 0; i < b.count; ++i)
    problems.emplace_back(
        KineticMetric(Eigen::MatrixXd(Eigen::Map<const RowMajor>(b.mass.data() + i * 36, 6, 6))),
        Eigen::Map<const RowMajor>(b.normals.data() + i * 12, 2, 6),
        Eigen::Map<const Eigen::VectorXd>(b.momentum.data() + i * 6, 6), 1.0);
  ImpactWorkspace ws;
  std::size_t i = 0;
  for (auto _ : state) {
    ImpactResolution res = resolve_impact(problems[i], options, ws);
    benchmark::DoNotOptimize(res);
    i = i + 1 == problems.size() ? 0 : i + 1;
  }
  state.SetItemsProcessed(state.iterations());
}

// ... with simpact resolve's defaults (plastic outcome, ξ).
void BM_BilliardsBatchCoreCliDefaults(benchmark::State& state) {
  resolve_prebuilt_billiards(state, ResolveOptions{});
}
BENCHMARK(BM_BilliardsBatchCoreCliDefaults);

// simpact.resolve's C++ half on one thread: problems built in place, results into the arrays.
void BM_BilliardsBatchResolveBatch(benchmark::State& state) {
  const RawImpactBatch raw = raw_billiards_batch();
  const ResolveOptions options;
  for (auto _ : state) {
    ImpactBatchResult r = resolve_batch(raw, options, 1);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * raw.batch);
}
BENCHMARK(BM_BilliardsBatchResolveBatch);

// The same through the per-item request (raw_problem_maker): what the batch path was before.
void BM_BilliardsBatchResolveViaRequests(benchmark::State& state) {
  const RawImpactBatch raw = raw_billiards_batch();
  const ResolveOptions options;
  for (auto _ : state) {
    ImpactBatchResult r = resolve_batch(raw.batch, raw.dof, raw.contacts, raw_problem_maker(raw), options, 1);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * raw.batch);
}
BENCHMARK(BM_BilliardsBatchResolveViaRequests);

// The same two in simpact.resolve's "core work" mode (plastic=False, definition1=False: the work
// of BM_BilliardsResolveAllWithXi): the core on prebuilt varied problems, then the whole batch.
ResolveOptions core_work_options() {
  ResolveOptions options;
  options.policy = OrderingPolicy::kAll;
  options.compare_argmin_argmax = true;
  options.compute_plastic = false;
  return options;
}

void BM_BilliardsBatchCoreWork(benchmark::State& state) {
  resolve_prebuilt_billiards(state, core_work_options());
}
BENCHMARK(BM_BilliardsBatchCoreWork);

void BM_BilliardsBatchResolveBatchCoreWork(benchmark::State& state) {
  const RawImpactBatch raw = raw_billiards_batch();
  const ResolveOptions options = core_work_options();
  ImpactBatchResult r;
  for (auto _ : state) {
    resolve_batch(raw, options, 1, r);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * raw.batch);
}
BENCHMARK(BM_BilliardsBatchResolveBatchCoreWork);

}  // namespace

BENCHMARK_MAIN();
