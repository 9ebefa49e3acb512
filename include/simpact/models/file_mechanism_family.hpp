// A mechanism file as a MechanismFamily: the sweep engine's view of `model: {file: ..., contacts:
// [...]}`. A task's parameters (qpos.*, qvel.*, mass.*, size.*, pos.*, restitution) name the state
// and the edits; the impact is the mechanism's there, after `place`. Each thread builds through
// its own MuJoCo workspace, so one family serves every OpenMP thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "simpact/models/mechanism_family.hpp"
#include "simpact/models/mujoco_mechanism.hpp"

namespace simpact {

class FileMechanismFamily : public MechanismFamily {
 public:
  explicit FileMechanismFamily(std::shared_ptr<const MujocoMechanism> mechanism);
  std::string name() const override;
  const std::vector<ParameterInfo>& parameters() const override { return mechanism_->parameters(); }
  int max_dof() const override { return mechanism_->nv(); }
  void impact_at(const ParameterSet& params, FamilyScratch& scratch, ImpactTerms& terms, PreImpact& pre,
                 double* values) const override;
  // Per task: each `place` coordinate as solved (group "placed", named by its parameter:
  // placed/qpos.root_z) and the contacts' smallest gap at the resolved configuration
  // (contacts/min_gap [m]: > the gap tolerance when no contact closed) and the number of closed
  // witness points (contacts/closed: the impact's closed contacts).
  std::vector<TaskValue> task_values() const override;
  const MujocoMechanism& mechanism() const { return *mechanism_; }

 private:
  MujocoMechanism::Workspace& workspace() const;
  std::shared_ptr<const MujocoMechanism> mechanism_;
  std::uint64_t id_;  // keys this model's per-thread workspaces
};

}  // namespace simpact
