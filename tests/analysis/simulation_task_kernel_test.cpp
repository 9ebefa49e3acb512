// SimulationTaskKernel (time-stepped sweeps, issue 12): the elastic cradle ends at [0, 0, v] with
// E_end/E_0 = 1 for every speed and step (60 Hz .. 6 kHz) under both orderings; restitution e gives
// e² + (1−e²)/3; the billiards break with equal arrival times gives `resolve`'s ξ between argmin
// and argmax, and ξ → 0 once b's arrival is later than the simultaneity tolerance; a failed
// simulation is NaN + failed; every column slot is written exactly once.
#include "simpact/analysis/simulation_task_kernel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "simpact/analysis/impact_task_kernel.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/models/model_catalog.hpp"

namespace simpact {
namespace {

// The task's values by column name (arrays: every element, in order).
std::map<std::string, std::vector<double>> run(const SimulationTaskKernel& kernel, const ParameterSet& params,
                                               TaskStatus* status = nullptr, std::int64_t task = 0) {
  auto scratch = kernel.make_scratch();
  const double sentinel = -1.2345e300;  // never a result
  std::vector<double> values(static_cast<std::size_t>(values_per_task(kernel)), sentinel);
  const TaskStatus s = kernel.evaluate(task, params, *scratch, values.data());
  if (status != nullptr) *status = s;
  std::map<std::string, std::vector<double>> out;
  std::size_t k = 0;
  for (const auto& c : kernel.columns()) {
    const std::string key = c.group + "/" + c.name;
    EXPECT_EQ(out.count(key), 0u) << key << " named twice";
    for (std::int64_t i = 0; i < c.length; ++i, ++k) {
      EXPECT_NE(values[k], sentinel) << key << "[" << i << "] not written";
      out[key].push_back(values[k]);
    }
  }
  EXPECT_EQ(k, values.size());
  return out;
}

SimulationStudyOptions cradle_options(double t_end, int record = 1) {
  SimulationStudyOptions o;
  o.model = "cradle";
  o.t_end = t_end;
  o.record = record;
  o.record_dof = 3;
  return o;
}

ParameterSet cradle(double speed, double dt, double restitution, double gap = 0.1) {
  ParameterSet p;
  p.set("n", 3);
  p.set("radius", 0.05);
  p.set("mass", 1.0);
  p.set("gap", gap);
  p.set("speed", speed);
  p.set("dt", dt);
  p.set("restitution", restitution);
  return p;
}

TEST(SimulationTaskKernel, ElasticCradleEndsAtZeroZeroVWithEnergyConserved) {
  for (double v : {0.1, 1.0, 10.0})
    for (double hz : {60.0, 600.0, 6000.0})
      for (double gap : {0.01, 0.0437, 0.1}) {  // arrival phases spread over a step
        // Long enough for A to cover the gap, whatever the step.
        const SimulationTaskKernel kernel(cradle_options(gap / v + 3.0 / hz));
        TaskStatus status{};
        auto r = run(kernel, cradle(v, 1.0 / hz, 1.0, gap), &status);
        const std::string what =
            "v=" + std::to_string(v) + " hz=" + std::to_string(hz) + " gap=" + std::to_string(gap);
        EXPECT_EQ(status, TaskStatus::kOk) << what;
        EXPECT_NEAR(r["energy/initial"][0], 0.5 * v * v, 1e-15 * v * v);
        for (const char* o : {"argmin", "argmax"}) {
          EXPECT_NEAR(r[std::string("energy/ratio_") + o][0], 1.0, 1e-9) << what << " " << o;
          const auto& p = r[std::string("trajectory/p_") + o];  // 2 states x 3 coordinates
          ASSERT_EQ(p.size(), 6u);
          EXPECT_NEAR(p[0], v, 1e-15 * v);  // the initial state: A moving
          EXPECT_NEAR(p[3], 0.0, 1e-9 * v) << what << " " << o;
          EXPECT_NEAR(p[4], 0.0, 1e-9 * v) << what << " " << o;
          EXPECT_NEAR(p[5], v, 1e-9 * v) << what << " " << o;
          EXPECT_GE(r[std::string("outcomes/impacts_") + o][0], 1.0);
          EXPECT_EQ(r[std::string("outcomes/plastic_impacts_") + o][0], 0.0);
        }
        EXPECT_LT(r["xi_maps/argmin_vs_argmax"][0], 1e-9) << what;  // one contact closes at a time
        EXPECT_NEAR(r["trajectory/t"][1], static_cast<double>(kernel.steps_for(1.0 / hz)) / hz, 1e-12);
      }
}

TEST(SimulationTaskKernel, InelasticCradleEnergyRatio) {
  for (double e : {0.0, 0.7})
    for (double hz : {60.0, 6000.0}) {
      const SimulationTaskKernel kernel(cradle_options(0.25));
      auto r = run(kernel, cradle(1.0, 1.0 / hz, e));
      const double expected = e * e + (1.0 - e * e) / 3.0;
      EXPECT_NEAR(r["energy/ratio_argmin"][0], expected, 1e-9) << "e=" << e << " hz=" << hz;
      EXPECT_NEAR(r["energy/ratio_argmax"][0], expected, 1e-9) << "e=" << e << " hz=" << hz;
      // Without a failure the final energy is E_0 times the ratio, with no energy drift to speak of.
      EXPECT_NEAR(r["energy/final_argmin"][0], 0.5 * expected, 1e-9);
      EXPECT_LT(r["energy/max_drift_argmin"][0], 1e-12);
    }
}

// `resolve`'s ξ between argmin and argmax for the billiards break at θ (equal unit masses).
double resolve_xi(double theta) {
  ImpactStudyOptions o;
  o.orderings = {OrderingPolicy::kArgmin, OrderingPolicy::kArgmax};
  const ImpactTaskKernel kernel(make_model("billiards"), o);
  ParameterSet p;
  p.set("theta", theta);
  for (const char* m : {"m_a", "m_b", "m_c"}) p.set(m, 1.0);
  auto scratch = kernel.make_scratch();
  std::vector<double> values(static_cast<std::size_t>(values_per_task(kernel)));
  kernel.evaluate(0, p, *scratch, values.data());
  return values[static_cast<std::size_t>(kernel.headline_column())];
}

ParameterSet billiards(double theta, double offset, double tolerance) {
  ParameterSet p;
  p.set("theta", theta);
  p.set("offset", offset);
  p.set("distance", 0.01);
  p.set("speed", 1.0);
  p.set("dt", 1e-3);
  p.set("simultaneity_tolerance", tolerance);
  return p;
}

TEST(SimulationTaskKernel, BilliardsXiIsResolveAtEqualArrivalAndVanishesWhenSequential) {
  SimulationStudyOptions o;
  o.model = "billiards";
  o.t_end = 0.03;
  const SimulationTaskKernel kernel(o);
  EXPECT_EQ(kernel.columns()[static_cast<std::size_t>(kernel.headline_column())].name, "argmin_vs_argmax");
  for (double theta : {1.2, 1.5, 2.0, 2.5}) {
    const double reference = resolve_xi(theta);
    ASSERT_GT(reference, 0.01) << theta;  // the orderings differ: a real test
    auto same = run(kernel, billiards(theta, 0.0, 1e-6));
    EXPECT_NEAR(same["xi_maps/argmin_vs_argmax"][0], reference, 1e-9) << "theta=" << theta;
    EXPECT_EQ(same["outcomes/impacts_argmin"][0], 1.0);
    // b is 1e-5 m further: c reaches it ~1e-5 s later, far beyond the 1 µs tolerance.
    auto later = run(kernel, billiards(theta, 1e-5, 1e-6));
    EXPECT_LT(later["xi_maps/argmin_vs_argmax"][0], 1e-9) << "theta=" << theta;
    EXPECT_GE(later["outcomes/impacts_argmin"][0], 2.0);
    // ... but one impact again when the tolerance covers the delay.
    auto wide = run(kernel, billiards(theta, 1e-5, 1e-3));
    EXPECT_NEAR(wide["xi_maps/argmin_vs_argmax"][0], reference, 1e-3) << "theta=" << theta;
  }
}

TEST(SimulationTaskKernel, FailedSimulationIsNaNWithFailedStatus) {
  SimulationStudyOptions o;
  o.model = "ball";
  o.steps = 100;
  o.newton.max_iterations = 0;  // no Newton step: the falling ball's first guess misses gravity
  o.newton.reuse_jacobian = false;
  const SimulationTaskKernel kernel(o);
  ParameterSet p;
  p.set("dt", 1e-2);
  p.set("restitution", 0.5);
  TaskStatus status{};
  auto r = run(kernel, p, &status);
  EXPECT_EQ(status, TaskStatus::kFailed);
  EXPECT_TRUE(std::isnan(r["xi_maps/argmin_vs_argmax"][0]));
  EXPECT_TRUE(std::isnan(r["energy/final_argmin"][0]));
  EXPECT_TRUE(std::isnan(r["outcomes/impacts_argmax"][0]));
  EXPECT_FALSE(std::isnan(r["energy/initial"][0]));  // computed before any step
}

TEST(SimulationTaskKernel, RejectsAllOrderingAndUnbuildableTasks) {
  SimulationStudyOptions o;
  o.model = "cradle";
  o.steps = 10;
  o.orderings = {OrderingPolicy::kAll};
  EXPECT_THROW(SimulationTaskKernel{o}, InputError);
  o.orderings = {OrderingPolicy::kArgmin, OrderingPolicy::kIndex};
  o.record = 2;
  o.record_dof = 3;
  const SimulationTaskKernel kernel(o);
  ParameterSet p = cradle(1.0, 1e-3, 1.0);
  p.set("n", 4);  // 4 coordinates: the recorded arrays hold 3
  auto scratch = kernel.make_scratch();
  std::vector<double> values(static_cast<std::size_t>(values_per_task(kernel)));
  EXPECT_THROW(kernel.evaluate(0, p, *scratch, values.data()), InputError);
  p.set("n", 3);
  p.set("gap", -1.0);  // outside the model's range
  EXPECT_THROW(kernel.evaluate(0, p, *scratch, values.data()), InputError);
}

TEST(SimulationTaskKernel, StepsCoverTEnd) {
  SimulationStudyOptions o;
  o.model = "cradle";
  o.t_end = 0.25;
  const SimulationTaskKernel kernel(o);
  EXPECT_EQ(kernel.steps_for(1.0 / 60.0), 15);  // 15/60 = 0.25 exactly: no extra step
  EXPECT_EQ(kernel.steps_for(0.1), 3);          // at least t_end
  EXPECT_EQ(kernel.steps_for(1e-3), 250);
}

}  // namespace
}  // namespace simpact
