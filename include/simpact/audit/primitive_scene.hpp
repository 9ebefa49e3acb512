// A mechanism as primitive shapes for engines that rebuild it (Bullet, ODE): the bodies hanging
// from the world with free joints or slide joints along world axes, spheres centred on their body's
// centre of mass, boxes and capsules centred there too (any orientation on a body that cannot
// rotate; the body's own frame on a free body), planes on the world, read from the mechanism's
// mjModel at the impact state. Static bodies may hold any sphere, box or capsule.
// What the adapters cannot express (hinges, nested bodies, off-centre geoms) is refused
// with one line naming the element, so an audit never runs a silently different mechanism.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "simpact/models/mujoco_mechanism.hpp"

namespace simpact {

struct PrimitiveGeom {
  enum class Type { kSphere, kPlane, kBox, kCapsule };
  std::string name;
  Type type = Type::kSphere;
  double radius = 0.0;                  // sphere, capsule [m]
  double half_length = 0.0;             // capsule: half the length of its segment, along its z [m]
  Eigen::Vector3d half_sizes{0, 0, 0};  // box: half-sizes along its x, y, z [m]
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();  // box, capsule: geom frame in the world
  Eigen::Vector3d normal{0, 0, 1};                         // plane: unit normal, world frame
  double offset = 0.0;                                     // plane: normal·x = offset [m]
};

struct PrimitiveBody {
  std::string name;
  double mass = 0.0;                  // [kg]; 0: static (the world and bodies without joints)
  Eigen::Vector3d inertia{0, 0, 0};   // principal moments [kg·m²] (about the centre of mass)
  Eigen::Vector3d position{0, 0, 0};  // centre of mass, world [m]
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();  // body frame in the world
  Eigen::Vector3d velocity{0, 0, 0};                       // of the centre of mass, world [m/s]
  Eigen::Vector3d angular_velocity{0, 0, 0};               // world [rad/s] (free bodies only)
  bool free = false;  // a free joint: qvel[dof..dof+6) = (v world, ω body)
  int free_dof = -1;
  std::vector<Eigen::Vector3d> slide_axes;  // unit world coordinate axes
  std::vector<int> slide_dofs;              // qvel index of each slide joint
  std::vector<PrimitiveGeom> geoms;
  bool dynamic() const { return free || !slide_axes.empty(); }
};

struct PrimitiveScene {
  std::vector<PrimitiveBody> bodies;
  Eigen::Vector3d gravity{0, 0, 0};  // [m/s²]
  int nv = 0;
};

// The scene at the state's qpos and qvel (the state placed already). `engine` names the adapter in
// refusals: "bullet: joint 'hip' (hinge) cannot be expressed: ...". Throws InputError with field
// "<field>.file".
PrimitiveScene primitive_scene(const MujocoMechanism& mechanism, const MechanismState& state,
                               MujocoMechanism::Workspace& workspace, const std::string& engine,
                               const std::string& field);

// qvel (mechanism coordinates) from the bodies' world velocities.
void scene_qvel(const PrimitiveScene& scene, const std::vector<Eigen::Vector3d>& velocity,
                const std::vector<Eigen::Vector3d>& angular_velocity,
                const std::vector<Eigen::Matrix3d>& rotation, Eigen::VectorXd& qvel);

}  // namespace simpact
