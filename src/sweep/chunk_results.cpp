#include "simpact/sweep/chunk_results.hpp"

namespace simpact {

void ChunkResults::resize(std::int64_t n, std::int64_t values_per_task) {
  count = n;
  status.assign(static_cast<std::size_t>(n), 0);
  counters.assign(static_cast<std::size_t>(n), 0);
  values.assign(static_cast<std::size_t>(n * values_per_task), 0.0);
}

void ChunkStatistics::reset(std::int64_t first, std::int64_t n, std::int64_t cols) {
  first_point = first;
  points = n;
  columns = cols;
  status.assign(static_cast<std::size_t>(n * kTaskStatusCount), 0);
  values.assign(static_cast<std::size_t>(n * cols), RunningStatistics{});
}

}  // namespace simpact
