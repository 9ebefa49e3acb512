// A mechanism as the engines that rebuild it see it (Bullet, ODE; issue 35 §2): its moving
// bodies as links of a tree, each on the joints MuJoCo gives it, with the mechanism's masses and
// inertias (a body without joints is welded into the link it hangs from, MuJoCo's own rigid
// composite), and the geoms its contacts name, all posed in the world at the impact state.
// Only the contacts' geom pairs collide: the propagative model knows no other contact, so an
// engine must not see one either (a thigh overlapping the trunk at the hip, say).
// What no engine can express is refused here with one line naming the element; what one engine
// cannot, by that engine's adapter.
#pragma once

#include <Eigen/Core>
#include <string>
#include <utility>
#include <vector>

#include "simpact/models/mujoco_mechanism.hpp"

namespace simpact {

struct SceneGeom {
  enum class Type { kSphere, kPlane, kBox, kCapsule };
  std::string name;
  int id = -1;  // MuJoCo geom id
  Type type = Type::kSphere;
  double radius = 0.0;                                     // sphere, capsule [m]
  double half_length = 0.0;                                // capsule: half its segment, along its z [m]
  Eigen::Vector3d half_sizes{0, 0, 0};                     // box [m]
  Eigen::Vector3d position{0, 0, 0};                       // centre, world [m]
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();  // geom frame in the world
  Eigen::Vector3d normal{0, 0, 1};                         // plane: unit normal, world
  double offset = 0.0;                                     // plane: normal·x = offset [m]
};

struct SceneJoint {
  enum class Type { kHinge, kSlide, kBall, kFree };
  Type type = Type::kHinge;
  std::string name;
  int dof = 0;                              // first qvel index
  Eigen::Vector3d axis{0, 0, 1};            // world at the state (MuJoCo's xaxis)
  Eigen::Vector3d anchor{0, 0, 0};          // world at the state (MuJoCo's xanchor)
  Eigen::Vector3d axis_in_parent{0, 0, 1};  // the same axis in the parent link's frame (constant)
};

// How a link hangs from its parent: the joint sets the engines can build.
enum class LinkJoint {
  kFree,    // one free joint (a root)
  kHinge,   // one hinge
  kSlide,   // one slide
  kBall,    // one ball joint
  kPlanar,  // two perpendicular slides, then a hinge perpendicular to both
  kSlides,  // two or three perpendicular slides, no rotation
};

struct SceneLink {
  std::string name;  // the jointed body's
  int body = 0;      // its MuJoCo body id
  int parent = -1;   // index of the parent link; -1: the world
  bool has_children = false;
  LinkJoint joint = LinkJoint::kFree;
  std::vector<SceneJoint> joints;                       // MuJoCo's order
  double mass = 0.0;                                    // [kg], the welded bodies' included
  Eigen::Vector3d inertia{0, 0, 0};                     // principal moments about the com [kg·m²]
  Eigen::Vector3d com{0, 0, 0};                         // world at the state [m]
  Eigen::Matrix3d frame = Eigen::Matrix3d::Identity();  // principal axes, world at the state
  Eigen::Vector3d velocity{0, 0, 0};                    // of the com, world [m/s]
  Eigen::Vector3d angular_velocity{0, 0, 0};            // world [rad/s]
  // The jointed body's frame (MuJoCo's xpos, xmat) in the link frame: constant.
  Eigen::Vector3d body_origin{0, 0, 0};
  Eigen::Matrix3d body_rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d hinge_anchor{0, 0, 0};  // kHinge, kPlanar: the hinge's anchor in the link frame
  std::vector<SceneGeom> geoms;           // the contact geoms it carries, world at the state
};

struct MechanismScene {
  std::vector<SceneLink> links;            // parents before children
  std::vector<SceneGeom> static_geoms;     // contact geoms of the world and of bodies welded to it
  std::vector<std::pair<int, int>> pairs;  // the geom id pairs that may collide
  Eigen::Vector3d gravity{0, 0, 0};        // [m/s²]
  int nv = 0;
};

// The scene at the state's qpos and qvel (placed already). `engine` names the adapter in
// refusals ("bullet: geom 'heel' (cylinder) cannot be expressed: ..."); InputError with field
// "<field>.file".
MechanismScene mechanism_scene(const MujocoMechanism& mechanism, const MechanismState& state,
                               MujocoMechanism::Workspace& workspace, const std::string& engine,
                               const std::string& field);

// One link's pose and motion as an engine reports it, world frame.
struct LinkMotion {
  Eigen::Vector3d com{0, 0, 0};
  Eigen::Matrix3d frame = Eigen::Matrix3d::Identity();
  Eigen::Vector3d velocity{0, 0, 0};  // of the com
  Eigen::Vector3d angular_velocity{0, 0, 0};
};

// The mechanism's qvel from every link's motion (scene.links order), joint by joint at the
// links' current poses: the inverse of MuJoCo's velocity kinematics for the joint sets above.
void scene_qvel(const MechanismScene& scene, const std::vector<LinkMotion>& motion, Eigen::VectorXd& qvel);

// The InputError an adapter throws for what it cannot express (field "<field>.file").
[[noreturn]] void refuse_element(const std::string& field, const std::string& engine,
                                 const std::string& element, const std::string& why);

}  // namespace simpact
