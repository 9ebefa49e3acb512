#include "simpact/analysis/impact_task_kernel.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "simpact/core/impact_diagnostics.hpp"

namespace simpact {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// (E_before − E_after) / E_before, 0 without kinetic energy.
double loss(const ImpactTaskValues& v, double after) {
  const double e0 = v.energy_before;
  return e0 > 0.0 ? (e0 - after) / e0 : 0.0;
}
// The same, NaN for an outcome not computed (NaN energy).
double relative_loss(const ImpactTaskValues& v, double after) {
  return std::isfinite(after) ? loss(v, after) : kNaN;
}

template <typename F>
ImpactColumn scalar(ResultColumn column, F value) {
  return scalar_column<ImpactTaskValues>(std::move(column), std::move(value));
}

std::string name(OrderingPolicy o) {
  return std::string(ordering_policy_name(o));
}

}  // namespace

ImpactTaskKernel::ImpactTaskKernel(std::unique_ptr<MechanismFamily> model, ImpactStudyOptions options)
    : model_(std::move(model)), options_(std::move(options)) {
  for (OrderingPolicy o : options_.orderings) {
    if (o == OrderingPolicy::kAll) {
      has_all_ = true;
    } else if (std::find(single_.begin(), single_.end(), o) == single_.end()) {
      single_.push_back(o);
    }
  }
  auto& t = table_;
  if (has_all_) {
    headline_ = static_cast<int>(t.size());
    t.push_back(scalar({"outcome_set", "xi_maps", "1",
                        "indeterminacy xi: diameter of the set of outcomes divided by the norm of the "
                        "pre-impact momentum (kinetic metric)"},
                       [](const ImpactTaskValues& v) { return v.xi_all; }));
    t.push_back(scalar({"count", "outcomes", "1", "number of distinct propagative outcomes"},
                       [](const ImpactTaskValues& v) { return v.outcome_count; }));
    t.push_back(scalar({"unique", "outcomes", "1", "1 when the outcome is unique (no cap hit)"},
                       [](const ImpactTaskValues& v) { return v.unique; }));
  }
  std::size_t pair = 0;
  for (std::size_t a = 0; a < single_.size(); ++a)
    for (std::size_t b = a + 1; b < single_.size(); ++b, ++pair) {
      if (headline_ < 0) headline_ = static_cast<int>(t.size());
      const std::string na = name(single_[a]), nb = name(single_[b]);
      t.push_back(scalar({na + "_vs_" + nb, "xi_maps", "1",
                          "indeterminacy between the " + na + " and " + nb +
                              " orderings: norm of the difference of their outcomes divided by the norm of "
                              "the pre-impact momentum (kinetic metric)"},
                         [pair](const ImpactTaskValues& v) { return v.pair_xi[pair]; }));
    }
  t.push_back(scalar({"before", "energy", "J", "kinetic energy before the impact"},
                     [](const ImpactTaskValues& v) { return v.energy_before; }));
  if (has_all_) {
    const std::string what = "mean over the outcome set";
    t.push_back(scalar({"after_all", "energy", "J", "kinetic energy after the impact, " + what},
                       [](const ImpactTaskValues& v) { return v.all_after; }));
    t.push_back(scalar({"relative_loss_all", "energy", "1",
                        "relative kinetic energy loss (E_before - E_after) / E_before, " + what},
                       [](const ImpactTaskValues& v) { return relative_loss(v, v.all_after); }));
  }
  for (std::size_t s = 0; s < single_.size(); ++s) {
    const std::string what = "ordering " + name(single_[s]);
    t.push_back(
        scalar({"after_" + name(single_[s]), "energy", "J", "kinetic energy after the impact, " + what},
               [s](const ImpactTaskValues& v) { return v.after[s]; }));
    t.push_back(scalar({"relative_loss_" + name(single_[s]), "energy", "1",
                        "relative kinetic energy loss (E_before - E_after) / E_before, " + what},
                       [s](const ImpactTaskValues& v) { return relative_loss(v, v.after[s]); }));
  }
  t.push_back(scalar({"after_plastic", "energy", "J", "kinetic energy after a perfectly plastic impact"},
                     [](const ImpactTaskValues& v) { return v.plastic_known ? v.plastic_energy : kNaN; }));
  t.push_back(
      scalar({"relative_loss_plastic", "energy", "1", "relative energy loss of a plastic impact"},
             [](const ImpactTaskValues& v) { return v.plastic_known ? loss(v, v.plastic_energy) : kNaN; }));
  t.push_back(scalar({"impact", "outcomes", "1",
                      "1 when some closed contact was approaching (an impact happened), 0 when the "
                      "pre-impact momentum was feasible"},
                     [](const ImpactTaskValues& v) { return v.impact ? 1.0 : 0.0; }));
  t.push_back(scalar(
      {"normalized_cosine", "outcomes", "1",
       "cosine between the first two contact normals in the kinetic metric (normalized Gram entry G_12)"},
      [](const ImpactTaskValues& v) { return v.normalized_cosine; }));
  t.push_back(scalar(
      {"dihedral_m", "outcomes", "1", "integer m with G_12 = -cos(pi/m), a dihedral configuration (0: none)"},
      [](const ImpactTaskValues& v) { return static_cast<double>(v.dihedral_m); }));
  for (std::size_t s = 0; s < single_.size(); ++s)
    t.push_back(scalar(
        {"steps_" + name(single_[s]), "outcomes", "1", "reflections applied by ordering " + name(single_[s])},
        [s](const ImpactTaskValues& v) { return v.steps[s]; }));
  if (options_.momenta) {
    const int max_dof = model_->max_dof();
    for (std::size_t s = 0; s < single_.size(); ++s)
      t.push_back(
          {{"momentum_after_" + name(single_[s]), "outcomes", "kg m s-1",
            "post-impact momentum p+ under ordering " + name(single_[s]) + " (NaN beyond the task's d)",
            max_dof},
           [s, max_dof](const ImpactTaskValues& v, double* out) {
             std::fill(out, out + max_dof, kNaN);
             if (!v.ok[s]) return;
             const int d = std::min(v.dof, max_dof);
             for (int i = 0; i < d; ++i) out[i] = v.momenta[s][i];
           }});
  }
  // Last, so that every other column keeps its place: what the model found on the way (a
  // mechanism's placed coordinates and smallest gap), per task.
  const std::vector<MechanismFamily::TaskValue> values = model_->task_values();
  model_values_ = values.size();
  for (std::size_t i = 0; i < values.size(); ++i)
    t.push_back(scalar({values[i].name, values[i].group, values[i].units, values[i].long_name},
                       [i](const ImpactTaskValues& v) { return v.model_values[i]; }));
  columns_ = columns_of(table_);
}

std::unique_ptr<TaskScratch> ImpactTaskKernel::make_scratch() const {
  auto scratch = std::make_unique<ImpactTaskScratch>(options_.limits);
  ImpactTaskValues& v = scratch->values;
  const std::size_t n = single_.size();
  v.ok.resize(n);
  v.after.resize(n);
  v.steps.resize(n);
  v.momenta.assign(n, Eigen::VectorXd::Zero(std::max(model_->max_dof(), 1)));
  v.pair_xi.resize(n < 2 ? 0 : n * (n - 1) / 2);
  v.model_values.assign(model_values_, kNaN);
  return scratch;
}

TaskStatus ImpactTaskKernel::compute(std::int64_t task, const ParameterSet& params,
                                     ImpactTaskScratch& scratch) const {
  if (scratch.values.ok.size() != single_.size())
    throw std::logic_error("ImpactTaskKernel: scratch not from make_scratch");
  // The family's mechanism and state, then the size path: fixed (allocation-free) unless its
  // closed contacts give a larger system.
  std::vector<double>& reported = scratch.values.model_values;
  std::fill(reported.begin(), reported.end(), kNaN);
  double* values = reported.empty() ? nullptr : reported.data();
  model_->impact_at(params, scratch.family, scratch.terms, scratch.pre, values);
  if (!impact_fits_fixed_sizes(scratch.terms, scratch.pre)) {
    if (!scratch.dynamic_workspace)
      scratch.dynamic_workspace = std::make_unique<DynamicImpactWorkspace>(options_.limits);
    return compute_on(task, impact_problem_at<DynamicSizes>(scratch.terms, scratch.pre),
                      *scratch.dynamic_workspace, scratch.values);
  }
  return compute_on(task, impact_problem_at<FixedSizes>(scratch.terms, scratch.pre, scratch.system),
                    scratch.workspace, scratch.values);
}

void ImpactTaskKernel::check_parameters(const ParameterSet& params) const {
  // The same size dispatch as the task (compute): large systems (a cradle of more than 9 balls)
  // have no fixed-size problem but are admissible.
  FamilyScratch scratch;
  ImpactTerms terms;
  PreImpact pre;
  model_->impact_at(params, scratch, terms, pre, nullptr);
  if (impact_fits_fixed_sizes(terms, pre))
    (void)impact_problem_at<FixedSizes>(terms, pre);
  else
    (void)impact_problem_at<DynamicSizes>(terms, pre);
}

template <typename S>
TaskStatus ImpactTaskKernel::compute_on(std::int64_t task, const BasicImpactProblem<S>& problem,
                                        BasicImpactWorkspace<S>& workspace, ImpactTaskValues& v) const {
  TaskStatus status = TaskStatus::kOk;
  auto worse = [&](TaskStatus s) {
    if (static_cast<std::int64_t>(s) > static_cast<std::int64_t>(status)) status = s;
  };
  ResolveOptions options;
  options.minimality = options_.minimality;
  options.limits = options_.limits;
  options.compare_argmin_argmax = false;
  options.seed = options_.seed;
  options.task = static_cast<std::uint64_t>(task);
  options.report_plastic = false;  // read from `shared` below, not copied into each resolution
  // p_p, the positive-span test and feasibility do not depend on the ordering: once per task.
  const BasicPrecomputedImpact<S> shared = precompute_impact(problem, options);
  const BasicPlasticOutcome<S>& plastic = shared.plastic;
  const bool plastic_known = shared.plastic_computed && plastic.converged;

  const double norm = problem.momentum_norm();
  v.energy_before = problem.energy_before();
  v.impact = !shared.initially_feasible;
  // diagnose()'s G_12 and dihedral order, without the k×k matrix and Theorem 1's bound.
  const double cosine = problem.contacts() >= 2 ? normalized_gram_entry(problem, 0, 1) : kNaN;
  v.normalized_cosine = cosine;
  v.dihedral_m = problem.contacts() == 2 ? dihedral_order(std::clamp(cosine, -1.0, 1.0)) : 0;
  v.plastic_known = plastic_known;
  v.plastic_energy = plastic.energy;
  v.dof = problem.dof();

  // With `all` requested, the deterministic single policies are read off their branches of its
  // enumeration (bit for bit their own propagation); the rest propagate below, after the set is read.
  // (single_ holds distinct policies, at most the four trackable ones and random.)
  BasicPolicyBranches<S> branches;
  std::array<int, kOrderingPolicyNames.size()> branch_of;  // single_[s]'s tracked branch, or −1
  branch_of.fill(-1);
  if (has_all_ && options.minimality == Minimality::kPropagation && !options.check_definition1)
    for (std::size_t s = 0; s < single_.size(); ++s)
      if (BasicPolicyBranches<S>::trackable(single_[s])) branch_of[s] = branches.track(single_[s]);

  v.xi_all = v.outcome_count = v.unique = v.all_after = kNaN;
  if (has_all_) {
    options.policy = OrderingPolicy::kAll;
    const BasicImpactResolution<S> r = resolve_impact(problem, options, workspace, &shared, &branches);
    worse(task_status_of(r.status));
    // A capped or failed resolution publishes nothing it did not compute: NaN, counted by status.
    const bool exact = r.status != ResolveStatus::kCapHit && r.status != ResolveStatus::kPlasticUnverified;
    v.xi_all = r.xi;
    v.outcome_count = !exact ? kNaN : (r.status == ResolveStatus::kNoElasticOutcome ? 0.0 : r.outcome_count);
    v.unique = !exact ? kNaN : (r.unique ? 1.0 : 0.0);
    if (exact && r.outcome_count > 0) {
      double sum = 0.0;
      for (int j = 0; j < r.outcome_count; ++j)
        sum += workspace.outcomes.items[static_cast<std::size_t>(j)].energy;
      v.all_after = sum / r.outcome_count;
    }
  }
  // Sized once (make_scratch: the model's max_dof), so the fixed path never allocates here.
  const auto publish = [&](std::size_t s, const typename S::DofVector& momentum, double energy, int steps) {
    if (v.momenta[s].size() < momentum.size()) v.momenta[s].resize(momentum.size());
    v.momenta[s].head(momentum.size()) = momentum;
    v.after[s] = energy;
    v.steps[s] = steps;
    v.ok[s] = 1;
  };
  const auto found = [&](std::size_t s) {
    return branch_of[s] >= 0 && branches.branches[branch_of[s]].found;
  };
  for (std::size_t s = 0; s < single_.size(); ++s) {  // read off the enumeration's set first
    if (!found(s)) continue;
    const BasicSinglePolicyOutcome<S> o =
        single_policy_outcome(problem, shared, branches.branches[branch_of[s]], workspace.outcomes);
    worse(task_status_of(o.status));
    publish(s, o.momentum, o.energy, o.steps);
  }
  for (std::size_t s = 0; s < single_.size(); ++s) {
    if (found(s)) continue;
    options.policy = single_[s];
    const BasicImpactResolution<S> r = resolve_impact(problem, options, workspace, &shared);
    worse(task_status_of(r.status));
    v.ok[s] = 0;
    v.after[s] = v.steps[s] = kNaN;
    if (r.outcome_count > 0 && r.status != ResolveStatus::kCapHit) {
      const BasicOutcome<S>& o = workspace.outcomes.items[0];
      publish(s, o.momentum, o.energy, o.shortest);
    }
  }
  std::size_t pair = 0;
  for (std::size_t a = 0; a < single_.size(); ++a)
    for (std::size_t b = a + 1; b < single_.size(); ++b, ++pair)
      v.pair_xi[pair] = (v.ok[a] && v.ok[b] && norm > 0.0)
                            ? problem.distance(v.momenta[a].head(v.dof), v.momenta[b].head(v.dof)) / norm
                            : (norm > 0.0 ? kNaN : 0.0);
  // No contact closed (every gap above the tolerance: feet in the air, `place` forgotten): no
  // impact was posed, so there is no indeterminacy to report — ξ, the outcome count and
  // uniqueness are NaN under their own status, never a ξ = 0 that reads as a unique outcome.
  if (problem.contacts() == 0) {
    v.xi_all = v.outcome_count = v.unique = kNaN;
    std::fill(v.pair_xi.begin(), v.pair_xi.end(), kNaN);
    return TaskStatus::kNoContact;
  }
  return status;
}

TaskStatus ImpactTaskKernel::evaluate(std::int64_t task, const ParameterSet& params,
                                      TaskScratch& scratch_base, double* results) const {
  auto& scratch = static_cast<ImpactTaskScratch&>(scratch_base);
  const TaskStatus status = compute(task, params, scratch);
  write_columns(table_, scratch.values, results);
  return status;
}

TaskStatus task_status_of(ResolveStatus s) {
  switch (s) {
    case ResolveStatus::kOk:
      return TaskStatus::kOk;
    case ResolveStatus::kNoImpact:
      return TaskStatus::kNoImpact;
    case ResolveStatus::kNoElasticOutcome:
      return TaskStatus::kNoElasticOutcome;
    case ResolveStatus::kCapHit:
      return TaskStatus::kCapHit;
    case ResolveStatus::kPlasticUnverified:
      return TaskStatus::kFailed;
  }
  return TaskStatus::kFailed;
}

}  // namespace simpact
