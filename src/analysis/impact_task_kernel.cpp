#include "simpact/analysis/impact_task_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "simpact/core/impact_diagnostics.hpp"

namespace simpact {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

class ImpactScratch final : public TaskScratch {
 public:
  explicit ImpactScratch(const ResolveLimits& limits) : workspace(limits) {}
  ImpactWorkspace workspace;
  // One entry per single ordering, sized once: evaluating a task allocates nothing here.
  std::vector<DofVector> final_momenta;
  std::vector<double> after, steps;
  std::vector<char> ok;
};

TaskStatus status_of(ResolveStatus s) {
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

}  // namespace

ImpactTaskKernel::ImpactTaskKernel(std::unique_ptr<ImpactModel> model, ImpactStudyOptions options)
    : model_(std::move(model)), options_(std::move(options)) {
  for (OrderingPolicy o : options_.orderings) {
    if (o == OrderingPolicy::kAll) {
      has_all_ = true;
    } else if (std::find(single_.begin(), single_.end(), o) == single_.end()) {
      single_.push_back(o);
    }
  }
  auto name = [](OrderingPolicy o) { return std::string(ordering_policy_name(o)); };
  if (has_all_) {
    headline_ = static_cast<int>(columns_.size());
    columns_.push_back({"outcome_set", "xi_maps", "1",
                        "indeterminacy xi: diameter of the set of outcomes divided by the norm of the "
                        "pre-impact momentum (kinetic metric)"});
    columns_.push_back({"count", "outcomes", "1", "number of distinct propagative outcomes"});
    columns_.push_back({"unique", "outcomes", "1", "1 when the outcome is unique (no cap hit)"});
  }
  for (std::size_t a = 0; a < single_.size(); ++a)
    for (std::size_t b = a + 1; b < single_.size(); ++b) {
      if (headline_ < 0) headline_ = static_cast<int>(columns_.size());
      columns_.push_back({name(single_[a]) + "_vs_" + name(single_[b]), "xi_maps", "1",
                          "indeterminacy between the " + name(single_[a]) + " and " + name(single_[b]) +
                              " orderings: norm of the difference of their outcomes divided by the norm of "
                              "the pre-impact momentum "
                              "(kinetic metric)"});
    }
  columns_.push_back({"before", "energy", "J", "kinetic energy before the impact"});
  std::vector<OrderingPolicy> all_orderings = single_;
  if (has_all_) all_orderings.insert(all_orderings.begin(), OrderingPolicy::kAll);
  for (OrderingPolicy o : all_orderings) {
    const std::string what = o == OrderingPolicy::kAll ? "mean over the outcome set" : "ordering " + name(o);
    columns_.push_back({"after_" + name(o), "energy", "J", "kinetic energy after the impact, " + what});
    columns_.push_back({"relative_loss_" + name(o), "energy", "1",
                        "relative kinetic energy loss (E_before - E_after) / E_before, " + what});
  }
  columns_.push_back({"after_plastic", "energy", "J", "kinetic energy after a perfectly plastic impact"});
  columns_.push_back({"relative_loss_plastic", "energy", "1", "relative energy loss of a plastic impact"});
  columns_.push_back({"impact", "outcomes", "1",
                      "1 when some closed contact was approaching (an impact happened), 0 when the "
                      "pre-impact momentum was feasible"});
  columns_.push_back(
      {"normalized_cosine", "outcomes", "1",
       "cosine between the first two contact normals in the kinetic metric (normalized Gram entry G_12)"});
  columns_.push_back({"dihedral_m", "outcomes", "1",
                      "integer m with G_12 = -cos(pi/m), a dihedral configuration (0: none)"});
  for (OrderingPolicy o : single_)
    columns_.push_back({"steps_" + name(o), "outcomes", "1", "reflections applied by ordering " + name(o)});
  if (options_.momenta)
    for (OrderingPolicy o : single_)
      columns_.push_back({"momentum_after_" + name(o), "outcomes", "kg m s-1",
                          "post-impact momentum p+ under ordering " + name(o) + " (NaN beyond the task's d)",
                          model_->max_dof()});
}

std::unique_ptr<TaskScratch> ImpactTaskKernel::make_scratch() const {
  auto scratch = std::make_unique<ImpactScratch>(options_.limits);
  scratch->final_momenta.resize(single_.size());
  scratch->after.resize(single_.size());
  scratch->steps.resize(single_.size());
  scratch->ok.resize(single_.size());
  return scratch;
}

TaskStatus ImpactTaskKernel::evaluate(std::int64_t task, const ParameterSet& params,
                                      TaskScratch& scratch_base, double* results) const {
  auto& scratch = static_cast<ImpactScratch&>(scratch_base);
  const ImpactProblem problem = model_->make_problem(params);
  const ImpactDiagnostics diagnostics = diagnose(problem);
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
  const double e0 = problem.energy_before();
  const double norm = problem.momentum_norm();
  auto loss = [&](double after) { return e0 > 0.0 ? (e0 - after) / e0 : 0.0; };

  int col = 0;
  double all_after = kNaN;
  PlasticOutcome plastic;
  bool plastic_known = false;
  if (has_all_) {
    options.policy = OrderingPolicy::kAll;
    const ImpactResolution r = resolve_impact(problem, options, scratch.workspace);
    worse(status_of(r.status));
    plastic = r.plastic;
    plastic_known = r.plastic_computed && r.plastic.converged;
    // A capped or failed resolution publishes nothing it did not compute: NaN, counted by status.
    const bool exact = r.status != ResolveStatus::kCapHit && r.status != ResolveStatus::kPlasticUnverified;
    results[col++] = r.xi;
    results[col++] = !exact ? kNaN : (r.status == ResolveStatus::kNoElasticOutcome ? 0.0 : r.outcome_count);
    results[col++] = !exact ? kNaN : (r.unique ? 1.0 : 0.0);
    if (exact && r.outcome_count > 0) {
      double sum = 0.0;
      for (int j = 0; j < r.outcome_count; ++j)
        sum += scratch.workspace.outcomes.items[static_cast<std::size_t>(j)].energy;
      all_after = sum / r.outcome_count;
    }
  }
  std::vector<double>& single_after = scratch.after;
  std::vector<double>& single_steps = scratch.steps;
  std::vector<char>& single_ok = scratch.ok;
  std::fill(single_after.begin(), single_after.end(), kNaN);
  std::fill(single_steps.begin(), single_steps.end(), kNaN);
  std::fill(single_ok.begin(), single_ok.end(), 0);
  for (std::size_t s = 0; s < single_.size(); ++s) {
    options.policy = single_[s];
    const ImpactResolution r = resolve_impact(problem, options, scratch.workspace);
    worse(status_of(r.status));
    if (!plastic_known) {
      plastic = r.plastic;
      plastic_known = r.plastic_computed && r.plastic.converged;
    }
    if (r.outcome_count > 0 && r.status != ResolveStatus::kCapHit) {
      const Outcome& o = scratch.workspace.outcomes.items[0];
      scratch.final_momenta[s] = o.momentum;
      single_after[s] = o.energy;
      single_steps[s] = o.shortest;
      single_ok[s] = 1;
    }
  }
  for (std::size_t a = 0; a < single_.size(); ++a)
    for (std::size_t b = a + 1; b < single_.size(); ++b)
      results[col++] =
          (single_ok[a] && single_ok[b] && norm > 0.0)
              ? problem.distance(scratch.final_momenta[a], scratch.final_momenta[b]) / norm
              : (norm > 0.0 ? kNaN : 0.0);
  results[col++] = e0;
  if (has_all_) {
    results[col++] = all_after;
    results[col++] = std::isfinite(all_after) ? loss(all_after) : kNaN;
  }
  for (std::size_t s = 0; s < single_.size(); ++s) {
    results[col++] = single_after[s];
    results[col++] = std::isfinite(single_after[s]) ? loss(single_after[s]) : kNaN;
  }
  results[col++] = plastic_known ? plastic.energy : kNaN;
  results[col++] = plastic_known ? loss(plastic.energy) : kNaN;
  results[col++] = problem.feasible(problem.initial_rates()) ? 0.0 : 1.0;
  results[col++] = problem.contacts() >= 2 ? diagnostics.normalized_gram(0, 1) : kNaN;
  results[col++] = diagnostics.dihedral_m;
  for (std::size_t s = 0; s < single_.size(); ++s) results[col++] = single_steps[s];
  if (options_.momenta) {
    const int d = problem.dof();
    for (std::size_t s = 0; s < single_.size(); ++s) {
      double* out = results + col;
      std::fill(out, out + model_->max_dof(), kNaN);
      if (single_ok[s]) {
        const DofVector& p = scratch.final_momenta[s];
        for (int i = 0; i < d; ++i) out[i] = p[i];
      }
      col += model_->max_dof();
    }
  }
  return status;
}

}  // namespace simpact
