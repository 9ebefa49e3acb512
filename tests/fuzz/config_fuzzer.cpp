// libFuzzer harness for the sweep config loader (tests/fuzz/README.md): the YAML text goes
// through parse_sweep_config with the real model catalog, as `simpact run` does. A config that
// loads must give a ParameterSpace whose tasks (first, middle, last: a bounded amount of work
// however many tasks there are) produce parameters and, through the model, an ImpactProblem.
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
#include "simpact/core/input_error.hpp"
#include "simpact/io/sweep_config_yaml.hpp"
#include "simpact/models/model_catalog.hpp"
#include "simpact/sweep/parameter_space.hpp"

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

void check_task(const simpact::ParameterSpace& space, const simpact::ImpactModel& model, std::int64_t task) {
  simpact::ParameterSet params;
  space.parameters_of(task, params);
  const std::int64_t g = space.grid_point_of(task);
  require(g >= 0 && g < space.grid_points(), "grid_point_of(task) in [0, grid_points)");
  require(space.task_of(g, space.replica_of(task)) == task, "task_of(grid_point_of, replica_of) == task");
  require(space.grid_point_at(space.grid_index_of(g)) == g, "grid_point_at(grid_index_of(g)) == g");
  try {
    (void)model.make_problem(params);
  } catch (const simpact::InputError&) {
  }
}

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): the name libFuzzer calls
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  simpact::SweepConfig config;
  try {
    config = simpact::parse_sweep_config(text, simpact::model_names(), catalog);
  } catch (const simpact::ConfigErrors& e) {
    require(!e.lines.empty(), "ConfigErrors carries at least one line");
    return 0;
  }
  const simpact::ParameterSpace space(config);
  const std::int64_t n = space.task_count();
  require(n >= 1 && n == config.task_count(), "task_count() >= 1 and agrees with the config");
  require(!config.orderings.empty(), "at least one ordering");
  const auto model = simpact::make_model(config.model);  // the loader accepted the name
  for (const std::int64_t task : {std::int64_t{0}, n / 2, n - 1}) check_task(space, *model, task);
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
