#include "simpact/analysis/audit_task_kernel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <type_traits>

#include "simpact/analysis/impact_task_kernel.hpp"
#include "simpact/audit/engine_catalog.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/core/post_impact_check.hpp"

namespace simpact {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct AuditScratch final : TaskScratch {
  MujocoMechanism::WorkspacePtr mechanism;
  std::unique_ptr<ImpactWorkspace> impact;
  std::unique_ptr<DynamicImpactWorkspace> dynamic;  // made on the first task over the capacity
  MechanismEvaluation evaluation;
};

}  // namespace

AuditTaskKernel::AuditTaskKernel(std::shared_ptr<const MujocoMechanism> mechanism, const AuditSpec& spec)
    : mechanism_(std::move(mechanism)), spec_(spec) {
  limits_.time_limit = spec.time_limit;
  limits_.rest_tolerance = spec.rest_tolerance;
  limits_.end_steps = spec.end_steps;
  columns_.push_back({"relative_energy_error_min", "audit_model", "1",
                      "smallest (E_after - E_before)/E_before over the propagative outcomes"});
  columns_.push_back({"relative_energy_error_max", "audit_model", "1",
                      "largest (E_after - E_before)/E_before over the propagative outcomes"});
  columns_.push_back(
      {"xi", "audit_model", "1", "indeterminacy xi of the impact over the propagative outcome set"});
  std::string qvel_order;
  for (const std::string& name : mechanism_->qvel_names())
    qvel_order += (qvel_order.empty() ? "" : ", ") + name;
  for (std::size_t i = 0; i < spec.engines.size(); ++i) {
    const AuditEngineSpec& e = spec.engines[i];
    const std::string field = fmt::format("audit.engines[{}]", i);
    std::shared_ptr<const PhysicsEngine> engine = make_engine(e.engine, field + ".engine");
    if (std::none_of(distinct_engines_.begin(), distinct_engines_.end(),
                     [&](const auto& known) { return std::string(known->name()) == engine->name(); }))
      distinct_engines_.push_back(engine);
    for (double rate : e.rates) {
      Run run;
      run.engine = engine;
      run.settings.rate_hz = rate;
      for (const auto& [name, value] : e.options) run.settings.options[name] = value;
      check_engine_settings(*engine, run.settings, field);
      check_run_size(*engine, run.settings, limits_, field);
      run.group = fmt::format("audit_{}_{:g}hz", e.label, rate);
      const std::string who = fmt::format("{} at {:g} Hz", e.label, rate);
      const auto add = [&](const char* name, const char* units, const std::string& long_name) {
        columns_.push_back({name, run.group, units, who + ": " + long_name});
      };
      add("relative_energy_error", "1", "(E_after - E_before)/E_before of the engine's post-impact state");
      add("relative_energy_error_vs_model", "1",
          "(E_after - E_model)/E_before, E_model of the nearest propagative outcome");
      add("distance_to_nearest_outcome", "1", "g-distance to the nearest propagative outcome / ||p-||_g");
      add("distance_to_plastic", "1", "g-distance to the plastic outcome / ||p-||_g");
      add("max_feasibility_violation", "1",
          "max over closed contacts of -<p_after,u_i>_g/(||p-||_g ||u_i||_g), 0 if feasible");
      add("inside", "1",
          fmt::format("1: within {:g} (relative g-distance) of a propagative outcome, 0: not",
                      spec.inside_tolerance));
      add("engine_status", "1", kEngineRunStatusLegend);
      add("steps", "1", "engine steps until the impact ended (every contact separated or came to rest)");
      add("smooth_impulse_norm", "1",
          "||sum of the smooth (non-contact) generalized forces x dt over the impact's steps||_g / "
          "||p-||_g (NaN where the engine does not report it)");
      const RestitutionMapping mapping = engine->restitution_mapping(0.5, run.settings);
      run.mapping_values = static_cast<int>(mapping.names.size());
      for (std::size_t m = 0; m < mapping.names.size(); ++m)
        columns_.push_back({mapping.names[m], run.group, mapping.units[m],
                            who + ": restitution as the engine was told it (" + mapping.names[m] + ")"});
      // The engine's post-impact state itself, per task (/samples/<group>_velocity_after), so that
      // any task can be re-checked outside the sweep: `simpact check` with velocity_after = it.
      ResultColumn velocity{"velocity_after", run.group, "qvel",
                            who + ": post-impact qvel of the engine in the mechanism's qvel order (" +
                                qvel_order + "); NaN unless engine_status is 0"};
      velocity.length = mechanism_->nv();
      // One named dimension shared by every engine's array: the mechanism's qvel coordinates.
      ArrayDimension coordinate{"qvel_coordinate", mechanism_->nv(),
                                "velocity coordinate (MuJoCo qvel order)"};
      for (int i = 0; i < mechanism_->nv(); ++i) coordinate.labels.push_back(mechanism_->coordinate_name(i));
      velocity.dimensions = {coordinate};
      columns_.push_back(std::move(velocity));
      runs_.push_back(std::move(run));
    }
  }
}

AuditTaskKernel::~AuditTaskKernel() = default;

std::unique_ptr<TaskScratch> AuditTaskKernel::make_scratch() const {
  auto s = std::make_unique<AuditScratch>();
  s->mechanism = mechanism_->make_workspace();
  s->impact = std::make_unique<ImpactWorkspace>(ResolveLimits{});
  return s;
}

void AuditTaskKernel::check_parameters(const ParameterSet& params) const {
  // One workspace for every check (an mjModel copy and an mjData: most of a check's cost if made
  // each time), as each thread's tasks reuse theirs.
  const std::lock_guard<std::mutex> lock(check_mutex_);
  if (!check_workspace_) check_workspace_ = mechanism_->make_workspace();
  MujocoMechanism::Workspace* const workspace = check_workspace_.get();
  MechanismState state = mechanism_->state_from(params);
  if (mechanism_->needs_dynamic_sizes())
    (void)mechanism_->make_dynamic_problem(state, *workspace);
  else
    (void)mechanism_->make_problem(state, *workspace);
  mechanism_->place(state, *workspace);
  // What an adapter cannot express is refused before any file exists (exit 2), not as a failed
  // task; once per engine (the rates and options do not change it), with no world built.
  for (const auto& engine : distinct_engines_) engine->check_expressible(*mechanism_, state, *workspace);
}

double AuditTaskKernel::time_task(std::int64_t task, const ParameterSet& params, TaskScratch& scratch,
                                  double* results) const {
  double seconds = 0.0;
  try {
    (void)evaluate_runs(task, params, scratch, results, &seconds);
  } catch (const std::exception&) {  // a failing task is timed up to where it failed
  }
  return seconds;
}

TaskStatus AuditTaskKernel::evaluate(std::int64_t task, const ParameterSet& params, TaskScratch& scratch_base,
                                     double* results) const {
  return evaluate_runs(task, params, scratch_base, results, nullptr);
}

// `timed_seconds` (the dry run's timing): set, each part is timed into it, an engine run cut by
// the interruption's wall time extrapolated to its step limit.
TaskStatus AuditTaskKernel::evaluate_runs(std::int64_t task, const ParameterSet& params,
                                          TaskScratch& scratch_base, double* results,
                                          double* timed_seconds) const {
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  auto start = Clock::now();
  auto& scratch = static_cast<AuditScratch&>(scratch_base);
  MechanismState state = mechanism_->state_from(params);
  mechanism_->place(state, *scratch.mechanism);
  // The size path: fixed (allocation-free) unless the mechanism exceeds its capacity (the
  // quadruped's 18 coordinates), as ImpactTaskKernel picks it.
  const auto on = [&](const auto& problem, auto& workspace) -> TaskStatus {
    using Problem = std::decay_t<decltype(problem)>;
    ResolveOptions options;
    options.task = static_cast<std::uint64_t>(task);
    const auto resolution = resolve_impact(problem, options, workspace);
    mechanism_->evaluate(state, state.qpos, *scratch.mechanism, scratch.evaluation);
    const MechanismEvaluation& ev = scratch.evaluation;
    const double e0 = problem.energy_before();
    double lo = kNaN, hi = kNaN;
    if (e0 > 0 && resolution.status != ResolveStatus::kCapHit &&
        resolution.status != ResolveStatus::kPlasticUnverified) {
      for (int o = 0; o < workspace.outcomes.size; ++o) {
        const double rel = (workspace.outcomes.items[o].energy - e0) / e0;
        lo = std::isnan(lo) ? rel : std::min(lo, rel);
        hi = std::isnan(hi) ? rel : std::max(hi, rel);
      }
      if (resolution.status == ResolveStatus::kNoImpact) lo = hi = 0.0;
    }
    const bool capped =
        resolution.status == ResolveStatus::kCapHit || resolution.status == ResolveStatus::kPlasticUnverified;
    double* out = results;
    *out++ = lo;
    *out++ = hi;
    *out++ = capped ? kNaN : resolution.xi;
    if (timed_seconds != nullptr) *timed_seconds += since(start);
    // ‖p⁻‖_g = sqrt(q̇⁻ᵀ M q̇⁻); an impulse J in the same norm: sqrt(Jᵀ M⁻¹ J).
    const double p_norm = std::sqrt(std::max(state.qvel.dot(ev.mass * state.qvel), 0.0));
    for (const Run& run : runs_) {
      start = Clock::now();
      const RunInterruption interruption{scratch.stop, timed_seconds != nullptr ? kTimingSecondsPerRun : 0.0};
      const EngineRun r = run_engine(*run.engine, *mechanism_, state, *scratch.mechanism, run.settings,
                                     ev.normals, limits_, interruption);
      if (timed_seconds != nullptr)
        *timed_seconds +=
            r.status == EngineRunStatus::kInterrupted && r.steps > 0
                ? since(start) * static_cast<double>(r.step_limit) / static_cast<double>(r.steps)
                : since(start);
      else if (r.status == EngineRunStatus::kInterrupted)
        throw TaskInterrupted();
      const bool ended = r.status == EngineRunStatus::kSettled;
      PostImpactCheck check;
      double smooth = kNaN;
      if (ended) {
        const Eigen::VectorXd p_after = ev.mass * r.qvel;
        check = check_post_impact_state(problem, typename Problem::DofVector(p_after), kDefaultCheckTolerance,
                                        spec_.inside_tolerance, resolution, workspace);
        if (r.smooth_impulse.allFinite() && p_norm > 0)
          smooth =
              std::sqrt(std::max(r.smooth_impulse.dot(ev.mass.ldlt().solve(r.smooth_impulse)), 0.0)) / p_norm;
      }
      *out++ = ended ? check.relative_energy_error : kNaN;
      *out++ = ended ? check.relative_energy_error_vs_model : kNaN;
      *out++ = ended ? check.distance_to_nearest_outcome : kNaN;
      *out++ = ended ? check.distance_to_plastic : kNaN;
      *out++ = ended ? check.max_feasibility_violation : kNaN;
      *out++ = ended && std::isfinite(check.distance_to_nearest_outcome)
                   ? (check.consistent_with_propagative_model ? 1.0 : 0.0)
                   : kNaN;
      *out++ = static_cast<double>(r.status);
      *out++ = static_cast<double>(r.steps);
      *out++ = smooth;
      const RestitutionMapping mapping = run.engine->restitution_mapping(state.restitution, run.settings);
      for (double v : mapping.values) *out++ = v;
      for (int j = 0; j < mechanism_->nv(); ++j) *out++ = ended ? r.qvel[j] : kNaN;
    }
    return task_status_of(resolution.status);
  };
  if (mechanism_->needs_dynamic_sizes()) {
    if (!scratch.dynamic) scratch.dynamic = std::make_unique<DynamicImpactWorkspace>(ResolveLimits{});
    return on(mechanism_->make_dynamic_problem(state, *scratch.mechanism), *scratch.dynamic);
  }
  return on(mechanism_->make_problem(state, *scratch.mechanism), *scratch.impact);
}

}  // namespace simpact
