#include "impact_batch_store.hpp"

#include <algorithm>
#include <limits>

namespace simpact::batch {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Impulses indexed by the given normals (open contacts carry none), as the JSON lists them.
template <typename Problem, typename Vector>
void given_impulses(const Problem& problem, const Vector& impulses, double* out) {
  std::fill(out, out + problem.given_contacts(), 0.0);
  for (int i = 0; i < problem.contacts(); ++i) out[problem.given_index(i)] = impulses[i];
}

// v = M⁻¹p into out: metric.velocity(p), the same arithmetic, without its copy where M is diagonal.
template <typename Metric, typename Vector>
void velocity_into(const Metric& metric, const Vector& p, double* out) {
  const auto d = p.size();
  if (metric.diagonal()) {  // solve_in_place's product p_i · (1/m_i), straight into out
    const auto& inverse = metric.inverse_diagonal();
    for (Eigen::Index i = 0; i < d; ++i) out[i] = p[i] * inverse[i];
    return;
  }
  const auto v = metric.velocity(p);
  std::copy(v.data(), v.data() + d, out);
}
}  // namespace

ResolutionWriter::ResolutionWriter(ImpactBatchResult& r, long batch, int dof, int contacts, int threads,
                                   std::size_t outcomes_per_item)
    : r_(r),
      thread_(static_cast<std::size_t>(batch), 0),
      first_(static_cast<std::size_t>(batch), 0),
      count_(static_cast<std::size_t>(batch), 0),
      rows_(static_cast<std::size_t>(threads)) {
  r.batch = batch;
  r.dof = dof;
  r.contacts = contacts;
  const auto B = static_cast<std::size_t>(batch), D = static_cast<std::size_t>(dof),
             K = static_cast<std::size_t>(contacts);
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
  const std::size_t n = outcomes_per_item * B / rows_.size() + 16;  // grown if needed
  if (rows_.size() == 1) {  // one thread writes the result's own outcome vectors (their storage reused)
    rows_[0].momentum = std::move(r.outcome_momentum);
    rows_[0].velocity = std::move(r.outcome_velocity);
    rows_[0].impulses = std::move(r.outcome_impulses);
    rows_[0].energy = std::move(r.outcome_energy);
    for (auto* v : {&rows_[0].momentum, &rows_[0].velocity, &rows_[0].impulses, &rows_[0].energy}) v->clear();
  }
  for (auto& t : rows_) {
    t.momentum.reserve(n * D);
    t.velocity.reserve(n * D);
    t.impulses.reserve(n * K);
    t.energy.reserve(n);
  }
}

template <typename S>
void ResolutionWriter::store(const BasicImpactProblem<S>& problem, const BasicImpactResolution<S>& res,
                             const BasicImpactWorkspace<S>& ws, long item, int thread) {
  ImpactBatchResult& r = r_;
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
    velocity_into(problem.metric(), p, r.plastic_velocity.data() + b * D);
    given_impulses(problem, res.plastic.impulses, r.plastic_impulses.data() + b * K);
    r.plastic_energy[b] = res.plastic.energy;
  }
  const auto n = static_cast<std::size_t>(ws.outcomes.size);
  ThreadOutcomes& rows = rows_[static_cast<std::size_t>(thread)];
  const std::size_t first = rows.energy.size();
  thread_[b] = thread;
  first_[b] = static_cast<std::int64_t>(first);
  count_[b] = static_cast<std::int64_t>(n);
  // Appended, not resized then overwritten: each value is written once.
  for (std::size_t j = 0; j < n; ++j) {
    const auto& o = ws.outcomes.items[j];
    rows.momentum.insert(rows.momentum.end(), o.momentum.data(), o.momentum.data() + D);
    rows.velocity.resize(rows.velocity.size() + D);
    velocity_into(problem.metric(), o.momentum, rows.velocity.data() + rows.velocity.size() - D);
    rows.impulses.resize(rows.impulses.size() + K);
    given_impulses(problem, o.impulses, rows.impulses.data() + rows.impulses.size() - K);
    rows.energy.push_back(o.energy);
  }
}

template void ResolutionWriter::store(const ImpactProblem&, const ImpactResolution&, const ImpactWorkspace&,
                                      long, int);
template void ResolutionWriter::store(const DynamicImpactProblem&, const BasicImpactResolution<DynamicSizes>&,
                                      const DynamicImpactWorkspace&, long, int);

void ResolutionWriter::gather() {
  ImpactBatchResult& r = r_;
  const std::size_t B = count_.size();
  r.outcome_offsets.assign(B + 1, 0);
  for (std::size_t b = 0; b < B; ++b) r.outcome_offsets[b + 1] = r.outcome_offsets[b] + count_[b];
  if (rows_.size() == 1) {  // one thread: its rows are already in item order
    ThreadOutcomes& rows = rows_.front();
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
    const ThreadOutcomes& rows = rows_[static_cast<std::size_t>(thread_[b])];
    const auto from = static_cast<std::size_t>(first_[b]), count = static_cast<std::size_t>(count_[b]);
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

}  // namespace simpact::batch
