// The sweep task for impact models: parameters → model → ImpactProblem → resolution under each
// configured ordering policy → named results (ξ per ordering pair and over the outcome set,
// energies before/after and relative loss per policy, outcome counts, diagnostics).
//
// A task is evaluated in two steps: `compute` resolves the impact once per ordering (the plastic
// outcome and the positive-span test once per task, shared by every ordering) into an
// `ImpactTaskValues`; then every column's extractor writes its `length` values from it. Each
// column is declared together with its extractor (`ImpactColumn`), so the list of columns and the
// values written cannot drift apart.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "simpact/core/impact_resolution.hpp"
#include "simpact/core/ordering_policy.hpp"
#include "simpact/models/mechanism_family.hpp"
#include "simpact/sweep/column_table.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

struct ImpactStudyOptions {
  std::vector<OrderingPolicy> orderings{kDefaultSweepOrderings.begin(), kDefaultSweepOrderings.end()};
  Minimality minimality = Minimality::kPropagation;
  ResolveLimits limits;
  std::uint64_t seed = 0;  // for the random ordering
  // Per-task arrays: p⁺ under each single ordering, padded with NaN to the model's max_dof().
  bool momenta = false;
};

// Everything one task's columns are computed from, filled by ImpactTaskKernel::compute. NaN marks
// what the task did not compute (a capped or failed resolution publishes nothing).
struct ImpactTaskValues {
  double energy_before = 0.0;      // ½||p⁻||²_g [J]
  bool impact = false;             // some closed contact was approaching
  double normalized_cosine = 0.0;  // G_12 (NaN with fewer than two contacts)
  int dihedral_m = 0;
  bool plastic_known = false;   // p_p was computed and passed its KKT check
  double plastic_energy = 0.0;  // ½||p_p||²_g [J] (meaningful when plastic_known)
  // Policy `all` (when configured): ξ over the outcome set, outcome count, uniqueness, mean energy.
  double xi_all = 0.0, outcome_count = 0.0, unique = 0.0, all_after = 0.0;
  // One entry per single ordering (ImpactTaskKernel::single_orderings()), sized by make_scratch.
  int dof = 0;
  std::vector<char> ok;                  // the ordering reached an outcome (no cap hit)
  std::vector<double> after, steps;      // its energy [J] and reflections (NaN unless ok)
  std::vector<Eigen::VectorXd> momenta;  // its p⁺ in the first `dof` entries (valid where ok)
  // ξ between single orderings a < b, in the order (0,1), (0,2), …, (1,2), …
  std::vector<double> pair_xi;
  // The model's task values (MechanismFamily::task_values: a mechanism's placed coordinates, its
  // smallest gap), sized by make_scratch; NaN until the model reported them.
  std::vector<double> model_values;
};

// A result column and the code that computes it: `extract` writes exactly column.length values.
using ImpactColumn = ExtractedColumn<ImpactTaskValues>;

// The per-thread state of the kernel: the family's scratch, the task's impact terms and system
// (rebuilt in place), the core workspace and the task's values.
class ImpactTaskScratch final : public TaskScratch {
 public:
  explicit ImpactTaskScratch(const ResolveLimits& limits) : workspace(limits) {}
  FamilyScratch family;  // the family's parameter positions and mechanism, rebuilt per task
  ImpactTerms terms;     // the mechanism at the task's configuration
  PreImpact pre;         // and its pre-impact state
  ImpactSystem system;
  ImpactWorkspace workspace;
  std::unique_ptr<DynamicImpactWorkspace> dynamic_workspace;  // made by the first larger system
  ImpactTaskValues values;
};

class ImpactTaskKernel final : public TaskKernel {
 public:
  ImpactTaskKernel(std::unique_ptr<MechanismFamily> model, ImpactStudyOptions options);
  const std::vector<ResultColumn>& columns() const override { return columns_; }
  std::unique_ptr<TaskScratch> make_scratch() const override;
  // compute, then every column's extractor in column order.
  TaskStatus evaluate(std::int64_t task, const ParameterSet& params, TaskScratch& scratch,
                      double* results) const override;
  int headline_column() const override { return headline_; }
  // The model's impact problem must build (admissible geometry, magnitudes in range).
  void check_parameters(const ParameterSet& params) const override;

  // Resolves task `task` into `scratch.values` (a scratch from make_scratch) and returns its status.
  TaskStatus compute(std::int64_t task, const ParameterSet& params, ImpactTaskScratch& scratch) const;
  // The columns with their extractors; columns()[i] is table()[i].column.
  const std::vector<ImpactColumn>& table() const { return table_; }
  // The configured orderings other than `all`, in the order of the per-ordering columns.
  const std::vector<OrderingPolicy>& single_orderings() const { return single_; }

 private:
  template <typename S>
  TaskStatus compute_on(std::int64_t task, const BasicImpactProblem<S>& problem,
                        BasicImpactWorkspace<S>& workspace, ImpactTaskValues& values) const;
  std::unique_ptr<MechanismFamily> model_;
  ImpactStudyOptions options_;
  std::vector<ImpactColumn> table_;
  std::vector<ResultColumn> columns_;
  std::vector<OrderingPolicy> single_;  // the orderings other than `all`
  bool has_all_ = false;
  int headline_ = -1;
  std::size_t model_values_ = 0;  // model_->task_values().size()
};

// A resolution's status as a task's (plastic outcome unverified: failed): every impact kernel's
// one mapping.
TaskStatus task_status_of(ResolveStatus status);

}  // namespace simpact
