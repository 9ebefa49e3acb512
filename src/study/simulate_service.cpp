#include "simpact/study/simulate_service.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <cstdio>

#include "simpact/core/input_error.hpp"
#include "simpact/integrate/simulation.hpp"
#include "simpact/io/simulate_json.hpp"
#include "simpact/io/sweep_config_yaml.hpp"  // nearest_name
#include "simpact/models/dynamic_models.hpp"
#include "simpact/models/file_mechanism.hpp"

namespace simpact {

namespace {
DynVector to_dof(const std::vector<double>& x, int n, const char* field, const char* what = "coordinates") {
  if (static_cast<int>(x.size()) != n)
    throw InputError(field, fmt::format("has {} values; the model has {} {}", x.size(), n, what));
  DynVector v(n);
  for (int i = 0; i < n; ++i) v[i] = x[static_cast<std::size_t>(i)];
  return v;
}

std::vector<double> values(const DynVector& v) {
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
// A mechanism file's dynamic model; its default initial state is params' qpos.*/qvel.* (the
// file's qpos0 and rest otherwise); mass/size/pos parameters edit the model.
std::unique_ptr<Mechanism> mechanism_dynamic_system(const SimulateMechanism& spec, const ParameterSet& params,
                                                    DynamicSystem& system) {
  auto mechanism = std::make_shared<const MujocoMechanism>(
      MechanismSpec{spec.file, spec.contacts, {}, kGapTolerance, "mechanism"});
  for (const auto& [name, value] : params.entries()) {
    const auto& known = mechanism->parameters();
    if (std::none_of(known.begin(), known.end(), [&](const ParameterInfo& p) { return p.name == name; }))
      throw InputError("params." + name, "unknown parameter of the mechanism (see `simpact models FILE`)");
  }
  MechanismState state = mechanism->state_from(params);
  auto model = std::make_unique<FileMechanism>(mechanism, state);
  system.q0 = state.qpos;
  system.v0 = state.qvel;
  return model;
}
}  // namespace

std::string simulate_json(const std::string& json_text, int indent, const std::string& base_dir) {
  const SimulateRun run = run_simulation(json_text, base_dir);
  return simulation_to_json(run.request, run.report, indent);
}

SimulateRun run_simulation(const std::string& json_text, const std::string& base_dir) {
  SimulateRun run;
  run.request = parse_simulate_request(json_text, {}, base_dir);
  run.report = run_simulation(run.request);
  return run;
}

SimulateReport run_simulation(const SimulateRequest& request) {
  const SimulationOptions options = options_of(request);
  DynamicSystem system;
  std::unique_ptr<Mechanism> mechanism_model;
  if (!request.mechanism) {
    const auto& names = dynamic_model_names();
    if (std::find(names.begin(), names.end(), request.model) == names.end()) {
      const std::string near = nearest_name(request.model, names);
      std::string allowed;
      for (const auto& n : names) allowed += (allowed.empty() ? "" : ", ") + n;
      throw InputError("model", fmt::format("unknown time-stepping model '{}' ({}allowed: {})", request.model,
                                            near.empty() ? "" : "did you mean '" + near + "'?; ", allowed));
    }
  }
  try {
    if (request.mechanism)
      mechanism_model = mechanism_dynamic_system(*request.mechanism, request.params, system);
    else
      system = make_dynamic_system(request.model, request.params);
  } catch (const InputError& e) {
    if (e.field() == "model" || e.field().rfind("mechanism", 0) == 0) throw;
    throw InputError("params." + e.field(), std::string(e.what()).substr(e.field().size() + 2));
  }
  if (mechanism_model) system.model.reset();
  const Mechanism& model = mechanism_model ? *mechanism_model : *system.model;
  const int n = model.dof();
  const int nq = model.configuration_size();
  const bool group = nq != n;  // q0 has nq coordinates (quaternions), v0 and p0 nv velocities
  DynVector q0 = request.q0.empty()
                     ? system.q0
                     : to_dof(request.q0, nq, "q0", group ? "configuration coordinates (nq)" : "coordinates");
  if (model.normalize_configuration(q0, "q0"))
    fmt::print(stderr, "simpact: q0: a quaternion that was not of unit norm was normalized\n");
  DynVector p0;
  const char* velocities = group ? "velocities (nv)" : "coordinates";
  if (!request.p0.empty())
    p0 = to_dof(request.p0, n, "p0", velocities);
  else
    p0 = model.mass_matrix(q0) * (request.v0.empty() ? system.v0 : to_dof(request.v0, n, "v0", velocities));
  if (model.contacts() > 0) {
    DynVector phi;
    model.gaps(q0, phi);
    for (int i = 0; i < model.contacts(); ++i)
      if (phi[i] < -options.gap_tolerance)
        throw InputError("q0", fmt::format("contact {} penetrates by {:.3g} m at the initial configuration",
                                           model.contact_name(i), -phi[i]));
  }
  const SimulationResult result = simulate(model, q0, p0, options);
  SimulateReport report;
  for (int i = 0; i < n; ++i) {
    report.coordinates.push_back(model.coordinate_name(i));
    report.coordinate_units.push_back(model.coordinate_unit(i));
  }
  for (int i = 0; group && i < nq; ++i) {
    report.configuration.push_back(model.configuration_name(i));
    report.configuration_units.push_back(model.configuration_unit(i));
  }
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
