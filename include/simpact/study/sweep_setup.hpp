// Shared by `run`, `merge` and `analyze`: the model catalog for config validation (impact
// models and test functions), the impact-study options a config selects, and the task kernel
// a config runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "simpact/analysis/impact_task_kernel.hpp"
#include "simpact/core/parameter_info.hpp"
#include "simpact/io/sweep_config_yaml.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

SweepConfig load_config(const std::string& path);
// base_dir: the folder relative paths resolve from (a result's config_folder attribute).
SweepConfig parse_config_text(const std::string& text, const std::string& base_dir = "");
ImpactStudyOptions study_options(const SweepConfig& config);

// Impact models, then test functions (`model: ishigami`).
std::vector<std::string> sweep_model_names();
std::vector<ParameterInfo> sweep_model_parameters(const std::string& name);
bool is_impact_model(const std::string& name);
// The impact model of a config: a built-in by name, or its mechanism file.
std::unique_ptr<MechanismFamily> make_impact_model(const SweepConfig& config);
// The kernel of config.model: SimulationTaskKernel (simulate:), ImpactTaskKernel or
// FunctionTaskKernel. The sweep engine only sees the TaskKernel interface.
std::unique_ptr<TaskKernel> make_task_kernel(const SweepConfig& config);

}  // namespace simpact
