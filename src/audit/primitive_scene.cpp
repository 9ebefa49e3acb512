#include "simpact/audit/primitive_scene.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <Eigen/Geometry>
#include <cmath>

#include "simpact/core/input_error.hpp"
#include "simpact/models/mujoco_names.hpp"

namespace simpact {
namespace {

using RowMatrix3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

std::string name_of(const mjModel* m, mjtObj type, int id) {
  const char* n = mj_id2name(m, type, id);
  return n ? std::string(n) : fmt::format("#{}", id);
}

}  // namespace

PrimitiveScene primitive_scene(const MujocoMechanism& mechanism, const MechanismState& state,
                               MujocoMechanism::Workspace& workspace, const std::string& engine,
                               const std::string& field) {
  const auto [m, d] = mechanism.mujoco_at(state, state.qpos, workspace);
  const std::string where = field + ".file";
  auto refuse = [&](const std::string& element, const std::string& why) {
    throw InputError(where, fmt::format("{}: {} cannot be expressed: {}", engine, element, why));
  };
  PrimitiveScene scene;
  scene.nv = m->nv;
  scene.gravity = Eigen::Vector3d(m->opt.gravity[0], m->opt.gravity[1], m->opt.gravity[2]);
  const double scale = 1.0 + m->stat.extent;
  for (int b = 0; b < m->nbody; ++b) {
    PrimitiveBody body;
    body.name = name_of(m, mjOBJ_BODY, b);
    const Eigen::Vector3d com(d->xipos + 3 * b), origin(d->xpos + 3 * b);
    const RowMatrix3 frame = Eigen::Map<const RowMatrix3>(d->xmat + 9 * b);
    const RowMatrix3 inertial = Eigen::Map<const RowMatrix3>(d->ximat + 9 * b);
    body.position = com;
    body.rotation = frame;
    for (int j = m->body_jntadr[b]; j < m->body_jntadr[b] + m->body_jntnum[b]; ++j) {
      const std::string joint =
          fmt::format("joint '{}' ({})", name_of(m, mjOBJ_JOINT, j), mujoco_joint_type_name(m->jnt_type[j]));
      if (m->body_parentid[b] != 0)
        refuse(joint, fmt::format("its body '{}' hangs from another body, not from the world", body.name));
      if (m->jnt_type[j] == mjJNT_FREE) {
        if ((com - origin).norm() > 1e-12 * scale || (inertial - frame).cwiseAbs().maxCoeff() > 1e-12)
          refuse(joint, "its body's inertial frame is not the body frame");
        body.free = true;
        body.free_dof = m->jnt_dofadr[j];
      } else if (m->jnt_type[j] == mjJNT_SLIDE) {
        // MuJoCo's world-frame axis of this joint (xaxis): the body frame `frame` is the pose after
        // every joint of the body (a pitch hinge after the slide would rotate jnt_axis wrongly).
        const Eigen::Vector3d axis = Eigen::Vector3d(d->xaxis + 3 * j).normalized();
        int k = 0;
        axis.cwiseAbs().maxCoeff(&k);
        if (std::abs(std::abs(axis[k]) - 1.0) > 1e-12 || axis[k] < 0)
          refuse(joint, "only slide joints along +x, +y or +z of the world are expressed");
        body.slide_axes.push_back(Eigen::Vector3d::Unit(k));
        body.slide_dofs.push_back(m->jnt_dofadr[j]);
      } else {
        refuse(joint, "only free joints and slide joints along world axes are expressed");
      }
    }
    if (body.free && !body.slide_axes.empty())
      refuse("body '" + body.name + "'", "a free joint beside slide joints");
    if (body.dynamic()) {
      body.mass = m->body_mass[b];
      body.inertia = Eigen::Vector3d(m->body_inertia + 3 * b);
      if (!(body.mass > 0)) refuse("body '" + body.name + "'", "a moving body needs a positive mass");
      const Eigen::VectorXd& qvel = state.qvel;
      if (body.free) {
        body.velocity = qvel.segment<3>(body.free_dof);
        body.angular_velocity = frame * Eigen::Vector3d(qvel.segment<3>(body.free_dof + 3));
      }
      for (std::size_t s = 0; s < body.slide_axes.size(); ++s)
        body.velocity += qvel[body.slide_dofs[s]] * body.slide_axes[s];
    }
    for (int g = m->body_geomadr[b]; g >= 0 && g < m->body_geomadr[b] + m->body_geomnum[b]; ++g) {
      PrimitiveGeom geom;
      geom.name = name_of(m, mjOBJ_GEOM, g);
      const std::string element =
          fmt::format("geom '{}' ({})", geom.name, mujoco_geom_type_name(m->geom_type[g]));
      const Eigen::Vector3d centre(d->geom_xpos + 3 * g);
      if (m->geom_type[g] == mjGEOM_SPHERE) {
        if (body.dynamic() && (centre - com).norm() > 1e-12 * scale)
          refuse(element, "a sphere off its body's centre of mass");
        geom.type = PrimitiveGeom::Type::kSphere;
        geom.radius = m->geom_size[3 * g];
        if (!body.dynamic()) body.position = centre;
      } else if (m->geom_type[g] == mjGEOM_BOX || m->geom_type[g] == mjGEOM_CAPSULE) {
        const RowMatrix3 gframe = Eigen::Map<const RowMatrix3>(d->geom_xmat + 9 * g);
        if (body.dynamic() && (centre - com).norm() > 1e-12 * scale)
          refuse(element, "a box or capsule off its body's centre of mass");
        // A free body turns: its geom must turn with the body frame the engines are given.
        if (body.free && (gframe - frame).cwiseAbs().maxCoeff() > 1e-12)
          refuse(element, "a box or capsule not aligned with its free body's frame");
        geom.rotation = gframe;
        if (m->geom_type[g] == mjGEOM_BOX) {
          geom.type = PrimitiveGeom::Type::kBox;
          geom.half_sizes = Eigen::Vector3d(m->geom_size + 3 * g);
        } else {
          geom.type = PrimitiveGeom::Type::kCapsule;
          geom.radius = m->geom_size[3 * g];
          geom.half_length = m->geom_size[3 * g + 1];
        }
        if (!body.dynamic()) body.position = centre;
      } else if (m->geom_type[g] == mjGEOM_PLANE && !body.dynamic()) {
        const RowMatrix3 gframe = Eigen::Map<const RowMatrix3>(d->geom_xmat + 9 * g);
        geom.type = PrimitiveGeom::Type::kPlane;
        geom.normal = gframe.col(2);
        geom.offset = geom.normal.dot(centre);
      } else {
        refuse(element,
               "only spheres, boxes and capsules centred on their body, and planes on static bodies, are "
               "expressed");
      }
      body.geoms.push_back(geom);
    }
    if (body.geoms.size() > 1) refuse("body '" + body.name + "'", "one geom per body is expressed");
    if (body.dynamic() || !body.geoms.empty()) scene.bodies.push_back(std::move(body));
  }
  return scene;
}

void scene_qvel(const PrimitiveScene& scene, const std::vector<Eigen::Vector3d>& velocity,
                const std::vector<Eigen::Vector3d>& angular_velocity,
                const std::vector<Eigen::Matrix3d>& rotation, Eigen::VectorXd& qvel) {
  qvel.setZero(scene.nv);
  for (std::size_t b = 0; b < scene.bodies.size(); ++b) {
    const PrimitiveBody& body = scene.bodies[b];
    if (body.free) {
      qvel.segment<3>(body.free_dof) = velocity[b];
      qvel.segment<3>(body.free_dof + 3) = rotation[b].transpose() * angular_velocity[b];
    }
    for (std::size_t s = 0; s < body.slide_axes.size(); ++s)
      qvel[body.slide_dofs[s]] = velocity[b].dot(body.slide_axes[s]);
  }
}

}  // namespace simpact
