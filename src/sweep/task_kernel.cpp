// TaskKernel's default batch evaluation: today's per-task loop over the OpenMP threads.
#include "simpact/sweep/task_kernel.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <limits>
#include <stdexcept>

namespace simpact {

namespace {

// One TaskScratch per OpenMP thread, made when the run starts.
class PerThreadScratch final : public ChunkScratch {
 public:
  std::vector<std::unique_ptr<TaskScratch>> threads;
};

}  // namespace

double TaskKernel::time_task(std::int64_t task, const ParameterSet& params, TaskScratch& scratch,
                             double* results) const {
  const auto t0 = std::chrono::steady_clock::now();
  try {
    (void)evaluate(task, params, scratch, results);
  } catch (const std::exception&) {  // a failing task costs its time too
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::unique_ptr<ChunkScratch> TaskKernel::make_chunk_scratch() const {
  auto scratch = std::make_unique<PerThreadScratch>();
  for (int t = 0; t < omp_get_max_threads(); ++t) scratch->threads.push_back(make_scratch());
  return scratch;
}

void TaskKernel::evaluate_chunk(std::int64_t first_task, std::int64_t count, const ParameterMatrix& params,
                                ChunkOutput& results, ChunkScratch& scratch) const {
  auto* per_thread = dynamic_cast<PerThreadScratch*>(&scratch);
  if (per_thread == nullptr || params.names == nullptr || params.rows < count ||
      static_cast<std::size_t>(params.columns) != params.names->entries().size())
    throw std::logic_error("TaskKernel::evaluate_chunk: scratch or parameters not made for this kernel");
  const std::int64_t vpt = values_per_task(*this);
  const auto columns = static_cast<std::size_t>(params.columns);
  std::int64_t failed_task = -1;
  std::string failure;
  int stopped = 0;
  // Each task's slot is fixed, so the results do not depend on which thread ran it.
#pragma omp parallel num_threads(static_cast <int>(per_thread->threads.size()))
  {
    ParameterSet set = *params.names;  // the names once; each task writes only the values
    TaskScratch& mine = *per_thread->threads[static_cast<std::size_t>(omp_get_thread_num())];
    mine.stop = results.stop;
#pragma omp for schedule(dynamic, 8)
    for (std::int64_t i = 0; i < count; ++i) {
      int given_up = 0;
#pragma omp atomic read
      given_up = stopped;
      if (given_up != 0) continue;  // a task was interrupted: the chunk is not kept
      const std::int64_t task = first_task + i;
      const double* row = params.row(i);
      for (std::size_t c = 0; c < columns; ++c) set.set_at(c, row[c]);
      double* values = results.values + i * vpt;
      try {
        results.status[i] = static_cast<std::int64_t>(evaluate(task, set, mine, values));
      } catch (const TaskInterrupted&) {
#pragma omp atomic write
        stopped = 1;
      } catch (const std::exception& e) {
        results.status[i] = static_cast<std::int64_t>(TaskStatus::kFailed);
        std::fill(values, values + vpt, std::numeric_limits<double>::quiet_NaN());
#pragma omp critical(simpact_task_error)
        if (failed_task < 0 || task < failed_task) {
          failed_task = task;
          failure = e.what();
        }
      }
    }
    mine.stop = nullptr;
  }
  results.failed_task = failed_task;
  results.failure = std::move(failure);
  results.stopped = stopped != 0;
}

}  // namespace simpact
