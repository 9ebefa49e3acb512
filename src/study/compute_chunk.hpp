// One chunk of a sweep computed over the OpenMP threads (study/ only; not installed).
#pragma once

#include <memory>
#include <vector>

#include "simpact/io/chunk_journal.hpp"
#include "simpact/sweep/parameter_space.hpp"
#include "simpact/sweep/sweep_config.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact::detail {

// Evaluates one chunk's tasks over the OpenMP threads (one scratch per thread); each task's slot
// is fixed, so the result does not depend on which thread ran it. A failing task is recorded as
// kFailed (NaN values), or throws under on_task_error: abort.
void compute_chunk(const ParameterSpace& space, const TaskKernel& kernel, const SweepConfig& config,
                   std::vector<std::unique_ptr<TaskScratch>>& scratch, ChunkResults& out);

}  // namespace simpact::detail
