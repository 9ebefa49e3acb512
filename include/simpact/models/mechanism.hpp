// A mechanical system for time stepping (paper Sec. VI): generalized coordinates q ∈ R^n, or on a
// group (ball and free joints: q has nq coordinates with unit quaternions, velocities nv; see
// rotation_blocks() and MidpointIntegrator's Lie-group rule), Lagrangian L(q, q̇) = T(q, q̇) − V(q) with T = ½
// q̇ᵀM(q)q̇, non-conservative generalized forces F(q, q̇, t), and unilateral contacts with gap functions φ_i(q)
// ≥ 0 and normals Dφ_i(q).
//
// Derivatives are exact and hand-derived (no AutoDiff): the midpoint DEL's Newton Jacobian needs
// ∂M/∂q and ∂²M/∂q² contracted with velocities, so a model supplies the kinetic energy's first and
// second derivatives in closed form (PlanarLinkage does, in O(terms·n²)); tests check every
// derivative against central finite differences. Models are read-only (const) and thread-safe.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

namespace simpact {

// Time stepping takes any size: q ∈ R^nq (quaternions of ball and free joints included), v, p, forces
// ∈ R^nv, one gap per contact. Heap storage, sized once per trajectory where the hot path allows.
using DynVector = Eigen::VectorXd;
using DynMatrix = Eigen::MatrixXd;
using DynRowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// T(q, v) = ½ vᵀM(q)v and its derivatives at one (q, v) [J, J/rad, kg·m²/s, ...].
struct KineticDerivatives {
  double energy = 0.0;  // T
  DynVector t_q;        // ∂T/∂q
  DynVector t_v;        // ∂T/∂v = M(q) v (the momentum)
  DynMatrix mass;       // ∂²T/∂v² = M(q)
  DynMatrix t_qq;       // ∂²T/∂q∂q (filled when second derivatives are asked)
  DynMatrix t_qv;       // (t_qv)_ab = ∂²T/∂q_a∂v_b (filled when second derivatives are asked)
};

// A mechanism at one configuration q, as an impact sees it: M(q), the contacts' gaps φ_i(q) and
// normals Dφ_i(q). impact_problem_at (models/impact_problem_at.hpp) turns it and a pre-impact
// state into the impact problem.
struct ImpactTerms {
  DynMatrix mass;                     // M(q), unless mass_diagonal is set
  DynVector mass_diagonal;            // non-empty: M = diag(mass_diagonal) (point masses; mass unused)
  DynRowMatrix normals;               // Dφ_i(q), one row per contact
  DynVector gaps;                     // φ_i(q)
  bool every_contact_closed = false;  // gaps ignored: a scenario built touching closes them all
  int dof() const { return static_cast<int>(mass_diagonal.size() > 0 ? mass_diagonal.size() : mass.rows()); }
};

// One mechanism description (issue 34 §1): coordinates q (nq) and velocities v (nv) with names,
// M(q), potential and non-conservative forces, gaps φ(q) and their covectors, and the update
// q ⊕ v·dt. Built-in scenarios, mechanism files and the time stepper all speak it; impacts are
// assembled from it by impact_problem_at alone.
class Mechanism {
 public:
  virtual ~Mechanism() = default;
  virtual std::string name() const = 0;
  virtual int dof() const = 0;  // nv: velocities, momenta, forces
  // nq: coordinates of q. Larger than dof() when the configuration lives on a group (a ball
  // joint's quaternion: 4 coordinates, 3 velocities; a free joint's: 7 and 6).
  virtual int configuration_size() const { return dof(); }
  // The first velocity index of each rotation block: three body-frame angular velocities of a
  // ball joint or of a free joint's rotation, whose configuration is a unit quaternion updated by
  // right multiplication (q ⊕ v = q·exp(v)). Empty: every coordinate is Euclidean (q ∈ R^n).
  virtual const std::vector<int>& rotation_blocks() const;
  bool on_group() const { return !rotation_blocks().empty(); }
  // out = q ⊕ s·v (R^n: q + s·v; rotations: q·exp(s·v)), out = q allowed.
  virtual void integrate(const DynVector& q, const DynVector& v, double s, DynVector& out) const;
  // v with q₁ ⊕ v = q₂ (R^n: q₂ − q₁).
  virtual void difference(const DynVector& q2, const DynVector& q1, DynVector& v) const;
  // Name and UDUNITS unit of configuration coordinate i < configuration_size() (a quaternion
  // component: "1"); on R^n the coordinate's own.
  virtual std::string configuration_name(int i) const { return coordinate_name(i); }
  virtual std::string configuration_unit(int i) const { return coordinate_unit(i); }
  // The step of the central differences that form ∂T/∂q (0: exact derivatives, the default). Their
  // rounding, ~ε·|M|·|v|²/step, is a floor under the DEL residual (MidpointIntegrator on a group).
  virtual double gradient_step() const { return 0.0; }
  // Puts a given q on the group: each quaternion scaled to unit norm; returns true when one was
  // not unit (the caller says so). Throws InputError naming `field`[i:j] for a zero or non-finite
  // quaternion. R^n: nothing to do.
  virtual bool normalize_configuration(DynVector& /*q*/, const std::string& /*field*/) const { return false; }
  virtual int contacts() const { return 0; }
  // How messages name contact i ("2"; a mechanism file: its pair and feature, "floor/foot_l#0").
  virtual std::string contact_name(int i) const { return std::to_string(i); }
  virtual std::string coordinate_name(int i) const { return "q" + std::to_string(i); }
  // UDUNITS unit of coordinate i ("m" or "rad"); "" when the model does not know it.
  virtual std::string coordinate_unit(int /*i*/) const { return ""; }

  // T and its derivatives at (q, v); second: also t_qq and t_qv. `mass` is always filled.
  virtual void kinetic(const DynVector& q, const DynVector& v, bool second,
                       KineticDerivatives& out) const = 0;
  // The terms of the DEL residual alone (Newton's inner loop): t_q = ∂T/∂q, t_v = M(q)v and
  // v_q = ∇V(q) at (q, v). The default calls kinetic(…, false) and potential(); a model overrides
  // it when it can form them without the mass matrix (PlanarLinkage: O(terms + nonzeros)).
  virtual void momentum_terms(const DynVector& q, const DynVector& v, DynVector& t_q, DynVector& t_v,
                              DynVector& v_q) const;
  // The Newton matrix of the midpoint DEL without forces,
  //   out = c_m·M + c_s·(T_qv − T_qvᵀ) + c_h·(T_qq − V_qq)   at (q, v),
  // and mass_norm = |M|∞ (a model may return |out|∞/|c_m|, within O(h) of it: the value only sets
  // the residual's rounding floor). The default forms every derivative with kinetic(…, true) and
  // potential(); PlanarLinkage assembles it in term space (O(terms² + nnz·n)).
  virtual void del_matrix(const DynVector& q, const DynVector& v, double c_m, double c_s, double c_h,
                          DynMatrix& out, double& mass_norm) const;
  // V(q) [J], its gradient and (if hessian != nullptr) its Hessian.
  virtual double potential(const DynVector& q, DynVector& gradient, DynMatrix* hessian) const = 0;
  // Non-conservative generalized force F(q, v, t) and, when the pointers are not null, ∂F/∂q and
  // ∂F/∂v. The default is no force.
  virtual bool has_forces() const { return false; }
  virtual void force(const DynVector& q, const DynVector& v, double t, DynVector& f, DynMatrix* f_q,
                     DynMatrix* f_v) const;
  // The same force split into named parts for the energy bookkeeping (Simulator::force_work_parts):
  // force_parts() parts whose forces sum to force(). The default is one part, "forces".
  virtual int force_parts() const { return has_forces() ? 1 : 0; }
  virtual std::string force_part_name(int part) const;
  virtual void force_part(int part, const DynVector& q, const DynVector& v, double t, DynVector& f) const;
  // φ_i(q) for every contact [length]; Dφ(q), one row per contact.
  virtual void gaps(const DynVector& q, DynVector& phi) const;
  virtual void gap_jacobian(const DynVector& q, DynRowMatrix& jacobian) const;
  // The length whose rounding the gaps carry at q [m]: a model that forms φ from positions
  // larger than q itself (a mechanism file's world coordinates, q being offsets from the file's
  // pose) says so, and a resting contact's Newton iteration then stops at that rounding floor.
  // The default 0: the gaps are as precise as q.
  virtual double gap_length_scale(const DynVector& /*q*/) const { return 0.0; }
  // Coulomb friction of resting contacts (MidpointIntegrator): the coefficient μ (0: frictionless,
  // the default) and, one row per contact, the Jacobian of its tangential sliding coordinate
  // (all-zero rows: a frictionless contact).
  virtual double friction_coefficient() const { return 0.0; }
  virtual void tangent_jacobian(const DynVector& q, DynRowMatrix& jacobian) const;

  // M(q), φ(q) and Dφ(q) at q for an impact there. The default: mass_matrix, gaps and
  // gap_jacobian; a model with a diagonal M says so (mass_diagonal).
  virtual void impact_terms(const DynVector& q, ImpactTerms& out) const;

  // M(q) alone (energy monitoring, initial velocities).
  DynMatrix mass_matrix(const DynVector& q) const;
  // E = ½ pᵀM(q)⁻¹p + V(q) [J].
  double energy(const DynVector& q, const DynVector& p) const;
};

}  // namespace simpact
