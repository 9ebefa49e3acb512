#include "simpact/audit/engine_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include "scene_readout.hpp"
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
  const Eigen::Index nv = state.qvel.size();
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
  const auto fail = [&] {
    run.qvel = Eigen::VectorXd::Constant(nv, nan);
    run.smooth_impulse = Eigen::VectorXd::Constant(nv, nan);
    run.duration = static_cast<double>(run.steps) / settings.rate_hz;
    return run;
  };
  // The impact's contacts: the rows closed at the impact state (an open contact, e.g. a foot in
  // the air, is not part of it).
  MechanismEvaluation at;
  mechanism.evaluate(state, state.qpos, workspace, at);
  std::vector<Eigen::Index> contacts;
  for (Eigen::Index i = 0; i < normals.rows(); ++i)
    if (i < at.gaps.size() && at.gaps[i] <= mechanism.gap_tolerance()) contacts.push_back(i);
  if (contacts.empty())
    for (Eigen::Index i = 0; i < normals.rows(); ++i) contacts.push_back(i);
  const Eigen::VectorXd normal_norms = normals.rowwise().norm();
  Eigen::VectorXd normal_velocity = normals * state.qvel, previous = normal_velocity, qvel, qpos;
  std::vector<int> unchanged(static_cast<std::size_t>(normals.rows()), 0);
  try {
    auto scene = engine.build(mechanism, state, workspace, settings);
    const auto* readout = dynamic_cast<const SceneReadout*>(scene.get());
    while (run.steps < run.step_limit) {
      if (run.steps % kStopCheckSteps == 0 && interrupted()) {
        run.status = EngineRunStatus::kInterrupted;
        run.message = "interrupted";
        return fail();
      }
      scene->step();
      ++run.steps;
      scene->read_qvel(qvel);
      if (!qvel.allFinite()) throw EngineFailure("the engine gave non-finite velocities");
      normal_velocity = normals * qvel;
      bool approaching = false, all_unchanged = true;
      for (const Eigen::Index i : contacts) {
        const double t = tol * normal_norms[i];
        const auto c = static_cast<std::size_t>(i);
        approaching = approaching || normal_velocity[i] < -t;
        unchanged[c] = std::abs(normal_velocity[i] - previous[i]) <= t ? unchanged[c] + 1 : 0;
        all_unchanged = all_unchanged && unchanged[c] >= limits.end_steps;
      }
      previous = normal_velocity;
      if (approaching) continue;
      bool ended = all_unchanged;
      if (!ended && readout != nullptr) {
        // Not approaching: a contact whose normal velocity still changes (gravity on a foot
        // that has left the ground) has ended when its gap has opened.
        readout->read_qpos(qpos);
        mechanism.evaluate(state, qpos, workspace, at);
        ended = true;
        for (const Eigen::Index i : contacts)
          ended = ended && (unchanged[static_cast<std::size_t>(i)] >= limits.end_steps || at.gaps[i] > 0.0);
      }
      if (ended) {
        run.qvel = qvel;
        run.duration = static_cast<double>(run.steps) / settings.rate_hz;
        if (readout != nullptr)
          readout->read_smooth_impulse(run.smooth_impulse);
        else
          run.smooth_impulse = Eigen::VectorXd::Constant(nv, nan);
        return run;
      }
    }
    run.status = EngineRunStatus::kTimeLimit;
    run.message = "the impact did not end within the time limit";
  } catch (const EngineFailure& e) {
    run.status = EngineRunStatus::kFailed;
    run.message = e.what();
  }
  return fail();
}

}  // namespace simpact
