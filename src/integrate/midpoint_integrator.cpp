#include "simpact/integrate/midpoint_integrator.hpp"

#include <fmt/format.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>

namespace simpact {

namespace {
constexpr int kMaxAugmented = kMaxDof + 2 * kMaxContacts;
using AugmentedVector = Eigen::Matrix<double, Eigen::Dynamic, 1, Eigen::ColMajor, kMaxAugmented, 1>;
using AugmentedMatrix =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, kMaxAugmented, kMaxAugmented>;

constexpr double kRoundingFactor = 16.0;
constexpr int kFree = 2;  // friction mode of a pulling resting contact: no tangential impulse
inline double max_abs(const DofVector& x) {
  double m = 0.0;
  for (Eigen::Index i = 0; i < x.size(); ++i) m = std::max(m, std::abs(x[i]));
  return m;
}
// The residual's rounding floor: Δq is known to a few ulps, and T_v = MΔq/h carries that error.
double rounding_floor(double mass_norm, const DofVector& dq, double h) {
  return kRoundingFactor * std::numeric_limits<double>::epsilon() * mass_norm * max_abs(dq) / h;
}
// x −= LU⁻¹ r with PA = LU: forward and back substitution in plain loops (Eigen's generic
// triangular solver costs more than the arithmetic at these sizes).
inline void lu_solve_subtract(const Eigen::PartialPivLU<DofMatrix>& lu, const DofVector& r, DofVector& x) {
  const DofMatrix& m = lu.matrixLU();
  const auto& perm = lu.permutationP().indices();
  const Eigen::Index n = r.size();
  double y[kMaxDof];
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

double MidpointIntegrator::evaluate(const DofVector& q1, const DofVector& p1, double t1, double h,
                                    const DofVector& dq, DofVector& r, DofVector& p2, DofMatrix* jacobian,
                                    double* mass_norm) const {
  const DynamicModel& model = *model_;
  // q₂ = q₁ + Δq with Δq the unknown (see step()): v = Δq/h without cancellation.
  const DofVector qm = q1 + 0.5 * dq;
  const DofVector v = dq / h;
  KineticDerivatives k;
  model.kinetic(qm, v, jacobian != nullptr, k);
  DofVector vq;
  DofMatrix vqq;
  model.potential(qm, vq, jacobian ? &vqq : nullptr);
  DofVector generalized = k.t_q - vq;  // T_q − V_q (+ F)
  double scale = max_abs(p1) + max_abs(k.t_v) + 0.5 * h * (max_abs(k.t_q) + max_abs(vq));
  DofMatrix fq, fv;
  DofVector f_split;  // (θ − ½)·h·F: the q₂ equation's share of the force beyond the symmetric half
  const bool forced = model.has_forces();
  if (forced) {
    DofVector f;
    model.force(qm, v, t1 + 0.5 * h, f, jacobian ? &fq : nullptr, jacobian ? &fv : nullptr);
    generalized += f;
    scale += 0.5 * h * max_abs(f);
    if (options_.force_split != 0.5) f_split = (options_.force_split - 0.5) * h * f;
  }
  if (mass_norm) *mass_norm = k.mass.cwiseAbs().rowwise().sum().maxCoeff();
  r = p1 + 0.5 * h * generalized - k.t_v;
  if (f_split.size() > 0) r += f_split;
  // p₂ = D₂L_d + h/2·F = p₁ + h(T_q − V_q + F) − R: written in the second form, every momentum
  // component the system conserves (a cyclic coordinate) is conserved exactly, whatever R is.
  p2 = p1 + h * generalized;
  if (jacobian) {
    DofMatrix& jac = *jacobian;
    jac = (0.25 * h) * (k.t_qq - vqq) + 0.5 * (k.t_qv - k.t_qv.transpose()) - k.mass / h;
    if (forced) jac += options_.force_split * ((0.5 * h) * fq + fv);
  }
  return scale;
}

void MidpointIntegrator::residual(const DofVector& q1, const DofVector& p1, double t1, double h,
                                  const DofVector& q2, DofVector& r, DofVector& p2,
                                  DofMatrix* jacobian) const {
  evaluate(q1, p1, t1, h, DofVector(q2 - q1), r, p2, jacobian, nullptr);
}

double MidpointIntegrator::evaluate_residual(const DofVector& q1, const DofVector& p1, double t1, double h,
                                             const DofVector& dq, DofVector& r, DofVector& p2) const {
  const DynamicModel& model = *model_;
  const DofVector qm = q1 + 0.5 * dq;
  const DofVector v = dq / h;
  DofVector t_q, t_v, v_q;
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
  DofVector generalized = t_q - v_q;
  if (model.has_forces()) {
    DofVector f;
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

void MidpointIntegrator::del_jacobian(const DofVector& q1, double t1, double h, const DofVector& dq,
                                      DofMatrix& jac, double& mass_norm) const {
  const DofVector qm = q1 + 0.5 * dq;
  const DofVector v = dq / h;
  model_->del_matrix(qm, v, -1.0 / h, 0.5, 0.25 * h, jac, mass_norm);
  if (model_->has_forces()) {
    DofVector f;
    DofMatrix fq, fv;
    model_->force(qm, v, t1 + 0.5 * h, f, &fq, &fv);
    jac += options_.force_split * ((0.5 * h) * fq + fv);
  }
}

MidpointStep MidpointIntegrator::step(const DofVector& q1, const DofVector& p1, double t1, double h,
                                      DofVector& q2, DofVector& p2, long step_index,
                                      const ActiveContacts& active) const {
  MidpointWorkspace workspace;
  return step(q1, p1, t1, h, q2, p2, step_index, active, workspace);
}

MidpointStep MidpointIntegrator::step(const DofVector& q1, const DofVector& p1, double t1, double h,
                                      DofVector& q2, DofVector& p2, long step_index,
                                      const ActiveContacts& active, MidpointWorkspace& ws) const {
  if (active.count > 0) return step_with_contacts(q1, p1, t1, h, q2, p2, step_index, active);
  const int n = model_->dof();
  // A factorization formed for another step length (a sub-step near an impact) is not reused:
  // J = −M/h + O(h) scales with 1/h.
  if (!options_.reuse_jacobian || !ws.valid || ws.n != n || !(std::abs(h - ws.h) <= 1e-3 * h))
    ws.valid = false;
  MidpointStep result;
  DofVector r;
  DofMatrix jac;
  DofVector dq = q2 - q1;                 // Newton on Δq = q₂ − q₁ (see step_with_contacts)
  bool fresh = false;                     // factorized at an iterate of this step
  bool exact = !options_.reuse_jacobian;  // refactor at every iterate (exact Newton)
  double previous = INFINITY;
  for (int it = 0;; ++it) {
    const double scale = evaluate_residual(q1, p1, t1, h, dq, r, p2);
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
        del_jacobian(q1, t1, h, dq, jac, ws.mass_norm);
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
      q2 = q1 + dq;
      result.iterations = it;
      result.residual = relative;
      result.impulses.resize(0);
      return result;
    }
    lu_solve_subtract(ws.lu, r, dq);
    previous = rn;
  }
}

MidpointStep MidpointIntegrator::step_with_contacts(const DofVector& q1, const DofVector& p1, double t1,
                                                    double h, DofVector& q2, DofVector& p2, long step_index,
                                                    const ActiveContacts& active) const {
  const int k = active.count;
  const double mu = model_->friction_coefficient();
  NormalMatrix tangents;
  bool friction = false;
  if (mu > 0.0 && k > 0) {
    NormalMatrix all;
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
  int mode[kMaxContacts] = {};  // 0 stick, ±1 slide in that direction, kFree: β = 0
  const DofVector guess = q2;
  MidpointStep result;
  std::uint32_t visited[4 * kMaxContacts + 4];  // the mode vectors tried, to detect a cycle
  for (int pass = 0; pass < 4 * k + 4; ++pass) {
    std::uint32_t code = 0;
    for (int i = 0; i < k; ++i) code = code * 4u + static_cast<std::uint32_t>(mode[i] + 1);
    if (std::find(visited, visited + pass, code) != visited + pass) break;  // cycling
    visited[pass] = code;
    q2 = guess;
    result = solve_contacts(q1, p1, t1, h, q2, p2, step_index, active, &tangents, mode, mu);
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
      } else if (tangents.row(i).dot(q2 - q1) * mode[i] < 0.0) {
        mode[i] = 0;
        changed = true;
      }
    }
    if (!changed) return result;
  }
  q2 = guess;
  return enumerate_contact_modes(q1, p1, t1, h, q2, p2, step_index, active, tangents, mu);
}

MidpointStep MidpointIntegrator::enumerate_contact_modes(const DofVector& q1, const DofVector& p1, double t1,
                                                         double h, DofVector& q2, DofVector& p2,
                                                         long step_index, const ActiveContacts& active,
                                                         const NormalMatrix& tangents, double mu) const {
  const int k = active.count;
  if (k > 5)  // 4^k Newton solves
    throw NewtonError(step_index, t1,
                      fmt::format("friction modes of {} resting contacts cycle (search limited to 5)", k));
  const DofVector guess = q2;
  const int n = model_->dof();
  int combos = 1;
  for (int i = 0; i < k; ++i) combos *= 4;
  ContactVector all_phi;
  for (int released_count = 0; released_count <= k; ++released_count) {
    for (int c = 0; c < combos; ++c) {
      // digit i of c in base 4: 0 stick, 1 slide +, 2 slide −, 3 free.
      int digit[kMaxContacts], count = 0;
      for (int i = 0, rest = c; i < k; ++i, rest /= 4) count += (digit[i] = rest % 4) == 3;
      if (count != released_count) continue;
      ActiveContacts held;
      NormalMatrix held_tangents(k - count, n);
      int mode[kMaxContacts];
      for (int i = 0; i < k; ++i) {
        if (digit[i] == 3) continue;
        held_tangents.row(held.count) = tangents.row(i);
        mode[held.count] = digit[i] == 0 ? 0 : (digit[i] == 1 ? 1 : -1);
        held.index[held.count++] = active.index[i];
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
        consistent = lambda >= 0.0 && (mode[j] == 0 ? std::abs(beta) <= mu * lambda * (1.0 + 1e-9) + 1e-300
                                                    : held_tangents.row(j).dot(q2 - q1) * mode[j] >= 0.0);
        ++j;
      }
      if (!consistent) continue;
      MidpointStep result;
      result.iterations = trial.iterations;
      result.residual = trial.residual;
      result.impulses = ContactVector::Zero(k);
      result.friction_impulses = ContactVector::Zero(k);
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

MidpointStep MidpointIntegrator::solve_contacts(const DofVector& q1, const DofVector& p1, double t1, double h,
                                                DofVector& q2, DofVector& p2, long step_index,
                                                const ActiveContacts& active, const NormalMatrix* tangents,
                                                const int* mode, double mu) const {
  const int n = model_->dof();
  const int k = active.count;
  const int f = tangents ? k : 0;  // friction unknowns
  MidpointStep result;
  DofVector r;
  DofMatrix jac;
  NormalMatrix g1;  // Dφ_A at q₁ (impulse directions)
  ContactVector lambda = ContactVector::Zero(k), beta = ContactVector::Zero(f);
  ContactVector phi;
  if (k > 0) {
    NormalMatrix all;
    model_->gap_jacobian(q1, all);
    g1.resize(k, n);
    for (int i = 0; i < k; ++i) g1.row(i) = all.row(active.index[i]);
  }
  auto impulse = [&]() {
    DofVector j = g1.transpose() * lambda;
    if (f > 0) j.noalias() += tangents->transpose() * beta;
    return j;
  };
  // Newton on the displacement Δq = q₂ − q₁: the momentum MΔq/h of a short sub-step (near an
  // impact) keeps its precision, which q₂ − q₁ formed from rounded positions would lose.
  DofVector dq = q2 - q1;
  double last_residual = INFINITY;
  for (int it = 0;; ++it) {
    q2 = q1 + dq;
    double mass_norm = 0.0;
    double scale = evaluate(q1, p1, t1, h, dq, r, p2, nullptr, &mass_norm);
    const double floor = rounding_floor(mass_norm, dq, h);
    double phi_error = 0.0, phi_scale = 1.0, rule_error = 0.0;
    if (k > 0) {
      const DofVector j = impulse();
      r.noalias() += j;
      scale += max_abs(j);
      ContactVector all_phi;
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
      r = jac.partialPivLu().solve(r);
      dq -= r;
    } else {
      NormalMatrix all;
      model_->gap_jacobian(q2, all);
      const int size = n + k + f;
      AugmentedMatrix a = AugmentedMatrix::Zero(size, size);
      AugmentedVector b(size);
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
      const AugmentedVector dx = a.partialPivLu().solve(b);
      dq -= dx.head(n);
      lambda -= dx.segment(n, k);
      if (f > 0) beta -= dx.tail(f);
    }
  }
}

}  // namespace simpact
