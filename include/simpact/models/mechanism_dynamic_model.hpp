// A mechanism file (models/mujoco_mechanism.hpp) as a DynamicModel, so `simpact simulate` and
// time-stepped sweeps step any hinge/slide robot through its impacts with the same midpoint
// integrator and propagative reset as the built-in models. MuJoCo gives M(q), gravity, joint
// springs and damping, the gaps and the normals; the derivatives of T = ½ vᵀM(q)v that the DEL
// Newton needs are central differences of M (exact zeros where M is constant, as for balls on
// slide joints). Ball and free joints are refused: the integrator steps q in R^n.
#pragma once

#include <memory>
#include <string>

#include "simpact/models/dynamic_model.hpp"
#include "simpact/models/mujoco_mechanism.hpp"

namespace simpact {

class MechanismDynamicModel final : public DynamicModel {
 public:
  // Throws InputError naming `field` for a ball/free joint or more than kMaxDof coordinates or
  // kMaxContacts contacts.
  MechanismDynamicModel(std::shared_ptr<const MujocoMechanism> mechanism, MechanismState edits,
                        const std::string& field = "mechanism");
  std::string name() const override { return mechanism_->spec().file; }
  int dof() const override { return mechanism_->nv(); }
  int contacts() const override { return mechanism_->contacts(); }
  std::string coordinate_name(int i) const override { return mechanism_->coordinate_name(i); }
  std::string coordinate_unit(int i) const override { return mechanism_->coordinate_unit(i); }
  void kinetic(const DofVector& q, const DofVector& v, bool second, KineticDerivatives& out) const override;
  double potential(const DofVector& q, DofVector& gradient, DofMatrix* hessian) const override;
  bool has_forces() const override { return damped_; }
  void force(const DofVector& q, const DofVector& v, double t, DofVector& f, DofMatrix* f_q,
             DofMatrix* f_v) const override;
  std::string force_part_name(int part) const override;
  void force_part(int part, const DofVector& q, const DofVector& v, double t, DofVector& f) const override;
  void gaps(const DofVector& q, ContactVector& phi) const override;
  void gap_jacobian(const DofVector& q, NormalMatrix& jacobian) const override;
  double gap_length_scale(const DofVector& q) const override;

 private:
  MujocoMechanism::Workspace& workspace() const;
  Eigen::MatrixXd mass_at(const DofVector& q) const;
  // ∂T/∂q at (q, v) by central differences of M.
  DofVector kinetic_gradient(const DofVector& q, const DofVector& v) const;

  std::shared_ptr<const MujocoMechanism> mechanism_;
  MechanismState edits_;  // mass/size/pos edits of the run
  Eigen::VectorXd damping_;
  bool damped_ = false;
  mutable MujocoMechanism::WorkspacePtr workspace_;  // one model per run: one thread at a time
};

}  // namespace simpact
