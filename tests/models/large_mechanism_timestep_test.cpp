// Time stepping has no fixed capacity (issue 34 §1): ten 10-link MJCF pendulums (nv = 100) step
// with its energy kept, and a 12-ball MJCF Newton's cradle (11 contacts, all closing in one
// simultaneous impact: beyond the core's fixed path of 16 coordinates / 8 contacts, so the reset
// takes its dynamic path) ends at the closed form: the last ball leaves at the first ball's speed.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "../support/mechanism_loading.hpp"
#include "../support/temp_dir.hpp"
#include "simpact/core/fixed_size.hpp"
#include "simpact/integrate/simulation.hpp"
#include "simpact/models/file_mechanism.hpp"

namespace simpact {
namespace {

using testing::load_mechanism;

TEST(LargeMechanismTimestep, HundredCoordinatesStep) {
  const testing::TempDir dir("simpact-chain100");
  const std::string path = dir / "chain100.xml";
  {
    std::ofstream f(path);
    f << "<mujoco><option gravity='0 0 -9.81'/><worldbody>";
    for (int c = 0; c < 10; ++c) {  // ten 10-link pendulums side by side (MJCF nests 100 levels at most)
      for (int i = 0; i < 10; ++i)
        f << "<body pos='" << (i == 0 ? "0 " + std::to_string(c) + " 0" : std::string("0.1 0 0"))
          << "'><joint name='j" << c << "_" << i
          << "' type='hinge' axis='0 1 0'/><geom type='capsule' fromto='0 0 0 0.1 0 0' size='0.01' "
          << "mass='0.1'/>";
      for (int i = 0; i < 10; ++i) f << "</body>";
    }
    f << "</worldbody></mujoco>";
  }
  const auto mechanism = load_mechanism(path);
  const FileMechanism model(mechanism, mechanism->state_from({}));
  ASSERT_EQ(model.dof(), 100);
  ASSERT_GT(model.dof(), kMaxDof);
  DynVector q0 = DynVector::Zero(100), v0 = DynVector::Zero(100);
  for (int i = 0; i < 100; ++i) q0[i] = 0.02 * std::sin(0.1 * i);
  SimulationOptions options;
  options.dt = 1e-3;
  options.steps = 5;
  options.record_steps = {0, 5};
  const SimulationResult run = simulate(model, q0, model.mass_matrix(q0) * v0, options);
  ASSERT_EQ(run.records.size(), 2u);
  const double e0 = run.records[0].energy, e1 = run.records[1].energy;
  EXPECT_LE(std::abs(e1 - e0), 1e-8 * std::abs(e0)) << e0 << " " << e1;
  // It falls: the momenta grew from rest under gravity.
  EXPECT_GT(run.records[1].p.norm(), 1e-4);
}

TEST(LargeMechanismTimestep, TwelveBallCradleTakesTheDynamicReset) {
  const testing::TempDir dir("simpact-cradle12");
  const std::string path = dir / "cradle12.xml";
  const int balls = 12;
  std::vector<std::pair<std::string, std::string>> contacts;
  {
    std::ofstream f(path);
    f << "<mujoco><option gravity='0 0 0'/><worldbody>";
    for (int i = 0; i < balls; ++i) {
      f << "<body pos='" << i << " 0 0'><joint name='x" << i << "' type='slide' axis='1 0 0'/><geom name='b"
        << i << "' type='sphere' size='0.5' mass='1'/></body>";
      if (i > 0) contacts.emplace_back("b" + std::to_string(i - 1), "b" + std::to_string(i));
    }
    f << "</worldbody></mujoco>";
  }
  const auto mechanism = load_mechanism(path, contacts);
  const FileMechanism model(mechanism, mechanism->state_from({}));
  ASSERT_EQ(model.contacts(), 11);
  ASSERT_GT(model.contacts(), kMaxContacts);
  DynVector q0 = DynVector::Zero(balls), v0 = DynVector::Zero(balls);
  q0[0] = -0.1;  // 0.1 m from touching the row, at 1 m/s
  v0[0] = 1.0;
  for (OrderingPolicy policy : {OrderingPolicy::kArgmin, OrderingPolicy::kArgmax}) {
    SimulationOptions options;
    options.dt = 1e-3;
    options.steps = 200;
    options.policy = policy;
    options.record_steps = {200};
    const SimulationResult run = simulate(model, q0, v0, options);
    ASSERT_FALSE(run.impacts.empty());
    EXPECT_EQ(run.impacts.front().contacts.size(), 11u);  // one simultaneous impact of the whole row
    const DynVector& p = run.records.back().p;
    for (int i = 0; i + 1 < balls; ++i) EXPECT_NEAR(p[i], 0.0, 1e-9) << "ball " << i;
    EXPECT_NEAR(p[balls - 1], 1.0, 1e-9);
    EXPECT_NEAR(run.energy.final, 0.5, 1e-9);
  }
}

}  // namespace
}  // namespace simpact
