// Impact-core throughput (one core). Run:
//   build/core_bench --benchmark_min_time=0.5
// items_per_second = impact resolutions per second. Targets (issue): billiards (d = 6, 2 contacts)
// ≥ 5e6/s with a single policy, ≥ 1e6/s with the full outcome set and ξ.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "flat_billiards.hpp"
#include "ratio_reporter.hpp"
#include "simpact/core/impact_resolution.hpp"
#include "simpact/core/plastic_impact.hpp"
#include "simpact/models/billiards_scenario.hpp"
#include "simpact/models/cradle_scenario.hpp"
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
  static const ImpactProblem problem = BilliardsFamily().make_problem(billiards_params(2 * kPi / 3));
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
  const BilliardsFamily model;
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
  const ImpactProblem problem = CradleFamily().make_problem(params);
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
  const CradleFamily model;
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

// ---- the flat reference (issue 37 §1): the same billiards work as plain loops ------------------

using bench::FlatLanes;
using bench::FlatProblem;
using bench::FlatResult;
using bench::kFlatDof;
using bench::kFlatLanes;

FlatProblem flat_of(const ImpactProblem& problem) {
  FlatProblem f;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < kFlatDof; ++j) f.n[i][j] = problem.normals()(i, j);
  for (int j = 0; j < kFlatDof; ++j) {
    f.p[j] = problem.momentum()[j];
    f.minv[j] = problem.metric().inverse_diagonal()[j];
  }
  return f;
}

// Eight breaks around θ = 2π/3 (both contacts violated, two outcomes each).
const std::vector<ImpactProblem>& lane_problems() {
  static const std::vector<ImpactProblem> problems = [] {
    std::vector<ImpactProblem> out;
    for (int l = 0; l < kFlatLanes; ++l)
      out.push_back(BilliardsFamily().make_problem(billiards_params(1.9 + 0.08 * l)));
    return out;
  }();
  return problems;
}

FlatLanes flat_lanes() {
  FlatLanes f;
  const auto& problems = lane_problems();
  for (int l = 0; l < kFlatLanes; ++l) {
    const FlatProblem one = flat_of(problems[static_cast<std::size_t>(l)]);
    for (int j = 0; j < kFlatDof; ++j) {
      for (int i = 0; i < 2; ++i) f.n[i][j][l] = one.n[i][j];
      f.p[j][l] = one.p[j];
      f.minv[j][l] = one.minv[j];
    }
  }
  return f;
}

bool close(double a, double b) {
  return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b));
}

// "" when the flat reference gives the core's outcomes and ξ for `problem`, else what differs.
std::string flat_matches_core(const ImpactProblem& problem) {
  ImpactWorkspace ws;
  ResolveOptions options;
  options.policy = OrderingPolicy::kAll;
  options.compare_argmin_argmax = true;
  options.compute_plastic = false;
  const ImpactResolution core = resolve_impact(problem, options, ws);
  FlatResult flat;
  bench::flat_full_set(flat_of(problem), flat);
  if (flat.outcomes != core.outcome_count) return "outcome count";
  if (!close(flat.xi, core.xi) || !close(flat.xi_argmin_argmax, core.xi_argmin_argmax)) return "xi";
  for (int o = 0; o < flat.outcomes; ++o) {
    bool found = false;
    for (int c = 0; c < core.outcome_count; ++c) {
      bool same = true;
      for (int j = 0; j < kFlatDof; ++j)
        same = same && close(flat.momentum[o][j], ws.outcomes.items[c].momentum[j]);
      found = found || same;
    }
    if (!found) return "outcome momenta";
  }
  double one[kFlatDof];
  bench::flat_one_ordering(flat_of(problem), one);
  for (int j = 0; j < kFlatDof; ++j) {  // the core's argmin outcome: p⁻ + λᵀN
    const double argmin = problem.momentum()[j] + core.argmin.impulses[0] * problem.normals()(0, j) +
                          core.argmin.impulses[1] * problem.normals()(1, j);
    if (!close(one[j], argmin)) return "argmin outcome";
  }
  return "";
}

void BM_FlatBilliardsOneOrdering(benchmark::State& state) {
  if (const std::string bad = flat_matches_core(billiards_problem()); !bad.empty())
    return state.SkipWithError(("flat reference differs from the core: " + bad).c_str());
  FlatProblem f = flat_of(billiards_problem());
  double out[kFlatDof];
  for (auto _ : state) {
    benchmark::DoNotOptimize(&f);
    bench::flat_one_ordering(f, out);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FlatBilliardsOneOrdering);

void BM_FlatBilliardsAllWithXi(benchmark::State& state) {
  FlatProblem f = flat_of(billiards_problem());
  FlatResult r;
  for (auto _ : state) {
    benchmark::DoNotOptimize(&f);
    bench::flat_full_set(f, r);
    benchmark::DoNotOptimize(&r);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FlatBilliardsAllWithXi);

void BM_FlatBilliardsLanesOneOrdering(benchmark::State& state) {
  for (const auto& problem : lane_problems())
    if (const std::string bad = flat_matches_core(problem); !bad.empty())
      return state.SkipWithError(("flat reference differs from the core: " + bad).c_str());
  FlatLanes f = flat_lanes();
  double out[kFlatDof][kFlatLanes];
  // The lanes' one-ordering outcomes equal the scalar reference's (checked once).
  bench::flat_lanes_one_ordering(f, out);
  for (int l = 0; l < kFlatLanes; ++l) {
    double one[kFlatDof];
    bench::flat_one_ordering(flat_of(lane_problems()[static_cast<std::size_t>(l)]), one);
    for (int j = 0; j < kFlatDof; ++j)
      if (!close(out[j][l], one[j]))
        return state.SkipWithError("interleaved one ordering differs from the scalar");
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(&f);
    bench::flat_lanes_one_ordering(f, out);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kFlatLanes);
}
BENCHMARK(BM_FlatBilliardsLanesOneOrdering);

void BM_FlatBilliardsLanesAllWithXi(benchmark::State& state) {
  FlatLanes f = flat_lanes();
  double xi[kFlatLanes];
  int outcomes[kFlatLanes];
  bench::flat_lanes_full_set(f, xi, outcomes);
  for (int l = 0; l < kFlatLanes; ++l) {
    FlatResult one;
    bench::flat_full_set(flat_of(lane_problems()[static_cast<std::size_t>(l)]), one);
    if (!close(xi[l], one.xi) || outcomes[l] != one.outcomes)
      return state.SkipWithError("interleaved full set differs from the scalar");
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(&f);
    bench::flat_lanes_full_set(f, xi, outcomes);
    benchmark::DoNotOptimize(xi);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kFlatLanes);
}
BENCHMARK(BM_FlatBilliardsLanesAllWithXi);

// The console output, then each core benchmark's time per problem over the flat reference's
// (CPU; medians when --benchmark_repetitions gives them): the issue-37 targets' measure.
void print_ratios(const simpact::bench::RatioReporter& times) {
  static const char* kRows[][3] = {
      {"one ordering", "BM_BilliardsResolveSinglePolicy", "BM_FlatBilliardsOneOrdering"},
      {"full set + xi", "BM_BilliardsResolveAllWithXi", "BM_FlatBilliardsAllWithXi"},
      {"build + resolve (flat: resolve only)", "BM_BilliardsBuildAndResolve", "BM_FlatBilliardsOneOrdering"},
      {"batch core work (full set + xi, varied)", "BM_BilliardsBatchCoreWork", "BM_FlatBilliardsAllWithXi"}};
  static const char* kLanes[] = {"BM_FlatBilliardsLanesOneOrdering", "BM_FlatBilliardsLanesAllWithXi", "",
                                 "BM_FlatBilliardsLanesAllWithXi"};
  std::printf("\nper problem against the flat reference (CPU):\n");
  for (std::size_t r = 0; r < std::size(kRows); ++r) {
    const double core = times.ns(kRows[r][1]), flat = times.ns(kRows[r][2]), lanes = times.ns(kLanes[r]);
    if (core <= 0 || flat <= 0) continue;
    std::printf("  %-40s core %7.1f ns, flat %6.1f ns: %5.2fx", kRows[r][0], core, flat, core / flat);
    if (lanes > 0) std::printf("; interleaved x8 %5.1f ns: %5.2fx", lanes, core / lanes);
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  return simpact::bench::run_with_ratios(argc, argv, print_ratios);
}
