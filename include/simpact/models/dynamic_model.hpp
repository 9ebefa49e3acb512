// A mechanical system for time stepping (paper Sec. VI): generalized coordinates q ∈ R^n,
// Lagrangian L(q, q̇) = T(q, q̇) − V(q) with T = ½ q̇ᵀM(q)q̇, non-conservative generalized forces
// F(q, q̇, t), and unilateral contacts with gap functions φ_i(q) ≥ 0 and normals Dφ_i(q).
//
// Derivatives are exact and hand-derived (no AutoDiff): the midpoint DEL's Newton Jacobian needs
// ∂M/∂q and ∂²M/∂q² contracted with velocities, so a model supplies the kinetic energy's first and
// second derivatives in closed form (PlanarLinkage does, in O(terms·n²)); tests check every
// derivative against central finite differences. Models are read-only (const) and thread-safe.
#pragma once

#include <string>

#include "simpact/core/fixed_size.hpp"

namespace simpact {

// T(q, v) = ½ vᵀM(q)v and its derivatives at one (q, v) [J, J/rad, kg·m²/s, ...].
struct KineticDerivatives {
  double energy = 0.0;  // T
  DofVector t_q;        // ∂T/∂q
  DofVector t_v;        // ∂T/∂v = M(q) v (the momentum)
  DofMatrix mass;       // ∂²T/∂v² = M(q)
  DofMatrix t_qq;       // ∂²T/∂q∂q (filled when second derivatives are asked)
  DofMatrix t_qv;       // (t_qv)_ab = ∂²T/∂q_a∂v_b (filled when second derivatives are asked)
};

class DynamicModel {
 public:
  virtual ~DynamicModel() = default;
  virtual std::string name() const = 0;
  virtual int dof() const = 0;
  virtual int contacts() const { return 0; }
  virtual std::string coordinate_name(int i) const { return "q" + std::to_string(i); }
  // UDUNITS unit of coordinate i ("m" or "rad"); "" when the model does not know it.
  virtual std::string coordinate_unit(int /*i*/) const { return ""; }

  // T and its derivatives at (q, v); second: also t_qq and t_qv. `mass` is always filled.
  virtual void kinetic(const DofVector& q, const DofVector& v, bool second,
                       KineticDerivatives& out) const = 0;
  // The terms of the DEL residual alone (Newton's inner loop): t_q = ∂T/∂q, t_v = M(q)v and
  // v_q = ∇V(q) at (q, v). The default calls kinetic(…, false) and potential(); a model overrides
  // it when it can form them without the mass matrix (PlanarLinkage: O(terms + nonzeros)).
  virtual void momentum_terms(const DofVector& q, const DofVector& v, DofVector& t_q, DofVector& t_v,
                              DofVector& v_q) const;
  // The Newton matrix of the midpoint DEL without forces,
  //   out = c_m·M + c_s·(T_qv − T_qvᵀ) + c_h·(T_qq − V_qq)   at (q, v),
  // and mass_norm = |M|∞ (a model may return |out|∞/|c_m|, within O(h) of it: the value only sets
  // the residual's rounding floor). The default forms every derivative with kinetic(…, true) and
  // potential(); PlanarLinkage assembles it in term space (O(terms² + nnz·n)).
  virtual void del_matrix(const DofVector& q, const DofVector& v, double c_m, double c_s, double c_h,
                          DofMatrix& out, double& mass_norm) const;
  // V(q) [J], its gradient and (if hessian != nullptr) its Hessian.
  virtual double potential(const DofVector& q, DofVector& gradient, DofMatrix* hessian) const = 0;
  // Non-conservative generalized force F(q, v, t) and, when the pointers are not null, ∂F/∂q and
  // ∂F/∂v. The default is no force.
  virtual bool has_forces() const { return false; }
  virtual void force(const DofVector& q, const DofVector& v, double t, DofVector& f, DofMatrix* f_q,
                     DofMatrix* f_v) const;
  // The same force split into named parts for the energy bookkeeping (Simulator::force_work_parts):
  // force_parts() parts whose forces sum to force(). The default is one part, "forces".
  virtual int force_parts() const { return has_forces() ? 1 : 0; }
  virtual std::string force_part_name(int part) const;
  virtual void force_part(int part, const DofVector& q, const DofVector& v, double t, DofVector& f) const;
  // φ_i(q) for every contact [length]; Dφ(q), one row per contact.
  virtual void gaps(const DofVector& q, ContactVector& phi) const;
  virtual void gap_jacobian(const DofVector& q, NormalMatrix& jacobian) const;
  // The length whose rounding the gaps carry at q [m]: a model that forms φ from positions
  // larger than q itself (a mechanism file's world coordinates, q being offsets from the file's
  // pose) says so, and a resting contact's Newton iteration then stops at that rounding floor.
  // The default 0: the gaps are as precise as q.
  virtual double gap_length_scale(const DofVector& /*q*/) const { return 0.0; }
  // Coulomb friction of resting contacts (MidpointIntegrator): the coefficient μ (0: frictionless,
  // the default) and, one row per contact, the Jacobian of its tangential sliding coordinate
  // (all-zero rows: a frictionless contact).
  virtual double friction_coefficient() const { return 0.0; }
  virtual void tangent_jacobian(const DofVector& q, NormalMatrix& jacobian) const;

  // M(q) alone (energy monitoring, initial velocities).
  DofMatrix mass_matrix(const DofVector& q) const;
  // E = ½ pᵀM(q)⁻¹p + V(q) [J].
  double energy(const DofVector& q, const DofVector& p) const;
};

}  // namespace simpact
