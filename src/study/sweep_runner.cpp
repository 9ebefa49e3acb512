#include "simpact/study/sweep_runner.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <spdlog/spdlog.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "mpi_context.hpp"
#include "output_staging.hpp"
#include "progress_log.hpp"
#include "resume_decision.hpp"
#include "run_provenance.hpp"
#include "shard_file.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/io/chunk_journal.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/safe_file.hpp"
#include "simpact/io/sweep_file.hpp"
#include "simpact/sweep/chunk_reduction.hpp"
#include "simpact/sweep/chunk_scheduler.hpp"
#include "simpact/sweep/compute_chunk.hpp"
#include "simpact/sweep/parameter_space.hpp"
#include "sweep_layout.hpp"

namespace simpact {

namespace fs = std::filesystem;

using Clock = std::chrono::steady_clock;
using detail::agree_or_throw;
using detail::append_provenance_line;
using detail::broadcast_bytes;
using detail::broadcast_string;
using detail::decide_mode;
using detail::make_layout;
using detail::Mpi;
using detail::new_staging_file;
using detail::now_iso8601;
using detail::ProgressLog;
using detail::provenance_row;
using detail::read_provenance_lines;
using detail::replace_output;
using detail::RunMode;

namespace {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU seconds of this process so far (all its threads).
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// One run of run_sweep, its phases in order: decide, prepare, pending_chunks, compute,
// final_write, publish. Each phase is collective and ends with the ranks agreeing (an error on
// one rank is an AgreedError on all).
class SweepRun {
 public:
  SweepRun(MPI_Comm comm, const SweepConfig& config, const TaskKernel& kernel, const SweepRunOptions& options)
      : mpi_(comm),
        config_(config),
        kernel_(kernel),
        options_(options),
        space_(config),
        manifest_(sweep_manifest(config, kernel)),
        path_(options.output_path),
        journal_(journal_directory(options.output_path)) {
    summary_.tasks = space_.task_count();
    // A shard file holds its chunks' rows (the merge reduces them as a single run would).
    if (options.shard_count > 1) {
      manifest_.records = JournalRecords::kRows;
      manifest_.shard_index = options.shard_index;
      manifest_.shard_count = options.shard_count;
    }
    summary_.chunks = manifest_.chunk_count();
  }

  bool decide();
  void prepare();
  std::vector<std::int64_t> pending_chunks();
  bool compute(const std::vector<std::int64_t>& pending);
  std::string final_write();
  void publish(const std::string& staging);
  SweepRunSummary finish();
  const SweepRunSummary& summary() const { return summary_; }

 private:
  bool in_shard(std::size_t chunk) const {
    return static_cast<std::int64_t>(chunk) % options_.shard_count == options_.shard_index;
  }
  std::vector<ProvenanceRow> provenance_rows(const std::vector<std::uint8_t>& finished);
  void log_claims(const ClaimStatistics& mine, double loop_seconds, double loop_cpu_seconds) const;

  const Clock::time_point start_ = Clock::now();
  const Mpi mpi_;
  const SweepConfig& config_;
  const TaskKernel& kernel_;
  const SweepRunOptions& options_;
  const ParameterSpace space_;
  JournalManifest manifest_;
  const std::string& path_;
  const std::string journal_;
  SweepRunSummary summary_;
  RunMode mode_ = RunMode::kFresh;
  OutputLock lock_;  // rank 0 holds <output>.journal/lock for the whole run
  ProvenanceRow row_;
  double hdf5_seconds_ = 0.0;
  double publish_seconds_ = 0.0;  // renames over the output and their directory syncs
  std::string error_;             // this rank's error, agreed at the end of each step
};

// Decide, on rank 0, whether this run may start (nothing is written before). False: the output
// is already complete and there is nothing to do.
bool SweepRun::decide() {
  if (mpi_.rank == 0) {
    try {
      error_ = decide_mode(path_, journal_, config_, kernel_, manifest_, options_, lock_, mode_);
    } catch (const std::exception& e) {
      error_ = e.what();
    }
    if (!error_.empty()) lock_.release();
  }
  agree_or_throw(mpi_, error_);
  if (mpi_.rank == 0 && options_.on_start) options_.on_start();
  int mode_value = static_cast<int>(mode_);  // rank 0 decided
  MPI_Bcast(&mode_value, 1, MPI_INT, 0, mpi_.comm);
  mode_ = static_cast<RunMode>(mode_value);
  if (mode_ != RunMode::kAlreadyComplete) return true;
  summary_.already_complete = summary_.output_complete = true;
  if (mpi_.rank == 0) summary_.file_bytes = fs::file_size(path_);
  return false;
}

// Set up: the journal, this run's provenance row, and a fresh run's incomplete output file.
void SweepRun::prepare() {
  row_ = provenance_row(mpi_, config_, options_.command_line);
  if (mpi_.rank == 0) {
    try {
      if (mode_ == RunMode::kFresh) {
        clear_journal(journal_);  // (--overwrite, or a journal-less incomplete file of this config)
        create_journal(journal_, manifest_);
        // The file exists from the start, marked incomplete, so a killed job leaves an honest
        // file; it holds only axes, config and progress until the final write lays out the maps.
        // Written in the journal directory (ours, locked) and renamed over the output.
        const auto t0 = Clock::now();
        SweepFileLayout incomplete_layout = make_layout(config_, space_, kernel_, manifest_.chunk_count());
        incomplete_layout.maps.clear();
        incomplete_layout.samples.clear();
        if (options_.shard_count > 1)  // the file says which shard it is from the start
          incomplete_layout.root_string_attributes.push_back({"shard", shard_text(manifest_)});
        const std::string staging = new_staging_file(journal_, "incomplete");
        // Tiny: rank 0 writes it alone with the serial driver (a collective MPI-IO open costs more).
        SweepFile::create(staging, MPI_COMM_SELF, incomplete_layout).close();
        hdf5_seconds_ += seconds_since(t0);
        const auto t1 = Clock::now();
        replace_output(staging, path_);
        publish_seconds_ += seconds_since(t1);
      }
      append_provenance_line(journal_, row_);
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }
  agree_or_throw(mpi_, error_, false);
}

// Which chunks remain: all of this shard's on a fresh run, those not in the journal on a resume.
std::vector<std::int64_t> SweepRun::pending_chunks() {
  std::vector<std::uint8_t> done(static_cast<std::size_t>(manifest_.chunk_count()), 0);
  if (mpi_.rank == 0 && mode_ == RunMode::kResume) {
    const JournalIndex found = JournalIndex::scan(journal_, manifest_);
    done = found.done_bitmap();
    for (const auto& problem : found.problems()) summary_.warnings.push_back("journal: " + problem);
  }
  MPI_Bcast(done.data(), static_cast<int>(done.size()), MPI_UINT8_T, 0, mpi_.comm);
  std::vector<std::int64_t> pending;
  for (std::size_t c = 0; c < done.size(); ++c)
    if (!done[c] && in_shard(c)) pending.push_back(static_cast<std::int64_t>(c));
  if (mpi_.rank == 0)
    spdlog::info("{} tasks in {} chunks of {}; {} chunks to compute on {} rank(s) x {} thread(s)",
                 summary_.tasks, manifest_.chunk_count(), manifest_.chunk_size, pending.size(), mpi_.size,
                 row_.threads);
  return pending;
}

// Compute: the ranks claim pending chunks from rank 0's counter until none is left, compute each
// over their threads and journal it. False: a signal stopped the run (every finished chunk is in
// the journal; the summary says how much).
bool SweepRun::compute(const std::vector<std::int64_t>& pending) {
  const std::string run_id = fmt::format("{}", std::chrono::duration_cast<std::chrono::milliseconds>(
                                                   std::chrono::system_clock::now().time_since_epoch())
                                                   .count());
  const bool journal_rows = manifest_.records == JournalRecords::kRows;
  std::int64_t computed = 0;
  int stop = 0;
  {
    std::unique_ptr<ChunkJournalWriter> writer;
    try {
      writer = std::make_unique<ChunkJournalWriter>(journal_, mpi_.rank, run_id, manifest_.config_hash);
    } catch (const std::exception& e) {
      error_ = fmt::format("rank {}: {}", mpi_.rank, e.what());
    }
    agree_or_throw(mpi_, error_, false);
    ChunkComputer computer(space_, kernel_, config_.on_task_error, options_.stop_signal);
    ChunkScheduler scheduler(mpi_.comm, static_cast<std::int64_t>(pending.size()));
    const std::int64_t already = std::max<std::int64_t>(
        0, summary_.tasks - static_cast<std::int64_t>(pending.size()) * manifest_.chunk_size);
    ProgressLog progress(summary_.tasks, already, options_.progress_interval_s);
    ChunkResults chunk;
    ChunkStatistics partial;
    const ColumnOffsets cols(kernel_);
    auto stopping = [&] { return options_.stop_signal != nullptr && *options_.stop_signal != 0; };
    const auto loop_start = Clock::now();
    const double loop_cpu_start = process_cpu_seconds();
    for (std::int64_t claimed = stopping() ? -1 : scheduler.next(); claimed >= 0;
         claimed = stopping() ? -1 : scheduler.next()) {
      chunk.chunk = pending[static_cast<std::size_t>(claimed)];
      chunk.first_task = chunk.chunk * manifest_.chunk_size;
      chunk.resize(std::min(manifest_.chunk_size, summary_.tasks - chunk.first_task),
                   manifest_.values_per_task);
      try {
        if (!computer.compute(chunk)) break;  // given up on the stop flag: nothing of it is kept
        if (journal_rows) {
          writer->append(chunk, manifest_.values_per_task);
        } else {
          reduce_chunk(chunk, manifest_.replicas, manifest_.values_per_task, cols, partial);
          writer->append(partial);
        }
      } catch (const std::exception& e) {
        // A failing task or a failing journal write (disk full) on one rank: every finished
        // chunk is already journaled. The others stop after their chunk in hand, and all agree
        // below: one error line, every rank exits, nothing journaled is lost.
        error_ = fmt::format("rank {}: {}", mpi_.rank, e.what());
        scheduler.stop_all();
        break;
      }
      computed += chunk.count;
      if (mpi_.rank == 0) {
        progress.update(already + claimed * manifest_.chunk_size);
        if (options_.on_progress)
          options_.on_progress(std::min(summary_.tasks, already + (claimed + 1) * manifest_.chunk_size),
                               summary_.tasks);
      }
    }
    const double loop_seconds = seconds_since(loop_start);
    const double loop_cpu_seconds = process_cpu_seconds() - loop_cpu_start;
    if (stopping()) stop = static_cast<int>(*options_.stop_signal);
    try {
      agree_or_throw(mpi_, error_, false);
    } catch (const AgreedError& e) {
      throw AgreedError(e.what(), false, true);
    }
    log_claims(scheduler.statistics(), loop_seconds, loop_cpu_seconds);
  }
  MPI_Allreduce(&computed, &summary_.tasks_computed, 1, MPI_INT64_T, MPI_SUM, mpi_.comm);
  MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_MAX, mpi_.comm);
  if (stop == 0) return true;
  summary_.interrupted_by = stop;  // the lock is released when the run returns
  if (mpi_.rank == 0) summary_.tasks_saved = JournalIndex::scan(journal_, manifest_).task_total();
  summary_.wall_seconds = seconds_since(start_);
  return false;
}

// The chunk claims of every rank, at debug level on rank 0 (docs/scaling.md reads these lines;
// bench/claim_waits.sh prints them as a table), with each rank's loop time and the CPU time it
// got in it (below the loop time when ranks share cores). Collective.
void SweepRun::log_claims(const ClaimStatistics& mine, double loop_seconds, double loop_cpu_seconds) const {
  constexpr int kFields = 5;
  const double local[kFields] = {static_cast<double>(mine.claims), mine.wait_seconds, mine.max_wait_seconds,
                                 loop_seconds, loop_cpu_seconds};
  std::vector<double> all(mpi_.rank == 0 ? kFields * static_cast<std::size_t>(mpi_.size) : 0);
  MPI_Gather(local, kFields, MPI_DOUBLE, all.data(), kFields, MPI_DOUBLE, 0, mpi_.comm);
  if (mpi_.rank != 0 || !spdlog::default_logger_raw()->should_log(spdlog::level::debug)) return;
  double claims = 0, wait = 0, max_wait = 0, loop = 0, cpu = 0;
  for (int r = 0; r < mpi_.size; ++r) {
    const double* s = all.data() + kFields * r;
    spdlog::debug(
        "claims: rank {}: {:.0f} claims, wait {:.6f} s (mean {:.1f} us, max {:.1f} us), loop {:.3f} s "
        "(cpu {:.3f} s)",
        r, s[0], s[1], s[0] > 0 ? 1e6 * s[1] / s[0] : 0.0, 1e6 * s[2], s[3], s[4]);
    claims += s[0];
    wait += s[1];
    max_wait = std::max(max_wait, s[2]);
    loop = std::max(loop, s[3]);
    cpu += s[4];
  }
  spdlog::debug(
      "claims: total {} ranks, {:.0f} claims of chunks of {} tasks, wait {:.6f} s (mean {:.1f} us, max "
      "{:.1f} us), {:.3f}% of rank time, loop {:.3f} s, {:.0f} claims/s, cpu {:.3f} s",
      mpi_.size, claims, manifest_.chunk_size, wait, claims > 0 ? 1e6 * wait / claims : 0.0, 1e6 * max_wait,
      loop > 0 ? 100.0 * wait / (loop * mpi_.size) : 0.0, loop, loop > 0 ? claims / loop : 0.0, cpu);
}

// The provenance rows of the file: the journal's (earlier runs and resumes) with this run's
// last, its end time and tasks set.
std::vector<ProvenanceRow> SweepRun::provenance_rows(const std::vector<std::uint8_t>& finished) {
  std::int64_t dropped = 0;
  std::vector<ProvenanceRow> provenance = read_provenance_lines(journal_, dropped);
  if (mpi_.rank == 0 && dropped > 0)
    summary_.warnings.push_back(
        fmt::format("{}/provenance.tsv: {} malformed line(s) dropped", journal_, dropped));
  if (provenance.empty()) provenance.push_back(row_);  // the journal's copy was lost: keep this run's
  provenance.back().end_time = now_iso8601();
  provenance.back().tasks_done = summary_.tasks_computed;
  // The rest of the journal was finished by earlier, killed runs (no end time): with one such
  // run its row gets that count; several killed runs cannot be told apart and keep 0.
  std::vector<std::size_t> killed;
  std::int64_t others = 0;
  for (std::size_t r = 0; r + 1 < provenance.size(); ++r) {
    if (provenance[r].end_time.empty()) killed.push_back(r);
    others += provenance[r].tasks_done;
  }
  if (killed.size() == 1) {
    std::int64_t journal_tasks = 0;
    for (std::size_t c = 0; c < finished.size(); ++c)
      if (finished[c] && in_shard(c))
        journal_tasks += std::min(manifest_.chunk_size,
                                  summary_.tasks - static_cast<std::int64_t>(c) * manifest_.chunk_size);
    provenance[killed.front()].tasks_done =
        std::max<std::int64_t>(0, journal_tasks - summary_.tasks_computed - others);
  }
  return provenance;
}

// Final write: checks that the journal holds every task exactly once, then writes the HDF5 file
// from it into a staging file in the journal directory (created exclusively, never through a
// link), renamed over the output only by publish: a kill during this step leaves the (readable,
// incomplete) file in place, never a half-written one. Returns the staging file.
std::string SweepRun::final_write() {
  if (options_.on_final_write) options_.on_final_write();
  // Rank 0 scans and validates the whole journal once; the other ranks take its index and read
  // only the records of their grid points (each read checks its record again). Every rank
  // scanning every file read the journal R times over: the first limit at scale (docs/scaling.md).
  JournalIndex index;
  std::string encoded;
  if (mpi_.rank == 0) {
    try {
      index = JournalIndex::scan(journal_, manifest_);
      if (mpi_.size > 1) encoded = index.encode();
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }
  agree_or_throw(mpi_, error_, false);
  if (mpi_.size > 1) {
    broadcast_bytes(mpi_.comm, encoded);
    if (mpi_.rank != 0) index = JournalIndex::decode(manifest_, encoded);
  }
  std::int64_t missing = 0;
  const std::vector<std::uint8_t> finished = index.done_bitmap();
  for (std::size_t c = 0; c < finished.size(); ++c)
    if (!finished[c] && in_shard(c)) ++missing;
  // Every task accounted for exactly once: each chunk's record holds exactly its own tasks.
  if (options_.shard_count == 1 && missing == 0 && index.task_total() != summary_.tasks) missing = 1;
  MPI_Allreduce(MPI_IN_PLACE, &missing, 1, MPI_INT64_T, MPI_MAX, mpi_.comm);
  if (missing != 0)
    throw AgreedError(
        fmt::format("{}: {} chunks missing from the journal after the run (resume with --resume "
                    "to compute them)",
                    journal_, missing),
        false);
  if (mpi_.rank == 0 && mode_ == RunMode::kFresh)
    for (const auto& problem : index.problems()) summary_.warnings.push_back("journal: " + problem);
  const std::vector<ProvenanceRow> provenance = provenance_rows(finished);
  std::string staging;
  if (mpi_.rank == 0) {
    try {
      staging = new_staging_file(journal_, "final");
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }
  agree_or_throw(mpi_, error_, false);
  broadcast_string(mpi_.comm, staging);
  detail::agreed_io_staged(mpi_, staging, [&] {
    if (options_.shard_count > 1)
      hdf5_seconds_ += write_shard_file(mpi_.comm, staging, config_, kernel_, manifest_, index, provenance,
                                        options_.shard_index, options_.shard_count);
    else if (manifest_.records == JournalRecords::kRows)
      hdf5_seconds_ +=
          write_sweep_file(mpi_.comm, staging, config_, kernel_, manifest_, &index,
                           RowStatisticsSource(index, manifest_.replicas, manifest_.values_per_task, kernel_),
                           provenance, &summary_.status_counts);
    else
      hdf5_seconds_ += write_sweep_file(mpi_.comm, staging, config_, kernel_, manifest_, nullptr, index,
                                        provenance, &summary_.status_counts);
  });
  return staging;
}

// Publish: the caller's last look at the staged file (before_publish), then the rename over the
// output and, only then, the journal's removal and the lock's release.
void SweepRun::publish(const std::string& staging) {
  bool input_error = false;
  if (mpi_.rank == 0 && options_.before_publish) {
    try {
      options_.before_publish(staging);
    } catch (const InputError& e) {
      error_ = e.what();
      input_error = true;
    } catch (const std::exception& e) {
      error_ = e.what();
    }
    if (!error_.empty()) ::unlink(staging.c_str());  // the journal still holds everything
  }
  agree_or_throw(mpi_, error_, input_error);
  if (mpi_.rank == 0) {
    try {
      const auto t0 = Clock::now();
      replace_output(staging, path_);
      publish_seconds_ += seconds_since(t0);
      clear_journal(journal_);  // only now: the file holds everything the journal did
      lock_.release();
      summary_.file_bytes = fs::file_size(path_);
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }
  agree_or_throw(mpi_, error_, false);
  summary_.output_complete = true;
}

SweepRunSummary SweepRun::finish() {
  if (options_.stop_signal != nullptr && *options_.stop_signal != 0)
    summary_.interrupted_by = static_cast<int>(*options_.stop_signal);
  summary_.hdf5_seconds = hdf5_seconds_;
  summary_.publish_seconds = publish_seconds_;
  summary_.wall_seconds = seconds_since(start_);
  return summary_;
}

}  // namespace

SweepRunSummary run_sweep(MPI_Comm comm, const SweepConfig& config, const TaskKernel& kernel,
                          const SweepRunOptions& options) {
  SweepRun run(comm, config, kernel, options);
  if (!run.decide()) return run.summary();  // already complete
  run.prepare();
  if (!run.compute(run.pending_chunks())) return run.summary();  // interrupted
  run.publish(run.final_write());
  return run.finish();
}

void agree_or_throw(MPI_Comm comm, const std::string& error, bool input_error) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int failing = error.empty() ? size : rank;
  MPI_Allreduce(MPI_IN_PLACE, &failing, 1, MPI_INT, MPI_MIN, comm);
  if (failing == size) return;
  std::string message = error;
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, failing, comm);
  message.resize(static_cast<std::size_t>(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, failing, comm);
  int input = input_error ? 1 : 0;
  MPI_Bcast(&input, 1, MPI_INT, failing, comm);
  throw AgreedError(message, input != 0);
}

}  // namespace simpact
