// Private to study/impact_batch*.cpp: how a batch walks its items. Per thread, one problem at a
// time is built (by a BatchProblemMaker, or in place from raw arrays) and handed with that
// thread's workspace to a body; the first failing item (by index) is rethrown after the loop.
#pragma once

#include <omp.h>

#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <vector>

#include "simpact/core/impact_resolution.hpp"
#include "simpact/study/impact_batch.hpp"

namespace simpact::batch {

inline void check_shape(long batch, int dof, int contacts) {
  if (batch < 0) throw InputError("batch", "must be >= 0");
  if (dof < 1) throw InputError("mass_matrix", "must be a square d×d matrix with d >= 1");
  if (contacts < 1) throw InputError("normals", "at least one contact normal is required");
}

// The first failure of a parallel loop, by item index (so the report does not depend on timing).
class FirstFailure {
 public:
  void record(long item, std::exception_ptr error);
  void rethrow() const;  // as BatchInputError for an InputError

 private:
  std::mutex mutex_;
  long item_ = -1;
  std::exception_ptr error_;
};

// Scratch of one thread: both size paths' workspaces, made when first needed.
struct ThreadScratch {
  std::unique_ptr<ImpactWorkspace> fixed;
  std::unique_ptr<DynamicImpactWorkspace> dynamic;
  template <typename S>
  BasicImpactWorkspace<S>& get(const ResolveLimits& limits) {
    if constexpr (std::is_same_v<S, FixedSizes>) {
      if (!fixed) fixed = std::make_unique<ImpactWorkspace>(limits);
      return *fixed;
    } else {
      if (!dynamic) dynamic = std::make_unique<DynamicImpactWorkspace>(limits);
      return *dynamic;
    }
  }
};

// resolve_impact(problem, options, workspace), the same bit for bit, with the argmin and argmax
// propagations behind ξ_argmin_argmax read off the `all` enumeration's branches (which follow
// propagate()'s arithmetic step for step: BasicPolicyBranches; the sweep kernel does the same)
// instead of propagating twice; a branch the enumeration did not finish propagates as before.
// Taken for policy all with compare_argmin_argmax and R = 1 (no plastic blend of the pair), else
// resolve_impact itself. res.argmin and res.argmax stay empty: a batch reports only their ξ.
template <typename S>
BasicImpactResolution<S> resolve_reading_branches(const BasicImpactProblem<S>& problem,
                                                  const ResolveOptions& options,
                                                  BasicImpactWorkspace<S>& workspace);

extern template BasicImpactResolution<FixedSizes> resolve_reading_branches(const ImpactProblem&,
                                                                           const ResolveOptions&,
                                                                           ImpactWorkspace&);
extern template BasicImpactResolution<DynamicSizes> resolve_reading_branches(const DynamicImpactProblem&,
                                                                             const ResolveOptions&,
                                                                             DynamicImpactWorkspace&);

// Items built by a BatchProblemMaker: one ResolveRequest per item (models, mechanisms).
class MakerSource {
 public:
  explicit MakerSource(const BatchProblemMaker& make) : make_(make) {}
  template <typename Body>
  void visit(long item, int thread, ThreadScratch& scratch, const ResolveOptions& options, Body& body) const {
    ResolveRequest request;
    make_(item, thread, request);
    if (request.dynamic())
      body(item, thread, request.problem_on<DynamicSizes>(), scratch.get<DynamicSizes>(options.limits));
    else
      body(item, thread, request.problem_on<FixedSizes>(), scratch.get<FixedSizes>(options.limits));
  }

 private:
  const BatchProblemMaker& make_;
};

// Raw items on the fixed-size path built in place: per thread one ImpactSystem rebuilt from the
// arrays (a diagonal M through assign_diagonal, as KineticMetric's constructor does for one) and a
// problem borrowing it: no request, no copy into RawProblemInput, no allocation once warm. The
// same constructors and arithmetic as make_raw_problem (p⁻ = M q̇⁻ by the same product), so the
// same problem bit for bit. An item that is bad or needs the dynamic path goes through
// raw_problem_maker: the request's error and its order of checks, exactly.
class RawSource {
 public:
  RawSource(const RawImpactBatch& batch, int threads)
      : batch_(batch), fallback_(raw_problem_maker(batch)), threads_(static_cast<std::size_t>(threads)) {}
  template <typename Body>
  void visit(long item, int thread, ThreadScratch& scratch, const ResolveOptions& options, Body& body) {
    const ImpactProblem* problem = build(item, threads_[static_cast<std::size_t>(thread)]);
    if (problem == nullptr)  // the canonical path: the request's problem or its error
      MakerSource(fallback_).visit(item, thread, scratch, options, body);
    else
      body(item, thread, *problem, scratch.get<FixedSizes>(options.limits));
  }

 private:
  struct Thread {
    Eigen::MatrixXd mass;
    Eigen::VectorXd diagonal, momentum;
    ImpactSystem system;
    std::optional<ImpactProblem> problem;
  };
  // Item `item`'s problem on the fixed path, or null (bad item, or the dynamic path).
  const ImpactProblem* build(long item, Thread& t) const;

  const RawImpactBatch& batch_;
  BatchProblemMaker fallback_;
  std::vector<Thread> threads_;
};

// The loop every batch shares: per item, build the problem and call `body` on its size path.
template <typename Source, typename Body>
void for_each_item(long batch, int nthreads, Source& source, const ResolveOptions& options, Body&& body) {
  std::vector<ThreadScratch> scratch(static_cast<std::size_t>(nthreads));
  FirstFailure failure;
#pragma omp parallel for schedule(dynamic, 16) num_threads(nthreads)
  for (long item = 0; item < batch; ++item) {
    const int t = omp_get_thread_num();
    try {
      source.visit(item, t, scratch[static_cast<std::size_t>(t)], options, body);
    } catch (...) {
      failure.record(item, std::current_exception());
    }
  }
  failure.rethrow();
}

}  // namespace simpact::batch
