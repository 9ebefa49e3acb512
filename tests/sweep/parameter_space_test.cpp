// Task numbering (task ↔ grid point and replica, C order) and the inputs of each task.
#include "simpact/sweep/parameter_space.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace simpact {
namespace {

GridAxis axis(const std::string& name, std::vector<double> values) {
  GridAxis a;
  a.name = name;
  a.values = std::move(values);
  return a;
}

// Axes of sizes 2, 3, 4; five replicas with two random parameters.
SweepConfig example_config(SamplingMethod method = SamplingMethod::kRandom) {
  SweepConfig c;
  c.model = "billiards";
  c.fixed.set("r_a", 1.5);
  c.fixed.set("restitution", 0.9);
  c.grid = {axis("theta", {1.1, 1.2}), axis("ratio", {0.1, 1, 10}), axis("speed", {1, 2, 3, 4})};
  MonteCarloSpec mc;
  mc.samples_per_point = 5;
  mc.seed = 99;
  mc.method = method;
  Distribution u;
  u.a = -0.1;
  u.b = 0.1;
  mc.parameters.push_back({"psi", "rad", "", u});
  Distribution n;
  n.kind = DistributionKind::kNormal;
  n.a = 1;
  n.b = 0.1;
  mc.parameters.push_back({"m_c", "kg", "", n});
  c.monte_carlo = mc;
  return c;
}

TEST(ParameterSpace, CountsAndShape) {
  const SweepConfig config = example_config();
  const ParameterSpace space(config);
  EXPECT_EQ(space.grid_points(), 24);
  EXPECT_EQ(space.replicas(), 5);
  EXPECT_EQ(space.task_count(), 120);
  EXPECT_EQ(space.task_count(), config.task_count());
  EXPECT_EQ(space.grid_shape(), (std::vector<std::int64_t>{2, 3, 4}));
}

TEST(ParameterSpace, TaskGridReplicaRoundTrip) {
  const ParameterSpace space(example_config());
  std::vector<std::vector<std::int64_t>> seen;
  for (std::int64_t task = 0; task < space.task_count(); ++task) {
    const std::int64_t g = space.grid_point_of(task), r = space.replica_of(task);
    EXPECT_EQ(g, task / 5);  // the replicas of a grid point are contiguous
    EXPECT_EQ(r, task % 5);
    EXPECT_EQ(space.task_of(g, r), task);
    const auto index = space.grid_index_of(g);
    EXPECT_EQ(space.grid_point_at(index), g);
    if (r == 0) seen.push_back(index);
  }
  // C order: the last axis varies fastest.
  EXPECT_EQ(seen[0], (std::vector<std::int64_t>{0, 0, 0}));
  EXPECT_EQ(seen[1], (std::vector<std::int64_t>{0, 0, 1}));
  EXPECT_EQ(seen[4], (std::vector<std::int64_t>{0, 1, 0}));
  EXPECT_EQ(seen[12], (std::vector<std::int64_t>{1, 0, 0}));
  EXPECT_EQ(seen[23], (std::vector<std::int64_t>{1, 2, 3}));
}

TEST(ParameterSpace, ParametersOfATask) {
  const ParameterSpace space(example_config());
  ParameterSet p;
  p.set("stale", 1);  // replaced, not merged
  const std::int64_t task = space.task_of(space.grid_point_at({1, 2, 3}), 4);
  EXPECT_EQ(space.parameters_of(task, p), 2u);  // one uniform per random parameter
  const auto& e = p.entries();
  ASSERT_EQ(e.size(), 7u);
  // Fixed, then grid (axis order), then Monte Carlo (config order).
  const std::vector<std::string> names = {"r_a", "restitution", "theta", "ratio", "speed", "psi", "m_c"};
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(e[i].first, names[i]);
  EXPECT_EQ(p.get("r_a", 0), 1.5);
  EXPECT_EQ(p.get("restitution", 0), 0.9);
  EXPECT_EQ(p.get("theta", 0), 1.2);
  EXPECT_EQ(p.get("ratio", 0), 10.0);
  EXPECT_EQ(p.get("speed", 0), 4.0);
  EXPECT_GE(p.get("psi", 1), -0.1);
  EXPECT_LE(p.get("psi", 1), 0.1);
  EXPECT_FALSE(p.has("stale"));
}

TEST(ParameterSpace, ParametersAreDeterministicAndIndependentOfCallOrder) {
  for (SamplingMethod method :
       {SamplingMethod::kRandom, SamplingMethod::kLatinHypercube, SamplingMethod::kSobol}) {
    const ParameterSpace space(example_config(method));
    std::vector<std::vector<std::pair<std::string, double>>> forward;
    ParameterSet p;
    for (std::int64_t task = 0; task < space.task_count(); ++task) {
      space.parameters_of(task, p);
      forward.push_back(p.entries());
    }
    // Another space from the same config, tasks visited backwards: the same values, bit for bit.
    const ParameterSpace again(example_config(method));
    for (std::int64_t task = space.task_count(); task-- > 0;) {
      again.parameters_of(task, p);
      EXPECT_EQ(p.entries(), forward[task]) << "task " << task;
    }
    space.parameters_of(17, p);
    EXPECT_EQ(p.entries(), forward[17]);
    // Different replicas get different draws.
    EXPECT_NE(forward[0].back().second, forward[1].back().second);
  }
}

TEST(ParameterSpace, WithoutGridOrMonteCarlo) {
  SweepConfig c;
  c.fixed.set("theta", 2.0);
  const ParameterSpace space(c);
  EXPECT_EQ(space.task_count(), 1);
  EXPECT_TRUE(space.grid_shape().empty());
  EXPECT_TRUE(space.grid_index_of(0).empty());
  ParameterSet p;
  EXPECT_EQ(space.parameters_of(0, p), 0u);
  EXPECT_EQ(p.describe(), "theta=2");
}

// The dense row a chunk's parameter matrix holds (values_of) is parameters_of's set, by position:
// the same values bit for bit, in the order of layout()'s names, with the same draws counted.
TEST(ParameterSpace, ValuesOfIsParametersOfAsARow) {
  for (const auto method : {SamplingMethod::kRandom, SamplingMethod::kLatinHypercube}) {
    SweepConfig config = example_config(method);
    config.fixed.set("ratio", 7.0);  // a fixed name that is also an axis: the axis value wins
    const ParameterSpace space(config);
    ASSERT_EQ(space.parameter_count(), static_cast<std::int64_t>(space.layout().entries().size()));
    EXPECT_EQ(space.parameter_count(),
              7);  // r_a, restitution, ratio (fixed and axis), theta, speed, psi, m_c
    std::vector<double> row(static_cast<std::size_t>(space.parameter_count()));
    ParameterSet p;
    for (std::int64_t task = 0; task < space.task_count(); ++task) {
      const std::uint64_t draws = space.parameters_of(task, p);
      EXPECT_EQ(space.values_of(task, row.data()), draws);
      ASSERT_EQ(p.entries().size(), row.size());
      for (std::size_t i = 0; i < row.size(); ++i) {
        EXPECT_EQ(p.entries()[i].first, space.layout().entries()[i].first);
        EXPECT_EQ(std::memcmp(&p.entries()[i].second, &row[i], sizeof(double)), 0) << "task " << task;
      }
    }
    EXPECT_EQ(p.layout(), space.layout().layout());  // the set carries the space's stamp
  }
}

TEST(ParameterSpace, RejectsTasksOutOfRange) {
  const ParameterSpace space(example_config());
  ParameterSet p;
  EXPECT_THROW(space.parameters_of(-1, p), std::out_of_range);
  EXPECT_THROW(space.parameters_of(space.task_count(), p), std::out_of_range);
  double row[8];
  EXPECT_THROW(space.values_of(-1, row), std::out_of_range);
  EXPECT_THROW(space.values_of(space.task_count(), row), std::out_of_range);
}

}  // namespace
}  // namespace simpact
