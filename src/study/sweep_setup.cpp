#include "simpact/study/sweep_setup.hpp"

#include <algorithm>

#include "simpact/analysis/audit_task_kernel.hpp"
#include "simpact/analysis/function_task_kernel.hpp"
#include "simpact/analysis/simulation_task_kernel.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/models/dynamic_models.hpp"
#include "simpact/models/file_mechanism_family.hpp"
#include "simpact/models/model_catalog.hpp"
#include "simpact/models/test_functions.hpp"
#include "simpact/study/input_binding.hpp"
#include "simpact/sweep/parameter_space.hpp"

namespace simpact {

namespace {
bool catalog(const std::string& model, std::vector<ParameterInfo>& parameters) {
  for (const auto& name : sweep_model_names())
    if (name == model) {
      parameters = sweep_model_parameters(name);
      return true;
    }
  return false;
}
DynamicCatalog dynamic_catalog() {
  return {dynamic_model_names(),
          [](const std::string& model, std::vector<ParameterInfo>& parameters) {
            for (const auto& name : dynamic_model_names())
              if (name == model) {
                parameters = simulation_sweep_parameters(name);
                return true;
              }
            return false;
          },
          simulation_integrator_parameters()};
}

// `model: {file: ...}`: the mechanism's parameter schema (loading the file checks its names).
void mechanism_catalog(const MechanismFileSpec& file, std::vector<ParameterInfo>& parameters) {
  MechanismSpec spec{file.file, file.contacts, file.place, file.gap_tolerance, "model"};
  spec.witnesses = file.witnesses;
  parameters = MujocoMechanism(std::move(spec)).parameters();
}

// A time-stepped sweep's kernel; recorded arrays are sized by the first task's model.
std::unique_ptr<TaskKernel> make_simulation_kernel(const SweepConfig& config) {
  SimulationStudyOptions o = simulation_study_options(config);
  if (config.mechanism) {
    const MechanismFileSpec& f = *config.mechanism;
    MechanismSpec spec{f.file, f.contacts, f.place, f.gap_tolerance, "model"};
    spec.witnesses = f.witnesses;
    o.mechanism = std::make_shared<const MujocoMechanism>(std::move(spec));
  }
  if (o.record > 0) {
    ParameterSet first;
    ParameterSpace(config).parameters_of(0, first);
    o.record_dof = simulation_dof(o, first);
    simulation_coordinates(o, first, o.record_coordinates, o.record_units);
  }
  return std::make_unique<SimulationTaskKernel>(std::move(o));
}
}  // namespace

std::vector<std::string> sweep_model_names() {
  auto names = model_names();
  for (const auto& f : test_function_names()) names.push_back(f);
  return names;
}

bool is_impact_model(const std::string& name) {
  return !is_test_function(name);
}

std::vector<ParameterInfo> sweep_model_parameters(const std::string& name) {
  if (is_test_function(name)) return make_test_function(name)->parameters();
  return make_model(name)->parameters();
}

std::unique_ptr<TaskKernel> make_task_kernel(const SweepConfig& config) {
  if (config.simulate) return make_simulation_kernel(config);
  if (config.audit) {
    const MechanismFileSpec& f = *config.mechanism;
    return std::make_unique<AuditTaskKernel>(std::make_shared<const MujocoMechanism>(MechanismSpec{
                                                 f.file, f.contacts, f.place, f.gap_tolerance, "model"}),
                                             *config.audit);
  }
  if (!config.mechanism && is_test_function(config.model))
    return std::make_unique<FunctionTaskKernel>(make_test_function(config.model));
  return std::make_unique<ImpactTaskKernel>(make_impact_model(config), study_options(config));
}

std::unique_ptr<MechanismFamily> make_impact_model(const SweepConfig& config) {
  if (!config.mechanism) return make_model(config.model);
  const MechanismFileSpec& f = *config.mechanism;
  // A placed coordinate is stored as placed/<name>, beside a copy of the grid axes in that group.
  for (const GridAxis& axis : config.grid)
    if (std::find(f.place.begin(), f.place.end(), axis.name) != f.place.end())
      throw InputError("grid." + axis.name,
                       "is solved by model.place (a task holds its placed value, stored as placed/" +
                           axis.name +
                           "): a grid axis cannot be its start value; give the start in params, or vary it "
                           "with monte_carlo or design");
  MechanismSpec spec{f.file, f.contacts, f.place, f.gap_tolerance, "model"};
  spec.witnesses = f.witnesses;
  return std::make_unique<FileMechanismFamily>(std::make_shared<const MujocoMechanism>(std::move(spec)));
}

SweepConfig load_config(const std::string& path) {
  SweepConfig config =
      load_sweep_config(path, sweep_model_names(), catalog, dynamic_catalog(), mechanism_catalog);
  bind_mechanism_inputs(config);
  return config;
}

SweepConfig parse_config_text(const std::string& text, const std::string& base_dir) {
  SweepConfig config =
      parse_sweep_config(text, sweep_model_names(), catalog, dynamic_catalog(), mechanism_catalog, base_dir);
  bind_mechanism_inputs(config);
  return config;
}

ImpactStudyOptions study_options(const SweepConfig& config) {
  ImpactStudyOptions o;
  o.orderings = config.orderings;
  o.minimality = config.minimality;
  o.limits = config.limits;
  o.seed = config.seed;
  o.momenta = config.output.momenta;
  return o;
}

}  // namespace simpact
