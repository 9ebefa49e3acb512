#include "compute_chunk.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace simpact::detail {

void compute_chunk(const ParameterSpace& space, const TaskKernel& kernel, const SweepConfig& config,
                   std::vector<std::unique_ptr<TaskScratch>>& scratch, ChunkResults& out) {
  const std::int64_t vpt = values_per_task(kernel);
  std::string error;
#pragma omp parallel
  {
    ParameterSet params;
    TaskScratch& mine = *scratch[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 8)
    for (std::int64_t i = 0; i < out.count; ++i) {
      const std::int64_t task = out.first_task + i;
      double* values = out.values.data() + i * vpt;
      std::uint64_t draws = 0;
      try {
        draws = space.parameters_of(task, params);
        out.status[static_cast<std::size_t>(i)] =
            static_cast<std::int64_t>(kernel.evaluate(task, params, mine, values));
      } catch (const std::exception& e) {
        out.status[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(TaskStatus::kFailed);
        std::fill(values, values + vpt, std::numeric_limits<double>::quiet_NaN());
        if (config.on_task_error == TaskErrorMode::kAbort) {
#pragma omp critical(simpact_task_error)
          if (error.empty())
            error = fmt::format("task {} failed ({}): {}", task, params.describe(), e.what());
        }
      }
      out.counters[static_cast<std::size_t>(i)] = draws;
    }
  }
  if (!error.empty()) throw std::runtime_error(error);
}

}  // namespace simpact::detail
