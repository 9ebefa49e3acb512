// What mujoco_mechanism*.cpp share and nothing else sees (models/ only, not installed): the
// loaded model, the edits parameters make, a thread's workspace and the forward pass that M(q)
// and the Jacobians need.
#pragma once

#include <mujoco/mujoco.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "simpact/models/mujoco_mechanism.hpp"

namespace simpact {

// Refuses a number that is not finite ("nan", "inf", "1e999") in a mass, size, position,
// orientation or inertia attribute of an MJCF/URDF file (one of the files a mechanism reads):
// MuJoCo 2.2 takes mass="nan" for "no mass given" and silently computes the density mass. One
// InputError naming `field`, the file, the line and the body or geom.
void check_finite_numbers(const std::string& file, const std::string& field);

// What an edit parameter sets in a workspace's model copy.
struct EditTarget {
  enum Kind { kMass, kSize, kPos } kind;
  int id;     // body or geom
  int index;  // component (size, pos)
};

struct MujocoMechanism::Model {
  mjModel* m = nullptr;
  std::vector<EditTarget> edits;
  ~Model() {
    if (m) mj_deleteModel(m);
  }
};

class MujocoMechanism::Workspace {
 public:
  explicit Workspace(const mjModel* base) : base_(base) {
    m = mj_copyModel(nullptr, base);
    d = mj_makeData(m);
    if (!m || !d) throw std::bad_alloc();
    // MuJoCo takes a "simple" dof's inertia from dof_M0, fixed when the file was compiled; the
    // full composite-rigid-body pass follows mass.<body> edits.
    std::fill_n(m->dof_simplenum, m->nv, 0);
  }
  ~Workspace() {
    if (d) mj_deleteData(d);
    if (m) mj_deleteModel(m);
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // The file's model with the edits applied, as MuJoCo's compiler would have made it from a file
  // with the edited values (issue 35): the fields the edits set, the subtree masses and an edited
  // geom's geom_rbound; derive_constants() adds the rest of mj_setConst's. The edits of the last
  // call are kept: the same edits again cost nothing.
  void apply(const std::vector<EditTarget>& targets, const std::vector<std::pair<int, double>>& edits) {
    if (edits == applied_) return;
    mj_copyModel(m, base_);
    applied_ = edits;
    constants_pending_ = false;
    if (edits.empty()) {
      std::fill_n(m->dof_simplenum, m->nv, 0);
      return;
    }
    for (const auto& [slot, value] : edits) {
      const EditTarget& t = targets[slot];
      if (t.kind == EditTarget::kMass) {
        const double old = base_->body_mass[t.id];
        m->body_mass[t.id] = value;
        // Same shape, new density: the inertia scales with the mass.
        for (int i = 0; i < 3; ++i)
          m->body_inertia[3 * t.id + i] = old > 0 ? base_->body_inertia[3 * t.id + i] * value / old : 0.0;
      } else if (t.kind == EditTarget::kSize) {
        m->geom_size[3 * t.id + t.index] = value;
      } else {
        m->body_pos[3 * t.id + t.index] = value;
      }
    }
    for (const auto& [slot, value] : edits)
      if (targets[slot].kind == EditTarget::kSize)
        m->geom_rbound[targets[slot].id] = bounding_radius(targets[slot].id);
    // Subtree masses (mj_comPos divides by them) now; the rest of mj_setConst's constants (dof_M0,
    // invweights: what MuJoCo's own solver reads, 10–80 µs a call) when a caller asks for the
    // whole model (derive_constants: mujoco_at).
    std::copy_n(m->body_mass, m->nbody, m->body_subtreemass);
    for (int b = m->nbody - 1; b > 0; --b) m->body_subtreemass[m->body_parentid[b]] += m->body_subtreemass[b];
    std::fill_n(m->dof_simplenum, m->nv, 0);
    constants_pending_ = true;
  }

  // The constants MuJoCo derives from the edited fields (mj_setConst), if edits left them stale:
  // after this the model equals the file compiled with the edited values.
  void derive_constants() {
    if (!constants_pending_) return;
    std::copy_n(base_->dof_simplenum, m->nv, m->dof_simplenum);  // as the compiler's call had them
    mj_setConst(m, d);
    std::fill_n(m->dof_simplenum, m->nv, 0);
    constants_pending_ = false;
  }

  mjModel* m = nullptr;
  mjData* d = nullptr;

 private:
  // MuJoCo's compiler's bounding radius of a primitive geom (mjCGeom::Compile).
  double bounding_radius(int g) const {
    const mjtNum* size = m->geom_size + 3 * g;
    switch (m->geom_type[g]) {
      case mjGEOM_SPHERE:
        return size[0];
      case mjGEOM_CAPSULE:
        return size[0] + size[1];
      case mjGEOM_CYLINDER:
        return std::sqrt(size[0] * size[0] + size[1] * size[1]);
      case mjGEOM_ELLIPSOID:
        return std::max(std::max(size[0], size[1]), size[2]);
      case mjGEOM_BOX:
        return std::sqrt(size[0] * size[0] + size[1] * size[1] + size[2] * size[2]);
      default:
        return m->geom_rbound[g];
    }
  }

  const mjModel* base_;
  std::vector<std::pair<int, double>> applied_;
  bool constants_pending_ = false;
};

// Kinematics, the composite-rigid-body inertia and the com-based frames mj_jac needs.
inline void forward_position(const mjModel* m, mjData* d, const Eigen::VectorXd& qpos) {
  std::copy_n(qpos.data(), m->nq, d->qpos);
  mj_kinematics(m, d);
  mj_comPos(m, d);
  mj_crb(m, d);
}

}  // namespace simpact
