#include "chunk_reduction.hpp"

#include <algorithm>

namespace simpact::detail {

void reduce_chunk(const ChunkResults& rows, std::int64_t replicas, std::int64_t values_per_task,
                  const ColumnOffsets& cols, ChunkStatistics& out) {
  out.chunk = rows.chunk;
  out.first_task = rows.first_task;
  out.count = rows.count;
  const std::int64_t first_point = rows.first_task / replicas;
  const std::int64_t points =
      rows.count > 0 ? (rows.first_task + rows.count - 1) / replicas - first_point + 1 : 0;
  const auto columns = static_cast<std::int64_t>(cols.scalars.size());
  out.reset(first_point, points, columns);
  for (std::int64_t i = 0; i < rows.count; ++i) {
    const std::int64_t point = (rows.first_task + i) / replicas;
    const auto status =
        std::clamp<std::int64_t>(rows.status[static_cast<std::size_t>(i)], 0, kTaskStatusCount - 1);
    ++out.status_of(point)[status];
    const double* v = rows.values.data() + i * values_per_task;
    RunningStatistics* stats = out.values_of(point);
    for (std::int64_t c = 0; c < columns; ++c)
      stats[c].add(v[cols.offset[cols.scalars[static_cast<std::size_t>(c)]]]);
  }
}

void RowStatisticsSource::read_statistics(std::int64_t chunk, ChunkStatistics& out) const {
  rows_.read(chunk, buffer_);
  reduce_chunk(buffer_, manifest_.replicas, manifest_.values_per_task, cols_, out);
}

}  // namespace simpact::detail
