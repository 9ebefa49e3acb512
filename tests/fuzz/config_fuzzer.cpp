// libFuzzer harness for the sweep config loader (tests/fuzz/README.md): the YAML text goes
// through parse_sweep_config with the real model catalog, as `simpact run` does. A config that
// loads must give a ParameterSpace whose tasks (first, middle, last: a bounded amount of work
// however many tasks there are) produce parameters and, through the model, an ImpactProblem.
//
// A config with a `simulate:` section (time-stepped sweeps) loads with the dynamic catalogue, as
// `simpact run` does; its tasks build the SimulationTaskKernel and the model, and run when their
// step count and record fit the fuzz budget (simulate_budget.hpp).
//
// Expected, and so ignored: ConfigErrors (the loader's one-line-per-problem report) and
// InputError from the model (a parameter combination the ranges cannot rule out, e.g. θ below
// the overlap angle). Anything else — a crash, a sanitizer report, another exception, a broken
// invariant below — is a bug.
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "simpact/analysis/simulation_task_kernel.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/io/sweep_config_yaml.hpp"
#include "simpact/models/dynamic_models.hpp"
#include "simpact/models/model_catalog.hpp"
#include "simpact/sweep/parameter_space.hpp"
#include "simulate_budget.hpp"

namespace {

using simpact::fuzz::require;

// The catalog of src/app/sweep_setup.cpp, built once (every call would rebuild the cradle's
// parameter list).
const std::map<std::string, std::vector<simpact::ParameterInfo>>& model_parameters() {
  static const auto* parameters = [] {
    auto* out = new std::map<std::string, std::vector<simpact::ParameterInfo>>;
    for (const auto& name : simpact::model_names()) (*out)[name] = simpact::make_model(name)->parameters();
    return out;
  }();
  return *parameters;
}

bool catalog(const std::string& model, std::vector<simpact::ParameterInfo>& parameters) {
  const auto it = model_parameters().find(model);
  if (it == model_parameters().end()) return false;
  parameters = it->second;
  return true;
}

// The dynamic catalogue of src/app/sweep_setup.cpp: a model's own parameters plus dt,
// restitution, simultaneity_tolerance and force_split.
bool dynamic_catalog(const std::string& model, std::vector<simpact::ParameterInfo>& parameters) {
  for (const auto& name : simpact::dynamic_model_names())
    if (name == model) {
      parameters = simpact::simulation_sweep_parameters(name);
      return true;
    }
  return false;
}

simpact::ParameterSet task_parameters(const simpact::ParameterSpace& space, std::int64_t task) {
  simpact::ParameterSet params;
  space.parameters_of(task, params);
  const std::int64_t g = space.grid_point_of(task);
  require(g >= 0 && g < space.grid_points(), "grid_point_of(task) in [0, grid_points)");
  require(space.task_of(g, space.replica_of(task)) == task, "task_of(grid_point_of, replica_of) == task");
  require(space.grid_point_at(space.grid_index_of(g)) == g, "grid_point_at(grid_index_of(g)) == g");
  return params;
}

void check_task(const simpact::ParameterSpace& space, const simpact::MechanismFamily& model,
                std::int64_t task) {
  const simpact::ParameterSet params = task_parameters(space, task);
  try {
    (void)model.make_problem(params);
  } catch (const simpact::InputError&) {
  }
}

// A time-stepped sweep (simulate:): the kernel as make_simulation_kernel builds it, then the tasks.
void check_simulate(const simpact::SweepConfig& config, const simpact::ParameterSpace& space,
                    const std::int64_t (&tasks)[3]) {
  simpact::SimulationStudyOptions o = simpact::simulation_study_options(config);
  require(o.steps > 0 || o.t_end > 0.0, "simulate: steps or a positive t_end");
  try {
    if (o.record > 0) o.record_dof = simpact::simulation_dof(config.model, task_parameters(space, 0));
  } catch (const simpact::InputError&) {
    return;  // the first task's parameters build no model: the sweep would stop there too
  }
  const simpact::SimulationTaskKernel kernel(o);
  std::int64_t width = 0;
  for (const auto& column : kernel.columns()) width += column.length;
  require(width >= 1, "a time-stepped sweep has result columns");
  auto scratch = kernel.make_scratch();
  std::vector<double> results(static_cast<std::size_t>(width));
  for (const std::int64_t task : tasks) {
    const simpact::ParameterSet params = task_parameters(space, task);
    try {
      const int dof = simpact::simulation_dof(config.model, params);
      require(dof >= 1, "a dynamic model has coordinates");
      const std::int64_t steps = kernel.steps_for(params.require("dt"));
      // One run per ordering: the budget is on their total.
      const auto runs = static_cast<std::int64_t>(o.orderings.size());
      if (steps * runs > simpact::fuzz::kMaxFuzzSteps || o.record > simpact::fuzz::kMaxFuzzRecords) continue;
      (void)kernel.evaluate(task, params, *scratch, results.data());
    } catch (const simpact::InputError&) {
    }
  }
}

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): the name libFuzzer calls
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  simpact::SweepConfig config;
  try {
    config = simpact::parse_sweep_config(text, simpact::model_names(), catalog,
                                         {simpact::dynamic_model_names(), dynamic_catalog});
  } catch (const simpact::ConfigErrors& e) {
    require(!e.lines.empty(), "ConfigErrors carries at least one line");
    return 0;
  }
  const simpact::ParameterSpace space(config);
  const std::int64_t n = space.task_count();
  require(n >= 1 && n == config.task_count(), "task_count() >= 1 and agrees with the config");
  require(!config.orderings.empty(), "at least one ordering");
  const std::int64_t tasks[3] = {0, n / 2, n - 1};
  if (config.simulate) {
    check_simulate(config, space, tasks);
  } else {
    const auto model = simpact::make_model(config.model);  // the loader accepted the name
    for (const std::int64_t task : tasks) check_task(space, *model, task);
  }
  // Outside [0, n): the explicit range check, not undefined behaviour.
  for (const std::int64_t task : {std::int64_t{-1}, n}) {
    simpact::ParameterSet params;
    bool thrown = false;
    try {
      space.parameters_of(task, params);
    } catch (const std::out_of_range&) {
      thrown = true;
    }
    require(thrown, "parameters_of(task outside [0, n)) throws std::out_of_range");
  }
  return 0;
}
