// The layout of a sweep's result file, derived from the kernel's result columns: grid axes; per
// scalar column one map, or five statistics over the replicas; per-status counts; the headline
// /xi; optional per-task samples (study/ only; not installed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "simpact/io/sweep_file.hpp"
#include "simpact/sweep/parameter_space.hpp"
#include "simpact/sweep/sweep_config.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact::detail {

// Where each result column sits in a task's values.
struct ColumnOffsets {
  std::vector<std::size_t> offset;   // per column
  std::vector<std::size_t> scalars;  // indices of the length-1 columns (they get grid maps)
  std::vector<std::size_t> arrays;   // indices of the per-task arrays
  explicit ColumnOffsets(const TaskKernel& kernel) {
    std::size_t at = 0;
    for (std::size_t c = 0; c < kernel.columns().size(); ++c) {
      offset.push_back(at);
      at += static_cast<std::size_t>(kernel.columns()[c].length);
      (kernel.columns()[c].length == 1 ? scalars : arrays).push_back(c);
    }
  }
};

// The file layout: grid axes; per result column one map <group>/<name> without Monte Carlo, or
// <name>_mean/_std/_min/_max/_count over the replicas of each grid point; the headline map /xi;
// optional per-task samples.
SweepFileLayout make_layout(const SweepConfig& config, const ParameterSpace& space, const TaskKernel& kernel,
                            std::int64_t chunk_count);

}  // namespace simpact::detail
