// The task of an `audit:` sweep (issue 25): the mechanism's impact at the task's parameters,
// resolved by the propagative model, and each listed engine run through it at each step rate; the
// engine's post-impact momentum M·q̇ checked as `simpact check` does. One map group per engine
// entry and rate ("audit_<label>_<rate>hz"), plus the model's own energy range ("audit_model").
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "simpact/audit/engine_run.hpp"
#include "simpact/sweep/sweep_config.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

class AuditTaskKernel final : public TaskKernel {
 public:
  // Throws InputError naming audit.engines[i].engine / .options.<name> / model for what cannot run.
  AuditTaskKernel(std::shared_ptr<const MujocoMechanism> mechanism, const AuditSpec& spec);
  ~AuditTaskKernel() override;
  const std::vector<ResultColumn>& columns() const override { return columns_; }
  // /xi: the propagative model's indeterminacy at each task (audit_model/xi).
  int headline_column() const override { return 2; }
  std::unique_ptr<TaskScratch> make_scratch() const override;
  // Throws TaskInterrupted when the sweep's stop flag (TaskScratch::stop) is raised during an
  // engine run: the run in hand ends within kStopCheckSteps steps, so SIGINT stops an audit as
  // fast as any sweep.
  TaskStatus evaluate(std::int64_t task, const ParameterSet& params, TaskScratch& scratch,
                      double* results) const override;
  // The dry run's timing: each engine run for at most kTimingSecondsPerRun of wall time; a run
  // cut there counts as its elapsed time × its step limit / the steps it took (the time limit's
  // worth: an upper bound for a run that would settle later).
  double time_task(std::int64_t task, const ParameterSet& params, TaskScratch& scratch,
                   double* results) const override;
  // The mechanism placed at `params` (what the impact kernel checks) and each distinct engine's
  // expressibility (PhysicsEngine::check_expressible): no engine world is built, so the check
  // costs about as much as the impact kernel's, not grid × engines × rates scenes.
  void check_parameters(const ParameterSet& params) const override;

  // Values per engine run, in column order within its group.
  static constexpr int kRunValues = 8;
  static constexpr double kTimingSecondsPerRun = 0.02;

 private:
  struct Run {
    std::string group;
    std::shared_ptr<const PhysicsEngine> engine;
    EngineSettings settings;
    int mapping_values = 0;
  };
  TaskStatus evaluate_runs(std::int64_t task, const ParameterSet& params, TaskScratch& scratch,
                           double* results, double* timed_seconds) const;

  std::shared_ptr<const MujocoMechanism> mechanism_;
  AuditSpec spec_;
  AuditLimits limits_;
  std::vector<Run> runs_;
  std::vector<std::shared_ptr<const PhysicsEngine>> distinct_engines_;  // one per engine name
  mutable std::mutex check_mutex_;                                      // check_parameters' workspace
  mutable MujocoMechanism::WorkspacePtr check_workspace_;
  std::vector<ResultColumn> columns_;
};

}  // namespace simpact
