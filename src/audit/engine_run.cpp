#include "simpact/audit/engine_run.hpp"

#include <cmath>
#include <limits>

namespace simpact {

EngineRun run_engine(const PhysicsEngine& engine, const MujocoMechanism& mechanism,
                     const MechanismState& state, MujocoMechanism::Workspace& workspace,
                     const EngineSettings& settings, const Eigen::MatrixXd& normals,
                     const AuditLimits& limits) {
  EngineRun run;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double scale = std::max(state.qvel.cwiseAbs().maxCoeff(), std::numeric_limits<double>::min());
  const double tol = limits.rest_tolerance * scale;
  const std::int64_t max_steps = static_cast<std::int64_t>(std::ceil(limits.time_limit * settings.rate_hz));
  Eigen::VectorXd previous = state.qvel, qvel;
  Eigen::VectorXd normal_norms = normals.rowwise().norm();
  int quiet = 0;
  try {
    auto scene = engine.build(mechanism, state, workspace, settings);
    while (run.steps < max_steps) {
      scene->step();
      ++run.steps;
      scene->read_qvel(qvel);
      const double change = (qvel - previous).cwiseAbs().maxCoeff();
      bool approaching = false;
      for (Eigen::Index i = 0; i < normals.rows(); ++i)
        approaching = approaching || normals.row(i).dot(qvel) < -tol * normal_norms[i];
      quiet = (change <= tol && !approaching) ? quiet + 1 : 0;
      previous = qvel;
      if (!qvel.allFinite()) throw EngineFailure("the engine gave non-finite velocities");
      if (quiet >= limits.quiet_steps) {
        run.qvel = qvel;
        return run;
      }
    }
    run.status = EngineRunStatus::kTimeLimit;
    run.message = "not settled within the time limit";
  } catch (const EngineFailure& e) {
    run.status = EngineRunStatus::kFailed;
    run.message = e.what();
  }
  run.qvel = Eigen::VectorXd::Constant(state.qvel.size(), nan);
  return run;
}

}  // namespace simpact
