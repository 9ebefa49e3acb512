// The layout of a sweep's result file, derived from the kernel's result columns: grid axes; per
// scalar column one map, or five statistics over the replicas; per-status counts; the headline
// /xi; optional per-task samples (study/ only; not installed).
#pragma once

#include <cstdint>

#include "simpact/io/sweep_file.hpp"
#include "simpact/sweep/parameter_space.hpp"
#include "simpact/sweep/sweep_config.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact::detail {

// The sweep engine's ColumnOffsets (sweep/task_kernel.hpp), by the name the final write uses.
using simpact::ColumnOffsets;

// The file layout: grid axes; per result column one map <group>/<name> without Monte Carlo, or
// <name>_mean/_std/_min/_max/_count over the replicas of each grid point; the headline map /xi;
// optional per-task samples.
SweepFileLayout make_layout(const SweepConfig& config, const ParameterSpace& space, const TaskKernel& kernel,
                            std::int64_t chunk_count);

}  // namespace simpact::detail
