// Shared by `run` and `merge`: the model catalog for config validation and the impact-study
// options a config selects.
#pragma once

#include <string>

#include "simpact/analysis/impact_task_kernel.hpp"
#include "simpact/io/sweep_config_yaml.hpp"

namespace simpact::app {

SweepConfig load_config(const std::string& path);
SweepConfig parse_config_text(const std::string& text);
ImpactStudyOptions study_options(const SweepConfig& config);

}  // namespace simpact::app
