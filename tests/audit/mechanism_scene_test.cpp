// The scene Bullet and ODE are built from (issue 35 §2): a robot's links on their joints, and
// the velocity readout scene_qvel. The links' twists come from MuJoCo's own velocity kinematics
// (mj_objectVelocity); scene_qvel inverts them joint by joint with its own formulas, so reading
// the scene's own twists back must give the state's qvel: for the biped's planar root and
// hinges and the quadruped's free trunk, at random postures and velocities.
#include "simpact/audit/mechanism_scene.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>

#include "../support/temp_dir.hpp"
#include "simpact/core/input_error.hpp"

namespace simpact {
namespace {

std::string example(const std::string& name) {
  const char* root = std::getenv("SIMPACT_SOURCE_DIR");
  return std::string(root ? root : SIMPACT_SOURCE_DIR) + "/examples/mechanisms/" + name;
}

std::vector<LinkMotion> motion_of(const MechanismScene& scene) {
  std::vector<LinkMotion> motion;
  for (const SceneLink& link : scene.links)
    motion.push_back({link.com, link.frame, link.velocity, link.angular_velocity});
  return motion;
}

void expect_round_trip(const std::string& file,
                       const std::vector<std::pair<std::string, std::string>>& contacts, int free_root_qpos) {
  MujocoMechanism mechanism(MechanismSpec{example(file), contacts, {}, kGapTolerance, "model"});
  auto workspace = mechanism.make_workspace();
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    MechanismState state;
    state.qpos = mechanism.default_qpos();
    for (int i = 0; i < mechanism.nq(); ++i) state.qpos[i] += 0.4 * u(rng);
    if (free_root_qpos >= 0) state.qpos.segment<4>(free_root_qpos + 3).normalize();
    state.qvel = Eigen::VectorXd::NullaryExpr(mechanism.nv(), [&] { return 2.0 * u(rng); });
    const MechanismScene scene = mechanism_scene(mechanism, state, *workspace, "test", "model");
    Eigen::VectorXd qvel;
    scene_qvel(scene, motion_of(scene), qvel);
    ASSERT_EQ(qvel.size(), state.qvel.size());
    EXPECT_LE((qvel - state.qvel).cwiseAbs().maxCoeff(), 1e-12) << file << " trial " << trial << "\n"
                                                                << qvel.transpose() << "\n"
                                                                << state.qvel.transpose();
  }
}

TEST(MechanismScene, BipedVelocitiesReadBackThroughItsPlanarRootAndHinges) {
  expect_round_trip("biped.xml", {{"floor", "foot_l"}, {"floor", "foot_r"}}, -1);
  MujocoMechanism biped(MechanismSpec{
      example("biped.xml"), {{"floor", "foot_l"}, {"floor", "foot_r"}}, {}, kGapTolerance, "model"});
  auto workspace = biped.make_workspace();
  MechanismState state;
  state.qpos = biped.default_qpos();
  state.qvel = Eigen::VectorXd::Zero(biped.nv());
  const MechanismScene scene = mechanism_scene(biped, state, *workspace, "test", "model");
  ASSERT_EQ(scene.links.size(), 5u);  // torso, two thighs, two shins
  EXPECT_EQ(scene.links[0].joint, LinkJoint::kPlanar);
  EXPECT_EQ(scene.links[0].parent, -1);
  EXPECT_TRUE(scene.links[0].has_children);
  EXPECT_DOUBLE_EQ(scene.links[0].mass, 20.0);
  double mass = 0;
  for (const SceneLink& link : scene.links) mass += link.mass;
  EXPECT_NEAR(mass, 20.0 + 2 * (3.0 + 1.5 + 0.25), 1e-12);  // the feet ride on the shins
  // Only the contacts' geoms: the floor, and each foot on its shin (not the capsules).
  ASSERT_EQ(scene.static_geoms.size(), 1u);
  EXPECT_EQ(scene.static_geoms[0].type, SceneGeom::Type::kPlane);
  EXPECT_EQ(scene.pairs.size(), 2u);
  int feet = 0;
  for (const SceneLink& link : scene.links)
    for (const SceneGeom& geom : link.geoms) feet += geom.type == SceneGeom::Type::kSphere ? 1 : 100;
  EXPECT_EQ(feet, 2);
}

TEST(MechanismScene, QuadrupedVelocitiesReadBackThroughItsFreeTrunk) {
  expect_round_trip("quadruped.xml", {{"floor", "foot_fl"}, {"floor", "foot_rr"}}, 0);
}

// A joint set no engine can build is refused in one line naming the body and its joints.
TEST(MechanismScene, AJointSetNoEngineBuildsIsRefusedNamingTheBody) {
  const std::string path = simpact::testing::process_dir() + "simpact_scene_two_hinges.xml";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "<mujoco><worldbody><geom name='floor' type='plane' size='1 1 0.1'/>"
        "<body name='arm' pos='0 0 1'><joint name='a' type='hinge' axis='1 0 0'/>"
        "<joint name='b' type='hinge' axis='0 1 0'/><geom name='tip' type='sphere' size='0.1' pos='0 0 "
        "-0.5'/>"
        "</body></worldbody></mujoco>",
        f);
    std::fclose(f);
  }
  MujocoMechanism mechanism(MechanismSpec{path, {{"floor", "tip"}}, {}, kGapTolerance, "model"});
  auto workspace = mechanism.make_workspace();
  const MechanismState state = mechanism.state_from(ParameterSet{});
  try {
    (void)mechanism_scene(mechanism, state, *workspace, "ode", "model");
    FAIL() << "two hinges on one body were accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.field(), "model.file");
    EXPECT_NE(what.find("ode: body 'arm' on joints 'a' (hinge), 'b' (hinge)"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace simpact
