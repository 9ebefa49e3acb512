// Time stepping through impacts (paper Sec. VI, eq. 30, and VII-B). Each step of Δt runs the
// midpoint DEL (midpoint_integrator.hpp); when a gap ends the step below −gap_tolerance:
//  1. localize: the impact time t* ∈ [t, t+h] where the smallest crossing gap reaches 0, by the
//     Illinois method on τ ↦ min_i φ_i(q(τ)) with q(τ) the DEL solution over a sub-step τ, to
//     localization_tolerance·Δt; t* is the bracket's non-penetrating end;
//  2. the impact's closed contacts: every contact with φ_i(q*) ≤ gap_tolerance, and every crossing
//     contact whose gap closes by t* + simultaneity_tolerance (one simultaneous impact);
//  3. reset the discrete momentum at q* (eq. 30): the propagative resolution of the ordering policy
//     with restitution R, in the metric of M(q*) (core resolve_impact);
//  4. finish the step from (t*, q*, p*⁺) — more impacts may follow inside the same step.
// Zeno (Sec. VII-B): a contact that hits again less than Δt after its previous impact chatters
// faster than the step; that impact is resolved plastic (R = 0), recorded as such, and the
// contacts it leaves active rest: they are held closed by impulses (MidpointIntegrator's active
// set) until the impulse would pull (λ < 0). A contact pushed closed by forces alone (crossing
// with a momentum that already satisfies it) rests the same way.
#pragma once

#include <Eigen/Cholesky>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "simpact/core/impact_resolution.hpp"
#include "simpact/core/ordering_policy.hpp"
#include "simpact/integrate/midpoint_integrator.hpp"
#include "simpact/models/mechanism.hpp"

namespace simpact {

struct SimulationOptions {
  double dt = 1e-3;                                 // [s]
  long steps = 0;                                   // steps of dt
  OrderingPolicy policy = OrderingPolicy::kArgmin;  // a single policy (not kAll)
  double restitution = 1.0;
  double simultaneity_tolerance = -1.0;   // [s]; < 0: 1e-9·dt
  double gap_tolerance = kGapTolerance;   // [length of the gaps]
  double localization_tolerance = 1e-12;  // relative to dt
  NewtonOptions newton;
  bool monitor_energy = true;  // energy after every step (max drift between impacts)
  int max_impacts_per_step = 100;
  std::uint64_t seed = 0;          // the random policy's draws are keyed by (seed, impact number)
  std::vector<long> record_steps;  // states recorded after these steps (0: the initial state)

  double simultaneity() const { return simultaneity_tolerance < 0.0 ? 1e-9 * dt : simultaneity_tolerance; }
};

// An impact the integrator could not resolve (a core cap hit, an unverified plastic outcome,
// more than max_impacts_per_step impacts in one step): never a silent result.
class ImpactError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The state left the doubles (NaN or ±Inf) — an extreme input (a speed, a stiffness, a time step
// far outside the model's scale) can get there without Newton noticing, since a NaN residual
// compares false with every tolerance. The run stops at the first such step: never NaN records.
class NonFiniteStateError : public std::runtime_error {
 public:
  NonFiniteStateError(long step, double time);
  long step() const { return step_; }

 private:
  long step_;
};

struct ImpactRecord {
  long step = 0;              // the step (1-based: step k ends at t = k·dt) in which it happened
  double t = 0.0;             // t* [s]
  std::vector<int> contacts;  // the model's contact indices closed in this impact
  std::vector<int> sequence;  // the reflections, as model contact indices (empty when plastic)
  double restitution = 1.0;   // R used (0 for a Zeno impact)
  OrderingPolicy policy = OrderingPolicy::kArgmin;
  bool plastic = false;  // resolved plastic (Zeno chatter or no elastic outcome)
  bool zeno = false;
  std::string status;                              // core ResolveStatus name
  double energy_before = 0.0, energy_after = 0.0;  // total energy T + V at q* [J]
  DynVector momentum_before, momentum_after;
  DynVector configuration;  // q* (nq)
};

struct StateRecord {
  long step = 0;
  double t = 0.0;
  DynVector q, p;
  double energy = 0.0;
};

class Simulator {
 public:
  Simulator(const Mechanism& model, SimulationOptions options);
  // Throws NonFiniteStateError (step 0) for a NaN or infinite q0 or p0.
  void reset(const DynVector& q0, const DynVector& p0, double t0 = 0.0);
  // One step of Δt, impacts included. Throws NewtonError, ImpactError or NonFiniteStateError.
  void advance();

  const DynVector& q() const { return q_; }
  const DynVector& p() const { return p_; }
  double t() const { return t_; }
  long step() const { return step_; }
  double energy() const { return model_->energy(q_, p_); }  // as Mechanism::energy, bit for bit
  const std::vector<ImpactRecord>& impacts() const { return impacts_; }
  int last_step_iterations() const { return last_iterations_; }
  long jacobian_factorizations() const { return newton_.factorizations; }  // since construction
  double max_energy_drift() const { return max_drift_; }                   // [J], over steps without impacts
  const ActiveContacts& resting() const { return resting_; }
  // Energy bookkeeping since reset() [J]: the work h·F(q_m, v, t_m)·v of the non-conservative
  // forces over every accepted (sub-)step (exactly the force the DEL applied), the energy the
  // impulses holding resting contacts put in (J at q₁: Jᵀ M⁻¹(p₁ + J/2)), the same for their
  // friction impulses, and the energy change of
  // the impacts (≤ 0).
  double force_work() const { return force_work_; }
  double contact_work() const { return contact_work_; }
  double friction_work() const { return friction_work_; }  // Coulomb friction of resting contacts
  double impact_energy_change() const { return impact_energy_change_; }
  double plastic_impact_energy_change() const {
    return plastic_energy_change_;
  }  // its plastic impacts' share
  // force_work() is F·Δq by the model's force parts (Mechanism::force_part_name: springs,
  // dampers, drives, ...) plus, with a force split θ ≠ ½, the energy of the split's impulses.
  const std::vector<double>& force_work_parts() const { return force_work_parts_; }
  double force_split_work() const { return split_work_; }
  // Steps (and sub-steps) whose resting contacts' stick/slide/free modes were found by the
  // integrator's exhaustive search because the active-set iteration cycled.
  long contact_mode_searches() const { return mode_searches_; }

 private:
  // DEL solution over a sub-step τ from the current state; returns the resting contacts' impulses.
  MidpointStep sub_step(double tau, DynVector& q2, DynVector& p2);
  void resolve(const DynVector& qs, const DynVector& ps, double ts, const DynVector& phi_star,
               const int* hitting, int hitting_count, DynVector& p_after, bool& any_impact);

  const Mechanism* model_;
  SimulationOptions options_;
  MidpointIntegrator integrator_;
  MidpointWorkspace newton_;   // the Jacobian factorization reused between steps
  ImpactWorkspace workspace_;  // the reset's fixed path (d ≤ kMaxDof, ≤ kMaxContacts closed contacts)
  std::unique_ptr<DynamicImpactWorkspace> dynamic_workspace_;  // beyond it, made at the first such impact
  bool group_ = false;  // the model's configuration lives on a group (Mechanism::on_group)
  // q ⊕ h·v (q + h·v on R^n) and (q₂ ⊖ q₁)/h.
  void advance_from(const DynVector& q, const DynVector& v, double h, DynVector& out) const;
  void mean_velocity(const DynVector& q2, const DynVector& q1, double h, DynVector& out) const;
  // Newton's initial guess: q + h·(4v − 6v₋₁ + 4v₋₂ − v₋₃) from the mean velocities of the last
  // four clean steps (cubic extrapolation of the mean velocity: the guess's error is O(h⁵), so one
  // simplified-Newton correction usually meets the 1e-12 tolerance — chain 2: 1.01 corrections per
  // step, was 1.95 with three); fewer after a reset or an impact.
  DynVector q_, p_, v_guess_, v_prev_, v_prev2_, v_prev3_, v_extrapolated_;
  int history_ = 0;  // clean mean velocities behind v_guess_ (0..3)
  double t0_ = 0.0, t_ = 0.0;
  long step_ = 0;
  ActiveContacts resting_;
  std::vector<double> last_impact_;
  // Zeno chatter (see zeno_chatter): each contact's approach speed at its last impact, and the
  // contacts that took an impulse in the most recent impact.
  std::vector<double> last_approach_;
  std::vector<char> last_hit_;
  std::vector<int> crossing_, hitting_, closed_;  // per-step scratch, sized once (one per contact)
  std::vector<double> approach_;
  DynVector q2_, p2_, phi_;                                  // advance()'s step, sized once
  DynVector work_dq_, work_qm_, work_v_, work_f_, work_fp_;  // account_work()'s
  DynVector work_jn_, work_jf_, work_x_, work_y_, work_held_, work_c_;
  DynRowMatrix work_normals_, work_tangents_;
  ActiveContacts after_step_, kept_;  // advance()'s resting sets
  // The energy monitor's scratch: E = ½ pᵀM⁻¹p + V(q) as Mechanism::energy, without allocating.
  KineticDerivatives kinetic_;
  Eigen::LLT<DynMatrix> mass_factor_;
  DynVector zero_velocity_, velocity_, gradient_;
  double monitored_energy();
  mutable std::vector<char> hit_;
  // True if a hitting contact chatters: hit again less than Δt after its last impact, with a
  // lower approach speed than then (geometric decay), and no other contact hit in between.
  bool zeno_chatter(double ts, const int* hitting, int hitting_count, const double* approach) const;
  std::vector<ImpactRecord> impacts_;
  int last_iterations_ = 0;
  int iterations_ = 0;
  double reference_energy_ = 0.0;
  double max_drift_ = 0.0;
  double force_work_ = 0.0, contact_work_ = 0.0, friction_work_ = 0.0, impact_energy_change_ = 0.0;
  long mode_searches_ = 0;
  double plastic_energy_change_ = 0.0, split_work_ = 0.0;
  std::vector<double> force_work_parts_;
  // Adds the forces' work over the segment (q_, p_) → (q2, p2) of length h from t_.
  void account_work(const DynVector& q2, const DynVector& p2, double h, const MidpointStep& step);
};

// Where the energy went over a run [J]: E_final − E_initial = Σ work + residual, the work by
// source — the model's force parts (springs, dampers, drives, ...), the resting contacts'
// holding impulses, their friction, elastic and plastic impacts. The residual is the integrator's
// own error (O(h²) for resolved dynamics).
struct EnergyBookkeeping {
  double initial = 0.0, final = 0.0;
  std::vector<std::string> sources;
  std::vector<double> work;
  double residual() const;
};
EnergyBookkeeping energy_bookkeeping(const Mechanism& model, const Simulator& sim, double initial_energy);

struct SimulationResult {
  EnergyBookkeeping energy;
  std::vector<StateRecord> records;
  std::vector<ImpactRecord> impacts;
  double max_energy_drift = 0.0;  // [J]
  double newton_mean = 0.0;       // Newton iterations per step (sub-steps and localization included)
  int newton_max = 0;
  DynVector q, p;  // final state
  double t = 0.0;
};

SimulationResult simulate(const Mechanism& model, const DynVector& q0, const DynVector& p0,
                          const SimulationOptions& options);

}  // namespace simpact
