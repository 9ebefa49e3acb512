// What a sweep writes, as upper bounds before compression: its journal while it runs and its
// result file. The one estimate behind `simpact run --dry-run`, the run's opening log line and
// the free-space check that refuses a run whose results cannot fit.
#pragma once

#include <cstdint>

#include "simpact/sweep/sweep_config.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

struct SweepSizeEstimate {
  double journal_bytes = 0.0;  // rows or per-grid-point partial statistics (chunk_journal.hpp) [B]
  double file_bytes = 0.0;     // grid maps, status counts, /xi, per-task tables and arrays [B]
};

SweepSizeEstimate estimate_sweep_sizes(const SweepConfig& config, const TaskKernel& kernel);

// The compute time of a sweep, from a calibration of about `budget_s` seconds of tasks spread over
// the whole task range on this thread, scaled to ranks × threads (start-up and file writing not
// counted). Failing tasks are timed like the others.
struct ComputeTimeEstimate {
  std::int64_t calibration_tasks = 0;
  double seconds_per_task = 0.0;  // [s]
  double total_seconds = 0.0;     // [s] on ranks × threads
};
ComputeTimeEstimate estimate_compute_time(const SweepConfig& config, const TaskKernel& kernel, int ranks,
                                          int threads, double budget_s = 0.2);

}  // namespace simpact
