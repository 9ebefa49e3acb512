// The sweep task of time-stepped runs (issue 12, "Sweeps"): parameters → dynamic model
// (integrate/dynamic_models.hpp) → one simulation per configured ordering policy (same initial
// state, dt, steps, restitution, simultaneity tolerance) → named results.
//
// The sweepable parameters of a task are the dynamic model's own plus four of the integrator
// (simulation_sweep_parameters): dt [s], restitution, simultaneity_tolerance [s] (0: the
// integrator's default 1e-9·dt) and force_split (NewtonOptions::force_split, default ½). The run length is
// `steps`, or ceil(t_end/dt) steps (at least t_end, whatever the task's dt).
//
// ξ between orderings a and b (columns xi_maps/<a>_vs_<b>) compares their final momenta in the
// kinetic metric of the first ordering's final configuration q_a:
//   ξ = ||p_a − p_b||_{M(q_a)⁻¹} / max(||p₀||_{M(q₀)⁻¹}, ||p_a||_{M(q_a)⁻¹}),  ||p||²_{M⁻¹} = pᵀM⁻¹p,
// (0 when numerator and denominator are both 0). With one impact and nothing after it this is
// `resolve`'s ξ (the denominator is the pre-impact momentum norm: energy never grows in an impact).
// With `record` > 0 the same ξ is also evaluated at every recorded state j (q_a, p_a, p_b at that
// time instead of the final ones, p₀ the same): the per-task array trajectory/xi_<a>_vs_<b>
// (ξ(t) of Fig. 8 of Seghete & Murphey; its last entry equals the final ξ).
//
// A simulation that fails (NewtonError, ImpactError, NonFiniteStateError) publishes NaN for that ordering and
// every ξ it enters, and the task's status is `failed`; a model the parameters cannot build (InputError)
// throws, handled by the sweep's on_task_error like any bad task.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "simpact/core/fixed_size.hpp"
#include "simpact/core/ordering_policy.hpp"
#include "simpact/core/parameter_info.hpp"
#include "simpact/integrate/midpoint_integrator.hpp"
#include "simpact/models/mujoco_mechanism.hpp"
#include "simpact/sweep/column_table.hpp"
#include "simpact/sweep/sweep_config.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

struct SimulationStudyOptions {
  std::string model;  // a dynamic model name (dynamic_model_names()), or the mechanism's file
  // A mechanism file (`model: {file: ...}`): each task builds a FileMechanism from it,
  // its initial state from the task's qpos.*/qvel.* and its edits from mass/size/pos.*.
  std::shared_ptr<const MujocoMechanism> mechanism;
  std::vector<OrderingPolicy> orderings{OrderingPolicy::kArgmin, OrderingPolicy::kArgmax};  // single policies
  std::int64_t steps = 0;  // > 0: this many steps of dt
  double t_end = 0.0;      // used when steps == 0: ceil(t_end/dt) steps [s]
  // > 0: per-task arrays of record + 1 states per ordering, after steps round(j·S/record),
  // j = 0..record (the initial state first, the final state last), S the task's step count.
  int record = 0;
  int record_dof = 0;  // coordinates per recorded state (the model's dof at the first task)
  // Their names and units ("m", "rad" or "" unknown) at the first task; empty: q0, q1, ...
  std::vector<std::string> record_coordinates, record_units;
  std::uint64_t seed = 0;  // the random ordering's draws: keyed by (seed, task, impact)
  NewtonOptions newton;    // the midpoint integrator's Newton settings (its defaults)
};

// The model's parameters followed by dt, restitution, simultaneity_tolerance and force_split.
// Throws InputError("model", ...) for an unknown model.
std::vector<ParameterInfo> simulation_sweep_parameters(const std::string& model);
// The integrator's parameters but restitution: dt, simultaneity_tolerance, force_split.
std::vector<ParameterInfo> simulation_integrator_parameters();
// A mechanism file's parameters (restitution among them) followed by the integrator's.
std::vector<ParameterInfo> simulation_sweep_parameters(const MujocoMechanism& mechanism);

// The number of coordinates of `model` built from a task's parameters (the integrator's are
// ignored): sizes the recorded arrays. Throws InputError for parameters that build no model.
int simulation_dof(const std::string& model, const ParameterSet& params);
// The coordinates' names and units ("m", "rad", "" unknown) of the same model.
void simulation_coordinates(const std::string& model, const ParameterSet& params,
                            std::vector<std::string>& names, std::vector<std::string>& units);
// The same two for options' model or mechanism.
int simulation_dof(const SimulationStudyOptions& options, const ParameterSet& params);
void simulation_coordinates(const SimulationStudyOptions& options, const ParameterSet& params,
                            std::vector<std::string>& names, std::vector<std::string>& units);

// The options a `simulate:` config selects (model, orderings, steps or t_end, record, seed);
// record_dof is left to the caller, which sizes it from a task's parameters.
SimulationStudyOptions simulation_study_options(const SweepConfig& config);

// Everything one task's columns are computed from, per ordering (NaN where it failed).
struct SimulationTaskValues {
  double energy_initial = 0.0;  // E_0 = T + V at the initial state [J]
  int dof = 0;
  std::vector<char> ok;  // the ordering's simulation finished
  std::vector<double> energy_final, max_drift, energy_residual, impacts, plastic, zeno, newton_mean,
      newton_max;
  std::vector<double> zeno_energy;  // energy change of the Zeno impacts [J] (≤ 0: what they took)
  std::vector<DynVector> q_final, p_final;
  std::vector<double> times;                              // of the recorded states [s]
  std::vector<std::vector<double>> q_records, p_records;  // [ordering][record·dof + i]
  std::vector<double> pair_xi;  // ξ per ordering pair a < b, in the order (0,1), (0,2), …, (1,2), …
  std::vector<std::vector<double>> pair_xi_records;  // [pair][record]: ξ at the recorded states
};

using SimulationColumn = ExtractedColumn<SimulationTaskValues>;

class SimulationTaskScratch final : public TaskScratch {
 public:
  SimulationTaskValues values;
};

class SimulationTaskKernel final : public TaskKernel {
 public:
  // Throws InputError("orderings", ...) for `all` or fewer than one ordering, ("model", ...) for an
  // unknown model.
  explicit SimulationTaskKernel(SimulationStudyOptions options);
  const std::vector<ResultColumn>& columns() const override { return columns_; }
  std::unique_ptr<TaskScratch> make_scratch() const override;
  TaskStatus evaluate(std::int64_t task, const ParameterSet& params, TaskScratch& scratch,
                      double* results) const override;
  int headline_column() const override { return headline_; }
  // The model must build with record_dof coordinates, and dt must give at most 10⁹ steps.
  void check_parameters(const ParameterSet& params) const override;

  // Runs task `task` into `scratch.values` and returns its status.
  TaskStatus compute(std::int64_t task, const ParameterSet& params, SimulationTaskScratch& scratch) const;
  const std::vector<SimulationColumn>& table() const { return table_; }
  // The step count of a task with time step dt.
  std::int64_t steps_for(double dt) const;

 private:
  // Configuration coordinates per recorded state: the mechanism's nq (quaternions of ball and
  // free joints included), else record_dof.
  int record_nq() const;
  SimulationStudyOptions options_;
  std::vector<SimulationColumn> table_;
  std::vector<ResultColumn> columns_;
  int headline_ = -1;
};

}  // namespace simpact
