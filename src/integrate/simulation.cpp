#include "simpact/integrate/simulation.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>

#include "simpact/core/impact_problem.hpp"
#include "simpact/core/plastic_impact.hpp"
#include "simpact/models/impact_problem_at.hpp"

namespace simpact {

namespace {
constexpr double kNever = -std::numeric_limits<double>::infinity();
// The reset's impact: M(q*) and the normals of the contacts the event closed (all of them
// closed), with p⁻ given.
ImpactTerms terms_of(const DynMatrix& mass, const DynRowMatrix& normals) {
  ImpactTerms terms;
  terms.mass = mass;
  terms.normals = normals;
  terms.every_contact_closed = true;
  return terms;
}
PreImpact momentum_state(const DynVector& p, double restitution) {
  PreImpact pre;
  pre.momentum = p;
  pre.restitution = restitution;
  return pre;
}
// The holding impulse of resting contacts at q* (Simulator::resolve): false when p already
// satisfies them, else their plastic projection in p_out (converged: its KKT check passed).
template <typename S>
bool hold_resting(const DynMatrix& mass, const DynRowMatrix& held, const DynVector& ps, DynVector& p_out,
                  bool& converged) {
  const BasicImpactProblem<S> hold = impact_problem_at<S>(terms_of(mass, held), momentum_state(ps, 0.0));
  if (hold.feasible(hold.initial_rates())) return false;
  const BasicPlasticOutcome<S> outcome = plastic_outcome(hold);
  converged = outcome.converged;
  p_out = outcome.momentum;
  return true;
}

// The propagative reset on the size path that fits (fixed up to kMaxDof/kMaxContacts, dynamic
// beyond), read off as plain vectors.
struct ResetOutcome {
  ResolveStatus status = ResolveStatus::kOk;
  DynVector momentum, impulses;  // p⁺ and the closed contacts' impulses
  std::vector<int> sequence;     // the reflections (closed-contact indices)
  double momentum_norm = 0.0;    // ||p⁻||_g
  DynVector normal_norms;        // ||u_i||_g
};
template <typename S>
ResetOutcome reset_with(const DynMatrix& mass, const DynRowMatrix& normals, const DynVector& p_in,
                        double restitution, const ResolveOptions& ro, BasicImpactWorkspace<S>& workspace) {
  const BasicImpactProblem<S> problem =
      impact_problem_at<S>(terms_of(mass, normals), momentum_state(p_in, restitution));
  const BasicImpactResolution<S> res = resolve_impact(problem, ro, workspace);
  ResetOutcome out;
  out.status = res.status;
  out.momentum_norm = problem.momentum_norm();
  out.normal_norms = problem.normal_norms();
  if (res.status == ResolveStatus::kNoElasticOutcome) {
    out.momentum = res.plastic.momentum;
    out.impulses = res.plastic.impulses;
  } else if (res.status != ResolveStatus::kNoImpact && res.status != ResolveStatus::kCapHit &&
             res.status != ResolveStatus::kPlasticUnverified) {
    const auto& o = workspace.outcomes.items[0];
    out.momentum = o.momentum;
    out.impulses = o.impulses;
    for (int s = 0; s < o.sequences[0].stored(); ++s) out.sequence.push_back(o.sequences[0].contacts[s]);
  }
  return out;
}

// The integrator's contact-mode search may leave a resting contact free only within our gap
// tolerance.
SimulationOptions with_release_tolerance(SimulationOptions options) {
  options.newton.release_gap_tolerance = options.gap_tolerance;
  return options;
}
}  // namespace

NonFiniteStateError::NonFiniteStateError(long step, double time)
    : std::runtime_error(
          fmt::format("step {} (t = {:.9g} s): the state is not finite (NaN or infinite q or p; "
                      "an input far outside the model's scale: check speeds, forces and dt)",
                      step, time)),
      step_(step) {}

Simulator::Simulator(const Mechanism& model, SimulationOptions options)
    : model_(&model),
      options_(with_release_tolerance(std::move(options))),
      integrator_(model, options_.newton),
      force_work_parts_(static_cast<std::size_t>(model.force_parts()), 0.0) {
  if (options_.policy == OrderingPolicy::kAll)
    throw std::invalid_argument("Simulator: time stepping needs a single ordering policy, not 'all'");
  group_ = model.on_group();
  const auto k = static_cast<std::size_t>(model.contacts());
  last_impact_.assign(k, kNever);
  last_approach_.assign(k, 0.0);
  last_hit_.assign(k, 0);
  crossing_.resize(k);
  hitting_.resize(k);
  closed_.resize(k);
  approach_.resize(k);
  hit_.resize(k);
  resting_.index.reserve(k);
}

double Simulator::monitored_energy() {
  const int n = model_->dof();
  if (zero_velocity_.size() != n) zero_velocity_ = DynVector::Zero(n);
  model_->kinetic(q_, zero_velocity_, false, kinetic_);
  mass_factor_.compute(kinetic_.mass);
  velocity_ = mass_factor_.solve(p_);
  return 0.5 * p_.dot(velocity_) + model_->potential(q_, gradient_, nullptr);
}

void Simulator::advance_from(const DynVector& q, const DynVector& v, double h, DynVector& out) const {
  if (group_)
    model_->integrate(q, v, h, out);
  else
    out = q + h * v;
}

void Simulator::mean_velocity(const DynVector& q2, const DynVector& q1, double h, DynVector& out) const {
  if (group_) {
    model_->difference(q2, q1, out);
    out /= h;
  } else {
    out = (q2 - q1) / h;
  }
}

void Simulator::reset(const DynVector& q0, const DynVector& p0, double t0) {
  if (!q0.allFinite() || !p0.allFinite()) throw NonFiniteStateError(0, t0);
  q_ = q0;
  p_ = p0;
  t0_ = t_ = t0;
  step_ = 0;
  resting_.count = 0;
  std::fill(last_impact_.begin(), last_impact_.end(), kNever);
  std::fill(last_approach_.begin(), last_approach_.end(), 0.0);
  std::fill(last_hit_.begin(), last_hit_.end(), 0);
  impacts_.clear();
  const Eigen::LLT<DynMatrix> factor(model_->mass_matrix(q0));
  v_guess_ = factor.solve(p0);
  history_ = 0;
  newton_.reset();
  reference_energy_ = options_.monitor_energy ? energy() : 0.0;
  max_drift_ = 0.0;
  force_work_ = contact_work_ = friction_work_ = impact_energy_change_ = plastic_energy_change_ =
      split_work_ = 0.0;
  force_work_parts_.assign(static_cast<std::size_t>(model_->force_parts()), 0.0);
  mode_searches_ = 0;
}

void Simulator::account_work(const DynVector& q2, const DynVector& p2, double h, const MidpointStep& step) {
  bool held = false;  // work_held_ = p₁ plus the resting contacts' impulses (when they act)
  // Resting contacts: the step is a plain DEL step from p₁ + J, J = Dφ_A(q₁)ᵀλ + Dt_A(q₁)ᵀβ (the
  // holding and friction impulses act at q₁), so they change the energy by exactly
  // J_nᵀM⁻¹(p₁ + J_n/2) and then J_fᵀM⁻¹(p₁ + J_n + J_f/2) (M at q₁).
  if (resting_.count > 0 && step.impulses.size() == resting_.count) {
    DynRowMatrix &g = work_normals_, &t = work_tangents_;
    model_->gap_jacobian(q_, g);
    const bool friction = step.friction_impulses.size() == resting_.count;
    if (friction) model_->tangent_jacobian(q_, t);
    DynVector &jn = work_jn_, &jf = work_jf_, &x = work_x_, &y = work_y_;
    jn.setZero(p_.size());
    jf.setZero(p_.size());
    for (int i = 0; i < resting_.count; ++i) {
      jn += step.impulses[i] * g.row(resting_.index[i]).transpose();
      if (friction) jf += step.friction_impulses[i] * t.row(resting_.index[i]).transpose();
    }
    // M(q₁) factored in the Simulator's scratch (as model_->mass_matrix: M at zero velocity).
    if (zero_velocity_.size() != p_.size()) zero_velocity_ = DynVector::Zero(p_.size());
    model_->kinetic(q_, zero_velocity_, false, kinetic_);
    const Eigen::LLT<DynMatrix>& m = mass_factor_.compute(kinetic_.mass);
    x = p_ + 0.5 * jn;
    y = m.solve(x);
    contact_work_ += jn.dot(y);
    if (friction) {
      x = p_ + jn + 0.5 * jf;
      y = m.solve(x);
      friction_work_ += jf.dot(y);
    }
    work_held_ = p_ + jn + jf;
    held = true;
  }
  if (!model_->has_forces() || h <= 0.0) return;
  DynVector &dq = work_dq_, &qm = work_qm_, &v = work_v_, &f = work_f_, &fp = work_fp_;
  if (group_) {
    model_->difference(q2, q_, dq);
    model_->integrate(q_, dq, 0.5, qm);
  } else {
    dq = q2 - q_;
    qm = q_ + 0.5 * dq;
  }
  v = dq / h;
  const double tm = t_ + 0.5 * h;
  model_->force(qm, v, tm, f, nullptr, nullptr);
  force_work_ += f.dot(dq);
  // The same F·Δq by part (springs, dampers, drives, ...) when the model names several.
  const int parts = model_->force_parts();
  if (parts == 1) force_work_parts_[0] += f.dot(dq);
  for (int part = 0; parts > 1 && part < parts; ++part) {
    model_->force_part(part, qm, v, tm, fp);
    force_work_parts_[static_cast<std::size_t>(part)] += fp.dot(dq);
  }
  // A split θ ≠ ½ is the symmetric step between an impulse c = (θ − ½)·h·F at q₁ and −c at q₂
  // (NewtonOptions::force_split): their energy is the force's too, booked apart — beside the
  // resting contacts' impulses at q₁ it does not split by part in any meaningful way.
  const double split = options_.newton.force_split;
  if (split != 0.5) {
    DynVector &c = work_c_, &x = work_x_, &y = work_y_;
    c = (split - 0.5) * h * f;
    // M(q₁) and M(q₂) factored in the Simulator's scratch (as model_->mass_matrix).
    if (zero_velocity_.size() != p_.size()) zero_velocity_ = DynVector::Zero(p_.size());
    model_->kinetic(q_, zero_velocity_, false, kinetic_);
    const Eigen::LLT<DynMatrix>& m1 = mass_factor_.compute(kinetic_.mass);
    const DynVector& p1 = held ? work_held_ : p_;
    x = p1 + 0.5 * c;
    y = m1.solve(x);
    const double w1 = c.dot(y);
    model_->kinetic(q2, zero_velocity_, false, kinetic_);
    const Eigen::LLT<DynMatrix>& m2 = mass_factor_.compute(kinetic_.mass);
    x = p2 + 0.5 * c;
    y = m2.solve(x);
    const double w = w1 - c.dot(y);
    force_work_ += w;
    split_work_ += w;
  }
}

MidpointStep Simulator::sub_step(double tau, DynVector& q2, DynVector& p2) {
  advance_from(q_, v_guess_, tau, q2);
  const MidpointStep sub = integrator_.step(q_, p_, t_, tau, q2, p2, step_ + 1, resting_, newton_);
  iterations_ += sub.iterations;
  mode_searches_ += sub.mode_search ? 1 : 0;
  return sub;
}

void Simulator::advance() {
  const double t_end = t0_ + static_cast<double>(step_ + 1) * options_.dt;
  const double gap_tol = options_.gap_tolerance;
  const int contacts = model_->contacts();
  iterations_ = 0;
  int impacts_this_step = 0;
  bool impact_in_step = false;
  bool clean = true;  // a single full step (no impact, no release): its mean velocity extrapolates
  DynVector &q2 = q2_, &p2 = p2_;
  DynVector qs, ps, qt, pt;
  MidpointStep held_s;
  DynVector& phi = phi_;
  DynVector phi_star, phi_t;
  while (true) {
    const double h = t_end - t_;
    if (h <= 0.0) break;
    if (group_) {  // the same extrapolations in the Lie algebra
      if (clean && history_ >= 3)
        v_extrapolated_ = 4.0 * (v_guess_ + v_prev2_) - 6.0 * v_prev_ - v_prev3_;
      else if (clean && history_ == 2)
        v_extrapolated_ = 3.0 * (v_guess_ - v_prev_) + v_prev2_;
      else if (clean && history_ == 1)
        v_extrapolated_ = 2.0 * v_guess_ - v_prev_;
      else
        v_extrapolated_ = v_guess_;
      model_->integrate(q_, v_extrapolated_, h, q2);
    } else if (clean && history_ >= 3) {
      q2 = q_ + h * (4.0 * (v_guess_ + v_prev2_) - 6.0 * v_prev_ - v_prev3_);
    } else if (clean && history_ == 2) {
      q2 = q_ + h * (3.0 * (v_guess_ - v_prev_) + v_prev2_);
    } else if (clean && history_ == 1) {
      q2 = q_ + h * (2.0 * v_guess_ - v_prev_);
    } else {
      q2 = q_ + h * v_guess_;
    }
    const MidpointStep sub = integrator_.step(q_, p_, t_, h, q2, p2, step_ + 1, resting_, newton_);
    iterations_ += sub.iterations;
    mode_searches_ += sub.mode_search ? 1 : 0;
    // A resting contact whose holding impulse would pull is released, and the step redone. The
    // contact-mode search's solution already has its free contacts released: it is kept, and
    // they leave the resting set once its work is booked.
    ActiveContacts& after_step = after_step_;  // members: their index vectors keep their capacity
    after_step = resting_;
    if (resting_.count > 0) {
      ActiveContacts& kept = kept_;
      kept.count = 0;
      for (int i = 0; i < resting_.count; ++i)
        if (sub.impulses[i] >= 0.0 && !(sub.released >> i & 1u)) kept.add(resting_.index[i]);
      if (kept.count < resting_.count) {
        clean = false;
        if (sub.released == 0) {
          resting_ = kept;
          continue;
        }
        after_step = kept;
      }
    }
    int* crossing = crossing_.data();
    int crossing_count = 0;
    if (contacts > 0) {
      model_->gaps(q2, phi);
      for (int i = 0; i < contacts; ++i) {
        bool rests = false;
        for (int r = 0; r < resting_.count; ++r) rests = rests || resting_.index[r] == i;
        if (!rests && phi[i] < -gap_tol) crossing[crossing_count++] = i;
      }
    }
    if (crossing_count == 0) {
      if (clean) {
        v_prev3_ = v_prev2_;
        v_prev2_ = v_prev_;
        v_prev_ = v_guess_;
        history_ = std::min(history_ + 1, 3);
      } else {
        history_ = 0;
      }
      mean_velocity(q2, q_, h, v_guess_);
      account_work(q2, p2, h, sub);
      resting_ = after_step;
      q_ = q2;
      p_ = p2;
      t_ = t_end;
      break;
    }
    clean = false;
    resting_ = after_step;  // the crossing is localized by sub-steps solved with this set
    if (++impacts_this_step > options_.max_impacts_per_step)
      throw ImpactError(fmt::format("step {} (t = {:.9g} s): more than {} impacts in one step", step_ + 1, t_,
                                    options_.max_impacts_per_step));
    // 1. Localize t* on the smallest crossing gap (Illinois), keeping the non-penetrating end.
    auto min_gap = [&](const DynVector& g) {
      double m = INFINITY;
      for (int c = 0; c < crossing_count; ++c) m = std::min(m, g[crossing[c]]);
      return m;
    };
    model_->gaps(q_, phi_star);
    double tau = 0.0;
    qs = q_;
    ps = p_;
    held_s = MidpointStep{};
    double f_lo = min_gap(phi_star);
    if (f_lo > gap_tol) {
      double lo = 0.0, hi = h, f_hi = min_gap(phi);
      int side = 0;
      const double width = options_.localization_tolerance * options_.dt;
      for (int it = 0; it < 200 && hi - lo > width; ++it) {
        double c = lo + (hi - lo) * f_lo / (f_lo - f_hi);
        if (!(c > lo && c < hi)) c = 0.5 * (lo + hi);
        const MidpointStep held = sub_step(c, qt, pt);
        model_->gaps(qt, phi_t);
        const double fc = min_gap(phi_t);
        if (fc >= 0.0) {
          lo = c;
          f_lo = fc;
          qs = qt;
          ps = pt;
          held_s = held;
          phi_star = phi_t;
          if (side == 1) f_hi *= 0.5;
          side = 1;
          if (fc <= 1e-3 * gap_tol) break;  // on the gap to well within its tolerance
        } else {
          hi = c;
          f_hi = fc;
          if (side == -1) f_lo *= 0.5;
          side = -1;
        }
      }
      tau = lo;
    }
    const double t_star = t_ + tau;
    // 2. Contacts hitting together: crossing ones closed by t* + simultaneity tolerance.
    int* hitting = hitting_.data();
    int hitting_count = 0;
    const double tau_s = std::min(tau + options_.simultaneity(), h);
    const DynVector* phi_s = &phi;
    if (tau_s < h && tau_s > tau) {
      sub_step(tau_s, qt, pt);
      model_->gaps(qt, phi_t);
      phi_s = &phi_t;
    } else if (tau_s <= tau) {
      phi_s = &phi_star;
    }
    for (int c = 0; c < crossing_count; ++c)
      if ((*phi_s)[crossing[c]] <= gap_tol || phi_star[crossing[c]] <= gap_tol)
        hitting[hitting_count++] = crossing[c];
    // 3. Reset the discrete momentum at q* (the segment to t* is accounted first: resolve() may
    // change the resting set).
    account_work(qs, ps, tau, held_s);
    DynVector p_after;
    bool any_impact = false;
    resolve(qs, ps, t_star, phi_star, hitting, hitting_count, p_after, any_impact);
    impact_in_step = impact_in_step || any_impact;
    // 4. Continue from t*.
    if (tau > 0.0) mean_velocity(qs, q_, tau, v_guess_);
    q_ = qs;
    p_ = p_after;
    t_ = t_star;
  }
  ++step_;
  t_ = t_end;
  last_iterations_ = iterations_;
  if (!q_.allFinite() || !p_.allFinite()) throw NonFiniteStateError(step_, t_);
  if (options_.monitor_energy) {
    const double e = monitored_energy();
    if (impact_in_step)
      reference_energy_ = e;
    else
      max_drift_ = std::max(max_drift_, std::abs(e - reference_energy_));
  }
}

void Simulator::resolve(const DynVector& qs, const DynVector& ps, double ts, const DynVector& phi_star,
                        const int* hitting, int hitting_count, DynVector& p_after, bool& any_impact) {
  const int n = model_->dof();
  const int contacts = model_->contacts();
  // Closed: touching at q* (resting ones included) or hitting within the simultaneity tolerance.
  int* closed = closed_.data();
  int closed_count = 0;
  for (int i = 0; i < contacts; ++i) {
    bool hit = false;
    for (int c = 0; c < hitting_count; ++c) hit = hit || hitting[c] == i;
    if (hit || phi_star[i] <= options_.gap_tolerance) closed[closed_count++] = i;
  }
  DynRowMatrix all;
  model_->gap_jacobian(qs, all);
  const DynMatrix mass = model_->mass_matrix(qs);
  // Resting contacts are held: the momentum a (sub-)step ends with still carries the O(h·g)
  // approach the next step's holding impulse (at q₁) would cancel — an artifact of where the
  // impulses act, which an elastic impact would otherwise reflect as a real approach (restarting
  // the chatter the Zeno rule stopped, in an ordering-dependent way). The holding impulse is
  // applied first, at q*: the plastic projection onto the resting contacts alone, booked as
  // contact work.
  DynVector p_in = ps;
  if (resting_.count > 0) {
    DynRowMatrix held(resting_.count, n);
    for (int r = 0; r < resting_.count; ++r) held.row(r) = all.row(resting_.index[r]);
    bool converged = true;
    const bool moved = fits_fixed_sizes(n, resting_.count)
                           ? hold_resting<FixedSizes>(mass, held, ps, p_in, converged)
                           : hold_resting<DynamicSizes>(mass, held, ps, p_in, converged);
    if (moved) {
      if (!converged)
        throw ImpactError(fmt::format(
            "step {} (t = {:.9g} s): resting contacts' holding impulse not resolved", step_ + 1, ts));
      contact_work_ += model_->energy(qs, p_in) - model_->energy(qs, ps);
    }
  }
  // Approach speeds −(J v) of the contacts, v = M⁻¹p, as the impact finds them.
  double* approach = approach_.data();
  {
    const DynVector v = mass.ldlt().solve(p_in);
    for (int i = 0; i < contacts; ++i) approach[i] = -all.row(i).dot(v);
  }
  const bool zeno = zeno_chatter(ts, hitting, hitting_count, approach);
  DynRowMatrix normals(closed_count, n);
  for (int c = 0; c < closed_count; ++c) normals.row(c) = all.row(closed[c]);
  const double restitution = zeno ? 0.0 : options_.restitution;
  ResolveOptions ro;
  ro.policy = options_.policy;
  ro.compute_plastic = true;
  ro.compare_argmin_argmax = false;
  ro.seed = options_.seed;
  ro.task = impacts_.size();
  ResetOutcome res;
  if (fits_fixed_sizes(n, closed_count)) {
    res = reset_with(mass, normals, p_in, restitution, ro, workspace_);
  } else {
    if (!dynamic_workspace_) dynamic_workspace_ = std::make_unique<DynamicImpactWorkspace>();
    res = reset_with(mass, normals, p_in, restitution, ro, *dynamic_workspace_);
  }
  if (res.status == ResolveStatus::kNoImpact) {
    // The momentum already satisfies every closed contact: forces, not momentum, close the
    // crossing gaps. They rest (held by impulses) from here.
    p_after = p_in;
    for (int c = 0; c < hitting_count; ++c) resting_.add(hitting[c]);
    return;
  }
  if (res.status == ResolveStatus::kCapHit || res.status == ResolveStatus::kPlasticUnverified)
    throw ImpactError(fmt::format("step {} (t = {:.9g} s): impact not resolved ({})", step_ + 1, ts,
                                  resolve_status_name(res.status)));
  ImpactRecord record;
  record.step = step_ + 1;
  record.t = ts;
  record.contacts.assign(closed, closed + closed_count);
  record.policy = options_.policy;
  record.zeno = zeno;
  record.status = resolve_status_name(res.status);
  p_after = res.momentum;
  const DynVector& impulses = res.impulses;
  if (res.status == ResolveStatus::kNoElasticOutcome) {
    record.plastic = true;
    record.restitution = 0.0;
  } else {
    record.plastic = restitution == 0.0;
    record.restitution = restitution;
    for (int c : res.sequence) record.sequence.push_back(closed[c]);
  }
  record.configuration = qs;
  record.momentum_before = p_in;
  record.momentum_after = p_after;
  record.energy_before = model_->energy(qs, p_in);
  record.energy_after = model_->energy(qs, p_after);
  impact_energy_change_ += record.energy_after - record.energy_before;
  if (record.plastic) plastic_energy_change_ += record.energy_after - record.energy_before;
  impacts_.push_back(std::move(record));
  any_impact = true;
  // Contacts that took an impulse have had an impact now; after a plastic impact they rest.
  const double scale = res.momentum_norm;
  std::fill(last_hit_.begin(), last_hit_.end(), 0);
  for (int c = 0; c < closed_count; ++c) {
    if (impulses[c] <= 1e-12 * scale / std::max(res.normal_norms[c], 1e-300)) continue;
    last_impact_[closed[c]] = ts;
    last_approach_[closed[c]] = approach[closed[c]];
    last_hit_[closed[c]] = 1;
    if (restitution == 0.0 || impacts_.back().plastic) {
      bool rests = false;
      for (int r = 0; r < resting_.count; ++r) rests = rests || resting_.index[r] == closed[c];
      if (!rests) resting_.add(closed[c]);
    }
  }
}

bool Simulator::zeno_chatter(double ts, const int* hitting, int hitting_count, const double* approach) const {
  // Real chatter is one contact bouncing with geometrically decaying approach speed (e^k v₀)
  // until its flights are shorter than Δt. An elastic re-collision after another contact's
  // impact (billiards: a, then b, then a again) is none: it keeps its restitution.
  std::vector<char>& hit = hit_;
  std::fill(hit.begin(), hit.end(), 0);
  for (int c = 0; c < hitting_count; ++c) hit[hitting[c]] = 1;
  for (int i = 0; i < model_->contacts(); ++i)
    if (last_hit_[i] && !hit[i]) return false;  // another contact's impact came in between
  constexpr double kDecay = 1.0 - 1e-6;         // below rounding of an elastic bounce's speed
  for (int c = 0; c < hitting_count; ++c) {
    const int i = hitting[c];
    if (last_hit_[i] && ts - last_impact_[i] < options_.dt && approach[i] < kDecay * last_approach_[i])
      return true;
  }
  return false;
}

double EnergyBookkeeping::residual() const {
  double booked = 0.0;
  for (double w : work) booked += w;
  return final - initial - booked;
}

EnergyBookkeeping energy_bookkeeping(const Mechanism& model, const Simulator& sim, double initial_energy) {
  EnergyBookkeeping out;
  out.initial = initial_energy;
  out.final = sim.energy();
  for (std::size_t part = 0; part < sim.force_work_parts().size(); ++part) {
    out.sources.push_back(model.force_part_name(static_cast<int>(part)));
    out.work.push_back(sim.force_work_parts()[part]);
  }
  const double plastic = sim.plastic_impact_energy_change();
  const std::pair<const char*, double> rest[] = {{"force_split", sim.force_split_work()},
                                                 {"resting_contacts", sim.contact_work()},
                                                 {"friction", sim.friction_work()},
                                                 {"impacts_elastic", sim.impact_energy_change() - plastic},
                                                 {"impacts_plastic", plastic}};
  for (const auto& [name, value] : rest) {
    out.sources.emplace_back(name);
    out.work.push_back(value);
  }
  return out;
}

SimulationResult simulate(const Mechanism& model, const DynVector& q0, const DynVector& p0,
                          const SimulationOptions& options) {
  Simulator sim(model, options);
  sim.reset(q0, p0);
  const double initial_energy = sim.energy();
  SimulationResult result;
  std::vector<long> wanted = options.record_steps;
  std::sort(wanted.begin(), wanted.end());
  std::size_t next = 0;
  auto record = [&] {
    while (next < wanted.size() && wanted[next] == sim.step()) {
      result.records.push_back(StateRecord{sim.step(), sim.t(), sim.q(), sim.p(), sim.energy()});
      ++next;
    }
  };
  record();
  long total = 0;
  for (long k = 0; k < options.steps; ++k) {
    sim.advance();
    total += sim.last_step_iterations();
    result.newton_max = std::max(result.newton_max, sim.last_step_iterations());
    record();
  }
  result.newton_mean =
      options.steps > 0 ? static_cast<double>(total) / static_cast<double>(options.steps) : 0.0;
  result.impacts = sim.impacts();
  result.energy = energy_bookkeeping(model, sim, initial_energy);
  result.max_energy_drift = sim.max_energy_drift();
  result.q = sim.q();
  result.p = sim.p();
  result.t = sim.t();
  return result;
}

}  // namespace simpact
