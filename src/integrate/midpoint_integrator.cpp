#include "simpact/integrate/midpoint_integrator.hpp"

#include <fmt/format.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>

namespace simpact {

namespace {
using AugmentedVector = Eigen::VectorXd;
using AugmentedMatrix = Eigen::MatrixXd;

constexpr double kRoundingFactor = 16.0;
constexpr int kFree = 2;  // friction mode of a pulling resting contact: no tangential impulse
inline double max_abs(const DynVector& x) {
  double m = 0.0;
  for (Eigen::Index i = 0; i < x.size(); ++i) m = std::max(m, std::abs(x[i]));
  return m;
}
// The residual's rounding floor: Δq is known to a few ulps, and T_v = MΔq/h carries that error.
double rounding_floor(double mass_norm, const DynVector& dq, double h) {
  return kRoundingFactor * std::numeric_limits<double>::epsilon() * mass_norm * max_abs(dq) / h;
}
// x −= LU⁻¹ r with PA = LU: forward and back substitution in plain loops (Eigen's generic
// triangular solver costs more than the arithmetic at these sizes).
inline void lu_solve_subtract(const Eigen::PartialPivLU<DynMatrix>& lu, const DynVector& r, DynVector& x,
                              DynVector& scratch) {
  const DynMatrix& m = lu.matrixLU();
  const auto& perm = lu.permutationP().indices();
  const Eigen::Index n = r.size();
  if (scratch.size() != n) scratch.resize(n);
  double* y = scratch.data();
  for (Eigen::Index i = 0; i < n; ++i) y[perm[i]] = r[i];
  for (Eigen::Index i = 0; i < n; ++i) {
    double sum = y[i];
    for (Eigen::Index k = 0; k < i; ++k) sum -= m(i, k) * y[k];
    y[i] = sum;
  }
  for (Eigen::Index i = n - 1; i >= 0; --i) {
    double sum = y[i];
    for (Eigen::Index k = i + 1; k < n; ++k) sum -= m(i, k) * y[k];
    y[i] = sum / m(i, i);
  }
  for (Eigen::Index i = 0; i < n; ++i) x[i] -= y[i];
}
// SO(3): exp, its right Jacobian J_r (exp(x + dx) ≈ exp(x)·exp(J_r(x)dx)) and J_r⁻¹, by their
// closed forms with Taylor series below θ = 1e-4 (series error < θ⁶ ≈ 1e-24).
inline Eigen::Matrix3d hat(const Eigen::Vector3d& x) {
  Eigen::Matrix3d m;
  m << 0.0, -x.z(), x.y(), x.z(), 0.0, -x.x(), -x.y(), x.x(), 0.0;
  return m;
}
Eigen::Matrix3d so3_exp(const Eigen::Vector3d& x) {
  const double t2 = x.squaredNorm(), t = std::sqrt(t2);
  const Eigen::Matrix3d k = hat(x);
  const double a = t < 1e-4 ? 1.0 - t2 / 6.0 + t2 * t2 / 120.0 : std::sin(t) / t;
  const double b = t < 1e-4 ? 0.5 - t2 / 24.0 + t2 * t2 / 720.0 : (1.0 - std::cos(t)) / t2;
  return Eigen::Matrix3d::Identity() + a * k + b * k * k;
}
Eigen::Matrix3d so3_right_jacobian(const Eigen::Vector3d& x) {
  const double t2 = x.squaredNorm(), t = std::sqrt(t2);
  const Eigen::Matrix3d k = hat(x);
  const double b = t < 1e-4 ? 0.5 - t2 / 24.0 + t2 * t2 / 720.0 : (1.0 - std::cos(t)) / t2;
  const double c = t < 1e-4 ? 1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0 : (t - std::sin(t)) / (t2 * t);
  return Eigen::Matrix3d::Identity() - b * k + c * k * k;
}
Eigen::Matrix3d so3_right_jacobian_inverse(const Eigen::Vector3d& x) {
  const double t2 = x.squaredNorm(), t = std::sqrt(t2);
  const Eigen::Matrix3d k = hat(x);
  const double d = t < 1e-4 ? 1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0
                            : 1.0 / t2 - (1.0 + std::cos(t)) / (2.0 * t * std::sin(t));
  return Eigen::Matrix3d::Identity() + 0.5 * k + d * k * k;
}
// |m|∞: the rows' absolute sums in order (as Eigen's rowwise sum), without its temporary.
double inf_norm(const DynMatrix& m) {
  double norm = 0.0;
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    double row = m.cols() > 0 ? std::abs(m(i, 0)) : 0.0;
    for (Eigen::Index j = 1; j < m.cols(); ++j) row += std::abs(m(i, j));
    norm = std::max(norm, row);
  }
  return norm;
}

// Per-thread scratch of evaluate() and solve_contacts() (resting contacts' Newton): sized at the
// first use, so a step with resting contacts does not allocate per iteration. The integrator
// stays const and thread-safe; the two functions use disjoint members.
struct ContactScratch {
  DynVector qm, v, vq, generalized, f, impulse, all_phi, b, dx;
  DynVector r, dq, lambda, beta, phi, guess;  // solve_contacts / step_with_contacts
  DynMatrix vqq, fq, fv, a, jac;
  DynRowMatrix all, g1, tangents, tangent_all;
  std::vector<int> mode, visited;
  KineticDerivatives kinetic;
  Eigen::PartialPivLU<DynMatrix> lu;
};
ContactScratch& contact_scratch() {
  thread_local ContactScratch scratch;
  return scratch;
}
}  // namespace

NewtonError::NewtonError(long step, double time, int iterations, double residual, double tolerance)
    : std::runtime_error(fmt::format("step {} (t = {:.9g} s): Newton did not converge in {} iterations: "
                                     "relative residual {:.3e} > tolerance {:.1e}",
                                     step, time, iterations, residual, tolerance)),
      step_(step),
      residual_(residual) {}

NewtonError::NewtonError(long step, double time, const std::string& what)
    : std::runtime_error(fmt::format("step {} (t = {:.9g} s): {}", step, time, what)),
      step_(step),
      residual_(NAN) {}

double MidpointIntegrator::evaluate(const DynVector& q1, const DynVector& p1, double t1, double h,
                                    const DynVector& dq, DynVector& r, DynVector& p2, DynMatrix* jacobian,
                                    double* mass_norm) const {
  if (group_) return evaluate_group(q1, p1, t1, h, dq, r, p2, jacobian, mass_norm);
  const Mechanism& model = *model_;
  ContactScratch& s = contact_scratch();
  // q₂ = q₁ + Δq with Δq the unknown (see step()): v = Δq/h without cancellation.
  DynVector &qm = s.qm, &v = s.v;
  qm = q1 + 0.5 * dq;
  v = dq / h;
  KineticDerivatives& k = s.kinetic;
  model.kinetic(qm, v, jacobian != nullptr, k);
  DynVector& vq = s.vq;
  DynMatrix& vqq = s.vqq;
  model.potential(qm, vq, jacobian ? &vqq : nullptr);
  DynVector& generalized = s.generalized;
  generalized = k.t_q - vq;  // T_q − V_q (+ F)
  double scale = max_abs(p1) + max_abs(k.t_v) + 0.5 * h * (max_abs(k.t_q) + max_abs(vq));
  DynMatrix &fq = s.fq, &fv = s.fv;
  const bool forced = model.has_forces();
  if (forced) {
    model.force(qm, v, t1 + 0.5 * h, s.f, jacobian ? &fq : nullptr, jacobian ? &fv : nullptr);
    generalized += s.f;
    scale += 0.5 * h * max_abs(s.f);
  }
  if (mass_norm) *mass_norm = inf_norm(k.mass);
  r = p1 + 0.5 * h * generalized - k.t_v;
  // (θ − ½)·h·F: the q₂ equation's share of the force beyond the symmetric half
  if (forced && options_.force_split != 0.5) r += (options_.force_split - 0.5) * h * s.f;
  // p₂ = D₂L_d + h/2·F = p₁ + h(T_q − V_q + F) − R: written in the second form, every momentum
  // component the system conserves (a cyclic coordinate) is conserved exactly, whatever R is.
  p2 = p1 + h * generalized;
  if (jacobian) {
    DynMatrix& jac = *jacobian;
    jac = (0.25 * h) * (k.t_qq - vqq) + 0.5 * (k.t_qv - k.t_qv.transpose()) - k.mass / h;
    if (forced) jac += options_.force_split * ((0.5 * h) * fq + fv);
  }
  return scale;
}

void MidpointIntegrator::residual(const DynVector& q1, const DynVector& p1, double t1, double h,
                                  const DynVector& q2, DynVector& r, DynVector& p2,
                                  DynMatrix* jacobian) const {
  evaluate(q1, p1, t1, h, displacement(q2, q1), r, p2, jacobian, nullptr);
}

double MidpointIntegrator::evaluate_residual(const DynVector& q1, const DynVector& p1, double t1, double h,
                                             const DynVector& dq, DynVector& r, DynVector& p2,
                                             MidpointWorkspace& ws) const {
  if (group_) return evaluate_group(q1, p1, t1, h, dq, r, p2, nullptr, nullptr);
  const Mechanism& model = *model_;
  DynVector& qm = ws.qm;  // the workspace's vectors: no allocation per step
  DynVector& v = ws.v;
  qm = q1 + 0.5 * dq;
  v = dq / h;
  DynVector &t_q = ws.t_q, &t_v = ws.t_v, &v_q = ws.v_q;
  model.momentum_terms(qm, v, t_q, t_v, v_q);
  const Eigen::Index n = q1.size();
  double p_max = 0.0, tv_max = 0.0, tq_max = 0.0, vq_max = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    p_max = std::max(p_max, std::abs(p1[i]));
    tv_max = std::max(tv_max, std::abs(t_v[i]));
    tq_max = std::max(tq_max, std::abs(t_q[i]));
    vq_max = std::max(vq_max, std::abs(v_q[i]));
  }
  double scale = p_max + tv_max + 0.5 * h * (tq_max + vq_max);
  DynVector& generalized = ws.g;
  generalized = t_q - v_q;
  if (model.has_forces()) {
    DynVector& f = ws.f;
    model.force(qm, v, t1 + 0.5 * h, f, nullptr, nullptr);
    generalized += f;
    scale += 0.5 * h * max_abs(f);
    r = p1 + 0.5 * h * generalized - t_v;
    if (options_.force_split != 0.5) r += (options_.force_split - 0.5) * h * f;
  } else {
    r = p1 + 0.5 * h * generalized - t_v;
  }
  p2 = p1 + h * generalized;
  return scale;
}

void MidpointIntegrator::del_jacobian(const DynVector& q1, double t1, double h, const DynVector& dq,
                                      DynMatrix& jac, double& mass_norm, MidpointWorkspace& ws) const {
  if (group_) {
    DynVector r, p2;
    evaluate_group(q1, DynVector::Zero(dq.size()), t1, h, dq, r, p2, &jac, &mass_norm);
    return;
  }
  DynVector &qm = ws.qm, &v = ws.v;
  qm = q1 + 0.5 * dq;
  v = dq / h;
  model_->del_matrix(qm, v, -1.0 / h, 0.5, 0.25 * h, jac, mass_norm);
  if (model_->has_forces()) {
    DynVector& f = ws.f;
    DynMatrix &fq = ws.f_q, &fv = ws.f_v;
    model_->force(qm, v, t1 + 0.5 * h, f, &fq, &fv);
    jac += options_.force_split * ((0.5 * h) * fq + fv);
  }
}

MidpointStep MidpointIntegrator::step(const DynVector& q1, const DynVector& p1, double t1, double h,
                                      DynVector& q2, DynVector& p2, long step_index,
                                      const ActiveContacts& active) const {
  MidpointWorkspace workspace;
  return step(q1, p1, t1, h, q2, p2, step_index, active, workspace);
}

MidpointStep MidpointIntegrator::step(const DynVector& q1, const DynVector& p1, double t1, double h,
                                      DynVector& q2, DynVector& p2, long step_index,
                                      const ActiveContacts& active, MidpointWorkspace& ws) const {
  if (active.count > 0) return step_with_contacts(q1, p1, t1, h, q2, p2, step_index, active);
  const int n = model_->dof();
  // A factorization formed for another step length (a sub-step near an impact) is not reused:
  // J = −M/h + O(h) scales with 1/h.
  if (!options_.reuse_jacobian || !ws.valid || ws.n != n || !(std::abs(h - ws.h) <= 1e-3 * h))
    ws.valid = false;
  MidpointStep result;
  DynVector& r = ws.r;
  DynMatrix& jac = ws.jacobian;
  DynVector& dq = ws.dq;  // Newton on Δq = q₂ − q₁ (see step_with_contacts)
  if (group_)
    model_->difference(q2, q1, dq);
  else
    dq = q2 - q1;
  bool fresh = false;                     // factorized at an iterate of this step
  bool exact = !options_.reuse_jacobian;  // refactor at every iterate (exact Newton)
  double previous = INFINITY;
  for (int it = 0;; ++it) {
    const double scale = evaluate_residual(q1, p1, t1, h, dq, r, p2, ws);
    const double rn = max_abs(r);
    const double relative = rn == 0.0 ? 0.0 : (scale > 0.0 ? rn / scale : INFINITY);
    bool done = relative <= options_.tolerance || (ws.valid && rn <= rounding_floor(ws.mass_norm, dq, h));
    if (!done) {
      if (it >= options_.max_iterations || !std::isfinite(relative))
        throw NewtonError(step_index, t1, it, relative, options_.tolerance);
      // Simplified Newton: keep the factorization while it contracts R well enough.
      bool refactor = exact || !ws.valid;
      if (!refactor && it > 0 && rn > options_.refresh_ratio * previous) {
        refactor = true;
        if (fresh) exact = true;  // even this step's Jacobian contracts poorly: exact Newton
      }
      if (refactor) {
        del_jacobian(q1, t1, h, dq, jac, ws.mass_norm, ws);
        ws.lu.compute(jac);
        ws.valid = true;
        ws.n = n;
        ws.h = h;
        ++ws.factorizations;
        fresh = true;
        done = rn <= rounding_floor(ws.mass_norm, dq, h);
      }
    }
    if (done) {
      if (group_)
        model_->integrate(q1, dq, 1.0, q2);
      else
        q2 = q1 + dq;
      result.iterations = it;
      result.residual = relative;
      result.impulses.resize(0);
      return result;
    }
    lu_solve_subtract(ws.lu, r, dq, ws.y);
    previous = rn;
  }
}

MidpointStep MidpointIntegrator::step_with_contacts(const DynVector& q1, const DynVector& p1, double t1,
                                                    double h, DynVector& q2, DynVector& p2, long step_index,
                                                    const ActiveContacts& active) const {
  const int k = active.count;
  const double mu = model_->friction_coefficient();
  ContactScratch& s = contact_scratch();
  DynRowMatrix& tangents = s.tangents;
  tangents.resize(0, 0);
  bool friction = false;
  if (mu > 0.0 && k > 0) {
    DynRowMatrix& all = s.tangent_all;
    model_->tangent_jacobian(q1, all);
    tangents.resize(k, model_->dof());
    for (int i = 0; i < k; ++i) tangents.row(i) = all.row(active.index[i]);
    friction = (tangents.array() != 0.0).any();
  }
  if (!friction) return solve_contacts(q1, p1, t1, h, q2, p2, step_index, active, nullptr, nullptr, 0.0);
  // Coulomb friction by maximum dissipation, per resting contact one tangent: the friction
  // impulse β_i ∈ [−μλ_i, μλ_i] either holds the contact point (stick: Dt_i Δq = 0) or sits on
  // the cone's edge opposing the slip (β_i = −s_i μ λ_i, s_i = sign of Dt_i Δq). Active-set
  // iteration over the modes {stick, slide ±} — the complementarity solution of this small LCP.
  std::vector<int>& mode = s.mode;  // 0 stick, ±1 slide in that direction, kFree: β = 0
  mode.assign(static_cast<std::size_t>(k), 0);
  DynVector& guess = s.guess;
  guess = q2;
  MidpointStep result;
  std::vector<int>& visited = s.visited;  // the mode vectors tried (k each), to detect a cycle
  visited.clear();
  for (int pass = 0; pass < 4 * k + 4; ++pass) {
    bool cycling = false;
    for (std::size_t at = 0; at < visited.size() && !cycling; at += static_cast<std::size_t>(k))
      cycling = std::equal(mode.begin(), mode.end(), visited.begin() + static_cast<std::ptrdiff_t>(at));
    if (cycling) break;
    visited.insert(visited.end(), mode.begin(), mode.end());
    q2 = guess;
    result = solve_contacts(q1, p1, t1, h, q2, p2, step_index, active, &tangents, mode.data(), mu);
    bool changed = false;
    for (int i = 0; i < k; ++i) {
      const double lambda = result.impulses[i], beta = result.friction_impulses[i];
      if (lambda < 0.0) {  // pulling: no friction (the caller releases it if it still pulls)
        changed = changed || mode[i] != kFree;
        mode[i] = kFree;
      } else if (mode[i] == kFree) {
        mode[i] = 0;
        changed = true;
      } else if (mode[i] == 0) {
        if (std::abs(beta) > mu * lambda * (1.0 + 1e-9) + 1e-300) {
          mode[i] = beta > 0.0 ? -1 : 1;
          changed = true;
        }
      } else if (tangents.row(i).dot(displacement(q2, q1)) * mode[i] < 0.0) {
        mode[i] = 0;
        changed = true;
      }
    }
    if (!changed) return result;
  }
  q2 = guess;
  return enumerate_contact_modes(q1, p1, t1, h, q2, p2, step_index, active, tangents, mu);
}

MidpointStep MidpointIntegrator::enumerate_contact_modes(const DynVector& q1, const DynVector& p1, double t1,
                                                         double h, DynVector& q2, DynVector& p2,
                                                         long step_index, const ActiveContacts& active,
                                                         const DynRowMatrix& tangents, double mu) const {
  const int k = active.count;
  if (k > 5)  // 4^k Newton solves
    throw NewtonError(step_index, t1,
                      fmt::format("friction modes of {} resting contacts cycle (search limited to 5)", k));
  const DynVector guess = q2;
  const int n = model_->dof();
  int combos = 1;
  for (int i = 0; i < k; ++i) combos *= 4;
  DynVector all_phi;
  for (int released_count = 0; released_count <= k; ++released_count) {
    for (int c = 0; c < combos; ++c) {
      // digit i of c in base 4: 0 stick, 1 slide +, 2 slide −, 3 free.
      int digit[5], count = 0;
      for (int i = 0, rest = c; i < k; ++i, rest /= 4) count += (digit[i] = rest % 4) == 3;
      if (count != released_count) continue;
      ActiveContacts held;
      DynRowMatrix held_tangents(k - count, n);
      int mode[5];
      for (int i = 0; i < k; ++i) {
        if (digit[i] == 3) continue;
        held_tangents.row(held.count) = tangents.row(i);
        mode[held.count] = digit[i] == 0 ? 0 : (digit[i] == 1 ? 1 : -1);
        held.add(active.index[i]);
      }
      q2 = guess;
      MidpointStep trial;
      try {
        trial = held.count > 0
                    ? solve_contacts(q1, p1, t1, h, q2, p2, step_index, held, &held_tangents, mode, mu)
                    : step(q1, p1, t1, h, q2, p2, step_index, held);
      } catch (const NewtonError&) {
        continue;
      }
      bool consistent = true;
      if (count > 0) model_->gaps(q2, all_phi);
      for (int i = 0, j = 0; i < k && consistent; ++i) {
        if (digit[i] == 3) {
          consistent = all_phi[active.index[i]] >= -options_.release_gap_tolerance;
          continue;
        }
        const double lambda = trial.impulses[j], beta = trial.friction_impulses[j];
        consistent =
            lambda >= 0.0 && (mode[j] == 0 ? std::abs(beta) <= mu * lambda * (1.0 + 1e-9) + 1e-300
                                           : held_tangents.row(j).dot(displacement(q2, q1)) * mode[j] >= 0.0);
        ++j;
      }
      if (!consistent) continue;
      MidpointStep result;
      result.iterations = trial.iterations;
      result.residual = trial.residual;
      result.impulses = DynVector::Zero(k);
      result.friction_impulses = DynVector::Zero(k);
      result.mode_search = true;
      for (int i = 0, j = 0; i < k; ++i) {
        if (digit[i] == 3) {
          result.released |= 1u << i;
          continue;
        }
        result.impulses[i] = trial.impulses[j];
        result.friction_impulses[i] = trial.friction_impulses[j];
        ++j;
      }
      return result;
    }
  }
  throw NewtonError(
      step_index, t1,
      fmt::format("no consistent stick/slide/free modes for {} resting contacts (Coulomb μ = {})", k, mu));
}

MidpointStep MidpointIntegrator::solve_contacts(const DynVector& q1, const DynVector& p1, double t1, double h,
                                                DynVector& q2, DynVector& p2, long step_index,
                                                const ActiveContacts& active, const DynRowMatrix* tangents,
                                                const int* mode, double mu) const {
  const int n = model_->dof();
  const int k = active.count;
  const int f = tangents ? k : 0;  // friction unknowns
  MidpointStep result;
  ContactScratch& s = contact_scratch();
  DynVector& r = s.r;
  DynMatrix& jac = s.jac;
  DynRowMatrix& g1 = s.g1;  // Dφ_A at q₁ (impulse directions)
  DynVector &lambda = s.lambda, &beta = s.beta;
  lambda.setZero(k);
  beta.setZero(f);
  DynVector& phi = s.phi;
  if (k > 0) {
    DynRowMatrix& all = s.all;
    model_->gap_jacobian(q1, all);
    g1.resize(k, n);
    for (int i = 0; i < k; ++i) g1.row(i) = all.row(active.index[i]);
  }
  auto impulse = [&]() -> const DynVector& {
    DynVector& j = s.impulse;
    j.noalias() = g1.transpose() * lambda;
    if (f > 0) j.noalias() += tangents->transpose() * beta;
    return j;
  };
  // Newton on the displacement Δq = q₂ − q₁: the momentum MΔq/h of a short sub-step (near an
  // impact) keeps its precision, which q₂ − q₁ formed from rounded positions would lose.
  DynVector& dq = s.dq;
  if (group_)
    model_->difference(q2, q1, dq);
  else
    dq = q2 - q1;
  double last_residual = INFINITY;
  for (int it = 0;; ++it) {
    if (group_)
      model_->integrate(q1, dq, 1.0, q2);
    else
      q2 = q1 + dq;
    double mass_norm = 0.0;
    double scale = evaluate(q1, p1, t1, h, dq, r, p2, nullptr, &mass_norm);
    const double floor = rounding_floor(mass_norm, dq, h);
    double phi_error = 0.0, phi_scale = 1.0, rule_error = 0.0;
    if (k > 0) {
      const DynVector& j = impulse();
      r.noalias() += j;
      scale += max_abs(j);
      DynVector& all_phi = s.all_phi;
      model_->gaps(q2, all_phi);
      phi.resize(k);
      for (int i = 0; i < k; ++i) phi[i] = all_phi[active.index[i]];
      phi_error = phi.cwiseAbs().maxCoeff();
      phi_scale = max_abs(q1) + max_abs(dq) + 1e-300;
      for (int i = 0; i < f; ++i)
        rule_error = std::max(rule_error, mode[i] == 0       ? std::abs(tangents->row(i).dot(dq)) / phi_scale
                                          : mode[i] == kFree ? std::abs(beta[i]) / (max_abs(lambda) + 1e-300)
                                                             : std::abs(beta[i] + mode[i] * mu * lambda[i]) /
                                                                   (max_abs(lambda) + 1e-300));
    }
    const double rn = max_abs(r);
    const double relative = rn == 0.0 ? 0.0 : (scale > 0.0 ? rn / scale : INFINITY);
    last_residual = std::max({relative, phi_error / phi_scale, rule_error});
    const double eps16 = kRoundingFactor * std::numeric_limits<double>::epsilon();
    // Gaps formed from larger positions than q round at that length: Δq, hence MΔq/h, is known
    // only to it (0 for the built-in models: the floors below are then today's).
    const double gap_length = k > 0 ? model_->gap_length_scale(q2) : 0.0;
    const bool at_floor = rn <= std::max(floor, eps16 * mass_norm * gap_length / h);
    if ((relative <= options_.tolerance || at_floor) &&
        phi_error <= options_.tolerance * phi_scale + eps16 * std::max(phi_scale, gap_length) &&
        rule_error <= options_.tolerance + eps16) {
      result.iterations = it;
      result.residual = last_residual;
      result.impulses = lambda;
      result.friction_impulses = beta;
      if (k > 0) p2.noalias() += impulse();
      return result;
    }
    if (it >= options_.max_iterations || !std::isfinite(last_residual))
      throw NewtonError(step_index, t1, it, last_residual, options_.tolerance);
    evaluate(q1, p1, t1, h, dq, r, p2, &jac, nullptr);
    if (k == 0) {
      s.lu.compute(jac);
      r = s.lu.solve(r);
      dq -= r;
    } else {
      DynRowMatrix& all = s.all;
      model_->gap_jacobian(q2, all);
      const int size = n + k + f;
      AugmentedMatrix& a = s.a;
      a.setZero(size, size);
      AugmentedVector& b = s.b;
      b.resize(size);
      a.topLeftCorner(n, n) = jac;
      for (int i = 0; i < k; ++i) {
        a.block(0, n + i, n, 1) = g1.row(i).transpose();
        a.block(n + i, 0, 1, n) = all.row(active.index[i]);
      }
      b.head(n) = r + impulse();
      b.segment(n, k) = phi;
      for (int i = 0; i < f; ++i) {
        a.block(0, n + k + i, n, 1) = tangents->row(i).transpose();
        if (mode[i] == 0) {
          a.block(n + k + i, 0, 1, n) = tangents->row(i);
          b[n + k + i] = tangents->row(i).dot(dq);
        } else if (mode[i] == kFree) {
          a(n + k + i, n + k + i) = 1.0;
          b[n + k + i] = beta[i];
        } else {
          a(n + k + i, n + k + i) = 1.0;
          a(n + k + i, n + i) = mode[i] * mu;
          b[n + k + i] = beta[i] + mode[i] * mu * lambda[i];
        }
      }
      s.lu.compute(a);
      AugmentedVector& dx = s.dx;
      dx = s.lu.solve(b);
      dq -= dx.head(n);
      lambda -= dx.segment(n, k);
      if (f > 0) beta -= dx.tail(f);
    }
  }
}

DynVector MidpointIntegrator::displacement(const DynVector& q2, const DynVector& q1) const {
  if (!group_) return q2 - q1;
  DynVector v;
  model_->difference(q2, q1, v);
  return v;
}

double MidpointIntegrator::evaluate_group(const DynVector& q1, const DynVector& p1, double t1, double h,
                                          const DynVector& x, DynVector& r, DynVector& p2,
                                          DynMatrix* jacobian, double* mass_norm) const {
  const Mechanism& model = *model_;
  DynVector qm, t_q, t_v, v_q, f;
  model.integrate(q1, x, 0.5, qm);
  const DynVector xi = x / h;
  model.momentum_terms(qm, xi, t_q, t_v, v_q);
  DynVector g = t_q - v_q;
  double scale = max_abs(p1) + max_abs(t_v) + 0.5 * h * (max_abs(t_q) + max_abs(v_q));
  const bool forced = model.has_forces();
  if (forced) {
    model.force(qm, xi, t1 + 0.5 * h, f, nullptr, nullptr);
    g += f;
    scale += 0.5 * h * max_abs(f);
  }
  // Euclidean coordinates: the rule on R^n; then each rotation block in the Lie algebra.
  r = p1 + 0.5 * h * g - t_v;
  p2 = p1 + h * g;
  for (int b : model.rotation_blocks()) {
    const Eigen::Vector3d xb = x.segment<3>(b), gb = g.segment<3>(b), pb = p1.segment<3>(b);
    const Eigen::Matrix3d r1 = so3_exp(xb), rh = so3_exp(0.5 * xb);
    const Eigen::Vector3d nu =
        t_v.segment<3>(b) + (0.5 * h) * (so3_right_jacobian(0.5 * xb).transpose() * gb);
    const Eigen::Vector3d w = so3_right_jacobian_inverse(xb).transpose() * nu;
    r.segment<3>(b) = pb + h * (rh * gb) - r1 * w;
    p2.segment<3>(b) = r1.transpose() * pb + h * (rh.transpose() * gb);
  }
  if (forced && options_.force_split != 0.5) r += (options_.force_split - 0.5) * h * f;
  // A model whose ∂T/∂q are central differences of M rounds them at ~ε·|M v|·|v|/step: h/2 of that
  // is a floor under |R| that Newton cannot pass (measured up to 3e-12·s on the humanoid's feet
  // flung by an impact); it joins the scale so that the relative test stops there.
  if (model.gradient_step() > 0.0 && options_.tolerance > 0.0)
    scale += 64.0 * std::numeric_limits<double>::epsilon() * max_abs(t_v) * max_abs(xi) * 0.5 * h /
             (model.gradient_step() * options_.tolerance);
  if (mass_norm) *mass_norm = model.mass_matrix(qm).cwiseAbs().rowwise().sum().maxCoeff();
  if (jacobian) {
    // ∂R/∂x by forward differences: Newton's matrix only (the test is on R itself).
    const Eigen::Index n = x.size();
    jacobian->resize(n, n);
    DynVector xp = x, rp, pp;
    for (Eigen::Index j = 0; j < n; ++j) {
      xp[j] = x[j] + 1e-8 * std::max(1.0, std::abs(x[j]));
      const double dx = xp[j] - x[j];
      evaluate_group(q1, p1, t1, h, xp, rp, pp, nullptr, nullptr);
      jacobian->col(j) = (rp - r) / dx;
      xp[j] = x[j];
    }
  }
  return scale;
}

}  // namespace simpact
