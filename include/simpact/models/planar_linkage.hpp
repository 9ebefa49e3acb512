// A planar system of point masses on rotating links, the structure of every time-stepping model
// here (chain, tree8, cradle, billiards, ball). Point mass j sits at
//   r_j(q) = B_j q + Σ_{t ∈ terms(j)} R(a_tᵀq + α_t) d_t        (R: rotation about z)
// with B_j constant (2×n: translational coordinates), a_t constant (which angles add up to link
// t's absolute angle) and d_t the link vector in its own frame [m]. Rotational inertia not
// carried by point masses (a floating body's I_zz) is a constant matrix M₀. Then
//   T = ½ Σ_j m_j |J_j v|² + ½ vᵀM₀v,   V = g Σ_j m_j y_j (+ none else),   J_j = ∂r_j/∂q,
// and with s_t = R(·)d_t, ω_t = a_t·v, W_t = Σ_{j∋t} m_j J_j v, Ĵ_t = Σ_{j∋t} m_j J_j,
// K̂_t = Σ_{j∋t} m_j J̇_j (J̇_j = −Σ_{t∈j} ω_t s_t a_tᵀ), P = [[0,−1],[1,0]]:
//   T_q  = −Σ_t ω_t (s_t·W_t) a_t
//   T_qv = −Σ_t a_t [(s_t·W_t) a_tᵀ + ω_t s_tᵀĴ_t]
//   T_qq = −Σ_t ω_t a_t [(W_t·P s_t) a_tᵀ + s_tᵀK̂_t]
//   V_qq = −g Σ_t (Σ_{j∋t} m_j)(s_t)_y a_t a_tᵀ
// — exact, and O(terms·n²) per Jacobian. Non-conservative forces: joint damping F = −c∘v (per
// coordinate) and linear joint laws (springs, dash pots, PD drives; add_joint_law). Contacts: sphere–sphere φ
// = |r_b − r_a| − ρ_a − ρ_b and sphere–floor φ = y_a − ρ_a − h, with Dφ = n̂ᵀ(J_b − J_a) resp. the y row of
// J_a.
#pragma once

#include <Eigen/Core>
#include <limits>
#include <string>
#include <vector>

#include "simpact/core/fixed_size.hpp"
#include "simpact/models/mechanism.hpp"

namespace simpact {

class PlanarLinkage final : public Mechanism {
 public:
  static constexpr int kMaxMasses = 16;
  static constexpr int kMaxTerms = 32;
  using Vec2 = Eigen::Vector2d;
  using Rows2 = Eigen::Matrix<double, 2, Eigen::Dynamic, Eigen::ColMajor, 2, kMaxDof>;

  PlanarLinkage(std::string name, int dof, double gravity);

  // A link term R(a·q + angle_offset) d; returns its index.
  int add_term(const DofVector& angle_coefficients, double angle_offset, const Vec2& link_vector);
  // A point mass [kg] at B q + Σ terms, with a contact radius [m]; returns its index.
  int add_mass(double mass, const Rows2& linear, const std::vector<int>& terms, double radius = 0.0);
  void set_rotational_inertia(const DofMatrix& inertia) {
    inertia_ = inertia;
    has_inertia_ = (inertia_.array() != 0.0).any();
  }
  void set_damping(const DofVector& damping) {
    damping_ = damping;
    has_damping_ = damping_.size() > 0 && (damping_.array() != 0.0).any();
  }
  // A linear joint law on coordinate i — torsional spring, dash pot, PD drive:
  //   F_i = −stiffness·(q_i − r(t)) − damping·(v_i − ṙ(t)),  r(t) = rest + rate·max(0, t − start).
  struct JointLaw {
    int coordinate = 0;
    double stiffness = 0.0;  // N m rad-1 (angles) or N m-1
    double damping = 0.0;    // N m s rad-1 or N s m-1
    double rest = 0.0;
    double rate = 0.0;                                       // reference speed after `start`
    double start = std::numeric_limits<double>::infinity();  // [s]
    bool drive = false;  // a servo (PD drive): booked as "drives", not as springs and dampers
  };
  void add_joint_law(const JointLaw& law);
  const std::vector<JointLaw>& joint_laws() const { return laws_; }
  // The generalized force of one joint law (energy bookkeeping by kind).
  double joint_law_force(const JointLaw& law, const DynVector& q, const DynVector& v, double t) const;
  // Contacts (return their index): between two masses' spheres, or a mass's sphere and the floor
  // y = height.
  int add_sphere_contact(int mass_a, int mass_b);
  int add_floor_contact(int mass, double height = 0.0);
  void set_coordinate_names(std::vector<std::string> names) { coordinate_names_ = std::move(names); }

  std::string name() const override { return name_; }
  int dof() const override { return dof_; }
  int contacts() const override { return static_cast<int>(contacts_.size()); }
  std::string coordinate_name(int i) const override;
  // "rad" for a coordinate that turns some link (in some a_t), else "m".
  std::string coordinate_unit(int i) const override;
  int masses() const { return static_cast<int>(masses_.size()); }
  // r_j(q) [m].
  Vec2 position(const DynVector& q, int mass) const;

  void kinetic(const DynVector& q, const DynVector& v, bool second, KineticDerivatives& out) const override;
  // O(Σ_t nnz(a_t) + Σ_j |terms(j)| + nnz(B)), no mass matrix: w_j = J_j v = B_j v + Σ_{t∈j} ω_t P s_t,
  // W_t = Σ_{j∋t} m_j w_j, T_v = M₀v + Σ_j B_jᵀ m_j w_j + Σ_t (P s_t·W_t) a_t, T_q as above,
  // V_q = g Σ_j m_j B_jᵀe_y + g Σ_t (Σ_{j∋t} m_j)(s_t)_x a_t.
  void momentum_terms(const DynVector& q, const DynVector& v, DynVector& t_q, DynVector& t_v,
                      DynVector& v_q) const override;
  // In term space: with G_tu = C_tu s_t·s_u, H_tu = C_tu s_t·P s_u (C_tu = Σ_{j∋t,u} m_j),
  // E_t = Σ_{j∋t} m_j B_j, out = A X Aᵀ + (B couplings), A = [a_t],
  //   X = c_m G + c_s (H ᵀdiag ω − diag ω H) + c_h (ωωᵀ∘G − diag(ω_t W_t·P s_t) + g diag(C_tt (s_t)_y)).
  void del_matrix(const DynVector& q, const DynVector& v, double c_m, double c_s, double c_h, DynMatrix& out,
                  double& mass_norm) const override;
  double potential(const DynVector& q, DynVector& gradient, DynMatrix* hessian) const override;
  bool has_forces() const override { return has_damping_ || !laws_.empty(); }
  // Parts: "springs" (the stiffness terms of the laws that are not drives), "dampers" (their
  // damping terms and the joint damping), "drives" (the PD laws, whole).
  int force_parts() const override { return has_forces() ? 3 : 0; }
  std::string force_part_name(int part) const override;
  void force_part(int part, const DynVector& q, const DynVector& v, double t, DynVector& f) const override;
  void force(const DynVector& q, const DynVector& v, double t, DynVector& f, DynMatrix* f_q,
             DynMatrix* f_v) const override;
  void gaps(const DynVector& q, DynVector& phi) const override;
  void gap_jacobian(const DynVector& q, DynRowMatrix& jacobian) const override;
  // Coulomb friction at floor contacts (tangent: the contact point's x); sphere–sphere contacts
  // stay frictionless.
  void set_friction(double mu) { friction_ = mu; }
  double friction_coefficient() const override { return friction_; }
  void tangent_jacobian(const DynVector& q, DynRowMatrix& jacobian) const override;

 private:
  struct Term {
    DofVector a;
    double offset = 0.0;
    Vec2 d;
    std::vector<int> masses;  // the point masses this link carries
    double carried_mass = 0.0;
    // a's nonzeros (the hot loops read these, not the dense a)
    int nnz = 0;
    int index[kMaxDof] = {};
    double value[kMaxDof] = {};
    Rows2 carried_linear;  // E_t = Σ_{j∋t} m_j B_j
  };
  struct Mass {
    double m = 0.0;
    Rows2 linear;
    std::vector<int> terms;
    double radius = 0.0;
    // B's nonzeros: (row, column, value)
    int nnz = 0;
    int row[2 * kMaxDof] = {}, col[2 * kMaxDof] = {};
    double value[2 * kMaxDof] = {};
  };
  struct Contact {
    int a = 0, b = -1;  // b = −1: the floor
    double height = 0.0;
  };
  // s_t for every term, and J_j (2×n) of one mass from them.
  void link_vectors(const DynVector& q, Vec2* s) const;
  // The same and ω_t = a_t·v, from a_t's nonzeros.
  void link_vectors_and_rates(const DynVector& q, const DynVector& v, Vec2* s, double* omega) const;
  void mass_jacobian(int j, const Vec2* s, Rows2& jac) const;

  std::string name_;
  int dof_ = 0;
  double gravity_ = 0.0;
  std::vector<Term> terms_;
  std::vector<Mass> masses_;
  std::vector<Contact> contacts_;
  DofMatrix inertia_;
  bool has_inertia_ = false;
  double pair_mass_[kMaxTerms][kMaxTerms] = {};  // C_tu
  DofMatrix linear_mass_;                        // Σ_j m_j B_jᵀB_j (constant)
  bool has_coupling_ = false;                    // some mass has both B_j ≠ 0 and terms
  DofVector damping_;
  bool has_damping_ = false;
  std::vector<JointLaw> laws_;
  double friction_ = 0.0;
  std::vector<std::string> coordinate_names_;
};

}  // namespace simpact
