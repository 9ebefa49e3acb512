// What a sweep writes, as upper bounds before compression: its journal while it runs and its
// result file. The one estimate behind `simpact run --dry-run`, the run's opening log line and
// the free-space check that refuses a run whose results cannot fit.
#pragma once

#include "simpact/sweep/sweep_config.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

struct SweepSizeEstimate {
  double journal_bytes = 0.0;  // rows or per-grid-point partial statistics (chunk_journal.hpp) [B]
  double file_bytes = 0.0;     // grid maps, status counts, /xi, per-task tables and arrays [B]
};

SweepSizeEstimate estimate_sweep_sizes(const SweepConfig& config, const TaskKernel& kernel);

}  // namespace simpact
