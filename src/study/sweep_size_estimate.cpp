#include "simpact/study/sweep_size_estimate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <exception>
#include <vector>

#include "simpact/study/sweep_runner.hpp"
#include "simpact/sweep/parameter_space.hpp"

namespace simpact {

SweepSizeEstimate estimate_sweep_sizes(const SweepConfig& config, const TaskKernel& kernel) {
  double scalars = 0.0, array_values = 0.0;
  for (const auto& c : kernel.columns())
    (c.length == 1 ? scalars : array_values) += static_cast<double>(c.length);
  const double tasks = static_cast<double>(config.task_count());
  const double values = scalars + array_values;
  SweepSizeEstimate e;
  const JournalManifest journal = sweep_manifest(config, kernel);
  const auto chunks = static_cast<double>(journal.chunk_count());
  if (journal.records == JournalRecords::kRows) {
    e.journal_bytes = chunks * static_cast<double>(kJournalRecordHeaderBytes) +
                      tasks * (16.0 + 8.0 * values);  // status, counter, values
  } else {  // per chunk, per grid point touched: tasks per status, then 5 statistics per scalar
    const double points_per_chunk =
        std::ceil(static_cast<double>(journal.chunk_size) / static_cast<double>(journal.replicas)) + 1.0;
    e.journal_bytes =
        chunks * (kJournalRecordHeaderBytes +
                  points_per_chunk * static_cast<double>(journal_point_bytes(journal.statistic_columns)));
  }
  // Per grid point: one map per scalar (five over replicas), a count per status, and /xi.
  const double maps = scalars * (config.replicas() > 1 ? 5.0 : 1.0) + kTaskStatusCount + 1.0;
  e.file_bytes = static_cast<double>(config.grid_points()) * 8.0 * maps;
  // Per task: arrays always; with output.samples the inputs, status, counter, grid point,
  // replica and scalars too.
  double per_task = array_values;
  if (config.output.samples) {
    const double inputs =
        static_cast<double>(config.grid.size()) +
        (config.monte_carlo ? static_cast<double>(config.monte_carlo->parameters.size()) : 0.0);
    per_task += inputs + 4.0 + scalars;  // + status, counter, grid_point, replica
  }
  e.file_bytes += tasks * 8.0 * per_task;
  return e;
}

namespace {

// Task k of the calibration: evaluated, a failure counted like a success (it costs little).
// The seconds task k takes on one thread, as the kernel times it (TaskKernel::time_task).
double calibrate_one(const ParameterSpace& space, const TaskKernel& kernel, std::int64_t k,
                     ParameterSet& params, TaskScratch& scratch, std::vector<double>& values) {
  try {
    space.parameters_of(k, params);
    return kernel.time_task(k, params, scratch, values.data());
  } catch (const std::exception&) {
    return 0.0;
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

ComputeTimeEstimate estimate_compute_time(const SweepConfig& config, const TaskKernel& kernel, int ranks,
                                          int threads, double budget_s) {
  const ParameterSpace space(config);
  auto scratch = kernel.make_scratch();
  std::vector<double> values(static_cast<std::size_t>(values_per_task(kernel)));
  ParameterSet params;
  ComputeTimeEstimate e;
  const std::int64_t n = config.task_count();
  const std::int64_t stride = std::max<std::int64_t>(1, n / 4096);
  const auto t0 = std::chrono::steady_clock::now();
  double seconds = 0.0, estimated = 0.0;  // spent; what the whole tasks take (extrapolated)
  for (std::int64_t k = 0; k < n && seconds < budget_s; k += stride, ++e.calibration_tasks) {
    estimated += calibrate_one(space, kernel, k, params, *scratch, values);
    seconds = seconds_since(t0);
  }
  e.seconds_per_task = e.calibration_tasks > 0 ? estimated / static_cast<double>(e.calibration_tasks) : 0.0;
  const double spent_per_task =
      e.calibration_tasks > 0 ? seconds / static_cast<double>(e.calibration_tasks) : 0.0;
  // The same tasks on every thread, for about as long (every thread finishes at least one task).
  if (threads > 1 && e.calibration_tasks > 0 && e.seconds_per_task > 0.0) {
    std::int64_t done = 0, next = 0;
    const auto t1 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads) reduction(+ : done)
    {
      auto mine = kernel.make_scratch();
      std::vector<double> out(values.size());
      ParameterSet p;
      for (;;) {
        std::int64_t j = 0;
#pragma omp atomic capture
        j = next++;
        calibrate_one(space, kernel, (j * stride) % n, p, *mine, out);
        ++done;
        if (seconds_since(t1) >= budget_s) break;
      }
    }
    e.thread_speedup = std::clamp(static_cast<double>(done) * spent_per_task / seconds_since(t1), 1.0,
                                  static_cast<double>(threads));
  }
  e.total_seconds = e.seconds_per_task * static_cast<double>(n) / (std::max(1, ranks) * e.thread_speedup);
  return e;
}

}  // namespace simpact
