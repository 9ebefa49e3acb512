// MJCF-mechanism tasks against built-in ones (issue 22's goal: an MJCF task costs at most 3× a
// built-in task of the same size), and robots priced against MuJoCo itself (issues 34 and 37 §4):
// each task iteration builds the task's impact problem from its parameters (a sweep's changing
// input: placement, M(q), gaps and normals) and resolves it under `all` with the plastic outcome,
// as a sweep task does; each robot's `mj_forward` runs on the same file at the task's placed
// configuration in the same run, and the console output ends with the ratio task / mj_forward.
// Run: build/bench/mechanism_bench (from the repository root). Robots: the planar biped (d = 7),
// the quadruped (18 DOF, trot touchdown) and the humanoid (examples/mechanisms/humanoid.xml,
// free root; skipped with a message while that file is missing).
#include <benchmark/benchmark.h>
#include <mujoco/mujoco.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ratio_reporter.hpp"
#include "simpact/core/impact_resolution.hpp"
#include "simpact/models/cradle_scenario.hpp"
#include "simpact/models/file_mechanism_family.hpp"

namespace {

using namespace simpact;

// A task's impact as the sweep builds it: the family's mechanism and state, then the one adapter.
template <typename S>
BasicImpactProblem<S> problem_of(const MechanismFamily& family, const ParameterSet& params, double* values) {
  FamilyScratch scratch;
  ImpactTerms terms;
  PreImpact pre;
  family.impact_at(params, scratch, terms, pre, values);
  return impact_problem_at<S>(terms, pre);
}

std::shared_ptr<const MujocoMechanism> load(const std::string& file,
                                            std::vector<std::pair<std::string, std::string>> contacts,
                                            std::vector<std::string> place = {}) {
  MechanismSpec spec;
  spec.file = "examples/mechanisms/" + file;
  spec.contacts = std::move(contacts);
  spec.place = std::move(place);
  return std::make_shared<const MujocoMechanism>(spec);
}

void resolve_loop(benchmark::State& state, const MechanismFamily& model, ParameterSet params,
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
  resolve_loop(state, CradleFamily(), params, "m2", 0.5, 3.0);
}
BENCHMARK(BM_BuiltinCradle3Task);

void BM_MjcfCradle3Task(benchmark::State& state) {
  const FileMechanismFamily model(load("cradle3.xml", {{"ball_a", "ball_b"}, {"ball_b", "ball_c"}}));
  ParameterSet params;
  params.set("qvel.x_a", 1.0);
  resolve_loop(state, model, params, "mass.b", 0.5, 3.0);
}
BENCHMARK(BM_MjcfCradle3Task);

// ---- Robots: a touchdown task (placement + resolve) and mj_forward on the same file ----------

// A robot's touchdown: its file, contacts, placed coordinates, fixed parameters and the posture
// coordinate a sweep varies (over [lo, hi] in steps of 1e-3, wrapping around).
struct Robot {
  std::string file;
  std::vector<std::pair<std::string, std::string>> contacts;
  std::vector<std::string> place;
  std::vector<std::pair<std::string, double>> params;
  std::string varied;
  double lo, hi;
};

const Robot& biped() {
  static const Robot r{"biped.xml",
                       {{"floor", "foot_l"}, {"floor", "foot_r"}},
                       {"qpos.root_z", "qpos.root_pitch"},
                       {{"qpos.root_z", -0.1},
                        {"qpos.knee_l", -0.4},
                        {"qpos.knee_r", -0.4},
                        {"qpos.hip_l", 0.3},
                        {"qvel.root_x", 0.5},
                        {"qvel.root_z", -1.0}},
                       "qpos.hip_r",
                       -0.6,
                       0.2};
  return r;
}

// configs/quadruped_trot.yaml's task: diagonal feet fl and rr, trunk height and pitch placed.
const Robot& quadruped() {
  static const Robot r{"quadruped.xml",
                       {{"floor", "foot_fl"}, {"floor", "foot_rr"}},
                       {"qpos.root[2]", "qpos.root[5]"},
                       {{"qpos.root[2]", 0.45},
                        {"qpos.fl_knee", 1.0},
                        {"qpos.rr_knee", 1.0},
                        {"qpos.fr_hip", -0.9},
                        {"qpos.fr_knee", 1.8},
                        {"qpos.rl_hip", -0.9},
                        {"qpos.rl_knee", 1.8},
                        {"qpos.rr_hip", -0.2},
                        {"qvel.root[0]", 1.0},
                        {"qvel.root[2]", -0.5}},
                       "qpos.fl_hip",
                       -1.0,
                       -0.4};
  return r;
}

// The humanoid's (H1's examples/mechanisms/humanoid.xml, nv = 27) double-support touchdown, a
// heel strike: a step (hip_pitch_l forward, hip_pitch_r back), toes up, root height and pitch placed.
const Robot& humanoid() {
  static const Robot r{"humanoid.xml",
                       {{"floor", "foot_l"}, {"floor", "foot_r"}},
                       {"qpos.root[2]", "qpos.root[5]"},
                       {{"qpos.root[2]", 0.95},
                        {"qpos.hip_pitch_r", 0.2},
                        {"qpos.knee_l", 0.2},
                        {"qpos.knee_r", 0.2},
                        {"qpos.ankle_pitch_l", -0.3},
                        {"qpos.ankle_pitch_r", -0.3},
                        {"qvel.root[0]", 0.5},
                        {"qvel.root[2]", -0.5}},
                       "qpos.hip_pitch_l",
                       -0.5,
                       -0.1};
  return r;
}

ParameterSet robot_params(const Robot& robot) {
  ParameterSet params;
  for (const auto& [name, value] : robot.params) params.set(name, value);
  params.set(robot.varied, 0.5 * (robot.lo + robot.hi));
  return params;
}

// The sweep task's build, through the size path it takes (fixed up to 16 DOF, dynamic above) and
// its reporting call (the placed coordinates and the smallest gap), then `all` with ξ.
template <typename S>
struct Resolver {
  BasicImpactWorkspace<S> workspace;
  ResolveOptions options;
};

void robot_task(benchmark::State& state, const Robot& robot) {
  if (!std::filesystem::exists("examples/mechanisms/" + robot.file)) {
    state.SkipWithError(
        ("examples/mechanisms/" + robot.file + " not found (run from the repository root)").c_str());
    return;
  }
  const FileMechanismFamily model(load(robot.file, robot.contacts, robot.place));
  ParameterSet params = robot_params(robot);
  std::vector<double> values(model.task_values().size());
  Resolver<FixedSizes> fixed;
  Resolver<DynamicSizes> dynamic;
  const bool large = model.needs_dynamic_sizes(params);
  double x = robot.lo;
  for (auto _ : state) {
    x = x > robot.hi ? robot.lo : x + 1e-3;
    params.set(robot.varied, x);
    if (large) {
      const DynamicImpactProblem problem = problem_of<DynamicSizes>(model, params, values.data());
      auto res = resolve_impact(problem, dynamic.options, dynamic.workspace);
      benchmark::DoNotOptimize(res);
    } else {
      const ImpactProblem problem = problem_of<FixedSizes>(model, params, values.data());
      auto res = resolve_impact(problem, fixed.options, fixed.workspace);
      benchmark::DoNotOptimize(res);
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["dof"] = model.max_dof();
}

// The build alone (placement, M(q), gaps, normals): what the task spends outside the core.
void robot_build(benchmark::State& state, const Robot& robot) {
  if (!std::filesystem::exists("examples/mechanisms/" + robot.file)) {
    state.SkipWithError(("examples/mechanisms/" + robot.file + " not found").c_str());
    return;
  }
  const FileMechanismFamily model(load(robot.file, robot.contacts, robot.place));
  ParameterSet params = robot_params(robot);
  std::vector<double> values(model.task_values().size());
  const bool large = model.needs_dynamic_sizes(params);
  double x = robot.lo;
  for (auto _ : state) {
    x = x > robot.hi ? robot.lo : x + 1e-3;
    params.set(robot.varied, x);
    if (large) {
      auto problem = problem_of<DynamicSizes>(model, params, values.data());
      benchmark::DoNotOptimize(problem);
    } else {
      auto problem = problem_of<FixedSizes>(model, params, values.data());
      benchmark::DoNotOptimize(problem);
    }
  }
  state.SetItemsProcessed(state.iterations());
}

// MuJoCo's own mj_forward on the same file, at the task's placed configuration (the varied
// coordinate moved as in the task, so nothing is cached between calls): with the feet touching
// (lift 0: MuJoCo's contacts and constraint solver run, as at a touchdown) or lifted by `lift` m
// (the first placed coordinate, the base height: no contact, the cheapest mj_forward).
void robot_forward(benchmark::State& state, const Robot& robot, double lift) {
  const std::string file = "examples/mechanisms/" + robot.file;
  if (!std::filesystem::exists(file)) {
    state.SkipWithError((file + " not found").c_str());
    return;
  }
  const FileMechanismFamily model(load(robot.file, robot.contacts, robot.place));
  const MujocoMechanism& mechanism = model.mechanism();
  ParameterSet params = robot_params(robot);
  std::vector<double> values(model.task_values().size());
  if (model.needs_dynamic_sizes(params))
    (void)problem_of<DynamicSizes>(model, params, values.data());
  else
    (void)problem_of<FixedSizes>(model, params, values.data());
  MechanismState placed = mechanism.state_from(params);
  for (std::size_t i = 0; i < mechanism.place_coordinates().size(); ++i)
    placed.qpos[mechanism.place_coordinates()[i]] = values[i];
  char error[1000] = "";
  mjModel* m = mj_loadXML(file.c_str(), nullptr, error, sizeof error);
  if (!m) {
    state.SkipWithError(error);
    return;
  }
  mjData* d = mj_makeData(m);
  const auto& names = mechanism.qpos_names();
  int varied = -1;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == robot.varied) varied = static_cast<int>(i);
  placed.qpos[mechanism.place_coordinates()[0]] += lift;
  for (int i = 0; i < m->nq; ++i) d->qpos[i] = placed.qpos[i];
  for (int i = 0; i < m->nv; ++i) d->qvel[i] = placed.qvel.size() == m->nv ? placed.qvel[i] : 0.0;
  double x = robot.lo;
  for (auto _ : state) {
    x = x > robot.hi ? robot.lo : x + 1e-3;
    if (varied >= 0) d->qpos[varied] = x;
    mj_forward(m, d);
    benchmark::DoNotOptimize(d->qacc[0]);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["dof"] = m->nv;
  state.counters["contacts"] = d->ncon;
  mj_deleteData(d);
  mj_deleteModel(m);
}

// A robot whose task throws (a refused placement) is skipped naming the error, not aborted.
template <typename F>
void guarded(benchmark::State& state, F&& run) {
  try {
    run();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// Each robot's four benchmarks: the sweep task, its build alone, and mj_forward with the feet
// touching and lifted 1 m (print_ratios reads them by these names).
#define SIMPACT_ROBOT_BENCHMARKS(Name, Forward, robot)           \
  void BM_##Name##Task(benchmark::State& state) {                \
    guarded(state, [&] { robot_task(state, robot()); });         \
  }                                                              \
  void BM_##Name##Build(benchmark::State& state) {               \
    guarded(state, [&] { robot_build(state, robot()); });        \
  }                                                              \
  void BM_##Forward(benchmark::State& state) {                   \
    guarded(state, [&] { robot_forward(state, robot(), 0.0); }); \
  }                                                              \
  void BM_##Forward##InTheAir(benchmark::State& state) {         \
    guarded(state, [&] { robot_forward(state, robot(), 1.0); }); \
  }                                                              \
  BENCHMARK(BM_##Name##Task);                                    \
  BENCHMARK(BM_##Name##Build);                                   \
  BENCHMARK(BM_##Forward);                                       \
  BENCHMARK(BM_##Forward##InTheAir)

SIMPACT_ROBOT_BENCHMARKS(MjcfBipedTouchdown, MjcfBipedMjForward, biped);
SIMPACT_ROBOT_BENCHMARKS(QuadrupedTrot, QuadrupedMjForward, quadruped);
SIMPACT_ROBOT_BENCHMARKS(HumanoidTouchdown, HumanoidMjForward, humanoid);

// The console output, then each robot's task and build over its mj_forward (CPU; medians when
// --benchmark_repetitions gives them): issue 34's and 37 §4's target is task ≤ 3× mj_forward.
void print_ratios(const simpact::bench::RatioReporter& times) {
  static const char* kRows[][3] = {
      {"biped touchdown (d = 7)", "BM_MjcfBipedTouchdown", "BM_MjcfBipedMjForward"},
      {"quadruped trot (d = 18)", "BM_QuadrupedTrot", "BM_QuadrupedMjForward"},
      {"humanoid touchdown (d = 27)", "BM_HumanoidTouchdown", "BM_HumanoidMjForward"}};
  std::printf(
      "\nrobots against MuJoCo's mj_forward on the same file (CPU; target: task <= 3x), mj_forward\n"
      "at the task's placed configuration (feet touching) and lifted 1 m (no contact):\n");
  for (const auto& row : kRows) {
    const std::string robot = row[1], forward = row[2];
    const double task = times.ns(robot + "Task"), build = times.ns(robot + "Build"),
                 touching = times.ns(forward), air = times.ns(forward + "InTheAir");
    if (task <= 0 || touching <= 0 || air <= 0) continue;
    std::printf(
        "  %-28s task %7.0f ns = %5.2fx touching (%6.0f ns), %5.2fx in the air (%6.0f ns);"
        " build alone %7.0f ns = %5.2fx / %5.2fx\n",
        row[0], task, task / touching, touching, task / air, air, build, build / touching, build / air);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return simpact::bench::run_with_ratios(argc, argv, print_ratios);
}
