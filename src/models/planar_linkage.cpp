#include "simpact/models/planar_linkage.hpp"

#include <cmath>
#include <stdexcept>

namespace simpact {

namespace {
using Vec2 = PlanarLinkage::Vec2;
// P s: s rotated by +90° (d/dφ of R(φ)d is P R(φ)d).
inline Vec2 perp(const Vec2& s) {
  return {-s.y(), s.x()};
}
}  // namespace

PlanarLinkage::PlanarLinkage(std::string name, int dof, double gravity)
    : name_(std::move(name)), dof_(dof), gravity_(gravity) {
  if (dof < 1 || dof > kMaxDof) throw std::invalid_argument("PlanarLinkage: dof out of range");
  inertia_ = DofMatrix::Zero(dof, dof);
  linear_mass_ = DofMatrix::Zero(dof, dof);
}

int PlanarLinkage::add_term(const DofVector& angle_coefficients, double angle_offset,
                            const Vec2& link_vector) {
  if (angle_coefficients.size() != dof_ || static_cast<int>(terms_.size()) >= kMaxTerms)
    throw std::invalid_argument("PlanarLinkage: bad term");
  Term term;
  term.a = angle_coefficients;
  term.offset = angle_offset;
  term.d = link_vector;
  term.carried_linear = Rows2::Zero(2, dof_);
  for (int i = 0; i < dof_; ++i)
    if (angle_coefficients[i] != 0.0) {
      term.index[term.nnz] = i;
      term.value[term.nnz++] = angle_coefficients[i];
    }
  terms_.push_back(term);
  return static_cast<int>(terms_.size()) - 1;
}

int PlanarLinkage::add_mass(double mass, const Rows2& linear, const std::vector<int>& terms, double radius) {
  if (linear.cols() != dof_ || static_cast<int>(masses_.size()) >= kMaxMasses)
    throw std::invalid_argument("PlanarLinkage: bad mass");
  const int index = static_cast<int>(masses_.size());
  for (int t : terms) {
    terms_.at(static_cast<std::size_t>(t)).masses.push_back(index);
    terms_[static_cast<std::size_t>(t)].carried_mass += mass;
    terms_[static_cast<std::size_t>(t)].carried_linear += mass * linear;
    for (int u : terms) pair_mass_[t][u] += mass;
  }
  linear_mass_.noalias() += mass * linear.transpose() * linear;
  if (!terms.empty() && (linear.array() != 0.0).any()) has_coupling_ = true;
  Mass m;
  m.m = mass;
  m.linear = linear;
  m.terms = terms;
  m.radius = radius;
  for (int c = 0; c < dof_; ++c)
    for (int r = 0; r < 2; ++r)
      if (linear(r, c) != 0.0) {
        m.row[m.nnz] = r;
        m.col[m.nnz] = c;
        m.value[m.nnz++] = linear(r, c);
      }
  masses_.push_back(std::move(m));
  return index;
}

int PlanarLinkage::add_sphere_contact(int mass_a, int mass_b) {
  contacts_.push_back(Contact{mass_a, mass_b, 0.0});
  return static_cast<int>(contacts_.size()) - 1;
}

int PlanarLinkage::add_floor_contact(int mass, double height) {
  contacts_.push_back(Contact{mass, -1, height});
  return static_cast<int>(contacts_.size()) - 1;
}

std::string PlanarLinkage::coordinate_unit(int i) const {
  for (const Term& t : terms_)
    if (i >= 0 && i < t.a.size() && t.a[i] != 0.0) return "rad";
  return "m";
}

std::string PlanarLinkage::coordinate_name(int i) const {
  if (i < static_cast<int>(coordinate_names_.size())) return coordinate_names_[static_cast<std::size_t>(i)];
  return Mechanism::coordinate_name(i);
}

void PlanarLinkage::link_vectors(const DynVector& q, Vec2* s) const {
  for (std::size_t t = 0; t < terms_.size(); ++t) {
    const double phi = terms_[t].a.dot(q) + terms_[t].offset;
    const double c = std::cos(phi), sn = std::sin(phi);
    const Vec2& d = terms_[t].d;
    s[t] = Vec2(c * d.x() - sn * d.y(), sn * d.x() + c * d.y());
  }
}

// s_t and ω_t = a_t·v from a_t's nonzeros (the hot loops: momentum_terms, del_matrix).
void PlanarLinkage::link_vectors_and_rates(const DynVector& q, const DynVector& v, Vec2* s,
                                           double* omega) const {
  for (std::size_t t = 0; t < terms_.size(); ++t) {
    const Term& term = terms_[t];
    double phi = term.offset, om = 0.0;
    for (int e = 0; e < term.nnz; ++e) {
      phi += term.value[e] * q[term.index[e]];
      om += term.value[e] * v[term.index[e]];
    }
    const double c = std::cos(phi), sn = std::sin(phi);
    s[t] = Vec2(c * term.d.x() - sn * term.d.y(), sn * term.d.x() + c * term.d.y());
    omega[t] = om;
  }
}

void PlanarLinkage::mass_jacobian(int j, const Vec2* s, Rows2& jac) const {
  const Mass& mass = masses_[static_cast<std::size_t>(j)];
  jac = mass.linear;
  for (int t : mass.terms) jac.noalias() += perp(s[t]) * terms_[static_cast<std::size_t>(t)].a.transpose();
}

PlanarLinkage::Vec2 PlanarLinkage::position(const DynVector& q, int mass) const {
  Vec2 s[kMaxTerms];
  link_vectors(q, s);
  const Mass& m = masses_.at(static_cast<std::size_t>(mass));
  Vec2 r = m.linear * q;
  for (int t : m.terms) r += s[t];
  return r;
}

void PlanarLinkage::kinetic(const DynVector& q, const DynVector& v, bool second,
                            KineticDerivatives& out) const {
  const int n = dof_;
  const int nt = static_cast<int>(terms_.size());
  Vec2 s[kMaxTerms];
  link_vectors(q, s);
  double omega[kMaxTerms];
  for (int t = 0; t < nt; ++t) omega[t] = terms_[static_cast<std::size_t>(t)].a.dot(v);

  out.mass = inertia_;
  out.t_v.noalias() = inertia_ * v;
  // Per mass: J_j, w_j = J_j v, and (second) J̇_j; per term: W_t, Ĵ_t, K̂_t accumulated.
  Vec2 w_sum[kMaxTerms];
  Rows2 j_sum[kMaxTerms], k_sum[kMaxTerms];
  for (int t = 0; t < nt; ++t) {
    w_sum[t].setZero();
    if (second) {
      j_sum[t].setZero(2, n);
      k_sum[t].setZero(2, n);
    }
  }
  Rows2 jac(2, n), jdot(2, n);
  for (int j = 0; j < static_cast<int>(masses_.size()); ++j) {
    const Mass& mass = masses_[static_cast<std::size_t>(j)];
    mass_jacobian(j, s, jac);
    const Vec2 w = jac * v;
    out.mass.noalias() += mass.m * jac.transpose() * jac;
    out.t_v.noalias() += mass.m * jac.transpose() * w;
    if (second) {
      jdot.setZero(2, n);
      for (int t : mass.terms)
        jdot.noalias() -= (omega[t] * s[t]) * terms_[static_cast<std::size_t>(t)].a.transpose();
    }
    for (int t : mass.terms) {
      w_sum[t] += mass.m * w;
      if (second) {
        j_sum[t].noalias() += mass.m * jac;
        k_sum[t].noalias() += mass.m * jdot;
      }
    }
  }
  out.energy = 0.5 * v.dot(out.t_v);
  out.t_q.setZero(n);
  if (second) {
    out.t_qq.setZero(n, n);
    out.t_qv.setZero(n, n);
  }
  for (int t = 0; t < nt; ++t) {
    const DofVector& a = terms_[static_cast<std::size_t>(t)].a;
    const double sw = s[t].dot(w_sum[t]);
    out.t_q.noalias() -= (omega[t] * sw) * a;
    if (!second) continue;
    const double wps = w_sum[t].dot(perp(s[t]));
    // row vectors s_tᵀĴ_t and s_tᵀK̂_t
    const DofVector sj = j_sum[t].transpose() * s[t];
    const DofVector sk = k_sum[t].transpose() * s[t];
    out.t_qv.noalias() -= a * (sw * a + omega[t] * sj).transpose();
    out.t_qq.noalias() -= omega[t] * a * (wps * a + sk).transpose();
  }
}

void PlanarLinkage::momentum_terms(const DynVector& q, const DynVector& v, DynVector& t_q, DynVector& t_v,
                                   DynVector& v_q) const {
  const int n = dof_;
  const int nt = static_cast<int>(terms_.size());
  Vec2 s[kMaxTerms], big_w[kMaxTerms];
  double omega[kMaxTerms];
  link_vectors_and_rates(q, v, s, omega);
  for (int t = 0; t < nt; ++t) big_w[t].setZero();
  if (has_inertia_)
    t_v.noalias() = inertia_ * v;
  else
    t_v.setZero(n);
  t_q.setZero(n);
  v_q.setZero(n);
  for (const Mass& mass : masses_) {
    Vec2 w = Vec2::Zero();
    for (int e = 0; e < mass.nnz; ++e) w[mass.row[e]] += mass.value[e] * v[mass.col[e]];
    for (int t : mass.terms) w += omega[t] * perp(s[t]);
    const Vec2 mw = mass.m * w;
    for (int e = 0; e < mass.nnz; ++e) {
      t_v[mass.col[e]] += mass.value[e] * mw[mass.row[e]];
      if (mass.row[e] == 1) v_q[mass.col[e]] += gravity_ * mass.m * mass.value[e];
    }
    for (int t : mass.terms) big_w[t] += mw;
  }
  for (int t = 0; t < nt; ++t) {
    const Term& term = terms_[static_cast<std::size_t>(t)];
    const double tv = perp(s[t]).dot(big_w[t]);
    const double tq = -omega[t] * s[t].dot(big_w[t]);
    const double vq = gravity_ * term.carried_mass * s[t].x();
    for (int e = 0; e < term.nnz; ++e) {
      const int i = term.index[e];
      const double a = term.value[e];
      t_v[i] += a * tv;
      t_q[i] += a * tq;
      v_q[i] += a * vq;
    }
  }
}

void PlanarLinkage::del_matrix(const DynVector& q, const DynVector& v, double c_m, double c_s, double c_h,
                               DynMatrix& out, double& mass_norm) const {
  using TermMatrix =
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, kMaxTerms, kMaxTerms>;
  using TermByDof =
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor, kMaxTerms, kMaxDof>;
  const int n = dof_;
  const int nt = static_cast<int>(terms_.size());
  Vec2 s[kMaxTerms], u[kMaxTerms], big_w[kMaxTerms];
  double omega[kMaxTerms];
  link_vectors_and_rates(q, v, s, omega);
  for (int t = 0; t < nt; ++t) {
    u[t] = perp(s[t]);
    big_w[t].setZero();
  }
  if (c_h != 0.0)
    for (const Mass& mass : masses_) {
      Vec2 w = Vec2::Zero();
      for (int e = 0; e < mass.nnz; ++e) w[mass.row[e]] += mass.value[e] * v[mass.col[e]];
      for (int t : mass.terms) w += omega[t] * u[t];
      for (int t : mass.terms) big_w[t] += mass.m * w;
    }
  // X in term space
  TermMatrix x(nt, nt);
  for (int t = 0; t < nt; ++t)
    for (int k = 0; k < nt; ++k) {
      const double c = pair_mass_[t][k];
      if (c == 0.0) {
        x(t, k) = 0.0;
        continue;
      }
      const double g = c * s[t].dot(s[k]);
      const double h_tk = c * s[t].dot(u[k]), h_kt = c * s[k].dot(u[t]);
      x(t, k) = c_m * g + c_s * (omega[k] * h_kt - omega[t] * h_tk) + c_h * omega[t] * omega[k] * g;
    }
  for (int t = 0; t < nt; ++t) {
    const Term& term = terms_[static_cast<std::size_t>(t)];
    x(t, t) += c_h * (gravity_ * term.carried_mass * s[t].y() - omega[t] * big_w[t].dot(u[t]));
  }
  // out = A X Aᵀ with A's sparse columns a_t
  TermByDof y = TermByDof::Zero(nt, n);  // X Aᵀ
  for (int k = 0; k < nt; ++k) {
    const Term& term = terms_[static_cast<std::size_t>(k)];
    for (int e = 0; e < term.nnz; ++e) y.col(term.index[e]) += term.value[e] * x.col(k);
  }
  out = c_m * (inertia_ + linear_mass_);
  for (int t = 0; t < nt; ++t) {
    const Term& term = terms_[static_cast<std::size_t>(t)];
    for (int e = 0; e < term.nnz; ++e) out.row(term.index[e]) += term.value[e] * y.row(t);
  }
  if (has_coupling_)
    for (int t = 0; t < nt; ++t) {
      const Term& term = terms_[static_cast<std::size_t>(t)];
      const DofVector f = term.carried_linear.transpose() * u[t];  // M: F_t a_tᵀ + a_t F_tᵀ
      const DofVector e = term.carried_linear.transpose() * s[t];  // T_qv − T_qvᵀ: −ω_t (a_t e_tᵀ − e_t a_tᵀ)
      const DofVector row = c_m * f - c_s * omega[t] * e, col = c_m * f + c_s * omega[t] * e;
      for (int k = 0; k < term.nnz; ++k) {
        out.row(term.index[k]) += term.value[k] * row.transpose();
        out.col(term.index[k]) += term.value[k] * col;
      }
    }
  double norm = 0.0;  // |out|∞ (rows' sums in order, as Eigen's rowwise sum, without its temporary)
  for (int i = 0; i < n; ++i) {
    double row = std::abs(out(i, 0));
    for (int j = 1; j < n; ++j) row += std::abs(out(i, j));
    norm = std::max(norm, row);
  }
  mass_norm = norm / std::abs(c_m);
}

double PlanarLinkage::potential(const DynVector& q, DynVector& gradient, DynMatrix* hessian) const {
  const int n = dof_;
  Vec2 s[kMaxTerms];
  link_vectors(q, s);
  gradient.setZero(n);
  double value = 0.0;
  Rows2 jac(2, n);
  for (int j = 0; j < static_cast<int>(masses_.size()); ++j) {
    const Mass& mass = masses_[static_cast<std::size_t>(j)];
    double y = mass.linear.row(1).dot(q);
    for (int t : mass.terms) y += s[t].y();
    value += gravity_ * mass.m * y;
    mass_jacobian(j, s, jac);
    gradient.noalias() += (gravity_ * mass.m) * jac.row(1).transpose();
  }
  if (hessian) {
    hessian->setZero(n, n);
    for (std::size_t t = 0; t < terms_.size(); ++t)
      hessian->noalias() -=
          (gravity_ * terms_[t].carried_mass * s[t].y()) * terms_[t].a * terms_[t].a.transpose();
  }
  return value;
}

void PlanarLinkage::add_joint_law(const JointLaw& law) {
  if (law.coordinate < 0 || law.coordinate >= dof_)
    throw std::invalid_argument("PlanarLinkage: bad joint law");
  laws_.push_back(law);
}

double PlanarLinkage::joint_law_force(const JointLaw& law, const DynVector& q, const DynVector& v,
                                      double t) const {
  const double driven = t > law.start ? t - law.start : 0.0;
  const double rate = t > law.start ? law.rate : 0.0;
  const int i = law.coordinate;
  return -law.stiffness * (q[i] - (law.rest + law.rate * driven)) - law.damping * (v[i] - rate);
}

std::string PlanarLinkage::force_part_name(int part) const {
  static const char* const names[] = {"springs", "dampers", "drives"};
  return names[part];
}

void PlanarLinkage::force_part(int part, const DynVector& q, const DynVector& v, double t,
                               DynVector& f) const {
  f.setZero(dof_);
  if (part == 1 && damping_.size() == dof_) f = -(damping_.array() * v.array()).matrix();
  for (const JointLaw& law : laws_) {
    if (law.drive != (part == 2)) continue;
    if (part == 2) {
      f[law.coordinate] += joint_law_force(law, q, v, t);
    } else {
      JointLaw only = law;  // the stiffness or the damping term alone
      (part == 0 ? only.damping : only.stiffness) = 0.0;
      f[law.coordinate] += joint_law_force(only, q, v, t);
    }
  }
}

void PlanarLinkage::force(const DynVector& q, const DynVector& v, double t, DynVector& f, DynMatrix* f_q,
                          DynMatrix* f_v) const {
  const int n = dof_;
  if (damping_.size() == n) {
    f = -(damping_.array() * v.array()).matrix();
  } else {
    f.setZero(n);
  }
  for (const JointLaw& law : laws_) f[law.coordinate] += joint_law_force(law, q, v, t);
  if (f_q) {
    f_q->setZero(n, n);
    for (const JointLaw& law : laws_) (*f_q)(law.coordinate, law.coordinate) -= law.stiffness;
  }
  if (f_v) {
    f_v->setZero(n, n);
    if (damping_.size() == n) f_v->diagonal() = -damping_;
    for (const JointLaw& law : laws_) (*f_v)(law.coordinate, law.coordinate) -= law.damping;
  }
}

void PlanarLinkage::gaps(const DynVector& q, DynVector& phi) const {
  phi.resize(contacts());
  for (int i = 0; i < contacts(); ++i) {
    const Contact& c = contacts_[static_cast<std::size_t>(i)];
    const Mass& a = masses_[static_cast<std::size_t>(c.a)];
    const Vec2 ra = position(q, c.a);
    if (c.b < 0) {
      phi[i] = ra.y() - a.radius - c.height;
    } else {
      phi[i] = (position(q, c.b) - ra).norm() - a.radius - masses_[static_cast<std::size_t>(c.b)].radius;
    }
  }
}

void PlanarLinkage::gap_jacobian(const DynVector& q, DynRowMatrix& jacobian) const {
  const int n = dof_;
  jacobian.setZero(contacts(), n);
  Vec2 s[kMaxTerms];
  link_vectors(q, s);
  Rows2 ja(2, n), jb(2, n);
  for (int i = 0; i < contacts(); ++i) {
    const Contact& c = contacts_[static_cast<std::size_t>(i)];
    mass_jacobian(c.a, s, ja);
    if (c.b < 0) {
      jacobian.row(i) = ja.row(1);
    } else {
      mass_jacobian(c.b, s, jb);
      const Vec2 d = position(q, c.b) - position(q, c.a);
      const Vec2 unit = d / d.norm();
      jacobian.row(i) = unit.transpose() * (jb - ja);
    }
  }
}

}  // namespace simpact

namespace simpact {

void PlanarLinkage::tangent_jacobian(const DynVector& q, DynRowMatrix& jacobian) const {
  const int n = dof_;
  jacobian.setZero(contacts(), n);
  Vec2 s[kMaxTerms];
  link_vectors(q, s);
  Rows2 ja(2, n);
  for (int i = 0; i < contacts(); ++i) {
    const Contact& c = contacts_[static_cast<std::size_t>(i)];
    if (c.b >= 0) continue;
    mass_jacobian(c.a, s, ja);
    jacobian.row(i) = ja.row(0);
  }
}

}  // namespace simpact
