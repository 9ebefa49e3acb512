// The compute loop of the sweep engine: one chunk's tasks, from their parameters to their rows.
#pragma once

#include <csignal>
#include <cstdint>
#include <memory>

#include "simpact/sweep/chunk_results.hpp"
#include "simpact/sweep/parameter_space.hpp"
#include "simpact/sweep/sweep_config.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

// Computes a run's chunks one after the other, reusing the kernel's chunk scratch and the
// parameter matrix. Each task's slot is fixed, so the rows do not depend on which thread (or
// kernel implementation) computed them.
class ChunkComputer {
 public:
  // `stop`: the sweep's stop flag (ChunkOutput::stop), or null.
  ChunkComputer(const ParameterSpace& space, const TaskKernel& kernel, TaskErrorMode on_task_error,
                const volatile std::sig_atomic_t* stop = nullptr);
  // Fills `chunk` (first_task and count set, sized by ChunkResults::resize): each task's random
  // counter from the parameter space, its status and values from TaskKernel::evaluate_chunk. A
  // failing task is recorded as kFailed with NaN values; under on_task_error: abort this then
  // throws std::runtime_error naming the chunk's lowest failing task and its parameters. Returns
  // false when the kernel gave the chunk up on the stop flag: its rows are incomplete, keep none.
  bool compute(ChunkResults& chunk);

 private:
  const ParameterSpace& space_;
  const TaskKernel& kernel_;
  TaskErrorMode on_task_error_;
  const volatile std::sig_atomic_t* stop_;
  std::unique_ptr<ChunkScratch> scratch_;
  ParameterMatrix params_;
};

}  // namespace simpact
