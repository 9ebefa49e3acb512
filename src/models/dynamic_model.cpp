#include "simpact/models/dynamic_model.hpp"

#include <Eigen/Cholesky>

namespace simpact {

void DynamicModel::force(const DofVector& /*q*/, const DofVector& /*v*/, double /*t*/, DofVector& f,
                         DofMatrix* f_q, DofMatrix* f_v) const {
  const int n = dof();
  f.setZero(n);
  if (f_q) f_q->setZero(n, n);
  if (f_v) f_v->setZero(n, n);
}

void DynamicModel::momentum_terms(const DofVector& q, const DofVector& v, DofVector& t_q, DofVector& t_v,
                                  DofVector& v_q) const {
  KineticDerivatives k;
  kinetic(q, v, false, k);
  t_q = k.t_q;
  t_v = k.t_v;
  potential(q, v_q, nullptr);
}

void DynamicModel::del_matrix(const DofVector& q, const DofVector& v, double c_m, double c_s, double c_h,
                              DofMatrix& out, double& mass_norm) const {
  KineticDerivatives k;
  kinetic(q, v, true, k);
  DofVector gradient;
  DofMatrix hessian;
  potential(q, gradient, &hessian);
  out = c_m * k.mass + c_s * (k.t_qv - k.t_qv.transpose()) + c_h * (k.t_qq - hessian);
  mass_norm = k.mass.cwiseAbs().rowwise().sum().maxCoeff();
}

void DynamicModel::gaps(const DofVector& /*q*/, ContactVector& phi) const {
  phi.resize(0);
}

void DynamicModel::gap_jacobian(const DofVector& /*q*/, NormalMatrix& jacobian) const {
  jacobian.resize(0, dof());
}

void DynamicModel::tangent_jacobian(const DofVector& /*q*/, NormalMatrix& jacobian) const {
  jacobian.setZero(contacts(), dof());
}

DofMatrix DynamicModel::mass_matrix(const DofVector& q) const {
  KineticDerivatives k;
  kinetic(q, DofVector::Zero(dof()), false, k);
  return k.mass;
}

double DynamicModel::energy(const DofVector& q, const DofVector& p) const {
  const Eigen::LLT<DofMatrix> factor(mass_matrix(q));
  DofVector gradient;
  return 0.5 * p.dot(factor.solve(p)) + potential(q, gradient, nullptr);
}

std::string DynamicModel::force_part_name(int /*part*/) const {
  return "forces";
}

void DynamicModel::force_part(int /*part*/, const DofVector& q, const DofVector& v, double t,
                              DofVector& f) const {
  force(q, v, t, f, nullptr, nullptr);
}

}  // namespace simpact
