// Boxes and capsules in the Bullet and ODE adapters (issue 25 §3): two equal bodies on slide
// joints along x, touching face to face (boxes) or side to side (capsules), body a moving at v
// into b. One frictionless contact between equal masses: R = 1 exchanges the velocities, [0, v];
// R = 0 ends plastic, [v/2, v/2]. Also: a box rotated on its sliding body, and the refusal of a
// box turned against its free body's frame.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "../support/temp_dir.hpp"
#include "simpact/audit/engine_catalog.hpp"
#include "simpact/audit/engine_run.hpp"
#include "simpact/core/input_error.hpp"

namespace simpact {
namespace {

std::string write_mjcf(const std::string& name, const std::string& geoms_a, const std::string& geoms_b,
                       const std::string& joint = "<joint name='{}' type='slide' axis='1 0 0'/>") {
  const std::string path = simpact::testing::process_dir() + "simpact_" + name + ".xml";
  auto joint_of = [&](const std::string& j) {
    std::string out = joint;
    out.replace(out.find("{}"), 2, j);
    return out;
  };
  std::ofstream out(path);
  out << "<mujoco><option gravity='0 0 0'/><worldbody>"
      << "<body name='a' pos='0 0 0'>" << joint_of("xa") << geoms_a << "</body>"
      << "<body name='b' pos='1 0 0'>" << joint_of("xb") << geoms_b << "</body>"
      << "</worldbody></mujoco>";
  return path;
}

bool available(const std::string& engine) {
  const auto names = available_engine_names();
  return std::find(names.begin(), names.end(), engine) != names.end();
}

struct Pair {
  MujocoMechanism mechanism;
  MujocoMechanism::WorkspacePtr workspace;
  MechanismState state;
  MechanismEvaluation evaluation;
  Pair(const std::string& file, int nv, double v, double restitution)
      : mechanism(MechanismSpec{file, {{"ga", "gb"}}, {}, kGapTolerance, "model"}),
        workspace(mechanism.make_workspace()) {
    state.qpos = Eigen::VectorXd::Zero(mechanism.nq());
    state.qvel = Eigen::VectorXd::Zero(nv);
    state.qvel[0] = v;
    state.restitution = restitution;
    mechanism.evaluate(state, state.qpos, *workspace, evaluation);
  }
  EngineRun run(const std::string& engine, std::map<std::string, double> options) {
    EngineSettings settings;
    settings.rate_hz = 600;
    settings.options = std::move(options);
    return run_engine(*make_engine(engine, "audit.engines[0]"), mechanism, state, *workspace, settings,
                      evaluation.normals, AuditLimits{});
  }
};

const std::vector<std::pair<std::string, std::map<std::string, double>>> kEngines = {
    {"bullet", {}}, {"ode", {{"quick_step", 1}}}};
// Bullet's sequential impulses land within 1e-6 v; ODE's quick step (20 iterations, ERP pulling
// the touching shapes apart) within 5e-5 v on these shapes (measured: 3e-6 boxes, 9e-6 the
// turned box, 4.8e-5 capsules).
double tolerance(const std::string& engine) {
  return engine == "bullet" ? 1e-6 : 1e-4;
}

void expect_known_answers(const std::string& file, const std::string& what) {
  const double v = 2.0;
  for (const auto& [engine, options] : kEngines) {
    if (!available(engine)) continue;
    for (double r : {0.0, 1.0}) {
      Pair pair(file, 2, v, r);
      const EngineRun run = pair.run(engine, options);
      ASSERT_EQ(run.status, EngineRunStatus::kSettled) << what << " " << engine << ": " << run.message;
      const double a = r == 1.0 ? 0.0 : v / 2, b = r == 1.0 ? v : v / 2;
      EXPECT_NEAR(run.qvel[0], a, tolerance(engine) * v) << what << " " << engine << " R = " << r;
      EXPECT_NEAR(run.qvel[1], b, tolerance(engine) * v) << what << " " << engine << " R = " << r;
    }
  }
}

TEST(PrimitiveShapes, BoxesFaceToFaceExchangeOrShareTheVelocity) {
  expect_known_answers(write_mjcf("boxes", "<geom name='ga' type='box' size='0.5 0.4 0.3'/>",
                                  "<geom name='gb' type='box' size='0.5 0.4 0.3'/>"),
                       "boxes");
}

// A box turned 90° about z on a body that only slides: a's half-sizes (0.3, 0.5) become 0.5 along x
// and 0.3 along y, so it meets b's unturned (0.5, 0.3) box face to face at x = 0.5.
TEST(PrimitiveShapes, RotatedBoxOnASlidingBody) {
  expect_known_answers(
      write_mjcf("rotated_box", "<geom name='ga' type='box' size='0.3 0.5 0.2' euler='0 0 90'/>",
                 "<geom name='gb' type='box' size='0.5 0.3 0.2'/>"),
      "rotated box");
}

TEST(PrimitiveShapes, CapsulesSideToSideExchangeOrShareTheVelocity) {
  expect_known_answers(write_mjcf("capsules", "<geom name='ga' type='capsule' size='0.5 0.7'/>",
                                  "<geom name='gb' type='capsule' size='0.5 0.7'/>"),
                       "capsules");
}

TEST(PrimitiveShapes, BoxTurnedAgainstItsFreeBodyIsRefused) {
  const std::string file =
      write_mjcf("free_box",
                 "<inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>"
                 "<geom name='ga' type='box' size='0.5 0.5 0.5' euler='0 0 30'/>",
                 "<geom name='gb' type='box' size='0.5 0.5 0.5'/>", "<freejoint name='{}'/>");
  for (const auto& [engine, options] : kEngines) {
    if (!available(engine)) continue;
    MujocoMechanism mechanism(MechanismSpec{file, {}, {}, kGapTolerance, "model"});
    auto workspace = mechanism.make_workspace();
    const MechanismState state = mechanism.state_from(ParameterSet{});
    EngineSettings settings;
    try {
      (void)make_engine(engine, "audit.engines[0]")->build(mechanism, state, *workspace, settings);
      ADD_FAILURE() << engine << " built a box turned against its free body";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("geom 'ga' (box)"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace simpact
