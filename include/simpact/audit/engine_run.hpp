// Steps one engine through an impact and reads back the post-impact generalized velocities
// (issue 25 §1 steps 1–2), the same stop rule for every engine: done once no contact of the
// impact approaches (<u_i, q̇> ≥ −tol) and q̇ has stopped changing for `quiet_steps` steps (every
// contact has separated or come to rest); a time limit otherwise. A capped or failed run has NaN
// velocities and says so: never a number the engine did not settle on.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>

#include "simpact/audit/physics_engine.hpp"

namespace simpact {

struct AuditLimits {
  double time_limit = 2.0;       // simulated time [s]
  double rest_tolerance = 1e-9;  // relative to max|q̇⁻|: a per-step change counted as none
  int quiet_steps = 2;
};

enum class EngineRunStatus : std::int64_t { kSettled = 0, kTimeLimit = 1, kFailed = 2 };
inline constexpr const char* kEngineRunStatusLegend = "engine run: 0 settled, 1 time limit, 2 engine failed";

struct EngineRun {
  EngineRunStatus status = EngineRunStatus::kSettled;
  std::string message;     // why it failed
  std::int64_t steps = 0;  // steps taken
  Eigen::VectorXd qvel;    // post-impact q̇ (nv); NaN unless settled
};

// `normals`: the impact's contact normals u_i (rows, qvel coordinates) at the impact state,
// used for the "approaching" test. `state` is placed (its contacts closed).
EngineRun run_engine(const PhysicsEngine& engine, const MujocoMechanism& mechanism,
                     const MechanismState& state, MujocoMechanism::Workspace& workspace,
                     const EngineSettings& settings, const Eigen::MatrixXd& normals,
                     const AuditLimits& limits);

}  // namespace simpact
