// Where a sweep task's time goes, in process, one thread: the per-task cost of each step of the
// compute loop for every task of an impact-model config, beside BM_BilliardsBuildAndResolve's
// rate measured in the same run (issue 8: the sweep's tasks/s ≥ 0.25 of it). Run:
//   build/bench/sweep_phases_bench configs/billiards_mc.yaml
// or `sweep_phases_bench --reference N`: N untimed iterations of the reference loop alone.
// bench/sweep_bench.sh adds what happens around the loop (startup, journal, HDF5 write).
// Each step is timed as the difference of two passes over all tasks (sample; + build;
// + compute; + columns), each pass the best of three in thread CPU time (the machine may be
// shared), so no timer sits inside the loop.
#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "simpact/analysis/impact_task_kernel.hpp"
#include "simpact/core/impact_resolution.hpp"
#include "simpact/io/sweep_config_yaml.hpp"
#include "simpact/models/billiards_scenario.hpp"
#include "simpact/models/model_catalog.hpp"
#include "simpact/sweep/parameter_space.hpp"

namespace {

using namespace simpact;

double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Best of three passes of `pass`, in CPU seconds of this thread.
double best_of_three(const std::function<void()>& pass) {
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i) {
    const double t0 = thread_seconds();
    pass();
    best = std::min(best, thread_seconds() - t0);
  }
  return best;
}

// BM_BilliardsBuildAndResolve's loop (core_bench): θ steps, make_problem, one argmin resolution;
// `iterations` of it, returning a value that keeps the loop.
int build_and_resolve(long iterations) {
  const BilliardsFamily model;
  ParameterSet params;
  ImpactWorkspace ws;
  ResolveOptions options;
  options.policy = OrderingPolicy::kArgmin;
  options.compare_argmin_argmax = false;
  options.compute_plastic = false;
  int sink = 0;
  double theta = 2.0;
  for (long i = 0; i < iterations; ++i) {
    theta = theta > 3.0 ? 1.2 : theta + 1e-3;
    params.set("theta", theta);
    const ImpactProblem problem = model.make_problem(params);
    sink += resolve_impact(problem, options, ws).outcome_count;
  }
  return sink;
}

double build_and_resolve_rate() {
  constexpr long kIterations = 1 << 20;
  int sink = 0;
  const double seconds = best_of_three([&] { sink += build_and_resolve(kIterations); });
  if (sink == 42) std::puts("");  // keeps the loop
  return kIterations / seconds;
}

int run(const std::string& path) {
  const auto catalog = [](const std::string& name, std::vector<ParameterInfo>& parameters) {
    for (const auto& known : model_names())
      if (known == name) {
        parameters = make_model(name)->parameters();
        return true;
      }
    return false;
  };
  const SweepConfig config = load_sweep_config(path, model_names(), catalog);
  ImpactStudyOptions options;
  options.orderings = config.orderings;
  options.minimality = config.minimality;
  options.limits = config.limits;
  options.seed = config.seed;
  options.momenta = config.output.momenta;
  const ImpactTaskKernel kernel(make_model(config.model), options);
  const std::unique_ptr<MechanismFamily> model = make_model(config.model);
  const ParameterSpace space(config);
  const std::int64_t tasks = space.task_count();
  auto scratch_base = kernel.make_scratch();
  auto& scratch = static_cast<ImpactTaskScratch&>(*scratch_base);
  std::vector<double> values(static_cast<std::size_t>(values_per_task(kernel)));
  ParameterSet params;
  double sink = 0.0;

  const double sample = best_of_three([&] {
    for (std::int64_t k = 0; k < tasks; ++k) sink += static_cast<double>(space.parameters_of(k, params));
  });
  FamilyScratch family;
  ImpactTerms terms;
  PreImpact pre;
  ImpactSystem system;
  const double build = best_of_three([&] {
    for (std::int64_t k = 0; k < tasks; ++k) {
      space.parameters_of(k, params);
      model->impact_at(params, family, terms, pre, nullptr);
      sink += impact_problem_at<FixedSizes>(terms, pre, system).momentum_norm();
    }
  });
  const double compute = best_of_three([&] {
    for (std::int64_t k = 0; k < tasks; ++k) {
      space.parameters_of(k, params);
      sink += static_cast<double>(kernel.compute(k, params, scratch));
    }
  });
  const double evaluate = best_of_three([&] {
    for (std::int64_t k = 0; k < tasks; ++k) {
      space.parameters_of(k, params);
      sink += static_cast<double>(kernel.evaluate(k, params, scratch, values.data())) + values[0];
    }
  });
  const double reference = build_and_resolve_rate();
  if (sink == 42.0) std::puts("");

  const double per = 1e9 / static_cast<double>(tasks);
  fmt::print("{}: {} tasks, one thread, in process\n", path, tasks);
  fmt::print("  sample   {:7.0f} ns/task  (ParameterSpace::parameters_of: grid values, draws)\n",
             sample * per);
  fmt::print("  build    {:7.0f} ns/task  (model: parameters -> system, p-)\n", (build - sample) * per);
  fmt::print("  resolve  {:7.0f} ns/task  (plastic, orderings, diagnostics)\n", (compute - build) * per);
  fmt::print("  columns  {:7.0f} ns/task  (result extractors)\n", (evaluate - compute) * per);
  fmt::print("  loop     {:7.0f} ns/task = {:.0f} tasks/s\n", evaluate * per, tasks / evaluate);
  fmt::print("  BM_BilliardsBuildAndResolve {:.0f} /s: loop ratio {:.3f}\n", reference,
             (tasks / evaluate) / reference);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // --reference N: only N iterations of the reference loop, untimed, for an instruction counter
  // (bench/sweep_bench.sh: the difference of two N gives instructions per iteration).
  if (argc == 3 && std::string(argv[1]) == "--reference") {
    const int sink = build_and_resolve(std::stol(argv[2]));
    std::printf("%d\n", sink);
    return 0;
  }
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: sweep_phases_bench CONFIG.yaml (an impact-model sweep) | --reference ITERATIONS\n");
    return 2;
  }
  try {
    return run(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sweep_phases_bench: error: %s\n", e.what());
    return 1;
  }
}
