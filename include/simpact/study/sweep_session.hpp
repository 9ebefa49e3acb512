// A sweep from its config file to its result, without printing: the library calls behind
// `simpact run` and `simpact.run` in process, the same for both. Load and validate the config,
// preflight every error the config alone shows (before any file exists; agreed by every rank),
// create the output's directory, run (journal, resume, shards, provenance: run_sweep) with the
// sensitivity analysis a config asks for at the end done on the staged file before it is
// published. The caller prints; progress and the run's milestones come through callbacks.
#pragma once

#include <mpi.h>

#include <csignal>
#include <cstdint>
#include <functional>
#include <memory>
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
  // A job array's shard i of N (parse_shard); N = 1: the whole sweep.
  std::int64_t shard_index = 0;
  std::int64_t shard_count = 1;
  // Appended to the message when the output's directory cannot be made (the CLI: "; pass -o FILE"
  // when the output was the default).
  std::string output_hint;
  // Every rank, once the run's checks passed, before the first chunk (the CLI's opening lines).
  std::function<void()> on_start;
  // Rank 0, when every task is journaled and the final write starts.
  std::function<void()> on_final_write;
};

struct ConfigRunResult {
  std::string output;             // the file written (or resumable from its journal)
  std::int64_t inadmissible = 0;  // grid points recorded as failed (on_task_error: record)
  SweepRunSummary summary;
  std::vector<std::string> analysis_lines;  // sensitivity.at_end (rank 0): one per output analysed
  // Rank 0: advice about the results, one line each (a sweep in which no task closed a contact:
  // the smallest gap found and `place`). The CLI prints them as warnings on stderr.
  std::vector<std::string> hints;
};

// The config of a run and its kernel, validated and preflighted (no file touched): what
// run_config and `simpact run --dry-run` start from. Throws ConfigErrors (the config: one line
// per problem) or InputError (preflight: the message names the field).
struct PreparedSweep {
  SweepConfig config;
  std::unique_ptr<TaskKernel> kernel;
  std::int64_t inadmissible = 0;
};
PreparedSweep prepare_sweep(const std::string& config_path);
// The same on every rank of `comm`, agreed: a config one rank cannot read stops every rank. A
// rank that failed rethrows its own error; the others throw ConfigErrors with its first line.
PreparedSweep prepare_sweep(MPI_Comm comm, const std::string& config_path);

// Collective over `comm`: prepare_sweep(comm, options.config_path), then run_prepared. Throws as
// prepare_sweep, InputError (the output directory), AgreedError (refusals every rank agreed on,
// e.g. an existing output without overwrite, a failing at-end analysis). An interrupted run returns
// with summary.interrupted_by set and its journal kept.
ConfigRunResult run_config(MPI_Comm comm, const ConfigRunOptions& options);
// A prepared sweep run as run_config runs it (options.config_path names the config file: the
// default output and the provenance).
ConfigRunResult run_prepared(MPI_Comm comm, const PreparedSweep& prepared, const ConfigRunOptions& options);

// --shard i/N: two decimal integers with 0 <= i < N, each within int64 (no sscanf clamping of
// 99999999999999999999 to LLONG_MAX, which would silently run another shard count).
bool parse_shard(const std::string& text, std::int64_t& index, std::int64_t& count);

// The default output of a config file: results/<config name>.h5.
std::string default_output_path(const std::string& config_path);

}  // namespace simpact
