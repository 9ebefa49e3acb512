// The final write of a sweep: every rank reduces a contiguous block of grid points from the
// finished chunks (each grid point's chunk partials merged in chunk order) and writes its
// hyperslabs collectively; samples, progress, provenance, and `complete = 1` last.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <memory>
#include <thread>

#include "mpi_context.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/study/sweep_runner.hpp"
#include "simpact/sweep/parameter_space.hpp"
#include "simpact/sweep/running_statistics.hpp"
#include "sweep_layout.hpp"

namespace simpact {

namespace {

using detail::agree_or_throw;
using detail::ColumnOffsets;
using detail::make_layout;
using detail::Mpi;
using Clock = std::chrono::steady_clock;

constexpr std::int64_t kSlabTasks = 1 << 16;  // tasks per collective write round (bounds memory)
// Grid points per collective write round of the maps. A round holds one value per map and point
// (maps × points × 8 bytes), whatever the replica count: statistics are merged through a one-chunk
// cache. Each extra round rewrites every map's compressed chunks (HDF5 reads them back): ~9 ms
// for billiards_mc (64 points × 2048 replicas), when rounds held the points of 2^16 tasks.
constexpr std::int64_t kSlabPoints = 1 << 16;

// Up to this many values (task results and sample indices, plus the grid maps) rank 0 writes the
// file alone: 32 MiB of float64, a few hundred milliseconds of serial writing at most.
constexpr std::int64_t kSerialWriteValues = std::int64_t{1} << 22;
constexpr std::int64_t kSampleIndexColumns = 8;  // status, counter, grid point, replica, inputs

struct Finalizer {
  const Mpi& mpi;
  const SweepConfig& config;
  const ParameterSpace& space;
  const TaskKernel& kernel;
  const JournalManifest& manifest;
  const ChunkResultSource* rows;
  const ChunkStatisticsSource& statistics;
  double hdf5_seconds = 0.0;
  std::array<std::int64_t, kTaskStatusCount> status_totals{};  // all ranks, after write()

  // Times HDF5 work only: the barrier first absorbs ranks still reducing their statistics, which
  // would otherwise show up as time inside the collective write.
  template <typename F>
  void timed(F&& f) {
    MPI_Barrier(mpi.comm);
    const auto t0 = Clock::now();
    f();
    hdf5_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
  }

  // Reads task results in task order through a one-chunk cache.
  struct TaskReader {
    const ChunkResultSource& index;
    std::int64_t chunk_size;
    ChunkResults cache;
    std::int64_t cached = -1;
    std::int64_t vpt;
    const double* values(std::int64_t task) {
      load(task);
      return cache.values.data() + (task - cache.first_task) * vpt;
    }
    std::int64_t status(std::int64_t task) {
      load(task);
      return cache.status[static_cast<std::size_t>(task - cache.first_task)];
    }
    std::int64_t counter(std::int64_t task) {
      load(task);
      return static_cast<std::int64_t>(cache.counters[static_cast<std::size_t>(task - cache.first_task)]);
    }
    void load(std::int64_t task) {
      const std::int64_t chunk = task / chunk_size;
      if (chunk != cached) {
        cached = -1;
        index.read(chunk, cache);
        if (task < cache.first_task || task >= cache.first_task + cache.count)
          throw IoError(fmt::format("chunk {} holds tasks {}+{}, not task {}", chunk, cache.first_task,
                                    cache.count, task));
        cached = chunk;
      }
    }
  };

  // Merges each grid point's partial statistics over the chunks that hold its replicas, in chunk
  // order, through a one-chunk cache (grid points are visited in order).
  struct PointMerger {
    const ChunkStatisticsSource& source;
    const JournalManifest& manifest;
    ChunkStatistics cache;
    std::int64_t cached = -1;
    void merge(std::int64_t point, std::vector<RunningStatistics>& stats, TaskStatusCounts& status) {
      std::fill(stats.begin(), stats.end(), RunningStatistics{});
      status.fill(0);
      const std::int64_t first_chunk = point * manifest.replicas / manifest.chunk_size;
      const std::int64_t last_chunk = ((point + 1) * manifest.replicas - 1) / manifest.chunk_size;
      for (std::int64_t chunk = first_chunk; chunk <= last_chunk; ++chunk) {
        if (chunk != cached) {
          cached = -1;
          source.read_statistics(chunk, cache);
          cached = chunk;
        }
        if (point < cache.first_point || point >= cache.first_point + cache.points ||
            cache.columns != static_cast<std::int64_t>(stats.size()))
          throw IoError(fmt::format("chunk {} holds grid points {}+{}, not grid point {}", chunk,
                                    cache.first_point, cache.points, point));
        const RunningStatistics* partial = cache.values_of(point);
        for (std::size_t c = 0; c < stats.size(); ++c) stats[c].merge(partial[c]);
        for (int k = 0; k < kTaskStatusCount; ++k)
          status[static_cast<std::size_t>(k)] += cache.status_of(point)[k];
      }
    }
  };

  void write(const std::string& path, const std::vector<ProvenanceRow>& provenance) {
    const SweepFileLayout layout = make_layout(config, space, kernel, manifest.chunk_count());
    std::unique_ptr<SweepFile> file;
    timed([&] { file = std::make_unique<SweepFile>(SweepFile::create(path, mpi.comm, layout)); });
    const ColumnOffsets cols(kernel);
    const std::size_t columns = cols.scalars.size();
    const bool replicas = space.replicas() > 1;
    if (rows == nullptr && (!replicas || config.output.samples || !cols.arrays.empty()))
      throw IoError("the final write needs per-task results, but only statistics were journaled");
    std::unique_ptr<TaskReader> reader;
    if (rows != nullptr)
      reader.reset(new TaskReader{*rows, manifest.chunk_size, {}, -1, manifest.values_per_task});
    PointMerger merger{statistics, manifest, {}, -1};
    const std::size_t maps_per_column = replicas ? 5 : 1;

    // Grid maps: a contiguous block of grid points per rank, written in equal-count rounds.
    const std::int64_t points = space.grid_points();
    const std::int64_t first = points * mpi.rank / mpi.size, last = points * (mpi.rank + 1) / mpi.size;
    const std::int64_t max_share = (points + mpi.size - 1) / mpi.size;
    const std::int64_t slab_points = kSlabPoints;
    const std::int64_t rounds = (max_share + slab_points - 1) / slab_points;
    std::vector<std::vector<double>> maps(layout.maps.size());
    for (std::int64_t round = 0; round < rounds; ++round) {
      const std::int64_t a = std::min(last, first + round * slab_points);
      const std::int64_t b = std::min(last, a + slab_points);
      for (auto& m : maps) m.assign(static_cast<std::size_t>(b - a), 0.0);
      std::vector<RunningStatistics> stats(columns);
      TaskStatusCounts status{};
      const std::size_t headline =
          kernel.headline_column() >= 0
              ? static_cast<std::size_t>(std::find(cols.scalars.begin(), cols.scalars.end(),
                                                   static_cast<std::size_t>(kernel.headline_column())) -
                                         cols.scalars.begin())
              : columns;
      std::string error;  // a rank that cannot read its tasks must not leave the others in a collective
      try {
        for (std::int64_t g = a; g < b; ++g) {
          const auto at = static_cast<std::size_t>(g - a);
          if (replicas) {
            merger.merge(g, stats, status);
            for (std::size_t c = 0; c < columns; ++c) {
              const std::size_t base = c * maps_per_column;
              maps[base + 0][at] = stats[c].mean();
              maps[base + 1][at] = stats[c].std();
              maps[base + 2][at] = stats[c].min();
              maps[base + 3][at] = stats[c].max();
              maps[base + 4][at] = static_cast<double>(stats[c].count());
            }
            if (headline < columns) maps.back()[at] = stats[headline].mean();
          } else {  // the single replica's value itself (NaN stays NaN)
            const std::int64_t task = space.task_of(g, 0);
            const double* v = reader->values(task);
            status.fill(0);
            ++status[static_cast<std::size_t>(
                std::clamp<std::int64_t>(reader->status(task), 0, kTaskStatusCount - 1))];
            for (std::size_t c = 0; c < columns; ++c) maps[c][at] = v[cols.offset[cols.scalars[c]]];
            if (headline < columns) maps.back()[at] = maps[headline][at];
          }
          for (std::size_t k = 0; k < status.size(); ++k) {
            maps[columns * maps_per_column + k][at] = static_cast<double>(status[k]);
            status_totals[k] += status[k];
          }
        }
      } catch (const std::exception& e) {
        error = fmt::format("rank {}: {}", mpi.rank, e.what());
      }
      agree_or_throw(mpi, error, false);
      timed([&] {
        for (std::size_t m = 0; m < maps.size(); ++m) file->write_map(m, a, maps[m].data(), b - a);
      });
    }
    MPI_Allreduce(MPI_IN_PLACE, status_totals.data(), kTaskStatusCount, MPI_INT64_T, MPI_SUM, mpi.comm);

    if (config.output.samples || !cols.arrays.empty()) write_samples(*file, *reader, cols);

    timed([&] {
      const std::vector<std::uint8_t> done = statistics.done_bitmap();
      file->write_progress(0, done.data(), mpi.rank == 0 ? static_cast<std::int64_t>(done.size()) : 0);
      file->write_provenance(provenance);
      file->flush();
      file->set_complete(true);  // last: a file marked complete holds everything
      file->close();
    });
  }

  void write_samples(SweepFile& file, TaskReader& reader, const ColumnOffsets& cols) {
    const std::int64_t tasks = space.task_count();
    const std::int64_t first = tasks * mpi.rank / mpi.size, last = tasks * (mpi.rank + 1) / mpi.size;
    const std::int64_t max_share = (tasks + mpi.size - 1) / mpi.size;
    const std::int64_t rounds = (max_share + kSlabTasks - 1) / kSlabTasks;
    const bool tables = config.output.samples;  // inputs, status and scalar results too
    const std::size_t inputs = tables ? space.axes().size() + space.random_parameters().size() : 0;
    const std::size_t columns = tables ? cols.scalars.size() : 0;
    ParameterSet params;
    for (std::int64_t round = 0; round < rounds; ++round) {
      const std::int64_t a = std::min(last, first + round * kSlabTasks);
      const std::int64_t b = std::min(last, a + kSlabTasks);
      const auto n = static_cast<std::size_t>(b - a);
      std::vector<std::vector<double>> in(inputs, std::vector<double>(n));
      std::vector<std::vector<double>> out(columns, std::vector<double>(n));
      std::vector<std::int64_t> status(n), counter(n), grid_point(n), replica(n);
      std::vector<std::vector<double>> arrays(cols.arrays.size());
      for (std::size_t k = 0; k < cols.arrays.size(); ++k)
        arrays[k].resize(n * static_cast<std::size_t>(kernel.columns()[cols.arrays[k]].length));
      std::string error;
      try {
        for (std::int64_t t = a; t < b; ++t) {
          const auto i = static_cast<std::size_t>(t - a);
          const double* v = reader.values(t);
          for (std::size_t k = 0; k < cols.arrays.size(); ++k) {
            const auto length = static_cast<std::size_t>(kernel.columns()[cols.arrays[k]].length);
            std::copy_n(v + cols.offset[cols.arrays[k]], length,
                        arrays[k].begin() + static_cast<std::ptrdiff_t>(i * length));
          }
          if (!tables) continue;
          space.parameters_of(t, params);
          std::size_t j = 0;
          for (const auto& axis : space.axes()) in[j++][i] = params.get(axis.name, 0.0);
          for (const auto& p : space.random_parameters()) in[j++][i] = params.get(p.name, 0.0);
          for (std::size_t c = 0; c < columns; ++c) out[c][i] = v[cols.offset[cols.scalars[c]]];
          status[i] = reader.status(t);
          counter[i] = reader.counter(t);
          grid_point[i] = space.grid_point_of(t);
          replica[i] = space.replica_of(t);
        }
      } catch (const std::exception& e) {
        error = fmt::format("rank {}: {}", mpi.rank, e.what());
      }
      agree_or_throw(mpi, error, false);
      timed([&] {
        std::size_t col = 0;
        if (tables) {
          for (std::size_t j = 0; j < inputs; ++j) file.write_samples(col++, a, in[j].data(), b - a);
          file.write_samples(col++, a, status.data(), b - a);
          file.write_samples(col++, a, counter.data(), b - a);
          file.write_samples(col++, a, grid_point.data(), b - a);
          file.write_samples(col++, a, replica.data(), b - a);
          for (std::size_t c = 0; c < columns; ++c) file.write_samples(col++, a, out[c].data(), b - a);
        }
        for (const auto& values : arrays) file.write_samples(col++, a, values.data(), b - a);
      });
    }
  }
};

}  // namespace

double write_sweep_file(MPI_Comm comm, const std::string& path, const SweepConfig& config,
                        const TaskKernel& kernel, const JournalManifest& manifest,
                        const ChunkResultSource* rows, const ChunkStatisticsSource& statistics,
                        const std::vector<ProvenanceRow>& provenance, TaskStatusCounts* status_counts) {
  const Mpi mpi(comm);
  const ParameterSpace space(config);
  // What the file holds: per-task tables only with samples (else just the per-task arrays), and
  // up to six maps per column.
  std::int64_t array_values = 0;
  for (const ResultColumn& column : kernel.columns())
    if (column.length > 1) array_values += column.length;
  const std::int64_t per_task =
      config.output.samples ? manifest.values_per_task + kSampleIndexColumns : array_values;
  const std::int64_t values = space.task_count() * per_task +
                              space.grid_points() * static_cast<std::int64_t>(kernel.columns().size()) * 6;
  if (mpi.size == 1 || values > kSerialWriteValues) {
    Finalizer finalizer{mpi, config, space, kernel, manifest, rows, statistics};
    finalizer.write(path, provenance);
    if (status_counts != nullptr) *status_counts = finalizer.status_totals;
    return finalizer.hdf5_seconds;
  }
  // A small file: rank 0 writes it alone through the serial driver (every rank can read every
  // chunk of the journal), the same code and values as a one-rank run, so the same file. The
  // collective opens and writes of parallel HDF5 cost far more than these few megabytes.
  std::string error;
  double seconds = 0.0;
  TaskStatusCounts totals{};
  if (mpi.rank == 0) {
    try {
      const Mpi self(MPI_COMM_SELF);
      Finalizer finalizer{self, config, space, kernel, manifest, rows, statistics};
      finalizer.write(path, provenance);
      seconds = finalizer.hdf5_seconds;
      totals = finalizer.status_totals;
    } catch (const std::exception& e) {
      error = e.what();
      if (error.empty()) error = "unknown error writing " + path;
    }
  }
  // The other ranks wait asleep, not in MPI's busy poll: on a full node that poll takes the
  // cores rank 0 is writing with.
  MPI_Request done;
  MPI_Ibarrier(comm, &done);
  for (int finished = 0; MPI_Test(&done, &finished, MPI_STATUS_IGNORE), !finished;)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  agree_or_throw(mpi, error, false);
  MPI_Bcast(&seconds, 1, MPI_DOUBLE, 0, comm);
  MPI_Bcast(totals.data(), kTaskStatusCount, MPI_INT64_T, 0, comm);
  if (status_counts != nullptr) *status_counts = totals;
  return seconds;
}

}  // namespace simpact
