// A mechanism read from an MJCF or URDF file through MuJoCo 2.2.2 (DESIGN §2 "Mechanisms from
// files"): configuration coordinates (MuJoCo's qpos, nq of them) and velocities (qvel, nv), the
// joint-space mass matrix M(q) (mj_fullM, nv×nv), the signed distances φ_i(q) of named geom pairs
// and their normal covectors u_i = n_iᵀ(J_b − J_a) at the contact point (mj_jac), in qvel
// coordinates. Momenta are M·qvel. MuJoCo does what it does well (parsing, kinematics, the
// composite-rigid-body M, narrow-phase distances); the impact law stays simpact's.
//
// Parameters are named by what they set (the schema of parameters()):
//   qpos.<joint>, qvel.<joint>   hinge/slide joints; ball and free joints take [i]
//                                (qpos.root[2], qvel.root[5]); defaults qpos0 and 0
//   mass.<body>                  body mass [kg]; the body's inertia is scaled with it
//   size.<geom>[i]               geom size (MuJoCo's meaning per type) [m]; geometry only
//   pos.<body>[i]                body position in its parent's frame [m]
//   restitution                  R of eq. (16)
// The read-only description is shared by every thread; each thread evaluates through its own
// Workspace (an mjData and an mjModel copy that parameters may edit).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "simpact/core/impact_problem.hpp"
#include "simpact/core/parameter_info.hpp"
#include "simpact/core/parameter_set.hpp"
#include "simpact/models/impact_problem_at.hpp"

// MuJoCo's types, declared only (mujoco/mujoco.h stays in models/ and audit/ sources).
struct mjModel_;
struct mjData_;

namespace simpact {

// What a mechanism file study names: the file, the contacts (pairs of geoms or bodies), and the
// coordinates `place` solves so that every contact closes. `field` prefixes error fields
// ("mechanism" in JSON, "model" in a sweep config).
//
// A contact's side names a geom or a body (docs/mechanisms.md "Body and link contacts, URDF"):
// "NAME" is the geom NAME if there is one, else the body NAME (a body stands for all of its
// geoms; a URDF link is a body); "body:NAME" and "geom:NAME" force one kind.
//
// The gap tolerance is relative to the mechanism's length scale (length_scale(): the file's
// units), so a file in millimetres closes the contacts a file in metres does.
struct MechanismSpec {
  std::string file;  // as the caller resolved it (relative to the config's folder)
  std::vector<std::pair<std::string, std::string>> contacts;
  std::vector<std::string> place;        // qpos parameter names, e.g. "qpos.root[2]", "qpos.hip"
  double gap_tolerance = kGapTolerance;  // relative: × length_scale() in the file's length unit
  std::string field = "mechanism";
  // "all": a contact contributes every witness point within the gap tolerance (a box flat on a
  // plane: its 4 corners), at most kMaxWitnessesPerContact; "deepest": its deepest point only.
  std::string witnesses = "all";
};

// The most witness points one contact may contribute (witnesses: all); more is refused naming
// the contact and the count.
inline constexpr int kMaxWitnessesPerContact = 8;

// One row of a mechanism's impact problem: a witness point of contact `contact` (an index of
// spec().contacts) with its gap and the contact normal, from the contact's first side to its
// second.
struct MechanismWitness {
  int contact = 0;
  Eigen::Vector3d position = Eigen::Vector3d::Zero();  // world, midway between the surfaces [m]
  Eigen::Vector3d normal = Eigen::Vector3d::Zero();    // world, unit
  double gap = 0.0;                                    // φ at this point [m]
};

// One joint, body or geom of the file, for `simpact models FILE.xml`.
struct MechanismElement {
  std::string kind;  // "joint", "body", "geom"
  std::string name;
  std::string type;  // joint: hinge/slide/ball/free; geom: sphere/box/...; body: ""
  int id = 0;
  int body = -1;  // a geom's body id (a contact naming that body stands for the geom)
};

// A mechanism's state and edits at one evaluation, assembled from parameters (or given).
struct MechanismState {
  Eigen::VectorXd qpos;      // nq
  Eigen::VectorXd qvel;      // nv (ignored when momentum is set)
  Eigen::VectorXd momentum;  // nv, optional: p⁻ given directly
  double restitution = 1.0;
  std::vector<std::pair<int, double>> edits;  // (edit slot, value): see MujocoMechanism::parameters
};

// What make_problem resolved at: the configuration after `place` (quaternions normalized) and
// the contacts' gaps there. A caller reports it (resolve's placed_qpos, a sweep's placed/<coordinate> and
// contacts/min_gap columns) so that the placement and an open state are visible.
struct MechanismSolvedState {
  Eigen::VectorXd qpos;  // nq
  Eigen::VectorXd gaps;  // φ_i [m], one per contact (> the gap tolerance: open)
  // The problem's rows in order (its given contacts): each contact's deepest point, then, for a
  // closed contact under witnesses: all, its other witness points within the gap tolerance.
  std::vector<MechanismWitness> witnesses;
  double gap_tolerance = 0.0;  // the absolute tolerance the rows were closed with [m]
};

// M(q), φ(q) and Dφ(q) at one configuration.
struct MechanismEvaluation {
  Eigen::MatrixXd mass;     // nv × nv [kg, kg·m², ...]
  Eigen::VectorXd gaps;     // φ_i [m]; +inf beyond every reach of the pair
  Eigen::MatrixXd normals;  // k × nv, row i = u_i
};

class MujocoMechanism {
 public:
  class Workspace;
  // Workspaces are opaque here (MuJoCo's types stay in the .cpp): deleted out of line.
  struct WorkspaceDeleter {
    void operator()(Workspace* workspace) const;
  };
  using WorkspacePtr = std::unique_ptr<Workspace, WorkspaceDeleter>;

  // Loads the file and resolves the contact and place names (no contacts: a description only,
  // for `simpact models FILE`; an impact needs at least one). Throws InputError naming the field
  // ("mechanism.file", "mechanism.contacts[1][0]", "mechanism.place[0]").
  explicit MujocoMechanism(MechanismSpec spec);
  ~MujocoMechanism();
  MujocoMechanism(const MujocoMechanism&) = delete;
  MujocoMechanism& operator=(const MujocoMechanism&) = delete;

  const MechanismSpec& spec() const { return spec_; }
  int nq() const;
  int nv() const;
  int contacts() const { return static_cast<int>(spec_.contacts.size()); }
  // The most rows make_problem gives its problem (contacts() × kMaxWitnessesPerContact under
  // witnesses: all).
  int max_problem_rows() const;
  // The mechanism's length [file units]: the largest |position| + bounding radius of its bounded
  // geoms at qpos0 (1 when it has none). Tolerances are relative to it.
  double length_scale() const { return length_scale_; }
  // The absolute gap tolerance, spec().gap_tolerance × length_scale() [file units].
  double gap_tolerance() const { return spec_.gap_tolerance * length_scale_; }
  // qpos.<...> names (nq), qvel.<...> names (nv): the parameter names of the coordinates.
  const std::vector<std::string>& qpos_names() const { return qpos_names_; }
  const std::vector<std::string>& qvel_names() const { return qvel_names_; }
  const std::vector<ParameterInfo>& parameters() const { return parameters_; }
  std::vector<MechanismElement> elements() const;
  // The file's reference configuration (MuJoCo's qpos0).
  Eigen::VectorXd default_qpos() const;

  // A workspace for one thread at a time.
  WorkspacePtr make_workspace() const;

  // The state named by `params` (each parameter of parameters(), defaults for the others).
  // Throws InputError naming the parameter.
  MechanismState state_from(const ParameterSet& params) const;
  // Checks lengths, finiteness and quaternions (zero norm, not unit), naming `qpos_field` and
  // `qvel_field`; applies the edits to the workspace's model.
  void check_state(const MechanismState& state, const std::string& qpos_field,
                   const std::string& qvel_field) const;

  // M, φ and Dφ at qpos under state.edits: one row per contact, its deepest point.
  void evaluate(const MechanismState& state, const Eigen::VectorXd& qpos, Workspace& workspace,
                MechanismEvaluation& out) const;
  // M and the impact's rows at qpos under state.edits, as make_problem builds them: rows 0..k−1
  // are evaluate()'s (each contact's deepest point), then, under witnesses: all, every other
  // witness point of a closed contact within gap_tolerance(), contact by contact. witnesses[i]
  // describes row i. Throws InputError naming the contact beyond kMaxWitnessesPerContact.
  void evaluate_witnesses(const MechanismState& state, const Eigen::VectorXd& qpos, Workspace& workspace,
                          MechanismEvaluation& out, std::vector<MechanismWitness>& witnesses) const;
  // Solves spec().place coordinates of state.qpos so that every contact closes (|φ_i| ≤ the gap
  // tolerance); a no-op without `place`. Throws InputError naming the contact and its gap.
  void place(MechanismState& state, Workspace& workspace) const;

  // Per contact (spec().contacts order): the geom pairs it stands for, (first side, second side);
  // a side naming a body stands for each of its geoms. What an engine rebuilding the mechanism
  // lets collide (audit/).
  const std::vector<std::vector<std::pair<int, int>>>& contact_geom_pairs() const { return contact_pairs_; }

  // qpos indices of spec().place, in its order.
  const std::vector<int>& place_coordinates() const { return place_qpos_; }

  // The mechanism at the (placed) state as an impact sees it: M(q), every witness row's gap and
  // normal (those with φ_i ≤ the gap tolerance close; none closed is not an error: the problem then
  // has no contact) and the pre-impact state. `solved`, when given, receives the configuration
  // resolved at and its gaps. make_problem and make_dynamic_problem: impact_problem_at of it.
  void impact_at(MechanismState state, Workspace& workspace, ImpactTerms& terms, PreImpact& pre,
                 MechanismSolvedState* solved = nullptr) const;
  ImpactProblem make_problem(MechanismState state, Workspace& workspace,
                             MechanismSolvedState* solved = nullptr) const;
  DynamicImpactProblem make_dynamic_problem(MechanismState state, Workspace& workspace,
                                            MechanismSolvedState* solved = nullptr) const;
  // The workspace's mjModel (state.edits applied) and its mjData after MuJoCo's position pass
  // at qpos: what an adapter rebuilding the mechanism in another engine reads (audit/). Valid
  // until the workspace's next use.
  std::pair<const mjModel_*, mjData_*> mujoco_at(const MechanismState& state, const Eigen::VectorXd& qpos,
                                                 Workspace& workspace) const;
  // True when the state's system exceeds the fixed capacity (nv > kMaxDof or > kMaxContacts).
  bool needs_dynamic_sizes() const;

  // ---- time stepping (models/file_mechanism.hpp) ----
  // M(q) alone (no contacts) under state.edits.
  void mass_matrix(const MechanismState& state, const Eigen::VectorXd& qpos, Workspace& workspace,
                   Eigen::MatrixXd& mass) const;
  // V(q) = gravity (−Σ m_b g·x_b, bodies' centres of mass) + joint springs (½k(q − q_spring)²)
  // [J], and its gradient ∂V/∂q when gradient != nullptr.
  double potential(const MechanismState& state, const Eigen::VectorXd& qpos, Workspace& workspace,
                   Eigen::VectorXd* gradient) const;
  // The largest world coordinate the contacts' gaps are formed from at qpos (|geom position| +
  // bounding radius) [m]: the length their rounding scales with.
  double gap_length_scale(const MechanismState& state, const Eigen::VectorXd& qpos,
                          Workspace& workspace) const;
  // MuJoCo's joint damping per dof [N·s/m or N·m·s/rad]: the force −D·q̇.
  Eigen::VectorXd damping() const;
  // The name of coordinate i (the joint's, with [i] for a multi-dof joint).
  std::string coordinate_name(int i) const;
  // "rad" (hinge, ball, a free joint's rotation) or "m" (slide, a free joint's translation).
  std::string coordinate_unit(int i) const { return qvel_units_.at(static_cast<std::size_t>(i)); }

 private:
  struct Model;  // the loaded mjModel and its name tables
  std::unique_ptr<Model> model_;
  MechanismSpec spec_;
  std::vector<std::string> qpos_names_, qvel_names_, qvel_units_;
  std::vector<ParameterInfo> parameters_;
  // What parameter i of parameters_ sets: a qpos/qvel index, an edit slot, or restitution.
  struct Target {
    enum Kind { kQpos, kQvel, kEdit, kRestitution } kind;
    int index;
  };
  std::vector<Target> targets_;
  // Per contact: the geom pairs it stands for (one for two geoms, more for a body), each pair
  // (geom of the first side, geom of the second side).
  std::vector<std::vector<std::pair<int, int>>> contact_pairs_;
  std::vector<int> contact_geoms_;  // every geom a contact stands for (both sides)
  double length_scale_ = 1.0;
  std::vector<int> place_qpos_;  // qpos indices solved by place()
};

// Resolves `path` from `base_dir` when it is relative (config and JSON paths are relative to
// their own file's folder, DESIGN §4); an empty base_dir leaves it as given.
std::string resolve_relative_path(const std::string& path, const std::string& base_dir);

}  // namespace simpact
