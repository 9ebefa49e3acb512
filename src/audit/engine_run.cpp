#include "simpact/audit/engine_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "simpact/core/input_error.hpp"

namespace simpact {

std::int64_t run_step_limit(const AuditLimits& limits, const EngineSettings& settings) {
  const double steps = std::ceil(limits.time_limit * settings.rate_hz);
  return static_cast<std::int64_t>(std::isfinite(steps) ? std::clamp(steps, 0.0, kMaxRunSteps)
                                                        : kMaxRunSteps);
}

void check_run_size(const PhysicsEngine& engine, const EngineSettings& settings, const AuditLimits& limits,
                    const std::string& field) {
  const double steps = std::ceil(limits.time_limit * settings.rate_hz);
  if (!(steps <= kMaxRunSteps))
    throw InputError(field + ".rates",
                     fmt::format("{:g} Hz × time_limit {:g} s = {:g} steps per run, more than the {:g} "
                                 "allowed: lower the rate or audit.time_limit",
                                 settings.rate_hz, limits.time_limit, steps, kMaxRunSteps));
  const double iterations = engine.iterations_per_step(settings);
  if (!(steps * iterations <= kMaxRunWork))
    throw InputError(
        field + ".options.iterations",
        fmt::format("{:g} steps ({:g} Hz × time_limit {:g} s) × {:g} solver iterations = {:g} "
                    "iterations per run, more than the {:g} allowed: lower the iterations, the "
                    "rate or audit.time_limit",
                    steps, settings.rate_hz, limits.time_limit, iterations, steps * iterations, kMaxRunWork));
}

EngineRun run_engine(const PhysicsEngine& engine, const MujocoMechanism& mechanism,
                     const MechanismState& state, MujocoMechanism::Workspace& workspace,
                     const EngineSettings& settings, const Eigen::MatrixXd& normals,
                     const AuditLimits& limits, const RunInterruption& interruption) {
  using Clock = std::chrono::steady_clock;
  EngineRun run;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double scale = std::max(state.qvel.cwiseAbs().maxCoeff(), std::numeric_limits<double>::min());
  const double tol = limits.rest_tolerance * scale;
  run.step_limit = run_step_limit(limits, settings);
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                         interruption.wall_seconds > 0 ? interruption.wall_seconds : 0.0));
  // Checked every kStopCheckSteps steps: a volatile read and a clock read cost nothing beside a step.
  const auto interrupted = [&] {
    return (interruption.stop != nullptr && *interruption.stop != 0) ||
           (interruption.wall_seconds > 0 && Clock::now() >= deadline);
  };
  Eigen::VectorXd previous = state.qvel, qvel;
  Eigen::VectorXd normal_norms = normals.rowwise().norm();
  int quiet = 0;
  try {
    auto scene = engine.build(mechanism, state, workspace, settings);
    while (run.steps < run.step_limit) {
      if (run.steps % kStopCheckSteps == 0 && interrupted()) {
        run.status = EngineRunStatus::kInterrupted;
        run.message = "interrupted";
        run.qvel = Eigen::VectorXd::Constant(state.qvel.size(), nan);
        return run;
      }
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
