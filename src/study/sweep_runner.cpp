#include "simpact/study/sweep_runner.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "chunk_reduction.hpp"
#include "compute_chunk.hpp"
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
#include "simpact/sweep/chunk_scheduler.hpp"
#include "simpact/sweep/parameter_space.hpp"
#include "sweep_layout.hpp"

namespace simpact {

namespace fs = std::filesystem;

using Clock = std::chrono::steady_clock;
using detail::agree_or_throw;
using detail::append_provenance_line;
using detail::broadcast_string;
using detail::ColumnOffsets;
using detail::compute_chunk;
using detail::decide_mode;
using detail::make_layout;
using detail::Mpi;
using detail::new_staging_file;
using detail::now_iso8601;
using detail::ProgressLog;
using detail::provenance_row;
using detail::read_provenance_lines;
using detail::reduce_chunk;
using detail::replace_output;
using detail::RowStatisticsSource;

SweepRunSummary run_sweep(MPI_Comm comm, const SweepConfig& config, const TaskKernel& kernel,
                          const SweepRunOptions& options) {
  const auto start = Clock::now();
  const Mpi mpi(comm);
  const ParameterSpace space(config);
  SweepRunSummary summary;
  summary.tasks = space.task_count();

  JournalManifest manifest = sweep_manifest(config, kernel);
  // A shard file holds its chunks' rows (the merge reduces them as a single run would).
  if (options.shard_count > 1) {
    manifest.records = JournalRecords::kRows;
    manifest.shard_index = options.shard_index;
    manifest.shard_count = options.shard_count;
  }
  const bool journal_rows = manifest.records == JournalRecords::kRows;
  summary.chunks = manifest.chunk_count();
  const std::string& path = options.output_path;
  const std::string journal = journal_directory(path);

  // ---- decide, on rank 0, whether this run may start (nothing is written before) ----------
  // Rank 0 holds the output's lock (<output>.journal/lock) for the whole run.
  std::string error;
  detail::RunMode mode = detail::RunMode::kFresh;
  OutputLock lock;
  if (mpi.rank == 0) {
    try {
      error = decide_mode(path, journal, config, kernel, manifest, options, lock, mode);
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) lock.release();
  }
  agree_or_throw(mpi, error);
  if (mpi.rank == 0 && options.on_start) options.on_start();
  int mode_value = static_cast<int>(mode);  // rank 0 decided
  MPI_Bcast(&mode_value, 1, MPI_INT, 0, comm);
  mode = static_cast<detail::RunMode>(mode_value);
  if (mode == detail::RunMode::kAlreadyComplete) {
    summary.already_complete = summary.output_complete = true;
    if (mpi.rank == 0) summary.file_bytes = fs::file_size(path);
    return summary;
  }

  // ---- set up: journal, provenance row, incomplete output file -----------------------------
  const std::string run_id = fmt::format("{}", std::chrono::duration_cast<std::chrono::milliseconds>(
                                                   std::chrono::system_clock::now().time_since_epoch())
                                                   .count());
  const ProvenanceRow row = provenance_row(mpi, config, options.command_line);
  double hdf5_seconds = 0.0;
  if (mpi.rank == 0) {
    try {
      if (mode == detail::RunMode::kFresh) {
        clear_journal(journal);  // (--overwrite, or a journal-less incomplete file of this config)
        create_journal(journal, manifest);
        // The file exists from the start, marked incomplete, so a killed job leaves an honest
        // file; it holds only axes, config and progress until the final write lays out the maps.
        // Written in the journal directory (ours, locked) and renamed over the output.
        const auto t0 = Clock::now();
        SweepFileLayout incomplete_layout = make_layout(config, space, kernel, manifest.chunk_count());
        incomplete_layout.maps.clear();
        incomplete_layout.samples.clear();
        if (options.shard_count > 1)  // the file says which shard it is from the start
          incomplete_layout.root_string_attributes.push_back({"shard", shard_text(manifest)});
        const std::string staging = new_staging_file(journal, "incomplete");
        // Tiny: rank 0 writes it alone with the serial driver (a collective MPI-IO open costs more).
        SweepFile::create(staging, MPI_COMM_SELF, incomplete_layout).close();
        replace_output(staging, path);
        hdf5_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
      }
      append_provenance_line(journal, row);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  agree_or_throw(mpi, error, false);

  // ---- which chunks remain ------------------------------------------------------------------
  std::vector<std::uint8_t> done(static_cast<std::size_t>(manifest.chunk_count()), 0);
  if (mpi.rank == 0 && mode == detail::RunMode::kResume) {
    const JournalIndex found = JournalIndex::scan(journal, manifest);
    done = found.done_bitmap();
    for (const auto& problem : found.problems()) summary.warnings.push_back("journal: " + problem);
  }
  MPI_Bcast(done.data(), static_cast<int>(done.size()), MPI_UINT8_T, 0, comm);
  std::vector<std::int64_t> pending;
  for (std::size_t c = 0; c < done.size(); ++c)
    if (!done[c] && static_cast<std::int64_t>(c) % options.shard_count == options.shard_index)
      pending.push_back(static_cast<std::int64_t>(c));
  if (mpi.rank == 0)
    spdlog::info("{} tasks in {} chunks of {}; {} chunks to compute on {} rank(s) x {} thread(s)",
                 summary.tasks, manifest.chunk_count(), manifest.chunk_size, pending.size(), mpi.size,
                 row.threads);

  // ---- compute ------------------------------------------------------------------------------
  std::int64_t computed = 0;
  int stop = 0;
  {
    std::unique_ptr<ChunkJournalWriter> writer;
    try {
      writer = std::make_unique<ChunkJournalWriter>(journal, mpi.rank, run_id, manifest.config_hash);
    } catch (const std::exception& e) {
      error = fmt::format("rank {}: {}", mpi.rank, e.what());
    }
    agree_or_throw(mpi, error, false);
    std::vector<std::unique_ptr<TaskScratch>> scratch;
    for (int t = 0; t < omp_get_max_threads(); ++t) scratch.push_back(kernel.make_scratch());
    ChunkScheduler scheduler(comm, static_cast<std::int64_t>(pending.size()));
    const std::int64_t already =
        summary.tasks - static_cast<std::int64_t>(pending.size()) * manifest.chunk_size;
    ProgressLog progress(summary.tasks, std::max<std::int64_t>(0, already), options.progress_interval_s);
    ChunkResults chunk;
    ChunkStatistics partial;
    const ColumnOffsets cols(kernel);
    auto stopping = [&] { return options.stop_signal != nullptr && *options.stop_signal != 0; };
    for (std::int64_t claimed = stopping() ? -1 : scheduler.next(); claimed >= 0;
         claimed = stopping() ? -1 : scheduler.next()) {
      chunk.chunk = pending[static_cast<std::size_t>(claimed)];
      chunk.first_task = chunk.chunk * manifest.chunk_size;
      chunk.resize(std::min(manifest.chunk_size, summary.tasks - chunk.first_task), manifest.values_per_task);
      try {
        compute_chunk(space, kernel, config, scratch, chunk);
        if (journal_rows) {
          writer->append(chunk, manifest.values_per_task);
        } else {
          reduce_chunk(chunk, manifest.replicas, manifest.values_per_task, cols, partial);
          writer->append(partial);
        }
      } catch (const std::exception& e) {
        // A failing task or a failing journal write (disk full) on one rank: every finished
        // chunk is already journaled. The others stop after their chunk in hand, and all agree
        // below: one error line, every rank exits, nothing journaled is lost.
        error = fmt::format("rank {}: {}", mpi.rank, e.what());
        scheduler.stop_all();
        break;
      }
      computed += chunk.count;
      if (mpi.rank == 0) {
        progress.update(std::max<std::int64_t>(0, already) + claimed * manifest.chunk_size);
        if (options.on_progress)
          options.on_progress(std::min(summary.tasks, std::max<std::int64_t>(0, already) +
                                                          (claimed + 1) * manifest.chunk_size),
                              summary.tasks);
      }
    }
    if (stopping()) stop = static_cast<int>(*options.stop_signal);
    try {
      agree_or_throw(mpi, error, false);
    } catch (const AgreedError& e) {
      throw AgreedError(e.what(), false, true);
    }
  }
  MPI_Allreduce(&computed, &summary.tasks_computed, 1, MPI_INT64_T, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_MAX, comm);
  if (stop != 0) {  // every finished chunk is in the journal; the lock is released on return
    summary.interrupted_by = stop;
    if (mpi.rank == 0) summary.tasks_saved = JournalIndex::scan(journal, manifest).task_total();
    summary.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return summary;
  }

  // ---- finalize: write the HDF5 file from the journal ---------------------------------------
  if (options.on_final_write) options.on_final_write();
  const JournalIndex index = JournalIndex::scan(journal, manifest);
  std::int64_t missing = 0;
  const std::vector<std::uint8_t> finished = index.done_bitmap();
  for (std::size_t c = 0; c < finished.size(); ++c)
    if (!finished[c] && static_cast<std::int64_t>(c) % options.shard_count == options.shard_index) ++missing;
  // Every task accounted for exactly once: each chunk's record holds exactly its own tasks.
  if (options.shard_count == 1 && missing == 0 && index.task_total() != summary.tasks) missing = 1;
  MPI_Allreduce(MPI_IN_PLACE, &missing, 1, MPI_INT64_T, MPI_MAX, comm);
  if (missing != 0)
    throw AgreedError(
        fmt::format("{}: {} chunks missing from the journal after the run (resume with --resume "
                    "to compute them)",
                    journal, missing),
        false);
  if (mpi.rank == 0 && mode == detail::RunMode::kFresh)
    for (const auto& problem : index.problems()) summary.warnings.push_back("journal: " + problem);
  std::int64_t dropped = 0;
  std::vector<ProvenanceRow> provenance = read_provenance_lines(journal, dropped);
  if (mpi.rank == 0 && dropped > 0)
    summary.warnings.push_back(
        fmt::format("{}/provenance.tsv: {} malformed line(s) dropped", journal, dropped));
  if (provenance.empty()) provenance.push_back(row);  // the journal's copy was lost: keep this run's
  provenance.back().end_time = now_iso8601();
  provenance.back().tasks_done = summary.tasks_computed;
  {
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
        if (finished[c] && static_cast<std::int64_t>(c) % options.shard_count == options.shard_index)
          journal_tasks += std::min(manifest.chunk_size,
                                    summary.tasks - static_cast<std::int64_t>(c) * manifest.chunk_size);
      provenance[killed.front()].tasks_done =
          std::max<std::int64_t>(0, journal_tasks - summary.tasks_computed - others);
    }
  }
  // Written in the journal directory (created exclusively, never through a link) and renamed
  // over the output when complete: a kill during this step leaves the (readable, incomplete)
  // file in place, never a half-written one.
  std::string staging;
  if (mpi.rank == 0) {
    try {
      staging = new_staging_file(journal, "final");
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  agree_or_throw(mpi, error, false);
  broadcast_string(comm, staging);
  detail::agreed_io_staged(mpi, staging, [&] {
    if (options.shard_count > 1)
      hdf5_seconds += write_shard_file(comm, staging, config, kernel, manifest, index, provenance,
                                       options.shard_index, options.shard_count);
    else if (journal_rows)
      hdf5_seconds +=
          write_sweep_file(comm, staging, config, kernel, manifest, &index,
                           RowStatisticsSource(index, manifest, kernel), provenance, &summary.status_counts);
    else
      hdf5_seconds += write_sweep_file(comm, staging, config, kernel, manifest, nullptr, index, provenance,
                                       &summary.status_counts);
  });
  bool input_error = false;
  if (mpi.rank == 0 && options.before_publish) {
    try {
      options.before_publish(staging);
    } catch (const InputError& e) {
      error = e.what();
      input_error = true;
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) ::unlink(staging.c_str());  // the journal still holds everything
  }
  agree_or_throw(mpi, error, input_error);
  if (mpi.rank == 0) {
    try {
      replace_output(staging, path);
      clear_journal(journal);  // only now: the file holds everything the journal did
      lock.release();
      summary.file_bytes = fs::file_size(path);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  agree_or_throw(mpi, error, false);
  summary.output_complete = true;
  if (options.stop_signal != nullptr && *options.stop_signal != 0)
    summary.interrupted_by = static_cast<int>(*options.stop_signal);
  summary.hdf5_seconds = hdf5_seconds;
  summary.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return summary;
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
