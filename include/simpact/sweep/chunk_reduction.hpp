// The partial statistics of a chunk, reduced from its rows: what a statistics journal record
// holds, and what the final write merges per grid point in chunk order.
#pragma once

#include <cstdint>

#include "simpact/sweep/chunk_results.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

// Folds the chunk's tasks in task order into per-grid-point partials: tasks per status, and
// Welford statistics of each scalar column (`cols.scalars`, in order) over its finite values.
// Grid points hold `replicas` consecutive tasks. The column folds run over the OpenMP threads,
// each column in task order: the same bits for any thread count.
void reduce_chunk(const ChunkResults& rows, std::int64_t replicas, std::int64_t values_per_task,
                  const ColumnOffsets& cols, ChunkStatistics& out);

// Partial statistics of finished chunks computed from their rows (a rows journal, shard files),
// so that every path merges the same partials and writes the same bits.
class RowStatisticsSource final : public ChunkStatisticsSource {
 public:
  RowStatisticsSource(const ChunkResultSource& rows, std::int64_t replicas, std::int64_t values_per_task,
                      const TaskKernel& kernel)
      : rows_(rows), replicas_(replicas), values_per_task_(values_per_task), cols_(kernel) {}
  std::vector<std::uint8_t> done_bitmap() const override { return rows_.done_bitmap(); }
  void read_statistics(std::int64_t chunk, ChunkStatistics& out) const override;

 private:
  const ChunkResultSource& rows_;
  std::int64_t replicas_;
  std::int64_t values_per_task_;
  ColumnOffsets cols_;
  mutable ChunkResults buffer_;
};

}  // namespace simpact
