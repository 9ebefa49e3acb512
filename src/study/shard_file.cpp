#include "shard_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "mpi_context.hpp"
#include "simpact/sweep/parameter_space.hpp"
#include "sweep_layout.hpp"

namespace simpact {

namespace {

std::string sample_name(const ResultColumn& c) {
  return c.group + "_" + c.name;
}

}  // namespace

double write_shard_file(MPI_Comm comm, const std::string& path, const SweepConfig& config,
                        const TaskKernel& kernel, const JournalManifest& manifest,
                        const ChunkResultSource& source, const std::vector<ProvenanceRow>& provenance,
                        std::int64_t shard_index, std::int64_t shard_count) {
  using detail::agree_or_throw;
  using Clock = std::chrono::steady_clock;
  const detail::Mpi mpi(comm);
  const ParameterSpace space(config);
  SweepFileLayout layout = detail::make_layout(config, space, kernel, manifest.chunk_count());
  layout.maps.clear();
  // Stored uncompressed: a shard is read once, by the merge, where inflating it cost most of the
  // merge (a 1 M-task billiards_mc: 0.78 s gzip, 0.36 s plain). It is no larger than the rows
  // journal its run already held on the same disk (16 + 8 bytes per value per task).
  layout.compression = 0;
  layout.samples = {{"status", "1", kTaskStatusLegend, true},
                    {"random_counter", "1", "uniform draws consumed from the (seed, task) stream", true}};
  for (const auto& c : kernel.columns())
    layout.samples.push_back({sample_name(c), c.units, c.long_name, false, c.length});
  layout.root_string_attributes.push_back({"shard", fmt::format("{}/{}", shard_index, shard_count)});
  std::vector<std::int64_t> mine;
  for (std::int64_t c = shard_index; c < manifest.chunk_count(); c += shard_count) mine.push_back(c);
  // /samples holds this shard's chunks only, in chunk order: row k * chunk_size is chunk mine[k].
  for (const std::int64_t c : mine)
    layout.sample_task_ranges.emplace_back(c * manifest.chunk_size, manifest.chunk_tasks(c));
  const auto t0 = Clock::now();
  SweepFile file = SweepFile::create(path, comm, layout);
  const auto n = static_cast<std::int64_t>(mine.size());
  const std::int64_t first = n * mpi.rank / mpi.size, last = n * (mpi.rank + 1) / mpi.size;
  const std::int64_t rounds = (n + mpi.size - 1) / mpi.size;
  ChunkResults chunk;
  const auto vpt = static_cast<std::size_t>(manifest.values_per_task);
  const detail::ColumnOffsets cols(kernel);
  std::vector<double> column;
  std::vector<std::int64_t> counters;
  for (std::int64_t round = 0; round < rounds; ++round) {
    const std::int64_t k = first + round;
    std::int64_t count = 0, row0 = 0;
    std::string error;
    if (k < last) {
      try {
        source.read(mine[static_cast<std::size_t>(k)], chunk);
        count = chunk.count;
        row0 = k * manifest.chunk_size;
      } catch (const std::exception& e) {
        error = fmt::format("rank {}: {}", mpi.rank, e.what());
      }
    }
    agree_or_throw(mpi, error, false);
    file.write_samples(0, row0, chunk.status.data(), count);
    counters.assign(chunk.counters.begin(), chunk.counters.end());
    file.write_samples(1, row0, counters.data(), count);
    for (std::size_t c = 0; c < kernel.columns().size(); ++c) {
      const auto length = static_cast<std::size_t>(kernel.columns()[c].length);
      column.resize(static_cast<std::size_t>(count) * length);
      for (std::int64_t i = 0; i < count; ++i)
        std::copy_n(chunk.values.begin() +
                        static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * vpt + cols.offset[c]),
                    length,
                    column.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * length));
      file.write_samples(2 + c, row0, column.data(), count);
    }
  }
  const std::vector<std::uint8_t> done = source.done_bitmap();
  file.write_progress(0, done.data(), mpi.rank == 0 ? static_cast<std::int64_t>(done.size()) : 0);
  file.write_provenance(provenance);
  file.flush();
  file.set_complete(true);
  file.close();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

namespace detail {

std::int64_t shard_sample_rows(const JournalManifest& manifest, std::int64_t shard_index,
                               std::int64_t shard_count) {
  std::int64_t rows = 0;
  for (std::int64_t c = shard_index; c < manifest.chunk_count(); c += shard_count)
    rows += manifest.chunk_tasks(c);
  return rows;
}

ShardSource::ShardSource(std::vector<SweepFileReader> shards, const JournalManifest& manifest,
                         const TaskKernel& kernel)
    : shards_(std::move(shards)), manifest_(manifest) {
  for (const auto& c : kernel.columns()) {
    columns_.push_back("samples/" + sample_name(c));
    lengths_.push_back(c.length);
  }
  // Shards written before their /samples held only their own chunks have a row per task.
  const auto n = static_cast<std::int64_t>(shards_.size());
  for (const auto& shard : shards_)
    own_rows_.push_back(n == 1 || shard.shape("samples/status").at(0) != manifest_.task_count);
}

std::vector<std::uint8_t> ShardSource::done_bitmap() const {
  return std::vector<std::uint8_t>(static_cast<std::size_t>(manifest_.chunk_count()), 1);
}

void ShardSource::read(std::int64_t chunk, ChunkResults& out) const {
  const auto n = static_cast<std::int64_t>(shards_.size());
  const SweepFileReader& shard = shards_[static_cast<std::size_t>(chunk % n)];
  const std::int64_t first_task = chunk * manifest_.chunk_size;
  // The chunk's first row: chunk / n chunks of this shard come before it.
  const std::int64_t first =
      own_rows_[static_cast<std::size_t>(chunk % n)] ? chunk / n * manifest_.chunk_size : first_task;
  const std::int64_t count = manifest_.chunk_tasks(chunk);
  out.chunk = chunk;
  out.first_task = first_task;
  out.resize(count, manifest_.values_per_task);
  shard.read("samples/status", first, count, out.status.data());
  std::vector<std::int64_t> counters(static_cast<std::size_t>(count));
  shard.read("samples/random_counter", first, count, counters.data());
  for (std::int64_t i = 0; i < count; ++i)
    out.counters[static_cast<std::size_t>(i)] =
        static_cast<std::uint64_t>(counters[static_cast<std::size_t>(i)]);
  const auto vpt = static_cast<std::size_t>(manifest_.values_per_task);
  std::size_t offset = 0;
  std::vector<double> column;
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const auto length = static_cast<std::size_t>(lengths_[c]);  // per-task arrays: rows of `length`
    column.resize(static_cast<std::size_t>(count) * length);
    shard.read(columns_[c], first * lengths_[c], count * lengths_[c], column.data());
    for (std::int64_t i = 0; i < count; ++i)
      std::copy_n(
          column.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * length), length,
          out.values.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * vpt + offset));
    offset += length;
  }
}

}  // namespace detail
}  // namespace simpact
