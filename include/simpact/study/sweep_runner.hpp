// Runs a sweep: tasks 0..N−1 (grid point × Monte Carlo replica) in chunks claimed dynamically
// by the MPI ranks, split over OpenMP threads inside a rank, each finished chunk journaled
// crash-safely; then the HDF5 file is written collectively from the journal: per-grid-point
// statistics (reduced in task order: bit-identical for any ranks/threads/chunking), optional
// per-task samples, progress bitmap, provenance, and `complete = 1` last.
#pragma once

#include <mpi.h>

#include <csignal>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "simpact/io/chunk_journal.hpp"
#include "simpact/io/sweep_config_yaml.hpp"
#include "simpact/io/sweep_file.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

// An error that every rank of the communicator throws together, with the same one-line message
// (the ranks agreed on it: an allreduce of a status, then the failing rank's message). Anything
// else escaping a collective function on one rank only must end the job (MPI_Abort).
class AgreedError : public std::runtime_error {
 public:
  AgreedError(const std::string& message, bool input_error, bool incomplete = false)
      : std::runtime_error(message), input_error_(input_error), incomplete_(incomplete) {}
  // True for refusals caused by the user's input (the output path, --resume of a foreign file).
  bool input_error() const { return input_error_; }
  // True when the sweep stopped with its work in the journal (a failing task, a failing journal
  // write): the output is incomplete and --resume continues it.
  bool incomplete() const { return incomplete_; }

 private:
  bool input_error_;
  bool incomplete_;
};

// Collective: every rank brings its own error ("" = none); when any rank has one, every rank
// throws AgreedError with the lowest failing rank's message.
void agree_or_throw(MPI_Comm comm, const std::string& error, bool input_error);

struct SweepRunOptions {
  std::string output_path;
  bool resume = false;     // continue from <output>.journal
  bool overwrite = false;  // replace an existing output
  std::string command_line;
  double progress_interval_s = 5.0;
  // --shard i/N (a job array): compute only the chunks c with c % N == i and write a shard file
  // (raw per-task results of those chunks) for `merge_shards`. N = 1: the whole sweep.
  std::int64_t shard_index = 0;
  std::int64_t shard_count = 1;
  // Set (to the signal number) by a SIGINT/SIGTERM handler: ranks stop claiming chunks, agree,
  // and return with `interrupted_by` set; the journal keeps the finished work for --resume.
  const volatile std::sig_atomic_t* stop_signal = nullptr;
  // Rank 0 only, on the finished file while it is still staged (e.g. the at-end sensitivity
  // analysis adds /sensitivity): a throw fails the run with the output and journal untouched.
  // InputError is reported as an input error. Called before the output is published and the
  // journal removed, so nothing computed is lost and a --resume does it again.
  std::function<void(const std::string& staged_file)> before_publish;
  // Called on every rank once every task is in the journal, before the final write: from here a
  // signal cannot lose work (the front end says so at once: mpirun may kill the ranks before
  // the write ends).
  std::function<void()> on_final_write;
  // Called on rank 0 once every rank agrees the run may start (after the output, lock and
  // journal checks): the start banner, never printed before a refusal.
  std::function<void()> on_start;
  // Rank 0, after each chunk it finished: tasks done so far (an estimate from the chunks claimed
  // when several ranks work; exact on one) of the sweep's total. Empty: none.
  std::function<void(std::int64_t done, std::int64_t total)> on_progress;
};

struct SweepRunSummary {
  std::int64_t tasks = 0;           // in the sweep
  std::int64_t tasks_computed = 0;  // by this run (all ranks)
  std::int64_t chunks = 0;
  double wall_seconds = 0.0;
  double hdf5_seconds = 0.0;  // rank 0's time inside HDF5 calls
  // Rank 0's time moving finished files over the output (the file's fsync, the rename, the
  // directory's fsync): file system, not HDF5, and most of a tiny sweep's fixed cost on a disk with
  // slow syncs.
  double publish_seconds = 0.0;
  std::uintmax_t file_bytes = 0;
  bool already_complete = false;      // --resume on a finished file: nothing to do
  int interrupted_by = 0;             // the signal that stopped the run (0: none)
  std::int64_t tasks_saved = 0;       // interrupted: tasks in the journal (finished work kept)
  bool output_complete = false;       // the output file is complete (also after a late signal)
  std::vector<std::string> warnings;  // rank 0: journal records ignored, provenance lines dropped
  // Tasks per status in the file written by this run (all zero when nothing was written).
  TaskStatusCounts status_counts{};
};

// Collective over `comm`. Throws InputError/IoError (same message on every rank) for problems
// found before work starts; a failing task aborts the job (or is recorded, per on_task_error).
SweepRunSummary run_sweep(MPI_Comm comm, const SweepConfig& config, const TaskKernel& kernel,
                          const SweepRunOptions& options);

// Writes the complete HDF5 result file of a sweep from finished chunks (collective over
// `comm`): per-grid-point statistics merged from the chunks' partials in chunk order, optional
// samples, the progress bitmap, provenance, and `complete = 1` last. `rows` (per-task results)
// may be null only when the file needs no task's own values (replicas, no samples, no arrays).
// Returns the seconds spent in HDF5 calls.
double write_sweep_file(MPI_Comm comm, const std::string& path, const SweepConfig& config,
                        const TaskKernel& kernel, const JournalManifest& manifest,
                        const ChunkResultSource* rows, const ChunkStatisticsSource& statistics,
                        const std::vector<ProvenanceRow>& provenance,
                        TaskStatusCounts* status_counts = nullptr);

// The journal manifest a sweep of `config` with this kernel uses: partial statistics records
// unless the output needs per-task values (then rows).
JournalManifest sweep_manifest(const SweepConfig& config, const TaskKernel& kernel);

// Merges the shard files of one sharded sweep into the result file a single run would have
// written (datasets bit-identical). Refuses shards of another config or shard count, missing,
// duplicate or unfinished shards. Collective over `comm`. Returns the HDF5 seconds.
// `before_publish` (rank 0, may be empty) sees the finished staged file before it replaces the
// output, as SweepRunOptions::before_publish: what it throws is agreed and nothing is published.
double merge_shards(MPI_Comm comm, const SweepConfig& config, const TaskKernel& kernel,
                    const std::vector<std::string>& shard_paths, const std::string& output_path,
                    const std::string& command_line,
                    const std::function<void(const std::string&)>& before_publish = {});

// This simpact build as a journal manifest records it (version, git revision, build flags).
std::string build_identity();

// Chunk size used when the config leaves it at 0: depends only on the task count, so a resume
// with a different number of ranks keeps the same chunks.
std::int64_t default_chunk_size(std::int64_t task_count);

}  // namespace simpact
