#include "simpact/study/impact_batch.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "simpact/core/post_impact_check.hpp"
#include "simpact/io/sweep_config_yaml.hpp"  // nearest_name
#include "simpact/study/impact_service.hpp"

namespace simpact {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string message_after_field(const InputError& e) {
  const std::string what = e.what();
  return what.size() >= e.field().size() + 2 ? what.substr(e.field().size() + 2) : what;
}
}  // namespace

BatchInputError::BatchInputError(long item, const InputError& error)
    : InputError(error.field(), message_after_field(error) + " (batch item " + std::to_string(item) + ")"),
      item_(item),
      line_(error.what()) {}

BatchProblemMaker raw_problem_maker(const RawImpactBatch& batch) {
  return [batch](long item, int /*thread*/, ResolveRequest& request) {
    const Eigen::Index d = batch.dof, k = batch.contacts;
    using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    RawProblemInput input;
    input.mass_matrix = Eigen::Map<const RowMajor>(batch.mass_matrix + item * d * d, d, d);
    input.normals = Eigen::Map<const RowMajor>(batch.normals + item * k * d, k, d);
    const Eigen::Map<const Eigen::VectorXd> p(batch.momentum + item * d, d);
    (batch.velocity ? input.velocity : input.momentum) = p;
    if (batch.gaps) input.gaps = Eigen::Map<const Eigen::VectorXd>(batch.gaps + item * k, k);
    input.gap_tolerance = batch.gap_tolerance;
    input.restitution = batch.restitution ? batch.restitution[item] : batch.restitution_value;
    if (raw_problem_fits_fixed_sizes(input))
      request.problem = make_raw_problem<FixedSizes>(input);
    else
      request.dynamic_problem = make_raw_problem<DynamicSizes>(input);
  };
}

int batch_thread_count(int threads) {
  return threads > 0 ? threads : omp_get_max_threads();
}

BatchProblemMaker model_problem_maker(const std::string& model, const std::vector<std::string>& names,
                                      const double* values) {
  const ImpactModelCatalog& catalog = builtin_model_catalog();
  if (std::find(catalog.names.begin(), catalog.names.end(), model) == catalog.names.end()) {
    const std::string near = nearest_name(model, catalog.names);
    std::string allowed;
    for (const auto& name : catalog.names) allowed += (allowed.empty() ? "" : ", ") + name;
    throw InputError("model", "unknown model '" + model + "' (" +
                                  (near.empty() ? "" : "did you mean '" + near + "'?; ") +
                                  "allowed: " + allowed + ")");
  }
  std::vector<std::string> known;
  for (const auto& info : catalog.parameters(model)) known.push_back(info.name);
  for (const auto& name : names)
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      const std::string near = nearest_name(name, known);
      std::string all;
      for (const auto& k : known) all += (all.empty() ? "" : ", ") + k;
      throw InputError("params." + name,
                       "unknown parameter '" + name + "' of model '" + model + "' (" +
                           (near.empty() ? "parameters: " + all : "did you mean '" + near + "'?") + ")");
    }
  return [&catalog, model, names, values](long item, int /*thread*/, ResolveRequest& request) {
    request.model = model;
    const std::size_t count = names.size();
    for (std::size_t j = 0; j < count; ++j)
      request.params.set(names[j], values[static_cast<std::size_t>(item) * count + j]);
    try {  // as read_model_problem: models name the bare parameter, the request "params.<name>"
      if (catalog.needs_dynamic_sizes && catalog.needs_dynamic_sizes(model, request.params))
        request.dynamic_problem = catalog.make_dynamic_problem(model, request.params);
      else
        request.problem = catalog.make_problem(model, request.params);
    } catch (const InputError& e) {
      if (!request.params.has(e.field()) && std::find(names.begin(), names.end(), e.field()) == names.end())
        throw;
      throw InputError("params." + e.field(), message_after_field(e));
    }
  };
}

BatchProblemMaker mechanism_problem_maker(const MechanismBatch& batch, int threads) {
  const MujocoMechanism& mechanism = *batch.mechanism;
  auto workspaces = std::make_shared<std::vector<MujocoMechanism::WorkspacePtr>>();
  for (int t = 0; t < batch_thread_count(threads); ++t) workspaces->push_back(mechanism.make_workspace());
  return [batch, workspaces](long item, int thread, ResolveRequest& request) {
    const MujocoMechanism& m = *batch.mechanism;
    MechanismRequest r;
    r.file = m.spec().file;
    r.contacts = m.spec().contacts;
    r.place = m.spec().place;
    r.gap_tolerance = m.spec().gap_tolerance;
    r.restitution = batch.restitution;
    r.params = batch.params;
    if (batch.qpos) r.qpos = Eigen::Map<const Eigen::VectorXd>(batch.qpos + item * m.nq(), m.nq());
    if (batch.qvel) {
      const Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(batch.qvel + item * m.nv(), m.nv());
      (batch.momentum ? r.momentum : r.qvel) = v;
    }
    request.model = r.file;
    request.params = r.params;
    make_mechanism_request_problem(m, *(*workspaces)[static_cast<std::size_t>(thread)], r, request);
  };
}

namespace {

// The first failure of a parallel loop, by item index (so the report does not depend on timing).
class FirstFailure {
 public:
  void record(long item, std::exception_ptr error) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (item_ < 0 || item < item_) {
      item_ = item;
      error_ = std::move(error);
    }
  }
  void rethrow() const {
    if (item_ < 0) return;
    try {
      std::rethrow_exception(error_);
    } catch (const InputError& e) {
      throw BatchInputError(item_, e);
    }
  }

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

// One thread's outcome rows, appended item after item (amortized: no allocation per item) and
// gathered in item order once the offsets are known.
struct ThreadOutcomes {
  std::vector<double> momentum, velocity, impulses, energy;
};

// Where each item's outcome rows are: its thread's buffer, first row, row count.
struct OutcomeIndex {
  explicit OutcomeIndex(long batch, int threads)
      : thread(static_cast<std::size_t>(batch), 0),
        first(static_cast<std::size_t>(batch), 0),
        count(static_cast<std::size_t>(batch), 0),
        rows(static_cast<std::size_t>(threads)) {}
  // Room for `per_item` outcomes of each item, as the threads share them (grown if needed).
  void reserve(int dof, int contacts, std::size_t per_item) {
    const std::size_t n = per_item * thread.size() / rows.size() + 16;
    for (auto& t : rows) {
      t.momentum.reserve(n * static_cast<std::size_t>(dof));
      t.velocity.reserve(n * static_cast<std::size_t>(dof));
      t.impulses.reserve(n * static_cast<std::size_t>(contacts));
      t.energy.reserve(n);
    }
  }
  std::vector<std::int32_t> thread;
  std::vector<std::int64_t> first, count;
  std::vector<ThreadOutcomes> rows;
};

void allocate(ImpactBatchResult& r, long b, int d, int k) {
  r.batch = b;
  r.dof = d;
  r.contacts = k;
  const auto B = static_cast<std::size_t>(b), D = static_cast<std::size_t>(d),
             K = static_cast<std::size_t>(k);
  r.status.assign(B, 0);
  r.xi.assign(B, kNaN);
  r.xi_lower_bound.assign(B, kNaN);
  r.xi_argmin_argmax.assign(B, kNaN);
  r.outcome_count.assign(B, 0);
  r.minimal_outcomes.assign(B, -1);
  r.unique.assign(B, 0);
  r.cap_hit.assign(B, 0);
  r.momentum_before.assign(B * D, kNaN);
  r.energy_before.assign(B, kNaN);
  r.plastic_momentum.assign(B * D, kNaN);
  r.plastic_velocity.assign(B * D, kNaN);
  r.plastic_impulses.assign(B * K, kNaN);
  r.plastic_energy.assign(B, kNaN);
}

// Impulses indexed by the given normals (open contacts carry none), as the JSON lists them.
template <typename Problem, typename Vector>
void given_impulses(const Problem& problem, const Vector& impulses, double* out) {
  std::fill(out, out + problem.given_contacts(), 0.0);
  for (int i = 0; i < problem.contacts(); ++i) out[problem.given_index(i)] = impulses[i];
}

template <typename S>
void store_resolution(const BasicImpactProblem<S>& problem, const BasicImpactResolution<S>& res,
                      const BasicImpactWorkspace<S>& ws, long item, int thread, ImpactBatchResult& r,
                      OutcomeIndex& index) {
  const auto b = static_cast<std::size_t>(item), D = static_cast<std::size_t>(r.dof),
             K = static_cast<std::size_t>(r.contacts);
  r.status[b] = static_cast<std::int32_t>(res.status);
  r.xi[b] = res.xi;
  r.xi_lower_bound[b] = res.xi_lower_bound;
  r.xi_argmin_argmax[b] = res.xi_argmin_argmax;
  r.outcome_count[b] = res.outcome_count;
  r.minimal_outcomes[b] = res.minimal_outcomes;
  r.unique[b] = res.unique ? 1 : 0;
  r.cap_hit[b] = res.step_cap_hit || res.depth_cap_hit || res.node_cap_hit || res.outcome_cap_hit ||
                         res.definition1_cap_hit
                     ? 1
                     : 0;
  const auto& p0 = problem.momentum();
  std::copy(p0.data(), p0.data() + D, r.momentum_before.data() + b * D);
  r.energy_before[b] = problem.energy_before();
  if (res.plastic_computed) {
    const auto& p = res.plastic.momentum;
    std::copy(p.data(), p.data() + D, r.plastic_momentum.data() + b * D);
    const typename S::DofVector v = problem.metric().velocity(p);
    std::copy(v.data(), v.data() + D, r.plastic_velocity.data() + b * D);
    given_impulses(problem, res.plastic.impulses, r.plastic_impulses.data() + b * K);
    r.plastic_energy[b] = res.plastic.energy;
  }
  const auto n = static_cast<std::size_t>(ws.outcomes.size);
  ThreadOutcomes& rows = index.rows[static_cast<std::size_t>(thread)];
  const std::size_t first = rows.energy.size();
  index.thread[b] = thread;
  index.first[b] = static_cast<std::int64_t>(first);
  index.count[b] = static_cast<std::int64_t>(n);
  rows.momentum.resize((first + n) * D);
  rows.velocity.resize((first + n) * D);
  rows.impulses.resize((first + n) * K);
  rows.energy.resize(first + n);
  for (std::size_t j = 0; j < n; ++j) {
    const auto& o = ws.outcomes.items[j];
    const std::size_t row = first + j;
    std::copy(o.momentum.data(), o.momentum.data() + D, rows.momentum.data() + row * D);
    const typename S::DofVector v = problem.metric().velocity(o.momentum);
    std::copy(v.data(), v.data() + D, rows.velocity.data() + row * D);
    given_impulses(problem, o.impulses, rows.impulses.data() + row * K);
    rows.energy[row] = o.energy;
  }
}

void gather_outcomes(OutcomeIndex& index, ImpactBatchResult& r) {
  const std::size_t B = index.count.size();
  r.outcome_offsets.assign(B + 1, 0);
  for (std::size_t b = 0; b < B; ++b) r.outcome_offsets[b + 1] = r.outcome_offsets[b] + index.count[b];
  if (index.rows.size() == 1) {  // one thread: its rows are already in item order
    ThreadOutcomes& rows = index.rows.front();
    r.outcome_momentum = std::move(rows.momentum);
    r.outcome_velocity = std::move(rows.velocity);
    r.outcome_impulses = std::move(rows.impulses);
    r.outcome_energy = std::move(rows.energy);
    return;
  }
  const auto n = static_cast<std::size_t>(r.outcome_offsets.back());
  const auto D = static_cast<std::size_t>(r.dof), K = static_cast<std::size_t>(r.contacts);
  r.outcome_momentum.resize(n * D);
  r.outcome_velocity.resize(n * D);
  r.outcome_impulses.resize(n * K);
  r.outcome_energy.resize(n);
  for (std::size_t b = 0; b < B; ++b) {
    const ThreadOutcomes& rows = index.rows[static_cast<std::size_t>(index.thread[b])];
    const auto from = static_cast<std::size_t>(index.first[b]),
               count = static_cast<std::size_t>(index.count[b]);
    const auto to = static_cast<std::size_t>(r.outcome_offsets[b]);
    std::copy_n(rows.momentum.begin() + static_cast<long>(from * D), count * D,
                r.outcome_momentum.begin() + static_cast<long>(to * D));
    std::copy_n(rows.velocity.begin() + static_cast<long>(from * D), count * D,
                r.outcome_velocity.begin() + static_cast<long>(to * D));
    std::copy_n(rows.impulses.begin() + static_cast<long>(from * K), count * K,
                r.outcome_impulses.begin() + static_cast<long>(to * K));
    std::copy_n(rows.energy.begin() + static_cast<long>(from), count,
                r.outcome_energy.begin() + static_cast<long>(to));
  }
}

void check_shape(long batch, int dof, int contacts) {
  if (batch < 0) throw InputError("batch", "must be >= 0");
  if (dof < 1) throw InputError("mass_matrix", "must be a square d×d matrix with d >= 1");
  if (contacts < 1) throw InputError("normals", "at least one contact normal is required");
}

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
// arrays and a problem borrowing it (no request, no copy into RawProblemInput, no allocation once
// warm). The same constructors and the same arithmetic as make_raw_problem (M copied into a
// column-major matrix, p⁻ = M q̇⁻ by the same product), so the same problem bit for bit. An item
// that is bad or needs the dynamic path goes through raw_problem_maker: the request's error and
// its order of checks, exactly.
class RawSource {
 public:
  RawSource(const RawImpactBatch& batch, int threads)
      : batch_(batch), fallback_(raw_problem_maker(batch)), threads_(static_cast<std::size_t>(threads)) {}
  template <typename Body>
  void visit(long item, int thread, ThreadScratch& scratch, const ResolveOptions& options, Body& body) {
    using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Eigen::Index d = batch_.dof, k = batch_.contacts;
    Thread& t = threads_[static_cast<std::size_t>(thread)];
    const Eigen::Map<const Eigen::VectorXd> gaps(batch_.gaps ? batch_.gaps + item * k : nullptr,
                                                 batch_.gaps ? k : 0);
    bool built = false;
    t.problem.reset();  // it borrows the system about to be rebuilt
    if (fits_fixed_sizes(static_cast<int>(d),
                         closed_contact_count(static_cast<int>(k), gaps, batch_.gap_tolerance))) {
      try {
        t.mass = Eigen::Map<const RowMajor>(batch_.mass_matrix + item * d * d, d, d);
        const Eigen::Map<const Eigen::VectorXd> p(batch_.momentum + item * d, d);
        if (batch_.velocity) {
          if (!p.allFinite()) throw InputError("velocity", "must be finite (found NaN or Inf)");
          t.momentum = t.mass * p;  // as make_raw_problem
        } else {
          t.momentum = p;
        }
        const double restitution = batch_.restitution ? batch_.restitution[item] : batch_.restitution_value;
        t.system.emplace(KineticMetric(t.mass),
                         Eigen::Map<const RowMajor>(batch_.normals + item * k * d, k, d), gaps,
                         batch_.gap_tolerance);
        t.problem.emplace(*t.system, t.momentum, restitution);
        built = true;
      } catch (const InputError&) {
        t.system.reset();
        t.problem.reset();
      }
    }
    if (!built) {  // the canonical path: the request's problem or its error
      MakerSource(fallback_).visit(item, thread, scratch, options, body);
      return;
    }
    body(item, thread, *t.problem, scratch.get<FixedSizes>(options.limits));
  }

 private:
  struct Thread {
    Eigen::MatrixXd mass;
    Eigen::VectorXd momentum;
    std::optional<ImpactSystem> system;
    std::optional<ImpactProblem> problem;
  };
  const RawImpactBatch& batch_;
  BatchProblemMaker fallback_;
  std::vector<Thread> threads_;
};

// The loop both services share: per item, build the problem and call `body` on its size path.
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

// resolve_batch on any source.
template <typename Source>
ImpactBatchResult resolve_items(long batch, int dof, int contacts, Source& source,
                                const ResolveOptions& options, int nthreads) {
  ImpactBatchResult r;
  allocate(r, batch, dof, contacts);
  OutcomeIndex index(batch, nthreads);
  index.reserve(dof, contacts, options.policy == OrderingPolicy::kAll ? 2 : 1);
  for_each_item(batch, nthreads, source, options, [&](long item, int thread, const auto& problem, auto& ws) {
    const auto res = resolve_impact(problem, options, ws);
    store_resolution(problem, res, ws, item, thread, r, index);
  });
  gather_outcomes(index, r);
  return r;
}

}  // namespace

ImpactBatchResult resolve_batch(long batch, int dof, int contacts, const BatchProblemMaker& make,
                                const ResolveOptions& options, int threads) {
  check_shape(batch, dof, contacts);
  MakerSource source(make);
  return resolve_items(batch, dof, contacts, source, options, batch_thread_count(threads));
}

ImpactBatchResult resolve_batch(const RawImpactBatch& batch, const ResolveOptions& options, int threads) {
  check_shape(batch.batch, batch.dof, batch.contacts);
  const int nthreads = batch_thread_count(threads);
  RawSource source(batch, nthreads);
  return resolve_items(batch.batch, batch.dof, batch.contacts, source, options, nthreads);
}

namespace {

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
  allocate(r, batch, dof, contacts);
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
  OutcomeIndex index(batch, nthreads);
  index.reserve(dof, contacts, options.policy == OrderingPolicy::kAll ? 2 : 1);
  for_each_item(batch, nthreads, source, options, [&](long item, int thread, const auto& problem, auto& ws) {
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
    const auto res = resolve_impact(problem, options, ws);
    const PostImpactCheck check =
        check_post_impact_state(problem, typename S::DofVector(check_request.momentum_after),
                                check_request.tolerance, check_request.consistency_tolerance, res, ws);
    store_resolution(problem, res, ws, item, thread, r, index);
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
  gather_outcomes(index, r);
  return c;
}

}  // namespace

CheckBatchResult check_batch(long batch, int dof, int contacts, const BatchProblemMaker& make,
                             const CheckBatchInput& input, const ResolveOptions& options, int threads) {
  check_shape(batch, dof, contacts);
  MakerSource source(make);
  return check_items(batch, dof, contacts, source, input, options, batch_thread_count(threads));
}

CheckBatchResult check_batch(const RawImpactBatch& batch, const CheckBatchInput& input,
                             const ResolveOptions& options, int threads) {
  check_shape(batch.batch, batch.dof, batch.contacts);
  const int nthreads = batch_thread_count(threads);
  RawSource source(batch, nthreads);
  return check_items(batch.batch, batch.dof, batch.contacts, source, input, options, nthreads);
}

}  // namespace simpact
