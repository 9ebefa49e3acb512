// Steps one engine through an impact and reads back the generalized velocities at the END OF
// THE IMPACT (issue 25 §1 steps 1–2, issue 35 §1), the same rule for every engine: the run stops
// at the first step at which every contact closed at the impact has ended: it has separated
// (its gap φ_i > 0 while not approaching, for an engine whose scene reports its configuration:
// MuJoCo) or it has stopped approaching (<u_i, q̇> ≥ −tol‖u_i‖) and its normal velocity
// <u_i, q̇> has not changed by more than tol‖u_i‖ for `end_steps` consecutive steps. Gravity
// and the mechanism's other smooth forces act throughout; their generalized impulse over the
// steps taken is reported (MuJoCo) so that the user can judge it against ‖p⁻‖. A run that
// reaches its time limit or fails has NaN velocities and says so: never a number the engine did
// not end on.
//
// Every run is bounded (issue 39): at most kMaxRunSteps steps (time_limit × rate) and
// kMaxRunWork solver iterations (steps × the engine's iterations per step), refused beyond when
// the audit is set up (check_run_size); a raised stop flag (SIGINT/SIGTERM) ends a run within
// kStopCheckSteps steps.
#pragma once

#include <Eigen/Core>
#include <csignal>
#include <cstdint>
#include <string>

#include "simpact/audit/physics_engine.hpp"

namespace simpact {

struct AuditLimits {
  double time_limit = 2.0;       // simulated time [s]
  double rest_tolerance = 1e-9;  // relative to max|q̇⁻|: a per-step change counted as none
  int end_steps = 3;             // steps a contact's normal velocity must stay unchanged
};

inline constexpr double kMaxRunSteps = 1e7;  // steps of one engine run (time_limit × rate)
inline constexpr double kMaxRunWork = 1e9;   // solver iterations of one run (steps × iterations)
inline constexpr std::int64_t kStopCheckSteps = 64;

// The steps a run may take: ceil(time_limit × rate), at most kMaxRunSteps.
std::int64_t run_step_limit(const AuditLimits& limits, const EngineSettings& settings);

// Refuses a run that could take more than kMaxRunSteps steps or kMaxRunWork solver iterations:
// InputError naming `field` + ".rates" (e.g. "audit.engines[0].rates: 1e+12 Hz × time_limit 2 s
// = 2e+12 steps per run, more than the 1e+07 allowed: ...").
void check_run_size(const PhysicsEngine& engine, const EngineSettings& settings, const AuditLimits& limits,
                    const std::string& field);

// What may end a run before it settles or reaches its time limit (kInterrupted).
struct RunInterruption {
  const volatile std::sig_atomic_t* stop = nullptr;  // raised (≠ 0): the sweep is stopping
  double wall_seconds = 0.0;                         // > 0: at most this long (a dry run's timing)
};

// kInterrupted is never stored: an interrupted task is not journaled, and a dry run's timing
// keeps no values.
// kSettled: the impact ended (every contact separated or came to rest) within the time limit.
enum class EngineRunStatus : std::int64_t { kSettled = 0, kTimeLimit = 1, kFailed = 2, kInterrupted = 3 };
inline constexpr const char* kEngineRunStatusLegend =
    "engine run: 0 impact ended, 1 time limit, 2 engine failed";

struct EngineRun {
  EngineRunStatus status = EngineRunStatus::kSettled;
  std::string message;          // why it failed
  std::int64_t steps = 0;       // steps taken
  std::int64_t step_limit = 0;  // the steps it could have taken (run_step_limit)
  Eigen::VectorXd qvel;         // q̇ (nv) at the end of the impact; NaN unless it ended
  double duration = 0.0;        // steps / rate [s]
  // Σ smooth generalized force × dt over the steps taken (nv); NaN where the engine does not
  // report it (Bullet, ODE) or the run did not end.
  Eigen::VectorXd smooth_impulse;
};

// `normals`: the contact normals u_i (rows, qvel coordinates, evaluate()'s rows) at the impact
// state; the rows whose gap at `state` is within the mechanism's gap tolerance are the impact's
// contacts. `state` is placed (its contacts closed).
EngineRun run_engine(const PhysicsEngine& engine, const MujocoMechanism& mechanism,
                     const MechanismState& state, MujocoMechanism::Workspace& workspace,
                     const EngineSettings& settings, const Eigen::MatrixXd& normals,
                     const AuditLimits& limits, const RunInterruption& interruption = {});

}  // namespace simpact
