// Private to study/impact_batch*.cpp: a batch's results written into its flat arrays, item by
// item from any thread. Outcome rows vary in number per item: each thread appends its items' rows
// to its own buffers (amortized, no allocation per item), gathered in item order at the end.
#pragma once

#include <cstdint>
#include <vector>

#include "simpact/core/impact_resolution.hpp"
#include "simpact/study/impact_batch.hpp"

namespace simpact::batch {

// One thread's outcome rows, appended item after item.
struct ThreadOutcomes {
  std::vector<double> momentum, velocity, impulses, energy;
};

class ResolutionWriter {
 public:
  // Sizes `result` for `batch` items (NaN where an item may compute nothing; the storage its
  // vectors have is reused) and the outcome buffers for `threads` threads, about
  // `outcomes_per_item` rows per item.
  ResolutionWriter(ImpactBatchResult& result, long batch, int dof, int contacts, int threads,
                   std::size_t outcomes_per_item);
  // Item `item`'s resolution (its outcome set in `workspace`), resolved on thread `thread`.
  template <typename S>
  void store(const BasicImpactProblem<S>& problem, const BasicImpactResolution<S>& res,
             const BasicImpactWorkspace<S>& workspace, long item, int thread);
  // The outcome rows in item order, with their offsets, into the result (once, after the loop).
  void gather();

 private:
  ImpactBatchResult& r_;
  std::vector<std::int32_t> thread_;         // per item: the thread that stored it
  std::vector<std::int64_t> first_, count_;  // per item: its first row there, its row count
  std::vector<ThreadOutcomes> rows_;
};

extern template void ResolutionWriter::store(const ImpactProblem&, const ImpactResolution&,
                                             const ImpactWorkspace&, long, int);
extern template void ResolutionWriter::store(const DynamicImpactProblem&,
                                             const BasicImpactResolution<DynamicSizes>&,
                                             const DynamicImpactWorkspace&, long, int);

}  // namespace simpact::batch
