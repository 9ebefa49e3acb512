#include "simpact/models/ball_set.hpp"

#include <cmath>
#include <stdexcept>

namespace simpact {

BallSet::BallSet(std::string name, int balls, int axes, double gravity)
    : name_(std::move(name)),
      balls_(balls),
      axes_(axes),
      gravity_(gravity),
      mass_diagonal_(DynVector::Zero(balls * axes)),
      radius_(static_cast<std::size_t>(balls), 0.0) {
  if (balls < 1 || axes < 1 || axes > 2) throw std::logic_error("BallSet: 1 or 2 axes, at least one ball");
}

void BallSet::set_ball(int i, double mass, double radius) {
  mass_diagonal_.segment(i * axes_, axes_).setConstant(mass);
  radius_.at(static_cast<std::size_t>(i)) = radius;
}

void BallSet::add_pair_contact(int i, int j) {
  contacts_.push_back({i, j, 0.0});
}

void BallSet::add_floor_contact(int i, double height) {
  contacts_.push_back({i, -1, height});
}

std::string BallSet::coordinate_name(int i) const {
  if (static_cast<std::size_t>(i) < names_.size()) return names_[static_cast<std::size_t>(i)];
  return "q" + std::to_string(i);
}

void BallSet::kinetic(const DynVector& /*q*/, const DynVector& v, bool second,
                      KineticDerivatives& out) const {
  const int n = dof();
  out.t_v = mass_diagonal_.cwiseProduct(v);
  out.energy = 0.5 * v.dot(out.t_v);
  out.t_q.setZero(n);
  out.mass = mass_diagonal_.asDiagonal();
  if (second) {
    out.t_qq.setZero(n, n);
    out.t_qv.setZero(n, n);
  }
}

void BallSet::momentum_terms(const DynVector& q, const DynVector& v, DynVector& t_q, DynVector& t_v,
                             DynVector& v_q) const {
  t_q.setZero(dof());
  t_v = mass_diagonal_.cwiseProduct(v);
  potential(q, v_q, nullptr);
}

double BallSet::potential(const DynVector& q, DynVector& gradient, DynMatrix* hessian) const {
  const int n = dof();
  gradient.setZero(n);
  if (hessian) hessian->setZero(n, n);
  double v = 0.0;
  if (gravity_ == 0.0) return v;
  for (int b = 0; b < balls_; ++b) {
    const int last = b * axes_ + axes_ - 1;
    v += mass_diagonal_[last] * gravity_ * q[last];
    gradient[last] = mass_diagonal_[last] * gravity_;
  }
  return v;
}

double BallSet::gap_of(const DynVector& q, const Contact& c, double* direction) const {
  const double r_i = radius_[static_cast<std::size_t>(c.i)];
  if (c.j < 0) {  // the floor: along the last coordinate
    for (int a = 0; a < axes_; ++a) direction[a] = a == axes_ - 1 ? 1.0 : 0.0;
    return q[c.i * axes_ + axes_ - 1] - r_i - c.height;
  }
  // Unit vector from ball i to ball j; hypot keeps radii of 1e-300 or 1e60 from under- or
  // overflowing.
  double d[2] = {0.0, 0.0};
  for (int a = 0; a < axes_; ++a) d[a] = q[c.j * axes_ + a] - q[c.i * axes_ + a];
  const double distance = axes_ == 1 ? std::abs(d[0]) : std::hypot(d[0], d[1]);
  for (int a = 0; a < axes_; ++a) direction[a] = d[a] / distance;
  return distance - r_i - radius_[static_cast<std::size_t>(c.j)];
}

void BallSet::gaps(const DynVector& q, DynVector& phi) const {
  phi.resize(contacts());
  double direction[2];
  for (int k = 0; k < contacts(); ++k) phi[k] = gap_of(q, contacts_[static_cast<std::size_t>(k)], direction);
}

void BallSet::gap_jacobian(const DynVector& q, DynRowMatrix& jacobian) const {
  jacobian.setZero(contacts(), dof());
  double direction[2];
  for (int k = 0; k < contacts(); ++k) {
    const Contact& c = contacts_[static_cast<std::size_t>(k)];
    gap_of(q, c, direction);
    for (int a = 0; a < axes_; ++a) {
      if (c.j >= 0) jacobian(k, c.j * axes_ + a) = direction[a];
      jacobian(k, c.i * axes_ + a) = c.j >= 0 ? -direction[a] : direction[a];
    }
  }
}

void BallSet::impact_terms(const DynVector& q, ImpactTerms& out) const {
  out.mass_diagonal = mass_diagonal_;
  gaps(q, out.gaps);
  gap_jacobian(q, out.normals);
}

}  // namespace simpact
