#include "simpact/study/simulate_service.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>

#include "simpact/core/input_error.hpp"
#include "simpact/integrate/dynamic_models.hpp"
#include "simpact/integrate/simulation.hpp"
#include "simpact/io/simulate_json.hpp"

namespace simpact {

namespace {
DofVector to_dof(const std::vector<double>& x, int n, const char* field) {
  if (static_cast<int>(x.size()) != n)
    throw InputError(field, fmt::format("has {} values; the model has {} coordinates", x.size(), n));
  DofVector v(n);
  for (int i = 0; i < n; ++i) v[i] = x[static_cast<std::size_t>(i)];
  return v;
}

std::vector<double> values(const DofVector& v) {
  return std::vector<double>(v.data(), v.data() + v.size());
}

SimulationOptions options_of(const SimulateRequest& r) {
  SimulationOptions o;
  o.dt = r.dt;
  o.steps = r.steps;
  o.policy = r.policy;
  o.restitution = r.restitution;
  if (r.simultaneity_tolerance) o.simultaneity_tolerance = *r.simultaneity_tolerance;
  if (r.gap_tolerance) o.gap_tolerance = *r.gap_tolerance;
  if (r.localization_tolerance) o.localization_tolerance = *r.localization_tolerance;
  if (r.newton_tolerance) o.newton.tolerance = *r.newton_tolerance;
  if (r.newton_max_iterations) o.newton.max_iterations = *r.newton_max_iterations;
  if (r.force_split) o.newton.force_split = *r.force_split;
  o.seed = r.seed;
  o.record_steps = r.record_steps;
  return o;
}
}  // namespace

std::string simulate_json(const std::string& json_text, int indent) {
  const SimulateRun run = run_simulation(json_text);
  return simulation_to_json(run.request, run.report, indent);
}

SimulateRun run_simulation(const std::string& json_text) {
  SimulateRun run;
  run.request = parse_simulate_request(json_text);
  run.report = run_simulation(run.request);
  return run;
}

SimulateReport run_simulation(const SimulateRequest& request) {
  const SimulationOptions options = options_of(request);
  DynamicSystem system;
  try {
    system = make_dynamic_system(request.model, request.params);
  } catch (const InputError& e) {
    if (e.field() == "model") throw;
    throw InputError("params." + e.field(), std::string(e.what()).substr(e.field().size() + 2));
  }
  const DynamicModel& model = *system.model;
  const int n = model.dof();
  const DofVector q0 = request.q0.empty() ? system.q0 : to_dof(request.q0, n, "q0");
  DofVector p0;
  if (!request.p0.empty())
    p0 = to_dof(request.p0, n, "p0");
  else
    p0 = model.mass_matrix(q0) * (request.v0.empty() ? system.v0 : to_dof(request.v0, n, "v0"));
  if (model.contacts() > 0) {
    ContactVector phi;
    model.gaps(q0, phi);
    for (int i = 0; i < model.contacts(); ++i)
      if (phi[i] < -options.gap_tolerance)
        throw InputError(
            "q0", fmt::format("contact {} penetrates by {:.3g} m at the initial configuration", i, -phi[i]));
  }
  const SimulationResult result = simulate(model, q0, p0, options);
  SimulateReport report;
  for (int i = 0; i < n; ++i) report.coordinates.push_back(model.coordinate_name(i));
  for (const auto& s : result.records)
    report.records.push_back({s.step, s.t, values(s.q), values(s.p), s.energy});
  for (const auto& i : result.impacts) {
    SimulateReport::Impact out;
    out.step = i.step;
    out.t = i.t;
    out.contacts = i.contacts;
    out.sequence = i.sequence;
    out.energy_before = i.energy_before;
    out.energy_after = i.energy_after;
    out.restitution = i.restitution;
    out.plastic = i.plastic;
    out.zeno = i.zeno;
    out.policy = i.policy;
    out.status = i.status;
    out.momentum_before = values(i.momentum_before);
    out.momentum_after = values(i.momentum_after);
    report.impacts.push_back(std::move(out));
  }
  report.max_energy_drift = result.max_energy_drift;
  report.energy_initial = result.energy.initial;
  report.energy_final = result.energy.final;
  report.energy_residual = result.energy.residual();
  report.work_sources = result.energy.sources;
  report.work = result.energy.work;
  report.newton_mean = result.newton_mean;
  report.newton_max = result.newton_max;
  return report;
}

}  // namespace simpact
