// A chunk's results in memory: its tasks' rows (status, random counter, values) and the partial
// statistics reduced from them per grid point, and the interfaces through which finished chunks
// are read back (a run's journal, a sharded sweep's shard files). The sweep engine computes and
// reduces these; io/chunk_journal.hpp stores them.
#pragma once

#include <cstdint>
#include <vector>

#include "simpact/sweep/running_statistics.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

// The results of the tasks of one chunk, in task order.
struct ChunkResults {
  std::int64_t chunk = 0;
  std::int64_t first_task = 0;
  std::int64_t count = 0;
  std::vector<std::int64_t> status;     // count
  std::vector<std::uint64_t> counters;  // random draws consumed, count
  std::vector<double> values;           // count × values_per_task, row-major

  void resize(std::int64_t n, std::int64_t values_per_task);
};

// The partial statistics of one chunk's tasks, per grid point it touches (grid points hold
// `replicas` consecutive tasks, so a chunk touches a contiguous range of them).
struct ChunkStatistics {
  std::int64_t chunk = 0;
  std::int64_t first_task = 0;
  std::int64_t count = 0;
  std::int64_t first_point = 0;
  std::int64_t points = 0;
  std::int64_t columns = 0;
  std::vector<std::int64_t> status;       // points × kTaskStatusCount: tasks per status
  std::vector<RunningStatistics> values;  // points × columns: finite values of each column

  void reset(std::int64_t first_point, std::int64_t points, std::int64_t columns);
  std::int64_t* status_of(std::int64_t point) {
    return status.data() + (point - first_point) * kTaskStatusCount;
  }
  const std::int64_t* status_of(std::int64_t point) const {
    return status.data() + (point - first_point) * kTaskStatusCount;
  }
  RunningStatistics* values_of(std::int64_t point) { return values.data() + (point - first_point) * columns; }
  const RunningStatistics* values_of(std::int64_t point) const {
    return values.data() + (point - first_point) * columns;
  }
};

// Where finished chunks can be read back from: the journal of a run, or the shard files of a
// sharded sweep being merged.
class ChunkResultSource {
 public:
  virtual ~ChunkResultSource() = default;
  virtual std::vector<std::uint8_t> done_bitmap() const = 0;
  // Reads chunk `chunk` (throws, e.g. IoError, if missing or corrupt).
  virtual void read(std::int64_t chunk, ChunkResults& out) const = 0;
};

// Where the partial statistics of finished chunks can be read back from.
class ChunkStatisticsSource {
 public:
  virtual ~ChunkStatisticsSource() = default;
  virtual std::vector<std::uint8_t> done_bitmap() const = 0;
  // Reads chunk `chunk`'s partial statistics (throws, e.g. IoError, if missing or corrupt).
  virtual void read_statistics(std::int64_t chunk, ChunkStatistics& out) const = 0;
};

}  // namespace simpact
