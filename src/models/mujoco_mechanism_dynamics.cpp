// A mechanism file's time-stepping terms (models/file_mechanism.hpp uses them): M(q)
// alone, gravity and joint springs as a potential, damping, and the length the gaps round at.
#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <Eigen/Core>
#include <algorithm>
#include <string>

#include "mujoco_mechanism_internals.hpp"
#include "simpact/models/mujoco_mechanism.hpp"

namespace simpact {

void MujocoMechanism::mass_matrix(const MechanismState& state, const Eigen::VectorXd& qpos,
                                  Workspace& workspace, Eigen::MatrixXd& mass) const {
  workspace.apply(model_->edits, state.edits);
  const mjModel* m = workspace.m;
  forward_position(m, workspace.d, qpos);
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> dense(m->nv, m->nv);
  mj_fullM(m, dense.data(), workspace.d->qM);
  mass = dense;
}

double MujocoMechanism::potential(const MechanismState& state, const Eigen::VectorXd& qpos,
                                  Workspace& workspace, Eigen::VectorXd* gradient) const {
  workspace.apply(model_->edits, state.edits);
  const mjModel* m = workspace.m;
  mjData* d = workspace.d;
  forward_position(m, d, qpos);
  const Eigen::Map<const Eigen::Vector3d> g(m->opt.gravity);
  double v = 0.0;
  if (gradient) gradient->setZero(m->nv);
  Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> jac(3, m->nv);
  for (int b = 1; b < m->nbody; ++b) {
    const double mass = m->body_mass[b];
    if (mass == 0.0) continue;
    const Eigen::Map<const Eigen::Vector3d> x(d->xipos + 3 * b);
    v -= mass * g.dot(x);
    if (gradient) {  // ∂V/∂q = −m Jᵀg at the body's centre of mass
      mj_jac(m, d, jac.data(), nullptr, d->xipos + 3 * b, b);
      *gradient -= mass * jac.transpose() * g;
    }
  }
  for (int j = 0; j < m->njnt; ++j) {
    const double k = m->jnt_stiffness[j];
    const int type = m->jnt_type[j];
    if (k == 0.0 || (type != mjJNT_HINGE && type != mjJNT_SLIDE)) continue;
    const int a = m->jnt_qposadr[j];
    const double stretch = qpos[a] - m->qpos_spring[a];
    v += 0.5 * k * stretch * stretch;
    if (gradient) (*gradient)[m->jnt_dofadr[j]] += k * stretch;
  }
  return v;
}

double MujocoMechanism::gap_length_scale(const MechanismState& state, const Eigen::VectorXd& qpos,
                                         Workspace& workspace) const {
  workspace.apply(model_->edits, state.edits);
  const mjModel* m = workspace.m;
  mjData* d = workspace.d;
  std::copy_n(qpos.data(), m->nq, d->qpos);
  mj_kinematics(m, d);
  double scale = 0.0;
  for (int g : contact_geoms_) {
    const Eigen::Map<const Eigen::Vector3d> x(d->geom_xpos + 3 * g);
    scale = std::max(scale, x.cwiseAbs().maxCoeff() + m->geom_rbound[g]);
  }
  return scale;
}

Eigen::VectorXd MujocoMechanism::damping() const {
  return Eigen::Map<const Eigen::VectorXd>(model_->m->dof_damping, model_->m->nv);
}

std::string MujocoMechanism::coordinate_name(int i) const {
  return qvel_names_.at(i).substr(5);
}

}  // namespace simpact
