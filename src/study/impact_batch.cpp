#include "simpact/study/impact_batch.hpp"

#include <omp.h>

#include <algorithm>
#include <memory>

#include "impact_batch_items.hpp"
#include "impact_batch_store.hpp"
#include "simpact/io/sweep_config_yaml.hpp"  // nearest_name
#include "simpact/study/impact_service.hpp"

namespace simpact {

namespace {
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

namespace {

using batch::MakerSource;
using batch::RawSource;

using batch::check_shape;

// resolve_batch on any source.
template <typename Source>
void resolve_items(long batch, int dof, int contacts, Source& source, const ResolveOptions& options,
                   int nthreads, ImpactBatchResult& r) {
  batch::ResolutionWriter writer(r, batch, dof, contacts, nthreads,
                                 options.policy == OrderingPolicy::kAll ? 2 : 1);
  batch::for_each_item(batch, nthreads, source, options,
                       [&](long item, int thread, const auto& problem, auto& ws) {
                         const auto res = batch::resolve_reading_branches(problem, options, ws);
                         writer.store(problem, res, ws, item, thread);
                       });
  writer.gather();
}

}  // namespace

ImpactBatchResult resolve_batch(long batch, int dof, int contacts, const BatchProblemMaker& make,
                                const ResolveOptions& options, int threads) {
  check_shape(batch, dof, contacts);
  MakerSource source(make);
  ImpactBatchResult r;
  resolve_items(batch, dof, contacts, source, options, batch_thread_count(threads), r);
  return r;
}

ImpactBatchResult resolve_batch(const RawImpactBatch& batch, const ResolveOptions& options, int threads) {
  ImpactBatchResult r;
  resolve_batch(batch, options, threads, r);
  return r;
}

void resolve_batch(const RawImpactBatch& batch, const ResolveOptions& options, int threads,
                   ImpactBatchResult& result) {
  check_shape(batch.batch, batch.dof, batch.contacts);
  const int nthreads = batch_thread_count(threads);
  RawSource source(batch, nthreads);
  resolve_items(batch.batch, batch.dof, batch.contacts, source, options, nthreads, result);
}

}  // namespace simpact
