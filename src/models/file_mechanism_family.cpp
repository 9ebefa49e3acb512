#include "simpact/models/file_mechanism_family.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <unordered_map>

namespace simpact {

namespace {
std::uint64_t next_model_id() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}
}  // namespace

FileMechanismFamily::FileMechanismFamily(std::shared_ptr<const MujocoMechanism> mechanism)
    : mechanism_(std::move(mechanism)), id_(next_model_id()) {}

std::string FileMechanismFamily::name() const {
  return mechanism_->spec().file;
}

// One workspace per (thread, model): MuJoCo's mjData is scratch that threads must not share.
// Ids are never reused, so a workspace never outlives its meaning; a thread keeps its few
// workspaces until it ends.
MujocoMechanism::Workspace& FileMechanismFamily::workspace() const {
  thread_local std::unordered_map<std::uint64_t, MujocoMechanism::WorkspacePtr> workspaces;
  auto& slot = workspaces[id_];
  if (!slot) slot = mechanism_->make_workspace();
  return *slot;
}

std::vector<MechanismFamily::TaskValue> FileMechanismFamily::task_values() const {
  std::vector<TaskValue> out;
  const auto& names = mechanism_->qpos_names();
  for (int i : mechanism_->place_coordinates()) {
    const std::string& name = names[static_cast<std::size_t>(i)];
    const auto& params = mechanism_->parameters();
    const auto info =
        std::find_if(params.begin(), params.end(), [&](const auto& p) { return p.name == name; });
    out.push_back({"placed", name, info != params.end() ? info->units : "",
                   "coordinate " + name + " as placed so that every contact closes (model.place)"});
  }
  out.push_back({"contacts", "min_gap", "m",
                 "smallest gap of the contacts at the resolved configuration (above the gap tolerance: "
                 "no contact closed)"});
  out.push_back({"contacts", "closed", "1",
                 "witness points closed at the resolved configuration (the impact's closed contacts: a "
                 "box flat on a plane counts 4 under witnesses: all)"});
  return out;
}

namespace {
// The placed coordinates and the smallest gap, in task_values() order.
void report(const MujocoMechanism& mechanism, const MechanismSolvedState& solved, double* values) {
  std::size_t k = 0;
  for (int i : mechanism.place_coordinates()) values[k++] = solved.qpos[i];
  values[k++] = solved.gaps.size() > 0 ? solved.gaps.minCoeff() : std::numeric_limits<double>::quiet_NaN();
  int closed = 0;
  for (const MechanismWitness& w : solved.witnesses) closed += w.gap <= solved.gap_tolerance;
  values[k] = closed;
}
}  // namespace

void FileMechanismFamily::impact_at(const ParameterSet& params, FamilyScratch& /*scratch*/,
                                    ImpactTerms& terms, PreImpact& pre, double* values) const {
  MechanismState state = mechanism_->state_from(params);
  mechanism_->check_state(state, "qpos", "qvel");
  MechanismSolvedState solved;
  mechanism_->impact_at(std::move(state), workspace(), terms, pre, values ? &solved : nullptr);
  if (values) report(*mechanism_, solved, values);
}

}  // namespace simpact
