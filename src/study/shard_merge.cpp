// Merging the shard files of a sharded sweep into the file a single run would have written.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "mpi_context.hpp"
#include "output_staging.hpp"
#include "run_provenance.hpp"
#include "shard_file.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/io/safe_file.hpp"
#include "simpact/io/sweep_file_reader.hpp"
#include "simpact/study/input_binding.hpp"
#include "simpact/study/sweep_runner.hpp"
#include "simpact/sweep/chunk_reduction.hpp"

namespace simpact {

using detail::agree_or_throw;
using detail::broadcast_string;
using detail::Mpi;
using detail::new_staging_file;
using detail::now_iso8601;
using detail::provenance_row;
using detail::remove_stale_staging;
using detail::replace_output;
using detail::ShardSource;

double merge_shards(MPI_Comm comm, const SweepConfig& config, const TaskKernel& kernel,
                    const std::vector<std::string>& shard_paths, const std::string& output_path,
                    const std::string& command_line,
                    const std::function<void(const std::string&)>& before_publish) {
  const auto start_time = now_iso8601();
  JournalManifest manifest = sweep_manifest(config, kernel);
  manifest.records = JournalRecords::kRows;  // shard files hold rows
  const Mpi mpi(comm);
  // The output must be a regular file or absent; rank 0 locks it and stages the merged file in
  // <output>.journal/, checked and agreed before any shard is read.
  const std::string journal = journal_directory(output_path);
  OutputLock lock;
  std::string error, staging;
  if (mpi.rank == 0) {
    try {
      error = check_result_output(output_path);
      if (error.empty()) error = check_journal_ownership(journal);
      if (error.empty()) {
        lock = OutputLock(journal);
        if (journal_contents(journal).record_files > 0 ||
            path_kind(journal + "/manifest") != PathKind::kAbsent) {
          error = fmt::format("'{}' holds the journal of a run of this output: finish or remove it first",
                              journal);
        } else {  // a killed merge's staged file goes only once this merge is accepted
          remove_stale_staging(journal);
          staging = new_staging_file(journal, "merge");
        }
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) lock.release();
  }
  agree_or_throw(mpi, error);
  broadcast_string(comm, staging);
  // A refused or failed merge leaves nothing behind: the staged file goes (then the lock's
  // release removes the journal directory it created), whatever throws before the publish.
  struct StagingGuard {
    std::string path;
    ~StagingGuard() {
      if (!path.empty()) ::unlink(path.c_str());
    }
  } unpublished{mpi.rank == 0 ? staging : std::string()};
  const auto n = static_cast<std::int64_t>(shard_paths.size());
  std::vector<std::unique_ptr<SweepFileReader>> slots(static_cast<std::size_t>(n));
  std::vector<ProvenanceRow> provenance;
  std::vector<bool> seen(static_cast<std::size_t>(n), false);
  for (const auto& path : shard_paths) {
    SweepFileReader shard(path);
    auto refuse = [&](const std::string& why) {
      throw InputError("shards", fmt::format("{}: {}", path, why));
    };
    if (!shard.has_attribute("shard")) refuse("not a shard file (no 'shard' attribute)");
    if (shard.string_attribute("config_hash") != config.source_hash) {
      const std::string change = describe_input_change(
          shard.has_attribute("input_files") ? parse_input_files(shard.string_attribute("input_files"))
                                             : std::vector<InputFile>{},
          config.inputs, "for this shard", "now");
      refuse(change.empty() ? "made from a different config than the first shard"
                            : "computed from other inputs than the merge reads now: " + change);
    }
    if (shard.integer_attribute("chunk_count") != manifest.chunk_count() ||
        shard.integer_attribute("task_count") != manifest.task_count)
      refuse("different task or chunk count");
    std::int64_t index = -1, count = -1;
    if (std::sscanf(shard.string_attribute("shard").c_str(), "%ld/%ld", &index, &count) != 2 || count < 1 ||
        index < 0 || index >= count)
      refuse(fmt::format("malformed 'shard' attribute '{}'", shard.string_attribute("shard")));
    if (count != n) {  // say which shards are missing (or that there are too many)
      std::vector<bool> given(static_cast<std::size_t>(count), false);
      for (const auto& other : shard_paths) {
        std::int64_t i = -1, c = -1;
        const SweepFileReader r(other);
        if (r.has_attribute("shard") &&
            std::sscanf(r.string_attribute("shard").c_str(), "%ld/%ld", &i, &c) == 2 && c == count &&
            i >= 0 && i < count)
          given[static_cast<std::size_t>(i)] = true;
      }
      std::string missing;
      for (std::int64_t i = 0; i < count; ++i)
        if (!given[static_cast<std::size_t>(i)])
          missing += fmt::format("{}{}/{}", missing.empty() ? "" : ", ", i, count);
      refuse(missing.empty() ? fmt::format("the sweep has {} shards but {} files were given", count, n)
                             : fmt::format("the sweep has {} shards but {} were given: missing shard(s) {}",
                                           count, n, missing));
    }
    if (seen[static_cast<std::size_t>(index)]) refuse(fmt::format("shard {} given twice", index));
    seen[static_cast<std::size_t>(index)] = true;
    if (!sweep_file_is_complete(path)) refuse("unfinished shard (resume it first)");
    const std::int64_t rows = shard.shape("samples/status").at(0);
    if (rows != manifest.task_count && rows != detail::shard_sample_rows(manifest, index, count))
      refuse(fmt::format("/samples has {} rows: neither its chunks' {} tasks nor the sweep's {}", rows,
                         detail::shard_sample_rows(manifest, index, count), manifest.task_count));
    std::vector<std::uint8_t> done(static_cast<std::size_t>(manifest.chunk_count()));
    shard.read("progress/done", 0, manifest.chunk_count(), done.data());
    for (std::int64_t c = index; c < manifest.chunk_count(); c += n)
      if (!done[static_cast<std::size_t>(c)]) refuse(fmt::format("chunk {} missing", c));
    for (const auto& row : read_provenance(path)) provenance.push_back(row);
    slots[static_cast<std::size_t>(index)] = std::make_unique<SweepFileReader>(std::move(shard));
  }
  std::vector<SweepFileReader> shards;
  for (auto& slot : slots) shards.push_back(std::move(*slot));
  ProvenanceRow row = provenance_row(mpi, config, command_line);
  row.start_time = start_time;
  row.end_time = now_iso8601();
  provenance.push_back(row);
  const ShardSource source(std::move(shards), manifest, kernel);
  const RowStatisticsSource statistics(source, manifest.replicas, manifest.values_per_task, kernel);
  const double seconds = detail::agreed_io_staged(mpi, staging, [&] {
    return write_sweep_file(comm, staging, config, kernel, manifest, &source, statistics, provenance);
  });
  bool input_error = false;
  if (mpi.rank == 0 && before_publish) {
    try {
      before_publish(staging);
    } catch (const InputError& e) {
      error = e.what();
      input_error = true;
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) {
      ::unlink(staging.c_str());  // the shards still hold everything
      lock.release();
    }
  }
  agree_or_throw(mpi, error, input_error);
  if (mpi.rank == 0) {
    try {
      replace_output(staging, output_path);
      unpublished.path.clear();
      lock.release();
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  agree_or_throw(mpi, error);
  return seconds;
}

}  // namespace simpact
