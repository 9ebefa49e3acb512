#include "simpact/analysis/simulation_task_kernel.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "simpact/core/counter_rng.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/integrate/simulation.hpp"
#include "simpact/models/dynamic_models.hpp"
#include "simpact/models/file_mechanism.hpp"

namespace simpact {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// The most steps one task may run (ceil(t_end/dt) with a tiny dt is refused, not attempted).
constexpr double kMaxTaskSteps = 1e9;

std::string name(OrderingPolicy o) {
  return std::string(ordering_policy_name(o));
}

template <typename F>
SimulationColumn scalar(ResultColumn column, F value) {
  return scalar_column<SimulationTaskValues>(std::move(column), std::move(value));
}

// ||p||_{M(q)⁻¹} = sqrt(pᵀ M(q)⁻¹ p).
double kinetic_norm(const Mechanism& model, const DynVector& q, const DynVector& p) {
  const DynMatrix m = model.mass_matrix(q);
  const DynVector x = m.ldlt().solve(p);
  return std::sqrt(std::max(0.0, p.dot(x)));
}

// ξ of the header: ||p_a − p_b||_{M(q_a)⁻¹} / max(norm0, ||p_a||_{M(q_a)⁻¹}).
double pair_indeterminacy(const Mechanism& model, const DynVector& q_a, const DynVector& p_a,
                          const DynVector& p_b, double norm0) {
  const double diff = kinetic_norm(model, q_a, p_a - p_b);
  const double norm = std::max(norm0, kinetic_norm(model, q_a, p_a));
  return norm > 0.0 ? diff / norm : (diff == 0.0 ? 0.0 : HUGE_VAL);
}

// The parameters of `params` among `infos` (dt, restitution, ... are the integrator's).
ParameterSet own_parameters(const std::vector<ParameterInfo>& infos, const ParameterSet& params) {
  ParameterSet own;
  // An explicit pair, not a structured binding: capturing a binding in a lambda is C++20 (clang 14
  // refuses it in C++17; g++ accepts it).
  for (const auto& entry : params.entries()) {
    const std::string& key = entry.first;
    if (std::any_of(infos.begin(), infos.end(), [&key](const ParameterInfo& i) { return i.name == key; }))
      own.set(key, entry.second);
  }
  return own;
}

DynamicSystem build_system(const std::string& model, const ParameterSet& params) {
  return make_dynamic_system(model, own_parameters(dynamic_model_parameters(model), params));
}

// A task's model and initial state: a built-in time-stepping model, or the mechanism file with
// the task's qpos.*/qvel.* as (q0, v0) and its mass/size/pos edits.
struct TaskSystem {
  std::unique_ptr<Mechanism> model;
  DynVector q0, v0;
};

TaskSystem build_task_system(const SimulationStudyOptions& options, const ParameterSet& params) {
  if (!options.mechanism) {
    DynamicSystem system = build_system(options.model, params);
    return {std::move(system.model), system.q0, system.v0};
  }
  const MujocoMechanism& mechanism = *options.mechanism;
  MechanismState state = mechanism.state_from(own_parameters(mechanism.parameters(), params));
  mechanism.check_state(state, "qpos", "qvel");
  TaskSystem out;
  out.q0 = state.qpos;
  out.v0 = state.qvel;
  out.model = std::make_unique<FileMechanism>(options.mechanism, std::move(state), "model");
  return out;
}

}  // namespace

int simulation_dof(const std::string& model, const ParameterSet& params) {
  return build_system(model, params).model->dof();
}

void simulation_coordinates(const std::string& model, const ParameterSet& params,
                            std::vector<std::string>& names, std::vector<std::string>& units) {
  const DynamicSystem system = build_system(model, params);
  names.clear();
  units.clear();
  for (int i = 0; i < system.model->dof(); ++i) {
    names.push_back(system.model->coordinate_name(i));
    units.push_back(system.model->coordinate_unit(i));
  }
}

int simulation_dof(const SimulationStudyOptions& options, const ParameterSet& params) {
  return build_task_system(options, params).model->dof();
}

void simulation_coordinates(const SimulationStudyOptions& options, const ParameterSet& params,
                            std::vector<std::string>& names, std::vector<std::string>& units) {
  const TaskSystem system = build_task_system(options, params);
  names.clear();
  units.clear();
  for (int i = 0; i < system.model->dof(); ++i) {
    names.push_back(system.model->coordinate_name(i));
    units.push_back(system.model->coordinate_unit(i));
  }
}

std::vector<ParameterInfo> simulation_integrator_parameters() {
  return {{"dt", "s", "time step", kNaN, 1e-12, 1e6, false},
          {"simultaneity_tolerance", "s",
           "contacts closing within this time of each other are one simultaneous impact (0: 1e-9 dt)", 0.0,
           0.0, 1e6, false},
          {"force_split", "1",
           "share of the force impulse h F in the q2 equation (NewtonOptions::force_split): 0.5 "
           "symmetric, 1 L-stable on stiff damping",
           0.5, 0.5, 1.0, false}};
}

std::vector<ParameterInfo> simulation_sweep_parameters(const std::string& model) {
  std::vector<ParameterInfo> out = dynamic_model_parameters(model);
  const std::vector<ParameterInfo> integrator = simulation_integrator_parameters();
  out.push_back(integrator[0]);
  out.push_back({"restitution", "1", "coefficient of restitution of every impact", 1.0, 0.0, 1.0, false});
  out.insert(out.end(), integrator.begin() + 1, integrator.end());
  return out;
}

std::vector<ParameterInfo> simulation_sweep_parameters(const MujocoMechanism& mechanism) {
  std::vector<ParameterInfo> out = mechanism.parameters();
  for (const ParameterInfo& p : simulation_integrator_parameters()) out.push_back(p);
  return out;
}

SimulationTaskKernel::SimulationTaskKernel(SimulationStudyOptions options) : options_(std::move(options)) {
  if (!options_.mechanism)
    dynamic_model_parameters(options_.model);  // throws InputError("model") for an unknown name
  auto& single = options_.orderings;
  if (single.empty()) throw InputError("orderings", "a time-stepped sweep needs at least one ordering");
  for (OrderingPolicy o : single)
    if (o == OrderingPolicy::kAll)
      throw InputError("orderings",
                       "'all' is not a single ordering: a simulation follows one ordering per run");
  if (options_.steps <= 0 && !(options_.t_end >= 0.0))
    throw InputError("simulate.t_end", "must be a non-negative time [s]");
  if (options_.record > 0 && options_.record_dof <= 0)
    throw InputError("simulate.record", "needs the model's number of coordinates (record_dof)");

  auto& t = table_;
  std::size_t pair = 0;
  for (std::size_t a = 0; a < single.size(); ++a)
    for (std::size_t b = a + 1; b < single.size(); ++b, ++pair) {
      if (headline_ < 0) headline_ = static_cast<int>(t.size());
      const std::string na = name(single[a]), nb = name(single[b]);
      t.push_back(scalar({na + "_vs_" + nb, "xi_maps", "1",
                          "indeterminacy between the " + na + " and " + nb +
                              " orderings: norm of the difference of their final momenta in the kinetic "
                              "metric of the " +
                              na +
                              " final configuration, divided by the larger of the initial and that final "
                              "momentum norm"},
                         [pair](const SimulationTaskValues& v) { return v.pair_xi[pair]; }));
    }
  t.push_back(scalar({"initial", "energy", "J", "total energy T + V of the initial state"},
                     [](const SimulationTaskValues& v) { return v.energy_initial; }));
  for (std::size_t s = 0; s < single.size(); ++s) {
    const std::string o = name(single[s]), what = ", ordering " + o;
    t.push_back(scalar({"final_" + o, "energy", "J", "total energy T + V of the final state" + what},
                       [s](const SimulationTaskValues& v) { return v.energy_final[s]; }));
    t.push_back(scalar({"ratio_" + o, "energy", "1", "final over initial total energy E_end / E_0" + what},
                       [s](const SimulationTaskValues& v) {
                         const double e0 = v.energy_initial, e1 = v.energy_final[s];
                         // 0/0 (nothing moves, no potential) is "unchanged"; e1/0 stays ±inf.
                         return e0 == 0.0 && e1 == 0.0 ? 1.0 : e1 / e0;
                       }));
    t.push_back(
        scalar({"max_drift_" + o, "energy", "J",
                "largest drift |E - E_ref| of the total energy between impacts (E_ref: after the last "
                "impact, or initial)" +
                    what},
               [s](const SimulationTaskValues& v) { return v.max_drift[s]; }));
    t.push_back(
        scalar({"residual_" + o, "energy", "1",
                "energy bookkeeping residual (E_end - E_0 - work of forces, contacts, friction and "
                "impacts) / |E_0|: the integrator's own error (simpact simulate's energy.relative_residual)" +
                    what},
               [s](const SimulationTaskValues& v) { return v.energy_residual[s]; }));
  }
  for (std::size_t s = 0; s < single.size(); ++s) {
    const std::string o = name(single[s]), what = ", ordering " + o;
    t.push_back(scalar({"impacts_" + o, "outcomes", "1", "number of impacts" + what},
                       [s](const SimulationTaskValues& v) { return v.impacts[s]; }));
    t.push_back(scalar({"plastic_impacts_" + o, "outcomes", "1",
                        "impacts resolved plastic (Zeno chatter or no elastic outcome)" + what},
                       [s](const SimulationTaskValues& v) { return v.plastic[s]; }));
    t.push_back(
        scalar({"zeno_impacts_" + o, "outcomes", "1", "impacts resolved plastic as Zeno chatter" + what},
               [s](const SimulationTaskValues& v) { return v.zeno[s]; }));
    t.push_back(scalar({"zeno_energy_" + o, "outcomes", "J",
                        "energy change of the impacts resolved plastic as Zeno chatter (<= 0)" + what},
                       [s](const SimulationTaskValues& v) { return v.zeno_energy[s]; }));
    t.push_back(scalar({"newton_mean_" + o, "outcomes", "1", "mean Newton iterations per step" + what},
                       [s](const SimulationTaskValues& v) { return v.newton_mean[s]; }));
    t.push_back(scalar({"newton_max_" + o, "outcomes", "1", "most Newton iterations in one step" + what},
                       [s](const SimulationTaskValues& v) { return v.newton_max[s]; }));
  }
  if (options_.record > 0) {
    const int states = options_.record + 1, dof = options_.record_dof, nq = record_nq();
    const ArrayDimension record_dim{"record", states, "recorded state (0: initial, record: final)"};
    ArrayDimension coordinate_dim{"coordinate", dof, "generalized coordinate"};
    std::string q_units, p_units;
    if (options_.record_coordinates.size() == static_cast<std::size_t>(dof)) {
      coordinate_dim.labels = options_.record_coordinates;
      for (std::size_t i = 0; i < options_.record_units.size() && i < coordinate_dim.labels.size(); ++i)
        coordinate_dim.label_units.push_back(options_.record_units[i].empty() ? "unknown"
                                                                              : options_.record_units[i]);
      if (coordinate_dim.label_units.size() != coordinate_dim.labels.size())
        coordinate_dim.label_units.clear();
      const auto& u = coordinate_dim.label_units;
      if (!u.empty() && u.front() != "unknown" &&
          std::all_of(u.begin(), u.end(), [&u](const std::string& x) { return x == u.front(); })) {
        q_units = u.front();
        p_units = q_units == "rad" ? "kg m2 s-1" : "kg m s-1";
      }
    }
    const std::string mixed =
        q_units.empty()
            ? "units differ by coordinate: coordinate_units (q: m or rad; p: kg m s-1 or kg m2 s-1)"
            : "";
    t.push_back(
        {{"t", "trajectory", "s", "times of the recorded states", states, {record_dim}},
         [](const SimulationTaskValues& v, double* out) { std::copy(v.times.begin(), v.times.end(), out); }});
    pair = 0;
    for (std::size_t a = 0; a < single.size(); ++a)
      for (std::size_t b = a + 1; b < single.size(); ++b, ++pair) {
        const std::string na = name(single[a]), nb = name(single[b]);
        t.push_back({{"xi_" + na + "_vs_" + nb,
                      "trajectory",
                      "1",
                      "indeterminacy between the " + na + " and " + nb +
                          " orderings at every recorded state (as xi_maps/" + na + "_vs_" + nb +
                          ", with the momenta and the " + na + " configuration at that time)",
                      states,
                      {record_dim}},
                     [pair](const SimulationTaskValues& v, double* out) {
                       std::copy(v.pair_xi_records[pair].begin(), v.pair_xi_records[pair].end(), out);
                     }});
      }
    // A mechanism with ball or free joints records q on its group: nq coordinates (MuJoCo's
    // qpos, quaternions w x y z), p its nv velocities' momenta.
    ArrayDimension configuration_dim{"configuration", nq, "configuration coordinate (MuJoCo qpos)"};
    const bool group = nq != dof;
    if (group)
      for (const std::string& q : options_.mechanism->qpos_names())
        configuration_dim.labels.push_back(q.substr(5));
    for (std::size_t s = 0; s < single.size(); ++s) {
      const std::string o = name(single[s]);
      t.push_back({{"q_" + o,
                    "trajectory",
                    group ? "" : q_units,
                    "recorded generalized coordinates, ordering " + o,
                    states * nq,
                    {record_dim, group ? configuration_dim : coordinate_dim},
                    group ? "units differ by coordinate: m (free joint position, slide), rad (hinge), 1 "
                            "(quaternion w x y z)"
                          : mixed},
                   [s](const SimulationTaskValues& v, double* out) {
                     std::copy(v.q_records[s].begin(), v.q_records[s].end(), out);
                   }});
      t.push_back({{"p_" + o,
                    "trajectory",
                    p_units,
                    "recorded conjugate momenta, ordering " + o,
                    states * dof,
                    {record_dim, coordinate_dim},
                    mixed},
                   [s](const SimulationTaskValues& v, double* out) {
                     std::copy(v.p_records[s].begin(), v.p_records[s].end(), out);
                   }});
    }
  }
  columns_ = columns_of(table_);
}

std::unique_ptr<TaskScratch> SimulationTaskKernel::make_scratch() const {
  auto scratch = std::make_unique<SimulationTaskScratch>();
  SimulationTaskValues& v = scratch->values;
  const std::size_t n = options_.orderings.size();
  v.ok.resize(n);
  for (auto* column : {&v.energy_final, &v.max_drift, &v.energy_residual, &v.impacts, &v.plastic, &v.zeno,
                       &v.zeno_energy, &v.newton_mean, &v.newton_max})
    column->resize(n);
  v.q_final.resize(n);
  v.p_final.resize(n);
  const auto states = static_cast<std::size_t>(options_.record + 1);
  const auto values = states * static_cast<std::size_t>(options_.record_dof);
  const auto q_values = states * static_cast<std::size_t>(record_nq());
  v.times.assign(options_.record > 0 ? states : 0, 0.0);
  v.q_records.assign(n, std::vector<double>(options_.record > 0 ? q_values : 0));
  v.p_records.assign(n, std::vector<double>(options_.record > 0 ? values : 0));
  v.pair_xi.resize(n < 2 ? 0 : n * (n - 1) / 2);
  v.pair_xi_records.assign(v.pair_xi.size(), std::vector<double>(options_.record > 0 ? states : 0));
  return scratch;
}

int SimulationTaskKernel::record_nq() const {
  return options_.mechanism ? options_.mechanism->nq() : options_.record_dof;
}

std::int64_t SimulationTaskKernel::steps_for(double dt) const {
  if (options_.steps > 0) return options_.steps;
  // At least t_end: the relative slack keeps t_end = k·dt from adding a step to rounding.
  const double n = std::ceil(options_.t_end / dt * (1.0 - 1e-12));
  if (!(n <= kMaxTaskSteps))
    throw InputError("dt", fmt::format("{:g} s gives more than {:g} steps up to t_end = {:g} s", dt,
                                       kMaxTaskSteps, options_.t_end));
  return static_cast<std::int64_t>(std::max(0.0, n));
}

void SimulationTaskKernel::check_parameters(const ParameterSet& params) const {
  const int n = simulation_dof(options_, params);
  if (options_.record > 0 && n != options_.record_dof)
    throw InputError("simulate.record",
                     fmt::format("a task's model has {} coordinates, the first task's {}: record needs "
                                 "the same number in every task",
                                 n, options_.record_dof));
  (void)steps_for(params.require("dt"));
}

TaskStatus SimulationTaskKernel::compute(std::int64_t task, const ParameterSet& params,
                                         SimulationTaskScratch& scratch) const {
  SimulationTaskValues& v = scratch.values;
  if (v.ok.size() != options_.orderings.size())
    throw std::logic_error("SimulationTaskKernel: scratch not from make_scratch");
  const TaskSystem system = build_task_system(options_, params);
  const Mechanism& model = *system.model;
  const int n = model.dof();
  const int nq = model.configuration_size();
  if (options_.record > 0 && n != options_.record_dof)
    throw InputError("simulate.record",
                     fmt::format("this task's model has {} coordinates, the recorded arrays "
                                 "hold {} (record needs the same number in every task)",
                                 n, options_.record_dof));
  SimulationOptions sim;
  sim.dt = params.require("dt");
  sim.steps = static_cast<long>(steps_for(sim.dt));
  sim.restitution = params.get("restitution", 1.0);
  const double simultaneity = params.get("simultaneity_tolerance", 0.0);
  sim.simultaneity_tolerance = simultaneity > 0.0 ? simultaneity : -1.0;
  sim.newton = options_.newton;
  sim.newton.force_split = params.get("force_split", options_.newton.force_split);
  sim.seed = mix64(options_.seed ^ mix64(static_cast<std::uint64_t>(task)));
  if (options_.record > 0) {
    for (int j = 0; j <= options_.record; ++j)
      sim.record_steps.push_back(std::lround(static_cast<double>(j) * static_cast<double>(sim.steps) /
                                             static_cast<double>(options_.record)));
    for (std::size_t j = 0; j < v.times.size(); ++j)
      v.times[j] = static_cast<double>(sim.record_steps[j]) * sim.dt;
  }
  const DynVector q0 = system.q0;
  const DynVector p0 = model.mass_matrix(q0) * system.v0;
  v.energy_initial = model.energy(q0, p0);
  v.dof = n;

  TaskStatus status = TaskStatus::kOk;
  for (std::size_t s = 0; s < options_.orderings.size(); ++s) {
    sim.policy = options_.orderings[s];
    v.ok[s] = 0;
    v.energy_final[s] = v.max_drift[s] = v.energy_residual[s] = v.impacts[s] = v.plastic[s] = v.zeno[s] =
        v.zeno_energy[s] = v.newton_mean[s] = v.newton_max[s] = kNaN;
    std::fill(v.q_records[s].begin(), v.q_records[s].end(), kNaN);
    std::fill(v.p_records[s].begin(), v.p_records[s].end(), kNaN);
    SimulationResult result;
    try {
      result = simulate(model, q0, p0, sim);
    } catch (const NewtonError&) {
      status = TaskStatus::kFailed;
      continue;
    } catch (const ImpactError&) {
      status = TaskStatus::kFailed;
      continue;
    } catch (const NonFiniteStateError&) {
      status = TaskStatus::kFailed;
      continue;
    }
    v.ok[s] = 1;
    v.q_final[s] = result.q;
    v.p_final[s] = result.p;
    v.energy_final[s] = model.energy(result.q, result.p);
    v.max_drift[s] = result.max_energy_drift;
    v.energy_residual[s] = result.energy.initial != 0.0
                               ? result.energy.residual() / std::abs(result.energy.initial)
                               : (result.energy.residual() == 0.0 ? 0.0 : kNaN);
    v.impacts[s] = static_cast<double>(result.impacts.size());
    double plastic = 0.0, zeno = 0.0, zeno_energy = 0.0;
    for (const ImpactRecord& i : result.impacts) {
      plastic += i.plastic ? 1.0 : 0.0;
      zeno += i.zeno ? 1.0 : 0.0;
      if (i.zeno) zeno_energy += i.energy_after - i.energy_before;
    }
    v.plastic[s] = plastic;
    v.zeno[s] = zeno;
    v.zeno_energy[s] = zeno_energy;
    v.newton_mean[s] = result.newton_mean;
    v.newton_max[s] = result.newton_max;
    for (std::size_t r = 0; r < result.records.size() && r < v.times.size(); ++r) {
      const StateRecord& rec = result.records[r];
      for (int i = 0; i < nq; ++i)
        v.q_records[s][r * static_cast<std::size_t>(nq) + static_cast<std::size_t>(i)] = rec.q[i];
      for (int i = 0; i < n; ++i)
        v.p_records[s][r * static_cast<std::size_t>(n) + static_cast<std::size_t>(i)] = rec.p[i];
    }
  }
  const double norm0 = kinetic_norm(model, q0, p0);
  std::size_t pair = 0;
  for (std::size_t a = 0; a < options_.orderings.size(); ++a)
    for (std::size_t b = a + 1; b < options_.orderings.size(); ++b, ++pair) {
      std::vector<double>& records = v.pair_xi_records[pair];
      if (!v.ok[a] || !v.ok[b]) {
        v.pair_xi[pair] = kNaN;
        std::fill(records.begin(), records.end(), kNaN);
        continue;
      }
      v.pair_xi[pair] = pair_indeterminacy(model, v.q_final[a], v.p_final[a], v.p_final[b], norm0);
      for (std::size_t r = 0; r < records.size(); ++r) {
        const auto state = [&](const std::vector<double>& values, int size) -> DynVector {
          return Eigen::Map<const Eigen::VectorXd>(values.data() + r * static_cast<std::size_t>(size), size);
        };
        records[r] = pair_indeterminacy(model, state(v.q_records[a], nq), state(v.p_records[a], n),
                                        state(v.p_records[b], n), norm0);
      }
    }
  return status;
}

TaskStatus SimulationTaskKernel::evaluate(std::int64_t task, const ParameterSet& params,
                                          TaskScratch& scratch_base, double* results) const {
  auto& scratch = static_cast<SimulationTaskScratch&>(scratch_base);
  const TaskStatus status = compute(task, params, scratch);
  write_columns(table_, scratch.values, results);
  return status;
}

SimulationStudyOptions simulation_study_options(const SweepConfig& config) {
  SimulationStudyOptions o;
  o.model = config.model;
  o.orderings = config.orderings;
  o.steps = config.simulate->steps;
  o.t_end = config.simulate->t_end;
  o.record = config.simulate->record;
  o.seed = config.seed;
  return o;
}

}  // namespace simpact
