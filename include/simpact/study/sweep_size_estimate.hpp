// What a sweep writes, as upper bounds before compression: its journal while it runs and its
// result file. The one estimate behind `simpact run --dry-run`, the run's opening log line and
// the free-space check that refuses a run whose results cannot fit. And how long it computes.
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

// The compute time of a sweep (`simpact run --dry-run`): a calibration of about `budget_s` seconds
// of tasks spread over the whole task range on this thread, then about as long of the same tasks
// on `threads` OpenMP threads: the speed-up this node gives now (at most the thread count; below
// it on a loaded node, where the threads wait for cores), not perfect scaling. Ranks are assumed
// to scale. Start-up and file writing are not counted; failing tasks are timed like the others.
struct ComputeTimeEstimate {
  std::int64_t calibration_tasks = 0;
  double seconds_per_task = 0.0;  // [s] on one thread
  double thread_speedup = 1.0;    // measured on `threads` threads, in [1, threads]
  double total_seconds = 0.0;     // [s] on ranks × threads
};
ComputeTimeEstimate estimate_compute_time(const SweepConfig& config, const TaskKernel& kernel, int ranks,
                                          int threads, double budget_s = 0.2);

}  // namespace simpact
