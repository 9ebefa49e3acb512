#include "simpact/audit/mechanism_scene.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <set>

#include "simpact/core/input_error.hpp"
#include "simpact/models/mujoco_names.hpp"

namespace simpact {
namespace {

using RowMatrix3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;
constexpr double kPerpendicular = 1e-9;  // |a·b| below this: perpendicular unit axes

std::string name_of(const mjModel* m, mjtObj type, int id) {
  const char* n = mj_id2name(m, type, id);
  return n ? std::string(n) : fmt::format("#{}", id);
}

Eigen::Matrix3d rotation_at(const double* xmat) {
  return Eigen::Map<const RowMatrix3>(xmat);
}

SceneJoint::Type joint_type(int type) {
  switch (type) {
    case mjJNT_FREE:
      return SceneJoint::Type::kFree;
    case mjJNT_BALL:
      return SceneJoint::Type::kBall;
    case mjJNT_SLIDE:
      return SceneJoint::Type::kSlide;
    default:
      return SceneJoint::Type::kHinge;
  }
}

// Which of the expressible joint sets `joints` is; false for none.
bool classify(const std::vector<SceneJoint>& joints, LinkJoint& out) {
  using T = SceneJoint::Type;
  if (joints.size() == 1) {
    const T t = joints[0].type;
    out = t == T::kFree    ? LinkJoint::kFree
          : t == T::kBall  ? LinkJoint::kBall
          : t == T::kSlide ? LinkJoint::kSlide
                           : LinkJoint::kHinge;
    return true;
  }
  std::vector<Eigen::Vector3d> slides;
  const SceneJoint* hinge = nullptr;
  for (std::size_t i = 0; i < joints.size(); ++i) {
    if (joints[i].type == T::kSlide && hinge == nullptr)
      slides.push_back(joints[i].axis);
    else if (joints[i].type == T::kHinge && i + 1 == joints.size())
      hinge = &joints[i];
    else
      return false;
  }
  for (std::size_t i = 0; i < slides.size(); ++i) {
    for (std::size_t k = i + 1; k < slides.size(); ++k)
      if (std::abs(slides[i].dot(slides[k])) > kPerpendicular) return false;
    if (hinge != nullptr && std::abs(slides[i].dot(hinge->axis)) > kPerpendicular) return false;
  }
  if (hinge != nullptr) {
    if (slides.size() != 2) return false;
    out = LinkJoint::kPlanar;
    return true;
  }
  out = LinkJoint::kSlides;
  return slides.size() <= 3;
}

SceneGeom scene_geom(const mjModel* m, const mjData* d, int g, bool moving, const std::string& field,
                     const std::string& engine) {
  SceneGeom geom;
  geom.name = name_of(m, mjOBJ_GEOM, g);
  geom.id = g;
  geom.position = Eigen::Vector3d(d->geom_xpos + 3 * g);
  geom.rotation = rotation_at(d->geom_xmat + 9 * g);
  const double* size = m->geom_size + 3 * g;
  switch (m->geom_type[g]) {
    case mjGEOM_SPHERE:
      geom.type = SceneGeom::Type::kSphere;
      geom.radius = size[0];
      return geom;
    case mjGEOM_CAPSULE:
      geom.type = SceneGeom::Type::kCapsule;
      geom.radius = size[0];
      geom.half_length = size[1];
      return geom;
    case mjGEOM_BOX:
      geom.type = SceneGeom::Type::kBox;
      geom.half_sizes = Eigen::Vector3d(size[0], size[1], size[2]);
      return geom;
    case mjGEOM_PLANE:
      if (moving) break;
      geom.type = SceneGeom::Type::kPlane;
      geom.normal = geom.rotation.col(2);
      geom.offset = geom.normal.dot(geom.position);
      return geom;
    default:
      break;
  }
  refuse_element(field, engine,
                 fmt::format("geom '{}' ({})", geom.name, mujoco_geom_type_name(m->geom_type[g])),
                 "only spheres, capsules and boxes, and planes on the world, are expressed");
}

}  // namespace

void refuse_element(const std::string& field, const std::string& engine, const std::string& element,
                    const std::string& why) {
  throw InputError(field + ".file", fmt::format("{}: {} cannot be expressed: {}", engine, element, why));
}

MechanismScene mechanism_scene(const MujocoMechanism& mechanism, const MechanismState& state,
                               MujocoMechanism::Workspace& workspace, const std::string& engine,
                               const std::string& field) {
  const auto [m, d] = mechanism.mujoco_at(state, state.qpos, workspace);
  // Velocities from MuJoCo's own kinematics: the links' twists are what it says they are. The
  // workspace's qvel is overwritten; its other users run the position pass before reading it.
  std::copy_n(state.qvel.data(), m->nv, d->qvel);
  mj_comVel(m, d);
  MechanismScene scene;
  scene.nv = m->nv;
  scene.gravity = Eigen::Vector3d(m->opt.gravity[0], m->opt.gravity[1], m->opt.gravity[2]);
  std::set<int> contact_geoms;
  for (const auto& pairs : mechanism.contact_geom_pairs())
    for (const auto& [a, b] : pairs) {
      scene.pairs.emplace_back(a, b);
      contact_geoms.insert(a);
      contact_geoms.insert(b);
    }
  // Each body's link: its own when it has joints, else its parent's (welded); -1: the world.
  std::vector<int> link_of(static_cast<std::size_t>(m->nbody), -1);
  for (int b = 1; b < m->nbody; ++b) {
    const int parent_link = link_of[static_cast<std::size_t>(m->body_parentid[b])];
    if (m->body_jntnum[b] == 0) {
      link_of[static_cast<std::size_t>(b)] = parent_link;
      continue;
    }
    link_of[static_cast<std::size_t>(b)] = static_cast<int>(scene.links.size());
    SceneLink link;
    link.name = name_of(m, mjOBJ_BODY, b);
    link.body = b;
    link.parent = parent_link;
    if (parent_link >= 0) scene.links[static_cast<std::size_t>(parent_link)].has_children = true;
    std::string joint_names;
    for (int j = m->body_jntadr[b]; j < m->body_jntadr[b] + m->body_jntnum[b]; ++j) {
      SceneJoint joint;
      joint.type = joint_type(m->jnt_type[j]);
      joint.name = name_of(m, mjOBJ_JOINT, j);
      joint.dof = m->jnt_dofadr[j];
      joint.axis = Eigen::Vector3d(d->xaxis + 3 * j).normalized();
      joint.anchor = Eigen::Vector3d(d->xanchor + 3 * j);
      joint_names += fmt::format("{}'{}' ({})", joint_names.empty() ? "" : ", ", joint.name,
                                 mujoco_joint_type_name(m->jnt_type[j]));
      link.joints.push_back(joint);
    }
    if (!classify(link.joints, link.joint))
      refuse_element(field, engine, fmt::format("body '{}' on joints {}", link.name, joint_names),
                     "a body is expressed on one joint, on perpendicular slides, or on two perpendicular "
                     "slides and a hinge perpendicular to both (a planar root)");
    scene.links.push_back(std::move(link));
  }
  // Masses and inertias: each link's bodies as one rigid composite (MuJoCo's own numbers for a
  // link of one body).
  for (std::size_t l = 0; l < scene.links.size(); ++l) {
    SceneLink& link = scene.links[l];
    std::vector<int> members;
    for (int b = 1; b < m->nbody; ++b)
      if (link_of[static_cast<std::size_t>(b)] == static_cast<int>(l)) members.push_back(b);
    const int b0 = link.body;
    if (members.size() == 1) {
      link.mass = m->body_mass[b0];
      link.inertia = Eigen::Vector3d(m->body_inertia + 3 * b0);
      link.com = Eigen::Vector3d(d->xipos + 3 * b0);
      link.frame = rotation_at(d->ximat + 9 * b0);
    } else {
      for (int b : members) {
        link.mass += m->body_mass[b];
        link.com += m->body_mass[b] * Eigen::Vector3d(d->xipos + 3 * b);
      }
      if (link.mass > 0) link.com /= link.mass;
      Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();
      for (int b : members) {
        const Eigen::Matrix3d r = rotation_at(d->ximat + 9 * b);
        const Eigen::Vector3d x = Eigen::Vector3d(d->xipos + 3 * b) - link.com;
        inertia += r * Eigen::Vector3d(m->body_inertia + 3 * b).asDiagonal() * r.transpose() +
                   m->body_mass[b] * (x.squaredNorm() * Eigen::Matrix3d::Identity() - x * x.transpose());
      }
      const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> principal(inertia);
      link.inertia = principal.eigenvalues();
      link.frame = principal.eigenvectors();
      if (link.frame.determinant() < 0) link.frame.col(2) = -link.frame.col(2);
    }
    if (!(link.mass > 0))
      refuse_element(field, engine, "body '" + link.name + "'",
                     "it moves but has no mass (the engines need a positive mass on every moving body)");
    // The joints' axes in the parent's link frame: the parent's frame is known only now.
    const Eigen::Matrix3d parent_frame = link.parent >= 0
                                             ? scene.links[static_cast<std::size_t>(link.parent)].frame
                                             : Eigen::Matrix3d::Identity();
    for (SceneJoint& joint : link.joints) joint.axis_in_parent = parent_frame.transpose() * joint.axis;
    mjtNum twist[6];
    mj_objectVelocity(m, d, mjOBJ_BODY, b0, twist, 0);  // (ω, v at the body's com), world
    link.angular_velocity = Eigen::Vector3d(twist[0], twist[1], twist[2]);
    link.velocity = Eigen::Vector3d(twist[3], twist[4], twist[5]) +
                    link.angular_velocity.cross(link.com - Eigen::Vector3d(d->xipos + 3 * b0));
    link.body_origin = link.frame.transpose() * (Eigen::Vector3d(d->xpos + 3 * b0) - link.com);
    link.body_rotation = link.frame.transpose() * rotation_at(d->xmat + 9 * b0);
    if (link.joint == LinkJoint::kHinge || link.joint == LinkJoint::kPlanar)
      link.hinge_anchor = link.frame.transpose() * (link.joints.back().anchor - link.com);
  }
  for (const int g : contact_geoms) {
    const int l = link_of[static_cast<std::size_t>(m->geom_bodyid[g])];
    SceneGeom geom = scene_geom(m, d, g, l >= 0, field, engine);
    if (l >= 0)
      scene.links[static_cast<std::size_t>(l)].geoms.push_back(std::move(geom));
    else
      scene.static_geoms.push_back(std::move(geom));
  }
  return scene;
}

void scene_qvel(const MechanismScene& scene, const std::vector<LinkMotion>& motion, Eigen::VectorXd& qvel) {
  qvel.setZero(scene.nv);
  const LinkMotion world;
  for (std::size_t l = 0; l < scene.links.size(); ++l) {
    const SceneLink& link = scene.links[l];
    const LinkMotion& self = motion[l];
    const LinkMotion& parent = link.parent >= 0 ? motion[static_cast<std::size_t>(link.parent)] : world;
    const auto velocity_at = [](const LinkMotion& of, const Eigen::Vector3d& x) {
      return Eigen::Vector3d(of.velocity + of.angular_velocity.cross(x - of.com));
    };
    const Eigen::Vector3d relative_omega = self.angular_velocity - parent.angular_velocity;
    const Eigen::Matrix3d body_rotation = self.frame * link.body_rotation;
    const auto axis = [&](const SceneJoint& joint) {
      return Eigen::Vector3d(parent.frame * joint.axis_in_parent);
    };
    switch (link.joint) {
      case LinkJoint::kFree: {
        const Eigen::Vector3d origin = self.com + self.frame * link.body_origin;
        qvel.segment<3>(link.joints[0].dof) = velocity_at(self, origin);
        qvel.segment<3>(link.joints[0].dof + 3) = body_rotation.transpose() * self.angular_velocity;
        break;
      }
      case LinkJoint::kBall:
        qvel.segment<3>(link.joints[0].dof) = body_rotation.transpose() * relative_omega;
        break;
      case LinkJoint::kHinge:
        qvel[link.joints[0].dof] = axis(link.joints[0]).dot(relative_omega);
        break;
      case LinkJoint::kSlide:
      case LinkJoint::kSlides:
      case LinkJoint::kPlanar: {
        // The slides move the hinge's anchor (any point when there is no hinge) as Σ a_i q̇_i.
        const bool planar = link.joint == LinkJoint::kPlanar;
        const Eigen::Vector3d point =
            planar ? Eigen::Vector3d(self.com + self.frame * link.hinge_anchor) : self.com;
        const Eigen::Vector3d relative_velocity = velocity_at(self, point) - velocity_at(parent, point);
        const std::size_t slides = link.joints.size() - (planar ? 1 : 0);
        Eigen::Matrix<double, 3, Eigen::Dynamic> axes(3, static_cast<Eigen::Index>(slides));
        for (std::size_t s = 0; s < slides; ++s)
          axes.col(static_cast<Eigen::Index>(s)) = axis(link.joints[s]);
        // Perpendicular unit axes: the projections are the least-squares solution.
        const Eigen::VectorXd rates = axes.transpose() * relative_velocity;
        for (std::size_t s = 0; s < slides; ++s)
          qvel[link.joints[s].dof] = rates[static_cast<Eigen::Index>(s)];
        if (planar) qvel[link.joints.back().dof] = axis(link.joints.back()).dot(relative_omega);
        break;
      }
    }
  }
}

}  // namespace simpact
