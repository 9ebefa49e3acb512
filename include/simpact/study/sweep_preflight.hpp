// Every input error the config alone shows, found before any file is created (exit 2), not by a
// task after the sweep started.
#pragma once

#include <cstdint>
#include <string>

#include "simpact/sweep/sweep_config.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

// Checks the parameters of every grid point (its first replica), then, at the first admissible
// point, every value each Monte Carlo distribution can draw at its extremes (each `choice` value,
// the lowest and highest a continuous one yields). Returns the first error ("" = none). With
// `on_task_error: record`, inadmissible grid points are counted in `inadmissible` instead (they
// are recorded as failed tasks), and draws are not checked (their failures are recorded too).
std::string preflight(const SweepConfig& config, const TaskKernel& kernel, std::int64_t& inadmissible);

}  // namespace simpact
