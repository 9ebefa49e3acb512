// `simpact resolve` and `simpact check` on a batch: B problems resolved in parallel (OpenMP),
// each exactly as the JSON services resolve it (the same problem construction, options and core
// call), the results gathered into flat arrays. The Python module's resolve/check and
// Mechanism.resolve are this API over NumPy arrays.
//
// Arrays are row-major (C order) and indexed by item first. Contacts are the given ones (k):
// open contacts carry zero impulse, as in the JSON. Outcome sets have a variable size per item:
// item b's outcomes are rows outcome_offsets[b] .. outcome_offsets[b + 1] of the outcome arrays.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "simpact/io/impact_json.hpp"
#include "simpact/models/mujoco_mechanism.hpp"

namespace simpact {

// A bad item: its index and the InputError the same problem gives as a `simpact resolve`
// request (what() is that one line; field() is the request's field).
class BatchInputError : public InputError {
 public:
  BatchInputError(long item, const InputError& error);
  long item() const noexcept { return item_; }
  // The one-line message of `simpact resolve` for that item ("mass_matrix: must be symmetric").
  const std::string& line() const noexcept { return line_; }

 private:
  long item_;
  std::string line_;
};

// B raw problems, not owned: what a batch of raw `simpact resolve` requests gives.
struct RawImpactBatch {
  long batch = 0;
  int dof = 0, contacts = 0;
  const double* mass_matrix = nullptr;  // B × d × d [kg, kg·m², ...]
  const double* normals = nullptr;      // B × k × d
  const double* momentum = nullptr;     // B × d: p⁻, or q̇⁻ when `velocity`
  bool velocity = false;
  const double* gaps = nullptr;         // B × k, optional (null: every contact closed)
  const double* restitution = nullptr;  // B, optional (null: restitution_value for all)
  double restitution_value = 1.0;
  double gap_tolerance = kGapTolerance;
};

// Builds item `item`'s problem into `request` (problem or dynamic_problem) on thread `thread`
// (0 ≤ thread < the batch's thread count); throws InputError for a bad item.
using BatchProblemMaker = std::function<void(long item, int thread, ResolveRequest& request)>;
BatchProblemMaker raw_problem_maker(const RawImpactBatch& batch);

// B parameter points of a built-in model (`simpact resolve {"model": .., "params": {..}}`):
// parameter names[j] of item b is values[b * names.size() + j]. Unknown models and parameters
// throw InputError here ("model", "params.<name>"); a bad value throws per item.
BatchProblemMaker model_problem_maker(const std::string& model, const std::vector<std::string>& names,
                                      const double* values);

// The thread count a batch runs on (threads ≤ 0: OpenMP's default).
int batch_thread_count(int threads);

struct ImpactBatchResult {
  long batch = 0;
  int dof = 0, contacts = 0;
  std::vector<std::int32_t> status;  // ResolveStatus (resolve_status_name)
  std::vector<double> xi, xi_lower_bound, xi_argmin_argmax;
  std::vector<std::int32_t> outcome_count, minimal_outcomes;  // minimal_outcomes −1: unchecked
  std::vector<std::uint8_t> unique, cap_hit;                  // cap_hit: any cap of the JSON's "caps"
  std::vector<double> momentum_before, energy_before;         // B × d, B [J]
  // The plastic outcome p_p (NaN where it was not computed): B × d, B × k, B [J].
  std::vector<double> plastic_momentum, plastic_velocity, plastic_impulses, plastic_energy;
  // The distinct outcomes, flattened (N = outcome_offsets[B]): N × d, N × d, N × k, N [J].
  std::vector<std::int64_t> outcome_offsets;
  std::vector<double> outcome_momentum, outcome_velocity, outcome_impulses, outcome_energy;
};

// Resolves items 0..batch−1 with `options` on `threads` OpenMP threads (≤ 0: OpenMP's default).
// Results do not depend on the thread count. The first bad item (lowest index) throws
// BatchInputError after the loop.
ImpactBatchResult resolve_batch(long batch, int dof, int contacts, const BatchProblemMaker& make,
                                const ResolveOptions& options, int threads);
// The same for raw problems, built in place per thread (no request per item): equal, bit for bit,
// to resolve_batch(.., raw_problem_maker(batch), ..), errors included, and faster.
ImpactBatchResult resolve_batch(const RawImpactBatch& batch, const ResolveOptions& options, int threads);
// The same into `result`, reusing its vectors' storage (a caller recycling the buffers of earlier
// results: already mapped pages cost no page faults); every field is overwritten.
void resolve_batch(const RawImpactBatch& batch, const ResolveOptions& options, int threads,
                   ImpactBatchResult& result);

// What `simpact check` adds, per item: the post-impact state to check and the tolerances.
struct CheckBatchInput {
  const double* after = nullptr;  // B × d: momentum_after, or velocity_after when `velocity`
  bool velocity = false;
  std::optional<double> tolerance, consistency_tolerance;  // absent: from the printed precision
};

struct CheckBatchResult {
  ImpactBatchResult impact;
  std::vector<std::uint8_t> consistent, negative_impulses;
  std::vector<double> momentum_after, energy_after, relative_energy_error, predicted_energy_after,
      relative_energy_error_vs_model, max_feasibility_violation, impulse_residual,
      nonnegative_impulse_residual, complementarity_residual, distance_to_nearest_outcome,
      distance_to_plastic, tolerance, consistency_tolerance;
  std::vector<std::int32_t> nearest_outcome, printed_significant_digits;  // nearest −1: none
  std::vector<double> implied_impulses;                                   // B × k
};

CheckBatchResult check_batch(long batch, int dof, int contacts, const BatchProblemMaker& make,
                             const CheckBatchInput& input, const ResolveOptions& options, int threads);
// Raw problems built in place, as resolve_batch(const RawImpactBatch&, ..).
CheckBatchResult check_batch(const RawImpactBatch& batch, const CheckBatchInput& input,
                             const ResolveOptions& options, int threads);

}  // namespace simpact
