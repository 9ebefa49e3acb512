#include "simpact/models/mechanism.hpp"

#include <Eigen/Cholesky>

namespace simpact {

const std::vector<int>& Mechanism::rotation_blocks() const {
  static const std::vector<int> none;
  return none;
}

void Mechanism::integrate(const DynVector& q, const DynVector& v, double s, DynVector& out) const {
  out = q + s * v;
}

void Mechanism::difference(const DynVector& q2, const DynVector& q1, DynVector& v) const {
  v = q2 - q1;
}

void Mechanism::force(const DynVector& /*q*/, const DynVector& /*v*/, double /*t*/, DynVector& f,
                      DynMatrix* f_q, DynMatrix* f_v) const {
  const int n = dof();
  f.setZero(n);
  if (f_q) f_q->setZero(n, n);
  if (f_v) f_v->setZero(n, n);
}

void Mechanism::momentum_terms(const DynVector& q, const DynVector& v, DynVector& t_q, DynVector& t_v,
                               DynVector& v_q) const {
  KineticDerivatives k;
  kinetic(q, v, false, k);
  t_q = k.t_q;
  t_v = k.t_v;
  potential(q, v_q, nullptr);
}

void Mechanism::del_matrix(const DynVector& q, const DynVector& v, double c_m, double c_s, double c_h,
                           DynMatrix& out, double& mass_norm) const {
  KineticDerivatives k;
  kinetic(q, v, true, k);
  DynVector gradient;
  DynMatrix hessian;
  potential(q, gradient, &hessian);
  out = c_m * k.mass + c_s * (k.t_qv - k.t_qv.transpose()) + c_h * (k.t_qq - hessian);
  mass_norm = k.mass.cwiseAbs().rowwise().sum().maxCoeff();
}

void Mechanism::gaps(const DynVector& /*q*/, DynVector& phi) const {
  phi.resize(0);
}

void Mechanism::gap_jacobian(const DynVector& /*q*/, DynRowMatrix& jacobian) const {
  jacobian.resize(0, dof());
}

void Mechanism::tangent_jacobian(const DynVector& /*q*/, DynRowMatrix& jacobian) const {
  jacobian.setZero(contacts(), dof());
}

DynMatrix Mechanism::mass_matrix(const DynVector& q) const {
  KineticDerivatives k;
  kinetic(q, DynVector::Zero(dof()), false, k);
  return k.mass;
}

void Mechanism::impact_terms(const DynVector& q, ImpactTerms& out) const {
  out.mass = mass_matrix(q);
  out.mass_diagonal.resize(0);
  gaps(q, out.gaps);
  gap_jacobian(q, out.normals);
}

double Mechanism::energy(const DynVector& q, const DynVector& p) const {
  const Eigen::LLT<DynMatrix> factor(mass_matrix(q));
  DynVector gradient;
  return 0.5 * p.dot(factor.solve(p)) + potential(q, gradient, nullptr);
}

std::string Mechanism::force_part_name(int /*part*/) const {
  return "forces";
}

void Mechanism::force_part(int /*part*/, const DynVector& q, const DynVector& v, double t,
                           DynVector& f) const {
  force(q, v, t, f, nullptr, nullptr);
}

}  // namespace simpact
