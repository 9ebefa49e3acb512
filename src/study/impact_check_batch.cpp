// check_batch: `simpact check` on a batch (impact_batch.hpp), over the same item loop and result
// arrays as resolve_batch, plus the post-impact check of each item.
#include <algorithm>
#include <limits>
#include <optional>

#include "impact_batch_items.hpp"
#include "impact_batch_store.hpp"
#include "simpact/core/post_impact_check.hpp"
#include "simpact/study/impact_service.hpp"

namespace simpact {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <typename Source>
CheckBatchResult check_items(long batch, int dof, int contacts, Source& source, const CheckBatchInput& input,
                             const ResolveOptions& options, int nthreads) {
  // The tolerances given are validated once, before any item, as a request's would be.
  const std::optional<double> tolerance =
      input.tolerance ? std::optional<double>(checked_check_tolerance(*input.tolerance, "tolerance"))
                      : std::nullopt;
  const std::optional<double> consistency = input.consistency_tolerance
                                                ? std::optional<double>(checked_check_tolerance(
                                                      *input.consistency_tolerance, "consistency_tolerance"))
                                                : std::nullopt;
  CheckBatchResult c;
  ImpactBatchResult& r = c.impact;
  batch::ResolutionWriter writer(r, batch, dof, contacts, nthreads,
                                 options.policy == OrderingPolicy::kAll ? 2 : 1);
  const auto B = static_cast<std::size_t>(batch), D = static_cast<std::size_t>(dof),
             K = static_cast<std::size_t>(contacts);
  c.consistent.assign(B, 0);
  c.negative_impulses.assign(B, 0);
  for (auto* v :
       {&c.energy_after, &c.relative_energy_error, &c.predicted_energy_after,
        &c.relative_energy_error_vs_model, &c.max_feasibility_violation, &c.impulse_residual,
        &c.nonnegative_impulse_residual, &c.complementarity_residual, &c.distance_to_nearest_outcome,
        &c.distance_to_plastic, &c.tolerance, &c.consistency_tolerance})
    v->assign(B, kNaN);
  c.momentum_after.assign(B * D, kNaN);
  c.nearest_outcome.assign(B, -1);
  c.printed_significant_digits.assign(B, 0);
  c.implied_impulses.assign(B * K, kNaN);
  batch::for_each_item(
      batch, nthreads, source, options, [&](long item, int thread, const auto& problem, auto& ws) {
        using S = typename std::decay_t<decltype(problem)>::Sizes;
        const auto b = static_cast<std::size_t>(item);
        CheckRequest check_request;
        check_request.tolerance_given = tolerance.has_value();
        check_request.consistency_tolerance_given = consistency.has_value();
        if (tolerance) check_request.tolerance = *tolerance;
        if (consistency) check_request.consistency_tolerance = *consistency;
        const Eigen::Map<const Eigen::VectorXd> after(input.after + item * dof, dof);
        set_check_state(problem, Eigen::VectorXd(after), input.velocity, check_request);
        set_default_check_tolerances(check_request);
        const auto res = batch::resolve_reading_branches(problem, options, ws);
        const PostImpactCheck check =
            check_post_impact_state(problem, typename S::DofVector(check_request.momentum_after),
                                    check_request.tolerance, check_request.consistency_tolerance, res, ws);
        writer.store(problem, res, ws, item, thread);
        c.consistent[b] = check.consistent_with_propagative_model ? 1 : 0;
        c.negative_impulses[b] = check.negative_impulses ? 1 : 0;
        std::copy(check_request.momentum_after.data(), check_request.momentum_after.data() + D,
                  c.momentum_after.data() + b * D);
        c.energy_after[b] = check.energy_after;
        c.relative_energy_error[b] = check.relative_energy_error;
        c.predicted_energy_after[b] = check.predicted_energy_after;
        c.relative_energy_error_vs_model[b] = check.relative_energy_error_vs_model;
        c.max_feasibility_violation[b] = check.max_feasibility_violation;
        c.impulse_residual[b] = check.impulse_residual;
        c.nonnegative_impulse_residual[b] = check.nonnegative_impulse_residual;
        c.complementarity_residual[b] = check.complementarity_residual;
        c.distance_to_nearest_outcome[b] = check.distance_to_nearest_outcome;
        c.distance_to_plastic[b] = check.distance_to_plastic;
        c.tolerance[b] = check_request.tolerance;
        c.consistency_tolerance[b] = check_request.consistency_tolerance;
        c.nearest_outcome[b] = check.nearest_outcome;
        c.printed_significant_digits[b] = check_request.precision.digits;
        const std::size_t n = std::min(check.implied_impulses.size(), K);
        std::copy(check.implied_impulses.begin(), check.implied_impulses.begin() + static_cast<long>(n),
                  c.implied_impulses.begin() + static_cast<long>(b * K));
      });
  writer.gather();
  return c;
}

}  // namespace

CheckBatchResult check_batch(long batch, int dof, int contacts, const BatchProblemMaker& make,
                             const CheckBatchInput& input, const ResolveOptions& options, int threads) {
  batch::check_shape(batch, dof, contacts);
  batch::MakerSource source(make);
  return check_items(batch, dof, contacts, source, input, options, batch_thread_count(threads));
}

CheckBatchResult check_batch(const RawImpactBatch& batch, const CheckBatchInput& input,
                             const ResolveOptions& options, int threads) {
  batch::check_shape(batch.batch, batch.dof, batch.contacts);
  const int nthreads = batch_thread_count(threads);
  batch::RawSource source(batch, nthreads);
  return check_items(batch.batch, batch.dof, batch.contacts, source, input, options, nthreads);
}

}  // namespace simpact
