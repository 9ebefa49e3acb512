#include "simpact/models/mechanism_dynamic_model.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "simpact/core/fixed_size.hpp"
#include "simpact/core/input_error.hpp"

namespace simpact {

namespace {
// Central-difference step of M(q) and ∇V(q): truncation O(h²) ≈ 1e-12 relative against rounding
// O(ε/h) ≈ 1e-10 (first derivatives enter the DEL residual; second ones only Newton's matrix).
double step_for(double q) {
  return 1e-5 * std::max(1.0, std::abs(q));
}

}  // namespace

MechanismDynamicModel::MechanismDynamicModel(std::shared_ptr<const MujocoMechanism> mechanism,
                                             MechanismState edits, const std::string& field)
    : mechanism_(std::move(mechanism)), edits_(std::move(edits)), damping_(mechanism_->damping()) {
  if (mechanism_->nv() > kMaxDynamicDof)
    throw InputError(field + ".file",
                     fmt::format("time stepping takes at most {} velocities (the file has {})",
                                 kMaxDynamicDof, mechanism_->nv()));
  if (mechanism_->contacts() > kMaxDynamicContacts)
    throw InputError(field + ".contacts",
                     fmt::format("time stepping takes at most {} contacts", kMaxDynamicContacts));
  damped_ = (damping_.array() != 0.0).any();
  workspace_ = mechanism_->make_workspace();
  mj_ = mechanism_->mujoco_at(edits_, mechanism_->default_qpos(), *workspace_).first;
  const int nv = mj_->nv;
  dof_qpos_.assign(static_cast<std::size_t>(nv), -1);
  translation_.assign(static_cast<std::size_t>(nv), 0);
  for (int j = 0; j < mj_->njnt; ++j) {
    const int type = mj_->jnt_type[j], q = mj_->jnt_qposadr[j], d = mj_->jnt_dofadr[j];
    if (type == mjJNT_HINGE || type == mjJNT_SLIDE) {
      dof_qpos_[static_cast<std::size_t>(d)] = q;
      continue;
    }
    if (mj_->jnt_stiffness[j] != 0.0) {
      const char* raw = mj_id2name(mj_, mjOBJ_JOINT, j);
      throw InputError(field + ".file",
                       fmt::format("joint '{}' is a ball or free joint with a spring (stiffness {}): time "
                                   "stepping takes springs on hinge and slide joints only",
                                   raw && *raw ? raw : fmt::format("joint{}", j), mj_->jnt_stiffness[j]));
    }
    if (type == mjJNT_FREE) {
      for (int k = 0; k < 3; ++k) {
        dof_qpos_[static_cast<std::size_t>(d + k)] = q + k;
        translation_[static_cast<std::size_t>(d + k)] = 1;
      }
      rotation_blocks_.push_back(d + 3);
    } else {
      rotation_blocks_.push_back(d);
    }
  }
}

void MechanismDynamicModel::integrate(const DynVector& q, const DynVector& v, double s,
                                      DynVector& out) const {
  if (rotation_blocks_.empty()) {
    out = q + s * v;
    return;
  }
  if (&out != &q) out = q;
  mj_integratePos(mj_, out.data(), v.data(), s);
}

void MechanismDynamicModel::difference(const DynVector& q2, const DynVector& q1, DynVector& v) const {
  if (rotation_blocks_.empty()) {
    v = q2 - q1;
    return;
  }
  v.resize(mj_->nv);
  mj_differentiatePos(mj_, v.data(), 1.0, q1.data(), q2.data());
}

std::string MechanismDynamicModel::configuration_name(int i) const {
  return mechanism_->qpos_names().at(static_cast<std::size_t>(i)).substr(5);  // "qpos.<joint>"
}

std::string MechanismDynamicModel::configuration_unit(int i) const {
  for (int j = 0; j < mj_->njnt; ++j) {
    const int adr = mj_->jnt_qposadr[j], type = mj_->jnt_type[j];
    const int size = type == mjJNT_FREE ? 7 : type == mjJNT_BALL ? 4 : 1;
    if (i < adr || i >= adr + size) continue;
    if (type == mjJNT_HINGE) return "rad";
    if (type == mjJNT_SLIDE || (type == mjJNT_FREE && i < adr + 3)) return "m";
    return "1";  // a quaternion component
  }
  return "";
}

bool MechanismDynamicModel::normalize_configuration(DynVector& q, const std::string& field) const {
  bool normalized = false;
  for (int j = 0; j < mj_->njnt; ++j) {
    const int type = mj_->jnt_type[j];
    if (type != mjJNT_FREE && type != mjJNT_BALL) continue;
    const int adr = mj_->jnt_qposadr[j] + (type == mjJNT_FREE ? 3 : 0);
    if (adr + 4 > q.size()) continue;  // the caller refuses the length
    const double norm = q.segment<4>(adr).norm();
    if (!std::isfinite(norm) || norm < 1e-12) {
      const char* raw = mj_id2name(mj_, mjOBJ_JOINT, j);
      throw InputError(fmt::format("{}[{}:{}]", field, adr, adr + 4),
                       fmt::format("the quaternion of joint '{}' is {} (a rotation needs a nonzero, finite "
                                   "quaternion w x y z)",
                                   raw && *raw ? raw : fmt::format("joint{}", j),
                                   std::isfinite(norm) ? "zero" : "not finite"));
    }
    if (norm != 1.0) {
      q.segment<4>(adr) /= norm;
      normalized = normalized || std::abs(norm - 1.0) > 4.0 * std::numeric_limits<double>::epsilon();
    }
  }
  return normalized;
}

double MechanismDynamicModel::perturb(const DynVector& q, int a, DynVector& plus, DynVector& minus) const {
  const int index = dof_qpos_[static_cast<std::size_t>(a)];
  if (index >= 0) {  // a Euclidean coordinate: today's steps, bit for bit
    plus = q;
    minus = q;
    const double h = step_for(q[index]);
    plus[index] += h;
    minus[index] -= h;
    return plus[index] - minus[index];
  }
  constexpr double kRotationStep = 1e-5;  // [rad]
  DynVector e = DynVector::Zero(dof());
  e[a] = 1.0;
  integrate(q, e, kRotationStep, plus);
  integrate(q, e, -kRotationStep, minus);
  return 2.0 * kRotationStep;
}

MujocoMechanism::Workspace& MechanismDynamicModel::workspace() const {
  return *workspace_;
}

Eigen::MatrixXd MechanismDynamicModel::mass_at(const DynVector& q) const {
  Eigen::MatrixXd m;
  mechanism_->mass_matrix(edits_, q, workspace(), m);
  return m;
}

DynVector MechanismDynamicModel::kinetic_gradient(const DynVector& q, const DynVector& v) const {
  const int n = dof();
  DynVector t_q(n);
  DynVector plus, minus;
  for (int a = 0; a < n; ++a) {
    if (translation_[static_cast<std::size_t>(a)]) {  // M does not depend on where the robot is
      t_q[a] = 0.0;
      continue;
    }
    const double span = perturb(q, a, plus, minus);
    const Eigen::MatrixXd dm = (mass_at(plus) - mass_at(minus)) / span;
    t_q[a] = 0.5 * v.dot(dm * v);
  }
  return t_q;
}

void MechanismDynamicModel::kinetic(const DynVector& q, const DynVector& v, bool second,
                                    KineticDerivatives& out) const {
  const int n = dof();
  const Eigen::MatrixXd m = mass_at(q);
  out.mass = m;
  out.t_v = m * v;
  out.energy = 0.5 * v.dot(out.t_v);
  if (!second && (v.array() == 0.0).all()) {  // ½·0ᵀ∂M·0: exactly what the differences give
    out.t_q.setZero(n);
    return;
  }
  out.t_q = kinetic_gradient(q, v);
  if (!second) return;
  out.t_qq.setZero(n, n);
  out.t_qv.setZero(n, n);
  DynVector plus, minus;
  for (int a = 0; a < n; ++a) {
    const double span = perturb(q, a, plus, minus);
    // (t_qv)_ab = (∂M/∂q_a v)_b; t_qq column a = ∂(∂T/∂q)/∂q_a.
    out.t_qv.row(a) = ((mass_at(plus) - mass_at(minus)) / span * v).transpose();
    out.t_qq.col(a) = (kinetic_gradient(plus, v) - kinetic_gradient(minus, v)) / span;
  }
  out.t_qq = 0.5 * (out.t_qq + out.t_qq.transpose()).eval();
}

double MechanismDynamicModel::potential(const DynVector& q, DynVector& gradient, DynMatrix* hessian) const {
  Eigen::VectorXd g;
  const double v = mechanism_->potential(edits_, q, workspace(), &g);
  gradient = g;
  if (hessian) {
    const int n = dof();
    hessian->setZero(n, n);
    DynVector plus, minus, gp, gm;
    for (int a = 0; a < n; ++a) {
      const double span = perturb(q, a, plus, minus);
      mechanism_->potential(edits_, plus, workspace(), &gp);
      mechanism_->potential(edits_, minus, workspace(), &gm);
      hessian->col(a) = (gp - gm) / span;
    }
    *hessian = 0.5 * (*hessian + hessian->transpose()).eval();
  }
  return v;
}

void MechanismDynamicModel::force(const DynVector& /*q*/, const DynVector& v, double /*t*/, DynVector& f,
                                  DynMatrix* f_q, DynMatrix* f_v) const {
  const int n = dof();
  f = -(damping_.array() * Eigen::ArrayXd(v)).matrix();
  if (f_q) f_q->setZero(n, n);
  if (f_v) {
    f_v->setZero(n, n);
    for (int i = 0; i < n; ++i) (*f_v)(i, i) = -damping_[i];
  }
}

std::string MechanismDynamicModel::force_part_name(int /*part*/) const {
  return "joint_damping";
}

void MechanismDynamicModel::force_part(int /*part*/, const DynVector& q, const DynVector& v, double t,
                                       DynVector& f) const {
  force(q, v, t, f, nullptr, nullptr);
}

void MechanismDynamicModel::gaps(const DynVector& q, DynVector& phi) const {
  MechanismEvaluation e;
  mechanism_->evaluate(edits_, q, workspace(), e);
  phi = e.gaps;
}

void MechanismDynamicModel::gap_jacobian(const DynVector& q, DynRowMatrix& jacobian) const {
  MechanismEvaluation e;
  mechanism_->evaluate(edits_, q, workspace(), e);
  jacobian = e.normals;
}

double MechanismDynamicModel::gap_length_scale(const DynVector& q) const {
  return mechanism_->gap_length_scale(edits_, q, workspace());
}

}  // namespace simpact
