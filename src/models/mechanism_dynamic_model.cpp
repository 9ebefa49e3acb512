#include "simpact/models/mechanism_dynamic_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "simpact/core/input_error.hpp"

namespace simpact {

namespace {
// Central-difference step of M(q) and ∇V(q): truncation O(h²) ≈ 1e-12 relative against rounding
// O(ε/h) ≈ 1e-10 (first derivatives enter the DEL residual; second ones only Newton's matrix).
double step_for(double q) {
  return 1e-5 * std::max(1.0, std::abs(q));
}

Eigen::VectorXd dense(const DofVector& q) {
  return Eigen::VectorXd(q);
}
}  // namespace

MechanismDynamicModel::MechanismDynamicModel(std::shared_ptr<const MujocoMechanism> mechanism,
                                             MechanismState edits, const std::string& field)
    : mechanism_(std::move(mechanism)), edits_(std::move(edits)), damping_(mechanism_->damping()) {
  if (const std::string joint = mechanism_->non_euclidean_joint(); !joint.empty())
    throw InputError(field + ".file",
                     fmt::format("joint '{}' is a ball or free joint: time stepping takes hinge and slide "
                                 "joints only (resolve and sweeps take every joint)",
                                 joint));
  if (mechanism_->nv() > kMaxDof)
    throw InputError(field + ".file",
                     fmt::format("time stepping takes at most {} coordinates (the file has {})", kMaxDof,
                                 mechanism_->nv()));
  if (mechanism_->contacts() > kMaxContacts)
    throw InputError(field + ".contacts",
                     fmt::format("time stepping takes at most {} contacts", kMaxContacts));
  damped_ = (damping_.array() != 0.0).any();
  workspace_ = mechanism_->make_workspace();
}

MujocoMechanism::Workspace& MechanismDynamicModel::workspace() const {
  return *workspace_;
}

Eigen::MatrixXd MechanismDynamicModel::mass_at(const DofVector& q) const {
  Eigen::MatrixXd m;
  mechanism_->mass_matrix(edits_, dense(q), workspace(), m);
  return m;
}

DofVector MechanismDynamicModel::kinetic_gradient(const DofVector& q, const DofVector& v) const {
  const int n = dof();
  DofVector t_q(n);
  for (int a = 0; a < n; ++a) {
    DofVector plus = q, minus = q;
    const double h = step_for(q[a]);
    plus[a] += h;
    minus[a] -= h;
    const Eigen::MatrixXd dm = (mass_at(plus) - mass_at(minus)) / (plus[a] - minus[a]);
    t_q[a] = 0.5 * v.dot(dm * v);
  }
  return t_q;
}

void MechanismDynamicModel::kinetic(const DofVector& q, const DofVector& v, bool second,
                                    KineticDerivatives& out) const {
  const int n = dof();
  const Eigen::MatrixXd m = mass_at(q);
  out.mass = m;
  out.t_v = m * v;
  out.energy = 0.5 * v.dot(out.t_v);
  out.t_q = kinetic_gradient(q, v);
  if (!second) return;
  out.t_qq.setZero(n, n);
  out.t_qv.setZero(n, n);
  for (int a = 0; a < n; ++a) {
    DofVector plus = q, minus = q;
    const double h = step_for(q[a]);
    plus[a] += h;
    minus[a] -= h;
    const double span = plus[a] - minus[a];
    // (t_qv)_ab = (∂M/∂q_a v)_b; t_qq column a = ∂(∂T/∂q)/∂q_a.
    out.t_qv.row(a) = ((mass_at(plus) - mass_at(minus)) / span * v).transpose();
    out.t_qq.col(a) = (kinetic_gradient(plus, v) - kinetic_gradient(minus, v)) / span;
  }
  out.t_qq = 0.5 * (out.t_qq + out.t_qq.transpose()).eval();
}

double MechanismDynamicModel::potential(const DofVector& q, DofVector& gradient, DofMatrix* hessian) const {
  Eigen::VectorXd g;
  const double v = mechanism_->potential(edits_, dense(q), workspace(), &g);
  gradient = g;
  if (hessian) {
    const int n = dof();
    hessian->setZero(n, n);
    for (int a = 0; a < n; ++a) {
      Eigen::VectorXd plus = dense(q), minus = dense(q), gp, gm;
      const double h = step_for(q[a]);
      plus[a] += h;
      minus[a] -= h;
      mechanism_->potential(edits_, plus, workspace(), &gp);
      mechanism_->potential(edits_, minus, workspace(), &gm);
      hessian->col(a) = (gp - gm) / (plus[a] - minus[a]);
    }
    *hessian = 0.5 * (*hessian + hessian->transpose()).eval();
  }
  return v;
}

void MechanismDynamicModel::force(const DofVector& /*q*/, const DofVector& v, double /*t*/, DofVector& f,
                                  DofMatrix* f_q, DofMatrix* f_v) const {
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

void MechanismDynamicModel::force_part(int /*part*/, const DofVector& q, const DofVector& v, double t,
                                       DofVector& f) const {
  force(q, v, t, f, nullptr, nullptr);
}

void MechanismDynamicModel::gaps(const DofVector& q, ContactVector& phi) const {
  MechanismEvaluation e;
  mechanism_->evaluate(edits_, dense(q), workspace(), e);
  phi = e.gaps;
}

void MechanismDynamicModel::gap_jacobian(const DofVector& q, NormalMatrix& jacobian) const {
  MechanismEvaluation e;
  mechanism_->evaluate(edits_, dense(q), workspace(), e);
  jacobian = e.normals;
}

double MechanismDynamicModel::gap_length_scale(const DofVector& q) const {
  return mechanism_->gap_length_scale(edits_, dense(q), workspace());
}

}  // namespace simpact
