#include "simpact/models/mechanism_impact_model.hpp"

#include <atomic>
#include <unordered_map>

namespace simpact {

namespace {
std::uint64_t next_model_id() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}
}  // namespace

MechanismImpactModel::MechanismImpactModel(std::shared_ptr<const MujocoMechanism> mechanism)
    : mechanism_(std::move(mechanism)), id_(next_model_id()) {}

std::string MechanismImpactModel::name() const {
  return mechanism_->spec().file;
}

// One workspace per (thread, model): MuJoCo's mjData is scratch that threads must not share.
// Ids are never reused, so a workspace never outlives its meaning; a thread keeps its few
// workspaces until it ends.
MujocoMechanism::Workspace& MechanismImpactModel::workspace() const {
  thread_local std::unordered_map<std::uint64_t, MujocoMechanism::WorkspacePtr> workspaces;
  auto& slot = workspaces[id_];
  if (!slot) slot = mechanism_->make_workspace();
  return *slot;
}

ImpactProblem MechanismImpactModel::make_problem(const ParameterSet& params) const {
  MechanismState state = mechanism_->state_from(params);
  mechanism_->check_state(state, "qpos", "qvel");
  return mechanism_->make_problem(std::move(state), workspace());
}

bool MechanismImpactModel::needs_dynamic_sizes(const ParameterSet&) const {
  return mechanism_->needs_dynamic_sizes();
}

DynamicImpactProblem MechanismImpactModel::make_dynamic_problem(const ParameterSet& params) const {
  MechanismState state = mechanism_->state_from(params);
  mechanism_->check_state(state, "qpos", "qvel");
  return mechanism_->make_dynamic_problem(std::move(state), workspace());
}

}  // namespace simpact
