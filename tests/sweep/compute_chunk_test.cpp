// ChunkComputer, the sweep engine's compute loop: a chunk's rows are each task's parameters_of and
// evaluate, whatever the threads; it goes through evaluate_chunk; on_task_error decides whether a
// failing task stops the sweep.
#include "simpact/sweep/compute_chunk.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_kernels.hpp"

namespace simpact {
namespace {

using testing::MixKernel;
using testing::ThreadCountGuard;

// Two axes and two Monte Carlo parameters (one fixed parameter): 4 × 3 points × 6 replicas.
SweepConfig config_with_draws() {
  SweepConfig c;
  c.fixed.set("speed", 2.0);
  GridAxis theta{"theta", "rad", "", {1.1, 1.3, 1.5, 1.7}};
  GridAxis ratio{"ratio", "1", "", {0.5, 1.0, 2.0}};
  c.grid = {theta, ratio};
  MonteCarloSpec mc;
  mc.samples_per_point = 6;
  mc.seed = 7;
  Distribution u;
  u.a = -0.1;
  u.b = 0.1;
  mc.parameters.push_back({"psi", "rad", "", u});
  mc.parameters.push_back({"m_c", "kg", "", u});
  c.monte_carlo = mc;
  return c;
}

const std::vector<std::string> kNames = {"speed", "theta", "ratio", "psi", "m_c"};

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

ChunkResults chunk_of(std::int64_t first, std::int64_t count, const TaskKernel& kernel) {
  ChunkResults chunk;
  chunk.chunk = 1;
  chunk.first_task = first;
  chunk.resize(count, values_per_task(kernel));
  return chunk;
}

TEST(ChunkComputer, RowsAreEachTasksParametersAndEvaluate) {
  const SweepConfig config = config_with_draws();
  const ParameterSpace space(config);
  const MixKernel kernel(kNames);
  const std::int64_t vpt = values_per_task(kernel);
  const ThreadCountGuard guard;
  for (const int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    ChunkComputer computer(space, kernel, TaskErrorMode::kAbort);
    for (const std::int64_t first : {0, 13, 50}) {  // consecutive chunks reuse the computer
      ChunkResults chunk = chunk_of(first, std::min<std::int64_t>(22, space.task_count() - first), kernel);
      computer.compute(chunk);
      auto scratch = kernel.make_scratch();
      for (std::int64_t i = 0; i < chunk.count; ++i) {
        ParameterSet p;
        const std::uint64_t draws = space.parameters_of(first + i, p);
        std::vector<double> expected(static_cast<std::size_t>(vpt));
        const TaskStatus status = kernel.evaluate(first + i, p, *scratch, expected.data());
        const auto s = static_cast<std::size_t>(i);
        EXPECT_EQ(chunk.counters[s], draws);
        EXPECT_EQ(draws, 2u);  // one uniform per random parameter
        EXPECT_EQ(chunk.status[s], static_cast<std::int64_t>(status));
        for (std::int64_t v = 0; v < vpt; ++v)
          EXPECT_TRUE(same_bits(chunk.values[static_cast<std::size_t>(i * vpt + v)],
                                expected[static_cast<std::size_t>(v)]))
              << "task " << first + i << " value " << v << ", " << threads << " threads";
      }
    }
  }
}

// A kernel that evaluates whole matrices itself (as a vectorized or GPU kernel would): the loop
// hands it the chunk's matrix, in the space's column order, and keeps what it writes.
class BatchKernel final : public MixKernel {
 public:
  using MixKernel::MixKernel;
  void evaluate_chunk(std::int64_t first_task, std::int64_t count, const ParameterMatrix& params,
                      ChunkOutput& results, ChunkScratch&) const override {
    ++calls;
    for (std::int64_t i = 0; i < count; ++i) {
      results.status[i] = static_cast<std::int64_t>(TaskStatus::kNoImpact);
      double* v = results.values + i * values_per_task(*this);
      v[0] = params.row(i)[1];  // theta
      v[1] = static_cast<double>(first_task + i);
      v[2] = static_cast<double>(params.columns);
      v[3] = params.names->entries()[1].first == "theta" ? 1.0 : 0.0;
    }
  }
  std::unique_ptr<ChunkScratch> make_chunk_scratch() const override {
    return std::make_unique<ChunkScratch>();
  }
  mutable int calls = 0;
};

TEST(ChunkComputer, GoesThroughTheBatchSeam) {
  const ParameterSpace space(config_with_draws());
  const BatchKernel kernel(kNames);
  ChunkComputer computer(space, kernel, TaskErrorMode::kAbort);
  ChunkResults chunk = chunk_of(30, 20, kernel);
  computer.compute(chunk);
  EXPECT_EQ(kernel.calls, 1);
  for (std::int64_t i = 0; i < chunk.count; ++i) {
    ParameterSet p;
    space.parameters_of(30 + i, p);
    EXPECT_EQ(chunk.status[static_cast<std::size_t>(i)], static_cast<std::int64_t>(TaskStatus::kNoImpact));
    EXPECT_EQ(chunk.values[static_cast<std::size_t>(i * 4)], p.require("theta"));
    EXPECT_EQ(chunk.values[static_cast<std::size_t>(i * 4 + 1)], static_cast<double>(30 + i));
    EXPECT_EQ(chunk.values[static_cast<std::size_t>(i * 4 + 2)], 5.0);
    EXPECT_EQ(chunk.values[static_cast<std::size_t>(i * 4 + 3)], 1.0);
  }
}

TEST(ChunkComputer, OnTaskErrorRecordGoesOnAndAbortNamesTheLowestFailingTask) {
  const ParameterSpace space(config_with_draws());
  const MixKernel kernel(kNames, {45, 41, 60});
  const ThreadCountGuard guard;
  omp_set_num_threads(2);
  ChunkComputer recording(space, kernel, TaskErrorMode::kRecord);
  ChunkResults recorded = chunk_of(40, 24, kernel);
  EXPECT_NO_THROW(recording.compute(recorded));
  for (const std::int64_t task : {41, 45, 60}) {
    EXPECT_EQ(recorded.status[static_cast<std::size_t>(task - 40)],
              static_cast<std::int64_t>(TaskStatus::kFailed));
    EXPECT_TRUE(std::isnan(recorded.values[static_cast<std::size_t>((task - 40) * 4)]));
  }
  EXPECT_NE(recorded.status[2], static_cast<std::int64_t>(TaskStatus::kFailed));

  ChunkComputer aborting(space, kernel, TaskErrorMode::kAbort);
  ChunkResults aborted = chunk_of(40, 24, kernel);
  ParameterSet p41;
  space.parameters_of(41, p41);
  try {
    aborting.compute(aborted);
    FAIL() << "no exception under on_task_error: abort";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "task 41 failed (" + p41.describe() + "): bad 41");
  }
  // Its rows are filled as under record before the error is raised.
  EXPECT_EQ(aborted.status, recorded.status);
  EXPECT_EQ(aborted.counters, recorded.counters);
}

}  // namespace
}  // namespace simpact
