// reduce_chunk: a chunk's rows → per-grid-point partials, equal bit for bit to folding each
// column in task order, for any thread count; RowStatisticsSource reduces rows read back.
#include "simpact/sweep/chunk_reduction.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#include "test_kernels.hpp"

namespace simpact {
namespace {

using testing::MixKernel;
using testing::ThreadCountGuard;

bool same_state(const RunningStatistics& a, const RunningStatistics& b) {
  const auto x = a.state(), y = b.state();
  return std::memcmp(&x, &y, sizeof x) == 0;
}

// Tasks 17..17+count−1 of a sweep with 5 replicas per grid point (so the chunk starts and ends
// inside a point), rows from the test kernel: NaN every fifth task, statuses mixed.
ChunkResults rows_of(const TaskKernel& kernel, std::int64_t first, std::int64_t count) {
  ChunkResults rows;
  rows.chunk = 3;
  rows.first_task = first;
  const std::int64_t vpt = values_per_task(kernel);
  rows.resize(count, vpt);
  auto scratch = kernel.make_scratch();
  for (std::int64_t i = 0; i < count; ++i) {
    ParameterSet p;
    p.set("x", 0.37 * static_cast<double>(first + i));
    rows.status[static_cast<std::size_t>(i)] =
        static_cast<std::int64_t>(kernel.evaluate(first + i, p, *scratch, rows.values.data() + i * vpt));
  }
  return rows;
}

TEST(ChunkReduction, EqualsTheSequentialFoldInTaskOrder) {
  const MixKernel kernel({"x"});
  const ColumnOffsets cols(kernel);
  const std::int64_t replicas = 5, first = 17, count = 23, vpt = values_per_task(kernel);
  const ChunkResults rows = rows_of(kernel, first, count);
  // The reference: each scalar column folded task by task, per grid point.
  std::map<std::int64_t, std::vector<RunningStatistics>> expected;
  std::map<std::int64_t, std::vector<std::int64_t>> statuses;
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t point = (first + i) / replicas;
    expected[point].resize(cols.scalars.size());
    statuses[point].resize(kTaskStatusCount);
    ++statuses[point][static_cast<std::size_t>(rows.status[static_cast<std::size_t>(i)])];
    for (std::size_t c = 0; c < cols.scalars.size(); ++c)
      expected[point][c].add(rows.values[static_cast<std::size_t>(i * vpt) + cols.offset[cols.scalars[c]]]);
  }
  const ThreadCountGuard guard;
  for (const int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    ChunkStatistics out;
    reduce_chunk(rows, replicas, vpt, cols, out);
    EXPECT_EQ(out.chunk, 3);
    EXPECT_EQ(out.first_task, first);
    EXPECT_EQ(out.count, count);
    EXPECT_EQ(out.first_point, 3);  // tasks 17..39: points 3..7
    EXPECT_EQ(out.points, 5);
    EXPECT_EQ(out.columns, 2);
    for (const auto& [point, stats] : expected) {
      for (int k = 0; k < kTaskStatusCount; ++k)
        EXPECT_EQ(out.status_of(point)[k], statuses[point][static_cast<std::size_t>(k)]);
      for (std::size_t c = 0; c < stats.size(); ++c)
        EXPECT_TRUE(same_state(out.values_of(point)[c], stats[c]))
            << "point " << point << " column " << c << ", " << threads << " threads";
    }
    // Every fifth task's NaN is left out of its column's count.
    EXPECT_EQ(out.values_of(4)[1].count(), 4);
  }
}

// Rows read back from a source (a rows journal, shard files) reduce to the same partials.
class OneChunkSource final : public ChunkResultSource {
 public:
  explicit OneChunkSource(ChunkResults rows) : rows_(std::move(rows)) {}
  std::vector<std::uint8_t> done_bitmap() const override { return {0, 0, 0, 1}; }
  void read(std::int64_t chunk, ChunkResults& out) const override {
    if (chunk != rows_.chunk) throw std::out_of_range("no such chunk");
    out = rows_;
  }

 private:
  ChunkResults rows_;
};

TEST(ChunkReduction, RowStatisticsSourceReducesTheRowsReadBack) {
  const MixKernel kernel({"x"});
  const ChunkResults rows = rows_of(kernel, 17, 23);
  const OneChunkSource source(rows);
  const RowStatisticsSource statistics(source, 5, values_per_task(kernel), kernel);
  EXPECT_EQ(statistics.done_bitmap(), source.done_bitmap());
  ChunkStatistics read, direct;
  statistics.read_statistics(3, read);
  reduce_chunk(rows, 5, values_per_task(kernel), ColumnOffsets(kernel), direct);
  EXPECT_EQ(read.status, direct.status);
  ASSERT_EQ(read.values.size(), direct.values.size());
  for (std::size_t i = 0; i < read.values.size(); ++i)
    EXPECT_TRUE(same_state(read.values[i], direct.values[i]));
  EXPECT_THROW(statistics.read_statistics(2, read), std::out_of_range);
}

}  // namespace
}  // namespace simpact
