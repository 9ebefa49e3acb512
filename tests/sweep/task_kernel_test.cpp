// TaskKernel::evaluate_chunk, the batch seam: its default is the per-task loop (each row of the
// parameter matrix passed to evaluate by name), whatever the thread count.
#include "simpact/sweep/task_kernel.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "test_kernels.hpp"

namespace simpact {
namespace {

using testing::MixKernel;
using testing::ThreadCountGuard;

// A matrix of `rows` tasks over the names x, y, z (row i: x = 0.1 i, y = −i, z = 3).
struct Matrix {
  ParameterSet names;
  ParameterMatrix params;
  explicit Matrix(std::int64_t rows) {
    for (const char* n : {"x", "y", "z"}) names.set(n, 0.0);
    names.stamp_layout(ParameterSet::new_layout_id());
    params.names = &names;
    params.rows = rows;
    params.columns = 3;
    for (std::int64_t i = 0; i < rows; ++i)
      for (const double v : {0.1 * static_cast<double>(i), -static_cast<double>(i), 3.0})
        params.values.push_back(v);
  }
};

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

struct Rows {
  std::vector<std::int64_t> status;
  std::vector<double> values;
  ChunkOutput out;
  Rows(std::int64_t count, std::int64_t vpt)
      : status(static_cast<std::size_t>(count), -1), values(static_cast<std::size_t>(count * vpt), 0.0) {
    out.status = status.data();
    out.values = values.data();
  }
};

TEST(TaskKernel, EvaluateChunkIsThePerTaskLoop) {
  const MixKernel kernel({"x", "y", "z"});
  const std::int64_t first = 100, count = 37, vpt = values_per_task(kernel);
  ASSERT_EQ(vpt, 4);
  const Matrix m(count);
  const ThreadCountGuard guard;
  for (const int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    auto scratch = kernel.make_chunk_scratch();
    Rows rows(count, vpt);
    kernel.evaluate_chunk(first, count, m.params, rows.out, *scratch);
    EXPECT_EQ(rows.out.failed_task, -1);
    auto task_scratch = kernel.make_scratch();
    for (std::int64_t i = 0; i < count; ++i) {
      ParameterSet p;
      p.set("x", 0.1 * static_cast<double>(i));
      p.set("y", -static_cast<double>(i));
      p.set("z", 3.0);
      double expected[4];
      const TaskStatus status = kernel.evaluate(first + i, p, *task_scratch, expected);
      EXPECT_EQ(rows.status[static_cast<std::size_t>(i)], static_cast<std::int64_t>(status))
          << "task " << first + i;
      for (std::int64_t v = 0; v < vpt; ++v)
        EXPECT_TRUE(same_bits(rows.values[static_cast<std::size_t>(i * vpt + v)], expected[v]))
            << "task " << first + i << " value " << v << " at " << threads << " threads";
    }
  }
}

// A task that throws is recorded as failed with NaN values, the others are untouched, and the
// failure reported is the lowest failing task's, at any thread count.
TEST(TaskKernel, EvaluateChunkRecordsFailuresAndReportsTheLowest) {
  const std::int64_t first = 10, count = 40;
  const MixKernel kernel({"x", "y"}, {12, 31, 47});
  const MixKernel healthy({"x", "y"});
  const std::int64_t vpt = values_per_task(kernel);
  const Matrix m(count);
  const ThreadCountGuard guard;
  for (const int threads : {1, 2, 4}) {
    omp_set_num_threads(threads);
    auto scratch = kernel.make_chunk_scratch();
    Rows rows(count, vpt), reference(count, vpt);
    kernel.evaluate_chunk(first, count, m.params, rows.out, *scratch);
    auto healthy_scratch = healthy.make_chunk_scratch();
    healthy.evaluate_chunk(first, count, m.params, reference.out, *healthy_scratch);
    EXPECT_EQ(rows.out.failed_task, 12) << threads << " threads";
    EXPECT_EQ(rows.out.failure, "bad 12");
    for (std::int64_t i = 0; i < count; ++i) {
      const bool fails = first + i == 12 || first + i == 31 || first + i == 47;
      const auto s = static_cast<std::size_t>(i);
      EXPECT_EQ(rows.status[s], fails ? static_cast<std::int64_t>(TaskStatus::kFailed) : reference.status[s]);
      for (std::int64_t v = 0; v < vpt; ++v) {
        const double got = rows.values[static_cast<std::size_t>(i * vpt + v)];
        if (fails)
          EXPECT_TRUE(std::isnan(got));
        else
          EXPECT_TRUE(same_bits(got, reference.values[static_cast<std::size_t>(i * vpt + v)]));
      }
    }
  }
}

TEST(TaskKernel, EvaluateChunkRefusesAMatrixOfOtherNames) {
  const MixKernel kernel({"x"});
  Matrix m(4);
  m.params.columns = 2;  // the names hold three
  auto scratch = kernel.make_chunk_scratch();
  Rows rows(4, values_per_task(kernel));
  EXPECT_THROW(kernel.evaluate_chunk(0, 4, m.params, rows.out, *scratch), std::logic_error);
}

TEST(TaskKernel, ColumnOffsetsFollowTheColumns) {
  const MixKernel kernel({"x"});
  const ColumnOffsets cols(kernel);
  EXPECT_EQ(cols.offset, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(cols.scalars, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(cols.arrays, (std::vector<std::size_t>{2}));
}

}  // namespace
}  // namespace simpact
