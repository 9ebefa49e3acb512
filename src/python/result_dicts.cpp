#include <pybind11/stl.h>

#include "python_module.hpp"

namespace simpact::python {

ImpactBatchResult pooled_result(long batch, int dof, int contacts, std::size_t outcomes_per_item) {
  const auto B = static_cast<std::size_t>(batch), D = static_cast<std::size_t>(dof),
             K = static_cast<std::size_t>(contacts);
  const std::size_t rows = outcomes_per_item * B + 16;  // as ResolutionWriter reserves on one thread
  ImpactBatchResult r;
  r.status = BufferPool::take<std::int32_t>(B);
  r.xi = BufferPool::take<double>(B);
  r.xi_lower_bound = BufferPool::take<double>(B);
  r.xi_argmin_argmax = BufferPool::take<double>(B);
  r.outcome_count = BufferPool::take<std::int32_t>(B);
  r.minimal_outcomes = BufferPool::take<std::int32_t>(B);
  r.unique = BufferPool::take<std::uint8_t>(B);
  r.cap_hit = BufferPool::take<std::uint8_t>(B);
  r.momentum_before = BufferPool::take<double>(B * D);
  r.energy_before = BufferPool::take<double>(B);
  r.plastic_momentum = BufferPool::take<double>(B * D);
  r.plastic_velocity = BufferPool::take<double>(B * D);
  r.plastic_impulses = BufferPool::take<double>(B * K);
  r.plastic_energy = BufferPool::take<double>(B);
  r.outcome_offsets = BufferPool::take<std::int64_t>(B + 1);
  r.outcome_momentum = BufferPool::take<double>(rows * D);
  r.outcome_velocity = BufferPool::take<double>(rows * D);
  r.outcome_impulses = BufferPool::take<double>(rows * K);
  r.outcome_energy = BufferPool::take<double>(rows);
  return r;
}

void recycle(ImpactBatchResult&& r) {
  for (auto* v : {&r.status, &r.outcome_count, &r.minimal_outcomes}) BufferPool::give(std::move(*v));
  for (auto* v : {&r.unique, &r.cap_hit}) BufferPool::give(std::move(*v));
  BufferPool::give(std::move(r.outcome_offsets));
  for (auto* v : {&r.xi, &r.xi_lower_bound, &r.xi_argmin_argmax, &r.momentum_before, &r.energy_before,
                  &r.plastic_momentum, &r.plastic_velocity, &r.plastic_impulses, &r.plastic_energy,
                  &r.outcome_momentum, &r.outcome_velocity, &r.outcome_impulses, &r.outcome_energy})
    BufferPool::give(std::move(*v));
}

py::dict resolution_dict(ImpactBatchResult&& r) {
  const py::ssize_t B = r.batch, d = r.dof, k = r.contacts;
  const py::ssize_t n = r.outcome_offsets.empty() ? 0 : static_cast<py::ssize_t>(r.outcome_offsets.back());
  py::dict out;
  out["status"] = to_numpy(std::move(r.status), {B});
  out["xi"] = to_numpy(std::move(r.xi), {B});
  out["xi_lower_bound"] = to_numpy(std::move(r.xi_lower_bound), {B});
  out["xi_argmin_argmax"] = to_numpy(std::move(r.xi_argmin_argmax), {B});
  out["outcome_count"] = to_numpy(std::move(r.outcome_count), {B});
  out["minimal_outcomes"] = to_numpy(std::move(r.minimal_outcomes), {B});
  out["unique"] = to_numpy(std::move(r.unique), {B});
  out["cap_hit"] = to_numpy(std::move(r.cap_hit), {B});
  out["momentum_before"] = to_numpy(std::move(r.momentum_before), {B, d});
  out["energy_before"] = to_numpy(std::move(r.energy_before), {B});
  out["plastic_momentum"] = to_numpy(std::move(r.plastic_momentum), {B, d});
  out["plastic_velocity"] = to_numpy(std::move(r.plastic_velocity), {B, d});
  out["plastic_impulses"] = to_numpy(std::move(r.plastic_impulses), {B, k});
  out["plastic_energy"] = to_numpy(std::move(r.plastic_energy), {B});
  out["outcome_offsets"] = to_numpy(std::move(r.outcome_offsets), {B + 1});
  out["outcome_momentum"] = to_numpy(std::move(r.outcome_momentum), {n, d});
  out["outcome_velocity"] = to_numpy(std::move(r.outcome_velocity), {n, d});
  out["outcome_impulses"] = to_numpy(std::move(r.outcome_impulses), {n, k});
  out["outcome_energy"] = to_numpy(std::move(r.outcome_energy), {n});
  return out;
}

py::dict check_dict(CheckBatchResult&& c) {
  const py::ssize_t B = c.impact.batch, d = c.impact.dof, k = c.impact.contacts;
  py::dict out = resolution_dict(std::move(c.impact));
  out["consistent"] = to_numpy(std::move(c.consistent), {B});
  out["negative_impulses"] = to_numpy(std::move(c.negative_impulses), {B});
  out["momentum_after"] = to_numpy(std::move(c.momentum_after), {B, d});
  out["energy_after"] = to_numpy(std::move(c.energy_after), {B});
  out["relative_energy_error"] = to_numpy(std::move(c.relative_energy_error), {B});
  out["predicted_energy_after"] = to_numpy(std::move(c.predicted_energy_after), {B});
  out["relative_energy_error_vs_model"] = to_numpy(std::move(c.relative_energy_error_vs_model), {B});
  out["max_feasibility_violation"] = to_numpy(std::move(c.max_feasibility_violation), {B});
  out["impulse_residual"] = to_numpy(std::move(c.impulse_residual), {B});
  out["nonnegative_impulse_residual"] = to_numpy(std::move(c.nonnegative_impulse_residual), {B});
  out["complementarity_residual"] = to_numpy(std::move(c.complementarity_residual), {B});
  out["distance_to_nearest_outcome"] = to_numpy(std::move(c.distance_to_nearest_outcome), {B});
  out["distance_to_plastic"] = to_numpy(std::move(c.distance_to_plastic), {B});
  out["tolerance"] = to_numpy(std::move(c.tolerance), {B});
  out["consistency_tolerance"] = to_numpy(std::move(c.consistency_tolerance), {B});
  out["nearest_outcome"] = to_numpy(std::move(c.nearest_outcome), {B});
  out["printed_significant_digits"] = to_numpy(std::move(c.printed_significant_digits), {B});
  out["implied_impulses"] = to_numpy(std::move(c.implied_impulses), {B, k});
  return out;
}

py::dict simulation_dict(SimulateReport&& r) {
  const auto R = static_cast<py::ssize_t>(r.records.size());
  const auto n = static_cast<py::ssize_t>(r.coordinates.size());
  std::vector<std::int64_t> step;
  std::vector<double> t, q, p, energy;
  for (const auto& s : r.records) {
    step.push_back(s.step);
    t.push_back(s.t);
    q.insert(q.end(), s.q.begin(), s.q.end());
    p.insert(p.end(), s.p.begin(), s.p.end());
    energy.push_back(s.energy);
  }
  py::dict out;
  out["coordinates"] = r.coordinates;
  out["step"] = to_numpy(std::move(step), {R});
  out["t"] = to_numpy(std::move(t), {R});
  // q on a group (ball, free joints): nq coordinates, quaternions included.
  const auto nq = r.configuration.empty() ? n : static_cast<py::ssize_t>(r.configuration.size());
  if (!r.configuration.empty()) out["configuration"] = r.configuration;
  out["q"] = to_numpy(std::move(q), {R, nq});
  out["p"] = to_numpy(std::move(p), {R, n});
  out["energy"] = to_numpy(std::move(energy), {R});
  py::list impacts;
  for (auto& i : r.impacts) {
    py::dict d;
    d["step"] = i.step;
    d["t"] = i.t;
    d["contacts"] = i.contacts;
    d["sequence"] = i.sequence;
    d["energy_before"] = i.energy_before;
    d["energy_after"] = i.energy_after;
    d["restitution"] = i.restitution;
    d["plastic"] = i.plastic;
    d["zeno"] = i.zeno;
    d["policy"] = std::string(ordering_policy_name(i.policy));
    d["status"] = i.status;
    d["momentum_before"] = to_numpy(std::move(i.momentum_before), {n});
    d["momentum_after"] = to_numpy(std::move(i.momentum_after), {n});
    impacts.append(d);
  }
  out["impacts"] = impacts;
  out["max_energy_drift"] = r.max_energy_drift;
  out["energy_initial"] = r.energy_initial;
  out["energy_final"] = r.energy_final;
  out["energy_residual"] = r.energy_residual;
  py::dict work;
  for (std::size_t j = 0; j < r.work_sources.size() && j < r.work.size(); ++j)
    work[py::str(r.work_sources[j])] = r.work[j];
  out["work"] = work;
  out["newton_mean"] = r.newton_mean;
  out["newton_max"] = r.newton_max;
  return out;
}

namespace {
py::dict named(const NamedValues& values) {
  py::dict d;
  for (const auto& [name, value] : values) d[py::str(name)] = value;
  return d;
}

}  // namespace

py::dict design_dict(const DesignReport& r) {
  py::dict out;
  out["model"] = r.model;
  out["foot"] = r.foot;
  out["at_bound"] = r.at_bound;
  out["converged"] = r.converged();
  if (!r.placed_qpos.empty()) out["placed_qpos"] = named(r.placed_qpos);
  if (r.placement) {  // the placement branch (docs/json.md "design"): far = a placed angle moved too far
    py::dict placement, coordinates;
    for (const auto& c : r.placement->coordinates)
      coordinates[py::str(c.name)] = py::dict(py::arg("start") = c.start, py::arg("initial") = c.initial,
                                              py::arg("optimized") = c.optimized, py::arg("units") = c.units);
    placement["coordinates"] = coordinates;
    placement["max_angle_change"] = r.placement->max_angle_change;
    placement["max_angle_coordinate"] = r.placement->max_angle_coordinate;
    placement["max_place_change"] = r.placement->max_place_change;
    placement["far"] = r.placement->far;
    out["placement"] = placement;
  }
  py::list rows;
  for (const auto& row : r.rows) {
    py::dict d;
    d["name"] = row.name;
    d["status"] = row.status;
    d["iterations"] = row.iterations;
    d["configuration"] = named(row.configuration);
    d["design"] = named(row.design);
    d["gaps"] = named(row.gaps);
    d["tail_length"] = row.tail_length;
    d["metric_product"] = row.metric_product;
    d["normalized_product"] = row.normalized_product;
    py::dict points;
    for (const auto& [name, xy] : row.points) points[py::str(name)] = py::make_tuple(xy[0], xy[1]);
    d["points"] = points;
    rows.append(d);
  }
  out["rows"] = rows;
  return out;
}

py::dict run_summary_dict(const ConfigRunResult& r) {
  const SweepRunSummary& s = r.summary;
  py::dict out;
  out["output"] = r.output;
  out["tasks"] = s.tasks;
  out["tasks_computed"] = s.tasks_computed;
  out["chunks"] = s.chunks;
  out["wall_seconds"] = s.wall_seconds;
  out["hdf5_seconds"] = s.hdf5_seconds;
  out["publish_seconds"] = s.publish_seconds;
  out["already_complete"] = s.already_complete;
  out["interrupted_by"] = s.interrupted_by;
  out["tasks_saved"] = s.tasks_saved;
  out["output_complete"] = s.output_complete;
  std::vector<std::string> warnings = s.warnings;
  warnings.insert(warnings.end(), r.hints.begin(), r.hints.end());  // e.g. no task closed a contact
  out["warnings"] = warnings;
  out["inadmissible"] = r.inadmissible;
  out["analysis"] = r.analysis_lines;
  py::dict status;
  for (int k = 0; k < kTaskStatusCount; ++k)
    status[py::str(kTaskStatusNames[k])] = s.status_counts[static_cast<std::size_t>(k)];
  out["status_counts"] = status;
  return out;
}

py::dict result_info_dict(const ResultInfo& info) {
  py::dict d;
  d["file"] = info.file;
  d["status"] = ResultInfo::status_name(info.status);
  if (info.status == ResultInfo::Status::kNotSimpact) {
    d["reason"] = info.reason;
    return d;
  }
  if (!info.readable) {
    d["reason"] = info.reason;
    py::dict journal;
    journal["chunks_done"] = info.chunks_done;
    journal["chunks"] = info.chunks;
    journal["tasks_done"] = info.tasks_done;
    journal["tasks"] = info.tasks;
    d["journal"] = journal;
    return d;
  }
  d["shard"] = info.shard.empty() ? py::object(py::none()) : py::object(py::str(info.shard));
  d["schema_version"] = info.schema_version;
  d["model"] = info.model;
  // Attributes of one kind of sweep only (a time-stepped sweep has no minimality): None, as
  // `simpact info --json` gives null.
  const auto optional_text = [](const std::string& text) {
    return text.empty() ? py::object(py::none()) : py::object(py::str(text));
  };
  d["orderings"] = optional_text(info.orderings);
  d["minimality"] = optional_text(info.minimality);
  d["tasks"] = info.tasks;
  d["replicas"] = info.replicas;
  d["chunks"] = info.chunks;
  d["chunks_done"] = info.chunks_done;
  d["tasks_done"] = info.tasks_done;
  d["progress_percent"] = info.progress_percent();
  d["journal"] = info.journal;
  d["config_sha256"] = info.config_sha256;
  py::list inputs;
  for (const auto& f : info.inputs) {
    py::dict entry;
    entry["role"] = f.role;
    entry["path"] = f.path;
    entry["sha256"] = f.sha256;
    inputs.append(entry);
  }
  d["inputs"] = inputs;
  py::list grid;
  for (const auto& a : info.grid) {
    py::dict axis;
    axis["name"] = a.name;
    axis["points"] = a.points;
    axis["first"] = a.first;
    axis["last"] = a.last;
    axis["units"] = a.units;
    axis["long_name"] = a.long_name;
    grid.append(axis);
  }
  d["grid"] = grid;
  py::list maps;
  for (const auto& m : info.maps) maps.append(m.name);
  d["maps"] = maps;
  d["samples"] = info.samples;
  if (info.has_task_status) {
    py::dict status;
    for (const auto& [name, count] : info.task_status) status[py::str(name)] = count;
    d["task_status"] = status;
  } else {
    d["task_status"] = py::none();
  }
  py::list provenance;
  for (const auto& row : info.provenance) {
    py::dict r;
    r["start"] = row.start_time;
    r["end"] = row.end_time;
    r["ranks"] = row.ranks;
    r["threads"] = row.threads;
    r["hosts"] = row.hosts;
    r["slurm_job_id"] = row.slurm_job_id;
    r["tasks_done"] = row.tasks_done;
    r["version"] = row.version;
    r["git_revision"] = row.git_revision;
    r["command"] = row.command;
    provenance.append(r);
  }
  d["provenance"] = provenance;
  return d;
}

}  // namespace simpact::python
