// The midpoint variational integrator (paper Sec. VI, eqs. 28–29). With h the step,
//   L_d(q₁, q₂) = h·L(q_m, v),  q_m = (q₁+q₂)/2,  v = (q₂−q₁)/h,
//   D₁L_d = h/2 (T_q − V_q) − T_v,   D₂L_d = h/2 (T_q − V_q) + T_v   (at (q_m, v)),
// and the forced DEL in momentum form, with the force split evenly over the step (F± = h/2·F at
// (q_m, v, t_m), which keeps the method symmetric and of order 2; the two halves sum to the h·F
// of the form):
//   p₁ + D₁L_d(q₁, q₂) + h/2·F = 0   — solved for q₂ by Newton with the exact Jacobian
//   J = h/4 (T_qq − V_qq + F_q) + ½ (T_qv − T_qvᵀ + F_v) − M/h,
//   p₂ = D₂L_d(q₁, q₂) + h/2·F.
// On a group (Mechanism::rotation_blocks(): ball joints, free joints) the same rule is taken in
// the Lie algebra (a Lie-group variational integrator): the unknown is the step's velocity
// ξ ∈ R^nv (Newton on x = hξ), q₂ = q₁ ⊕ x, q_m = q₁ ⊕ x/2, L_d = h·L(q_m, ξ), with g = T_q − V_q
// (+ F) the left-trivialized derivative at (q_m, ξ) (central differences through ⊕). Per rotation
// block, with R₁ = exp(x), R½ = exp(x/2), J_r the right Jacobian of SO(3)'s exp:
//   ν = M(q_m)ξ + h/2·J_r(x/2)ᵀg,  w = J_r(x)⁻ᵀν,
//   R = p₁ + h·R½·g − R₁·w = 0,   p₂ = w = R₁ᵀp₁ + h·R½ᵀg,
// and on Euclidean coordinates (R₁ = R½ = J_r = I) exactly the rule above. Newton's matrix is then
// a forward difference of R (the simplified Newton reuses it as on R^n).
// Convergence is tested relative to the problem: |R|∞ ≤ tolerance · s with
// s = |p₁|∞ + |T_v|∞ + h/2 (|T_q|∞ + |V_q|∞ + |F|∞), the size of the terms that cancel in R
// (an absolute residual tolerance fails on large or heavy systems), or |R|∞ ≤ 16 ε |M|∞ (|q₁|∞ + |q₂|∞)/h,
// the floor that rounding q₂ to doubles puts on T_v = M(q₂−q₁)/h (short sub-steps near an impact,
// slow motion). Non-convergence throws
// NewtonError naming the step, the time and the residual.
// Resting contacts (after a plastic Zeno impact) are held by impulses at q₁:
//   p₁ + D₁L_d + h/2·F + Dφ_A(q₁)ᵀλ = 0,  φ_A(q₂) = 0,
// solved for (q₂, λ) by the same Newton; λ < 0 (pulling) tells the caller to release a contact.
// With Coulomb friction (Mechanism::friction_coefficient() > 0) a tangential impulse Dt_A(q₁)ᵀβ
// joins λ: stick (Dt_i Δq = 0) or slide (β_i = ∓μλ_i against the slip), modes by active set.
#pragma once

#include <Eigen/LU>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "simpact/models/mechanism.hpp"

namespace simpact {

struct NewtonOptions {
  double tolerance = 1e-12;  // relative to the residual's scale s (see above)
  int max_iterations = 50;
  // Simplified Newton: reuse the factorized Jacobian of an earlier iterate (of this step or, with
  // a MidpointWorkspace, of earlier steps of the same length) while it contracts the residual by
  // at least 1/`refresh_ratio` per iteration; otherwise refactor at the current iterate (and from
  // then on in this step: exact Newton). The converged solution is the same (the test is on R).
  bool reuse_jacobian = true;
  double refresh_ratio = 3e-3;
  // θ ∈ [½, 1]: the share of the force impulse h·F(q_m, v, t_m) applied in the q₂ equation,
  //   p₁ + D₁L_d + θ·h·F = 0,   p₂ = D₂L_d + (1 − θ)·h·F.
  // ½ (default) is the symmetric, second-order split above. θ = 1 is L-stable on stiff damping:
  // for a damper c with h·c/m ≫ 1 the split ½ leaves p₂ ≈ −p₁ (the discrete momentum rings at
  // the Nyquist frequency while q hardly moves), θ = 1 gives p₂ = m p₁/(m + h c); the force
  // terms are then first order in h.
  double force_split = 0.5;
  // A resting contact the exact contact-mode search (below) leaves free must not sink deeper
  // than this by the end of the step [length of the gaps]; the Simulator sets its own.
  double release_gap_tolerance = 1e-12;
};

class NewtonError : public std::runtime_error {
 public:
  NewtonError(long step, double time, int iterations, double residual, double tolerance);
  NewtonError(long step, double time, const std::string& what);  // no consistent contact modes
  long step() const { return step_; }
  double residual() const { return residual_; }

 private:
  long step_;
  double residual_;
};

// Indices of the contacts held closed during a step (resting after a plastic impact).
struct ActiveContacts {
  int count = 0;
  std::vector<int> index;  // the first `count` entries
  void add(int contact) {
    if (static_cast<int>(index.size()) <= count) index.resize(static_cast<std::size_t>(count) + 1);
    index[static_cast<std::size_t>(count++)] = contact;
  }
};

// The factorized Newton Jacobian kept between steps (simplified Newton); one per trajectory
// (not shared between threads). reset() forgets it.
struct MidpointWorkspace {
  bool valid = false;
  int n = 0;
  double h = 0.0;          // the step length it was formed for
  double mass_norm = 0.0;  // |M|∞ at that iterate (the residual's rounding floor)
  Eigen::PartialPivLU<DynMatrix> lu;
  // Scratch of the Newton loop, sized at the first step (no allocation per step after it).
  DynVector r, dq, y, qm, v, t_q, t_v, v_q, g, f;
  DynMatrix jacobian, f_q, f_v;
  long factorizations = 0;  // counters (benchmarks, tests)
  void reset() { valid = false; }
};

struct MidpointStep {
  int iterations = 0;
  double residual = 0.0;        // |R|∞ / s at the solution
  DynVector impulses;           // λ of the active contacts (empty when none)
  DynVector friction_impulses;  // β along their tangents (empty when frictionless)
  // Resting contacts the exact mode search left free in this solution (λ = β = 0 there, and
  // their gaps end the step ≥ −release_gap_tolerance): the caller releases them after the step.
  std::uint32_t released = 0;  // bit i: active.index[i] (the mode search takes at most 5 contacts)
  bool mode_search = false;    // the active-set iteration cycled and the modes were enumerated
};

class MidpointIntegrator {
 public:
  explicit MidpointIntegrator(const Mechanism& model, NewtonOptions options = {})
      : model_(&model), options_(options), group_(model.on_group()) {}
  const Mechanism& model() const { return *model_; }
  const NewtonOptions& options() const { return options_; }

  // One step of length h from (q₁, p₁) at time t₁. q₂ holds the initial guess on entry (pass
  // q₁ + h·v of the previous step, or q₁ + h M⁻¹p₁) and the solution on return; p₂ is the
  // discrete momentum at q₂. `step` names the step in errors.
  MidpointStep step(const DynVector& q1, const DynVector& p1, double t1, double h, DynVector& q2,
                    DynVector& p2, long step, const ActiveContacts& active = {}) const;
  // The same, reusing (and updating) the Jacobian factorization kept in `workspace`.
  MidpointStep step(const DynVector& q1, const DynVector& p1, double t1, double h, DynVector& q2,
                    DynVector& p2, long step, const ActiveContacts& active,
                    MidpointWorkspace& workspace) const;

  // The DEL residual R(q₂) = p₁ + D₁L_d + h/2·F (without contact impulses) and p₂; exposed for tests.
  void residual(const DynVector& q1, const DynVector& p1, double t1, double h, const DynVector& q2,
                DynVector& r, DynVector& p2, DynMatrix* jacobian) const;

 private:
  // R, p₂ and (optionally) ∂R/∂q₂ at q₂ = q₁ + dq; returns the scale s.
  double evaluate(const DynVector& q1, const DynVector& p1, double t1, double h, const DynVector& dq,
                  DynVector& r, DynVector& p2, DynMatrix* jacobian, double* floor) const;
  // R and p₂ only (Mechanism::momentum_terms: no mass matrix); returns s.
  double evaluate_residual(const DynVector& q1, const DynVector& p1, double t1, double h, const DynVector& dq,
                           DynVector& r, DynVector& p2, MidpointWorkspace& ws) const;
  // ∂R/∂q₂ at q₂ = q₁ + dq (Mechanism::del_matrix plus the forces' derivatives) and |M|∞.
  void del_jacobian(const DynVector& q1, double t1, double h, const DynVector& dq, DynMatrix& jac,
                    double& mass_norm, MidpointWorkspace& ws) const;
  MidpointStep step_with_contacts(const DynVector& q1, const DynVector& p1, double t1, double h,
                                  DynVector& q2, DynVector& p2, long step,
                                  const ActiveContacts& active) const;
  // Every combination of {stick, slide +, slide −, free} per resting contact, fewest free first:
  // the first consistent one (λ ≥ 0, |β| ≤ μλ at stick, slip along its sign at slide, a free
  // contact's gap ≥ −release_gap_tolerance). The greedy mode update can cycle (seen on the trex
  // with a foot and the tail resting); this is the exact solution of the small LCP.
  MidpointStep enumerate_contact_modes(const DynVector& q1, const DynVector& p1, double t1, double h,
                                       DynVector& q2, DynVector& p2, long step, const ActiveContacts& active,
                                       const DynRowMatrix& tangents, double mu) const;
  // Newton for (Δq, λ, β) with the friction modes fixed (tangents == nullptr: frictionless).
  MidpointStep solve_contacts(const DynVector& q1, const DynVector& p1, double t1, double h, DynVector& q2,
                              DynVector& p2, long step, const ActiveContacts& active,
                              const DynRowMatrix* tangents, const int* mode, double mu) const;

  // The group form (see above): R and p₂ at x = hξ; returns s. jacobian: ∂R/∂x by forward
  // differences; mass_norm: |M(q_m)|∞.
  double evaluate_group(const DynVector& q1, const DynVector& p1, double t1, double h, const DynVector& x,
                        DynVector& r, DynVector& p2, DynMatrix* jacobian, double* mass_norm) const;
  // q₂ − q₁ in velocity coordinates (R^n: the difference; on a group: log(q₁⁻¹q₂)).
  DynVector displacement(const DynVector& q2, const DynVector& q1) const;

  const Mechanism* model_;
  NewtonOptions options_;
  bool group_ = false;
};

}  // namespace simpact
