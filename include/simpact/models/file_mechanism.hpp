// A mechanism file (models/mujoco_mechanism.hpp) as a Mechanism, so `simpact simulate` and
// time-stepped sweeps step any robot (hinges, slides, ball and free joints) through its impacts with the same
// midpoint integrator and propagative reset as the built-in models. MuJoCo gives M(q), gravity, joint springs
// and damping, the gaps and the normals; the derivatives of T = ½ vᵀM(q)v that the DEL Newton needs are
// central differences of M (exact zeros where M is constant, as for balls on slide joints). Ball and free
// joints step on their group: q has MuJoCo's nq coordinates (quaternions), v and p its nv velocities (a free
// joint: world-frame linear, body-frame angular velocity); q ⊕ v is mj_integratePos, the derivatives along a
// rotation are central differences through it, and along a free joint's translation exactly 0 (nothing but
// gravity's constant pull depends on where the robot is).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "simpact/models/mechanism.hpp"
#include "simpact/models/mujoco_mechanism.hpp"

namespace simpact {

class FileMechanism final : public Mechanism {
 public:
  // Throws InputError naming `field` for a spring on a ball or free joint (V would miss it), or
  // more than kMaxDynamicDof velocities or kMaxDynamicContacts contacts (the reset's limits).
  FileMechanism(std::shared_ptr<const MujocoMechanism> mechanism, MechanismState edits,
                const std::string& field = "mechanism");
  std::string name() const override { return mechanism_->spec().file; }
  int dof() const override { return mechanism_->nv(); }
  int configuration_size() const override { return mechanism_->nq(); }
  const std::vector<int>& rotation_blocks() const override { return rotation_blocks_; }
  void integrate(const DynVector& q, const DynVector& v, double s, DynVector& out) const override;
  void difference(const DynVector& q2, const DynVector& q1, DynVector& v) const override;
  double gradient_step() const override { return 1e-5; }
  std::string configuration_name(int i) const override;
  std::string configuration_unit(int i) const override;
  bool normalize_configuration(DynVector& q, const std::string& field) const override;
  // Time stepping's contacts: one per feature (a contact against a plane: a capsule's two end-cap
  // centres, a box's 8 corners; other pairs, spheres and cylinders: the contact's deepest point).
  int contacts() const override { return static_cast<int>(features_.size()); }
  // "foot_l/floor#0": the contact's two sides and the feature's index within it (no index for a
  // contact's deepest point).
  std::string feature_name(int i) const;
  std::string contact_name(int i) const override { return feature_name(i); }
  // The contact (index of the mechanism's contacts) feature i belongs to.
  int feature_contact(int i) const { return features_.at(static_cast<std::size_t>(i)).contact; }
  std::string coordinate_name(int i) const override { return mechanism_->coordinate_name(i); }
  std::string coordinate_unit(int i) const override { return mechanism_->coordinate_unit(i); }
  void kinetic(const DynVector& q, const DynVector& v, bool second, KineticDerivatives& out) const override;
  double potential(const DynVector& q, DynVector& gradient, DynMatrix* hessian) const override;
  bool has_forces() const override { return damped_; }
  void force(const DynVector& q, const DynVector& v, double t, DynVector& f, DynMatrix* f_q,
             DynMatrix* f_v) const override;
  std::string force_part_name(int part) const override;
  void force_part(int part, const DynVector& q, const DynVector& v, double t, DynVector& f) const override;
  void gaps(const DynVector& q, DynVector& phi) const override;
  void gap_jacobian(const DynVector& q, DynRowMatrix& jacobian) const override;
  double gap_length_scale(const DynVector& q) const override;

 private:
  MujocoMechanism::Workspace& workspace() const;
  Eigen::MatrixXd mass_at(const DynVector& q) const;
  // ∂T/∂q at (q, v) by central differences of M.
  DynVector kinetic_gradient(const DynVector& q, const DynVector& v) const;
  // q moved by ±step along velocity coordinate a (q ⊕ ±step·e_a); returns the span between the two.
  double perturb(const DynVector& q, int a, DynVector& plus, DynVector& minus) const;

  // One smooth gap of time stepping: φ = n·(x − p0) − radius, x = the geom's frame point `local`,
  // p0 and n the plane's origin and normal; geom < 0: the contact's deepest point (evaluate()).
  struct Feature {
    int contact = 0;
    int geom = -1, plane = -1;
    Eigen::Vector3d local = Eigen::Vector3d::Zero();
    double radius = 0.0;
    int index = -1;  // within the contact
  };
  void feature_gaps(const DynVector& q, DynVector* phi, DynRowMatrix* jacobian) const;

  std::shared_ptr<const MujocoMechanism> mechanism_;
  std::vector<Feature> features_;
  bool any_deepest_ = false;  // some feature is a contact's deepest point
  MechanismState edits_;      // mass/size/pos edits of the run
  Eigen::VectorXd damping_;
  bool damped_ = false;
  const ::mjModel_* mj_ = nullptr;                   // the workspace's model (joint layout for ⊕)
  std::vector<int> rotation_blocks_;                 // first dof of each ball joint and free joint rotation
  std::vector<int> dof_qpos_;                        // qpos index of a Euclidean dof; −1 on rotations
  std::vector<char> translation_;                    // a free joint's translation dof: ∂/∂q exactly 0
  mutable MujocoMechanism::WorkspacePtr workspace_;  // one model per run: one thread at a time
};

}  // namespace simpact
