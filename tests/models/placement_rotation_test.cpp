// `place` through a rotation (issue 34): a quaternion entry of a ball or free joint as a placed
// coordinate lands on the closed-form angle, the quaternion normalized, as a hinge does; and the
// quadruped's trot placement (a free base's height and quaternion y entry) closes both diagonal
// feet. A rod of length L on a joint at height h, pitched by θ about y, holds a sphere of radius r
// at its tip: the tip touches the floor at sin θ = (h − r)/L, where the quaternion is
// (cos θ/2, 0, sin θ/2, 0).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "../support/temp_dir.hpp"
#include "simpact/core/parameter_set.hpp"
#include "simpact/models/mujoco_mechanism.hpp"

namespace simpact {
namespace {

constexpr double kHeight = 0.5, kLength = 0.8, kRadius = 0.05;

std::string rod_xml(const std::string& joint) {
  return "<mujoco><option gravity=\"0 0 0\"/><worldbody>"
         "<geom name=\"floor\" type=\"plane\" size=\"5 5 .1\"/>"
         "<body name=\"rod\" pos=\"0 0 " +
         std::to_string(kHeight) + "\"><joint name=\"j\" type=\"" + joint +
         "\"/>"
         "<geom name=\"bar\" type=\"capsule\" fromto=\"0 0 0 " +
         std::to_string(kLength) +
         " 0 0\" size=\"0.01\" mass=\"1\"/>"
         "<geom name=\"tip\" type=\"sphere\" pos=\"" +
         std::to_string(kLength) + " 0 0\" size=\"" + std::to_string(kRadius) +
         "\" mass=\"0.5\"/>"
         "</body></worldbody></mujoco>";
}

struct Placed {
  Eigen::VectorXd qpos;
  double gap;
};

Placed place(const std::string& file, const std::vector<std::pair<std::string, std::string>>& contacts,
             const std::vector<std::string>& coordinates, const ParameterSet& params) {
  MechanismSpec spec;
  spec.file = file;
  spec.contacts = contacts;
  spec.place = coordinates;
  const MujocoMechanism mechanism(spec);
  auto workspace = mechanism.make_workspace();
  MechanismState state = mechanism.state_from(params);
  mechanism.check_state(state, "qpos", "qvel");
  MechanismSolvedState solved;
  (void)mechanism.make_dynamic_problem(state, *workspace, &solved);
  return {solved.qpos, solved.gaps.cwiseAbs().maxCoeff()};
}

TEST(PlacementRotation, AQuaternionEntryLandsOnTheClosedFormAngle) {
  const testing::TempDir dir("simpact-place-rotation");
  const double theta = std::asin((kHeight - kRadius) / kLength);
  // ball: qpos w x y z (entry 2 is y); free: x y z w x y z (entry 5 is y).
  for (const auto& [joint, entry] : {std::pair<std::string, int>{"ball", 2}, {"free", 5}}) {
    SCOPED_TRACE(joint);
    const std::string file = dir / (joint + ".xml");
    std::ofstream(file) << rod_xml(joint);
    const std::string coordinate = "qpos.j[" + std::to_string(entry) + "]";
    // From level (qpos0) and from a start pitched the other way (the quaternion given unit).
    for (const double start : {0.0, -0.3}) {
      SCOPED_TRACE(start);
      ParameterSet params;
      params.set(coordinate, std::sin(start / 2));
      params.set("qpos.j[" + std::to_string(entry - 2) + "]", std::cos(start / 2));
      const Placed placed = place(file, {{"floor", "tip"}}, {coordinate}, params);
      EXPECT_LE(placed.gap, 1e-9);
      const Eigen::Vector4d quaternion = placed.qpos.segment<4>(entry - 2);
      EXPECT_NEAR(quaternion.norm(), 1.0, 1e-15);
      EXPECT_NEAR(quaternion[0], std::cos(theta / 2), 1e-9);
      EXPECT_NEAR(quaternion[2], std::sin(theta / 2), 1e-9);
      EXPECT_EQ(quaternion[1], 0.0);
      EXPECT_EQ(quaternion[3], 0.0);
    }
  }
}

// The hinge the rotation stands for: the same angle (the placement is not the quaternion's).
TEST(PlacementRotation, AHingeLandsOnTheSameAngle) {
  const testing::TempDir dir("simpact-place-rotation");
  const std::string file = dir / "hinge.xml";
  std::string xml = rod_xml("hinge");
  xml.replace(xml.find("type=\"hinge\""), 12, "type=\"hinge\" axis=\"0 1 0\"");
  std::ofstream(file) << xml;
  const Placed placed = place(file, {{"floor", "tip"}}, {"qpos.j"}, ParameterSet());
  EXPECT_LE(placed.gap, 1e-9);
  EXPECT_NEAR(placed.qpos[0], std::asin((kHeight - kRadius) / kLength), 1e-9);
}

// configs/quadruped_trot.yaml's task at its designed posture: the trunk's height and quaternion y
// entry placed so both diagonal feet touch, the trunk level in roll and yaw.
TEST(PlacementRotation, TheQuadrupedsTrotPlacementClosesBothDiagonalFeet) {
  const char* root = std::getenv("SIMPACT_SOURCE_DIR");
  const std::string file =
      std::string(root ? root : SIMPACT_SOURCE_DIR) + "/examples/mechanisms/quadruped.xml";
  ParameterSet params;
  params.set("qpos.root[2]", 0.45);
  params.set("qpos.fl_knee", 1.0);
  params.set("qpos.rr_knee", 1.0);
  params.set("qpos.fl_hip", -0.6);
  params.set("qpos.rr_hip", -0.2);
  const Placed placed =
      place(file, {{"floor", "foot_fl"}, {"floor", "foot_rr"}}, {"qpos.root[2]", "qpos.root[5]"}, params);
  EXPECT_LE(placed.gap, 1e-9);
  const Eigen::Vector4d quaternion = placed.qpos.segment<4>(3);
  EXPECT_NEAR(quaternion.norm(), 1.0, 1e-15);
  EXPECT_EQ(quaternion[1], 0.0);
  EXPECT_EQ(quaternion[3], 0.0);
  EXPECT_GT(std::abs(quaternion[2]), 1e-3);  // pitched: the front foot reaches further forward
  EXPECT_GT(placed.qpos[2], 0.3);
  EXPECT_LT(placed.qpos[2], 0.45);
}

}  // namespace
}  // namespace simpact
