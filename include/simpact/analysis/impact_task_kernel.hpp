// The sweep task for impact models: parameters → model → ImpactProblem → resolution under each
// configured ordering policy → named results (ξ per ordering pair and over the outcome set,
// energies before/after and relative loss per policy, outcome counts, diagnostics).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "simpact/core/impact_resolution.hpp"
#include "simpact/core/ordering_policy.hpp"
#include "simpact/models/impact_model.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

struct ImpactStudyOptions {
  std::vector<OrderingPolicy> orderings{OrderingPolicy::kAll, OrderingPolicy::kArgmin,
                                        OrderingPolicy::kArgmax};
  Minimality minimality = Minimality::kPropagation;
  ResolveLimits limits;
  std::uint64_t seed = 0;  // for the random ordering
  // Per-task arrays: p⁺ under each single ordering, padded with NaN to the model's max_dof().
  bool momenta = false;
};

class ImpactTaskKernel final : public TaskKernel {
 public:
  ImpactTaskKernel(std::unique_ptr<ImpactModel> model, ImpactStudyOptions options);
  const std::vector<ResultColumn>& columns() const override { return columns_; }
  std::unique_ptr<TaskScratch> make_scratch() const override;
  TaskStatus evaluate(std::int64_t task, const ParameterSet& params, TaskScratch& scratch,
                      double* results) const override;
  int headline_column() const override { return headline_; }

 private:
  std::unique_ptr<ImpactModel> model_;
  ImpactStudyOptions options_;
  std::vector<ResultColumn> columns_;
  std::vector<OrderingPolicy> single_;  // the orderings other than `all`
  bool has_all_ = false;
  int headline_ = -1;
};

}  // namespace simpact
