// A sweep from its config file to its result, as `simpact run` does it but without printing: the
// library call behind the command and behind `simpact.run` in process. Load and validate the
// config, preflight every error the config alone shows (before any file exists), create the
// output's directory, run (journal, resume, provenance: run_sweep), then the sensitivity analysis
// a config asks for at the end. The caller prints; progress comes through a callback.
#pragma once

#include <mpi.h>

#include <csignal>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "simpact/study/sweep_runner.hpp"

namespace simpact {

struct ConfigRunOptions {
  std::string config_path;
  std::string output;  // empty: results/<config name>.h5
  bool resume = false;
  bool overwrite = false;
  std::string command_line;  // recorded in the provenance
  double progress_interval_s = 5.0;
  // Rank 0, after each finished chunk: tasks done (this run and before it) of the total.
  std::function<void(std::int64_t done, std::int64_t total)> on_progress;
  // > 0: OpenMP threads per rank for this run (the previous count is restored after it).
  int threads = 0;
  // False: the engine's info lines (periodic progress) are not logged, warnings still are (a
  // caller reporting progress itself through on_progress).
  bool engine_info_log = true;
  // Set by the caller's SIGINT/SIGTERM handler: finish the chunk in hand, keep the journal.
  const volatile std::sig_atomic_t* stop_signal = nullptr;
};

struct ConfigRunResult {
  std::string output;             // the file written (or resumable from its journal)
  std::int64_t inadmissible = 0;  // grid points recorded as failed (on_task_error: record)
  SweepRunSummary summary;
  std::vector<std::string> analysis_lines;  // sensitivity.at_end: one per output analysed
};

// Collective over `comm`. Throws ConfigErrors (the config: one line per problem), InputError
// (preflight, the output directory; the message names the field) and AgreedError (refusals every
// rank agreed on, e.g. an existing output without --overwrite). An interrupted run returns with
// summary.interrupted_by set and its journal kept.
ConfigRunResult run_config(MPI_Comm comm, const ConfigRunOptions& options);

// The config of a run and its kernel, validated and preflighted (no file touched): what
// run_config and `simpact run --dry-run` start from. Throws as run_config.
struct PreparedSweep {
  SweepConfig config;
  std::unique_ptr<TaskKernel> kernel;
  std::int64_t inadmissible = 0;
};
PreparedSweep prepare_sweep(const std::string& config_path);

// The default output of a config file: results/<config name>.h5.
std::string default_output_path(const std::string& config_path);

}  // namespace simpact
