#include "impact_batch_items.hpp"

#include <utility>

namespace simpact::batch {

void FirstFailure::record(long item, std::exception_ptr error) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (item_ < 0 || item < item_) {
    item_ = item;
    error_ = std::move(error);
  }
}

void FirstFailure::rethrow() const {
  if (item_ < 0) return;
  try {
    std::rethrow_exception(error_);
  } catch (const InputError& e) {
    throw BatchInputError(item_, e);
  }
}

template <typename S>
BasicImpactResolution<S> resolve_reading_branches(const BasicImpactProblem<S>& problem,
                                                  const ResolveOptions& options,
                                                  BasicImpactWorkspace<S>& workspace) {
  // One named result, returned everywhere (NRVO: a resolution is large, no copy of it).
  const bool read_branches = options.policy == OrderingPolicy::kAll && options.compare_argmin_argmax &&
                             options.precomputed == nullptr && problem.restitution() == 1.0;
  ResolveOptions own = options;
  own.compare_argmin_argmax = options.compare_argmin_argmax && !read_branches;
  BasicPolicyBranches<S> branches;
  const int argmin = read_branches ? branches.track(OrderingPolicy::kArgmin) : -1;
  const int argmax = read_branches ? branches.track(OrderingPolicy::kArgmax) : -1;
  BasicImpactResolution<S> res =
      resolve_impact(problem, own, workspace, static_cast<const BasicPrecomputedImpact<S>*>(nullptr),
                     read_branches ? &branches : nullptr);
  // resolve_impact returns these before it propagates the pair (R = 1: never plastic-only, so
  // every other resolution ran the enumeration).
  if (!read_branches || res.status == ResolveStatus::kNoElasticOutcome ||
      res.status == ResolveStatus::kPlasticUnverified)
    return res;
  // Each policy's end impulses λ_e, and whether its propagation hit the step cap.
  const auto end_of = [&](int branch, OrderingPolicy policy, bool& capped) {
    const auto& b = branches.branches[branch];
    if (b.found) {  // within every cap and max_steps: propagate() would end here, uncapped
      capped = false;
      return typename S::ContactVector(b.impulses);
    }
    const BasicPropagation<S> p = propagate(problem, policy, options.limits, nullptr);
    capped = p.step_cap_hit;
    return typename S::ContactVector(p.impulses);
  };
  bool argmin_capped = false, argmax_capped = false;
  const typename S::ContactVector a = end_of(argmin, OrderingPolicy::kArgmin, argmin_capped);
  const typename S::ContactVector b = end_of(argmax, OrderingPolicy::kArgmax, argmax_capped);
  // resolve_impact's epilogue for the pair: a capped pair caps the resolution; ξ_ab otherwise.
  const bool pair_capped = argmin_capped || argmax_capped;
  if (pair_capped) res.status = ResolveStatus::kCapHit;
  const double norm = problem.momentum_norm();
  if (!pair_capped)
    res.xi_argmin_argmax =
        norm > 0.0
            ? problem.distance(problem.momentum_from_impulses(a), problem.momentum_from_impulses(b)) / norm
            : 0.0;
  return res;
}

template BasicImpactResolution<FixedSizes> resolve_reading_branches(const ImpactProblem&,
                                                                    const ResolveOptions&, ImpactWorkspace&);
template BasicImpactResolution<DynamicSizes> resolve_reading_branches(const DynamicImpactProblem&,
                                                                      const ResolveOptions&,
                                                                      DynamicImpactWorkspace&);

const ImpactProblem* RawSource::build(long item, Thread& t) const {
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Index d = batch_.dof, k = batch_.contacts;
  const Eigen::Map<const Eigen::VectorXd> gaps(batch_.gaps ? batch_.gaps + item * k : nullptr,
                                               batch_.gaps ? k : 0);
  t.problem.reset();  // it borrows the system about to be rebuilt
  if (!fits_fixed_sizes(static_cast<int>(d), closed_contact_count(k, gaps, batch_.gap_tolerance)))
    return nullptr;
  try {
    const Eigen::Map<const RowMajor> mass(batch_.mass_matrix + item * d * d, d, d);
    const Eigen::Map<const RowMajor> normals(batch_.normals + item * k * d, k, d);
    const Eigen::Map<const Eigen::VectorXd> p(batch_.momentum + item * d, d);
    // KineticMetric's own test: zero off the diagonal means M = diag(M), set up by assign_diagonal
    // (NaN counts as non-zero, as there). Counted, not scanned entry by entry: the non-zeros of M
    // are those of its diagonal exactly when the rest is zero (a loop the compiler vectorizes).
    const double* m = batch_.mass_matrix + item * d * d;
    Eigen::Index nonzero = 0, nonzero_diagonal = 0;
    for (Eigen::Index e = 0; e < d * d; ++e) nonzero += m[e] != 0.0;
    for (Eigen::Index i = 0; i < d; ++i) nonzero_diagonal += m[i * d + i] != 0.0;
    const bool diagonal = nonzero == nonzero_diagonal;
    if (!diagonal || batch_.velocity) t.mass = mass;
    if (batch_.velocity) {
      if (!p.allFinite()) return nullptr;
      t.momentum.noalias() = t.mass * p;  // as make_raw_problem (the same product, no temporary)
    }
    if (diagonal) {
      t.diagonal = mass.diagonal();
      t.system.assign_diagonal(t.diagonal, normals, gaps, batch_.gap_tolerance);
    } else {
      t.system = ImpactSystem(KineticMetric(t.mass), normals, gaps, batch_.gap_tolerance);
    }
    const double restitution = batch_.restitution ? batch_.restitution[item] : batch_.restitution_value;
    if (batch_.velocity)
      t.problem.emplace(t.system, t.momentum, restitution);
    else
      t.problem.emplace(t.system, p, restitution);
    return &*t.problem;
  } catch (const InputError&) {
    t.problem.reset();
    return nullptr;
  }
}

}  // namespace simpact::batch
