// One simultaneous impact, read-only once built (STYLE: immutable description): the factored
// mass matrix, the closed contacts' normals u_i = Dφ_i(q*), the pre-impact momentum p⁻ and the
// restitution R. Everything the resolution needs is precomputed in contact coordinates:
//   A = N M⁻¹ Nᵀ (Gram matrix, A_ij = <u_i,u_j>_g) and c⁻ = N M⁻¹ p⁻ᵀ (rates <p⁻,u_i>_g),
// so a reflection costs O(k) and a momentum is p = p⁻ + λᵀN for impulses λ.
#pragma once

#include <cstdint>
#include <optional>

#include "simpact/core/fixed_size.hpp"
#include "simpact/core/kinetic_metric.hpp"

namespace simpact {

// Relative tolerances (DESIGN §1): a contact is violated when <p,u_i>_g < −tol_i with
// tol_i = kFeasibilityTolerance · ||p⁻||_g · ||u_i||_g. A contact is closed when φ_i ≤ the gap
// tolerance (in the gaps' own length unit; the default below, a documented input in JSON).
// A negative gap is penetration: the contact is closed (and reported), never dropped.
inline constexpr double kFeasibilityTolerance = 1e-10;
inline constexpr double kGapTolerance = 1e-9;

// The configuration-dependent part of an impact (STYLE: immutable description): the factored
// mass matrix, the closed contacts' normals u_i = Dφ_i(q*), the Gram matrix A = N M⁻¹ Nᵀ and the
// whitened normals. Built once per configuration and shared by every impact resolved there (a
// time stepper's impacts at one q, a sweep task's orderings): only p⁻ and R change.
template <typename S>
class BasicImpactSystem {
 public:
  using Sizes = S;
  using KineticMetric = BasicKineticMetric<S>;
  using NormalMatrix = typename S::NormalMatrix;
  using ContactMatrix = typename S::ContactMatrix;
  using ContactVector = typename S::ContactVector;
  using DofByContact = typename S::DofByContact;
  using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  BasicImpactSystem() = default;
  // normals: one row per contact (k×d); gaps: optional φ_i (empty: every contact closed; open
  // contacts, φ_i > gap_tolerance, are dropped; φ_i < −gap_tolerance is penetration: closed and
  // counted in penetrating_contacts()). Throws InputError naming the field ("normals[2]",
  // "gaps", ...), also for magnitudes outside [kMinMagnitude, kMaxMagnitude] and for more than
  // S::kContactLimit closed contacts.
  BasicImpactSystem(KineticMetric metric, const Eigen::Ref<const RowMajorMatrix>& normals,
                    const Eigen::Ref<const Eigen::VectorXd>& gaps = Eigen::VectorXd(),
                    double gap_tolerance = kGapTolerance);
  // The same system for M = diag(masses), rebuilt in place: a point-mass model building one
  // system per sweep task reuses this storage instead of constructing and copying a new one.
  // The constructor's checks and errors; after a throw the system must be assigned again.
  void assign_diagonal(const Eigen::Ref<const Eigen::VectorXd>& masses,
                       const Eigen::Ref<const RowMajorMatrix>& normals,
                       const Eigen::Ref<const Eigen::VectorXd>& gaps = Eigen::VectorXd(),
                       double gap_tolerance = kGapTolerance);

  int dof() const { return metric_.dof(); }
  int contacts() const { return static_cast<int>(normals_.rows()); }  // closed contacts only
  int given_index(int i) const { return given_index_[i]; }
  int given_contacts() const { return given_contacts_; }
  int penetrating_contacts() const { return penetrating_count_; }
  int penetrating_index(int j) const { return penetrating_[j]; }
  const KineticMetric& metric() const { return metric_; }
  const NormalMatrix& normals() const { return normals_; }
  const ContactMatrix& gram() const { return gram_; }                               // A
  const ContactVector& normal_norms() const { return normal_norms_; }               // ||u_i||_g
  const DofByContact& whitened_normals() const { return whitened_normals_; }        // B = L⁻¹Nᵀ
  const DofByContact& velocity_directions() const { return velocity_directions_; }  // W = M⁻¹Nᵀ

 private:
  // Everything after the metric: the closed normals, W, A, B and ||u_i||_g.
  void assign_normals(const Eigen::Ref<const RowMajorMatrix>& normals,
                      const Eigen::Ref<const Eigen::VectorXd>& gaps, double gap_tolerance);

  KineticMetric metric_;
  NormalMatrix normals_;
  ContactMatrix gram_;
  ContactVector normal_norms_;
  DofByContact whitened_normals_;
  DofByContact velocity_directions_;
  typename S::template ContactVectorOf<int> given_index_;
  int given_contacts_ = 0;
  typename S::template ContactVectorOf<int> penetrating_;
  int penetrating_count_ = 0;
};

// One simultaneous impact: an ImpactSystem (owned, or borrowed from the caller) and the state
// p⁻, R, with everything the resolution needs precomputed in contact coordinates:
// c⁻ = N M⁻¹ p⁻ᵀ (rates <p⁻,u_i>_g), so a reflection costs O(k) and a momentum is p = p⁻ + λᵀN.
template <typename S>
class BasicImpactProblem {
 public:
  using Sizes = S;
  using ImpactSystem = BasicImpactSystem<S>;
  using KineticMetric = BasicKineticMetric<S>;
  using DofVector = typename S::DofVector;
  using NormalMatrix = typename S::NormalMatrix;
  using ContactMatrix = typename S::ContactMatrix;
  using ContactVector = typename S::ContactVector;
  using DofByContact = typename S::DofByContact;
  BasicImpactProblem();
  using RowMajorMatrix = typename ImpactSystem::RowMajorMatrix;
  // Builds (and owns) its system: see ImpactSystem for normals and gaps. momentum: p⁻ (length d).
  // Throws InputError naming the field ("normals[2]", "momentum", "restitution", ...).
  BasicImpactProblem(KineticMetric metric, const Eigen::Ref<const RowMajorMatrix>& normals,
                     const Eigen::Ref<const Eigen::VectorXd>& momentum, double restitution,
                     const Eigen::Ref<const Eigen::VectorXd>& gaps = Eigen::VectorXd(),
                     double gap_tolerance = kGapTolerance);
  // Borrows `system` (which must outlive this problem): costs O(dk) — no factorization.
  BasicImpactProblem(const ImpactSystem& system, const Eigen::Ref<const Eigen::VectorXd>& momentum,
                     double restitution);
  BasicImpactProblem(const BasicImpactProblem& other);
  BasicImpactProblem& operator=(const BasicImpactProblem& other);
  BasicImpactProblem(BasicImpactProblem&& other) noexcept;
  BasicImpactProblem& operator=(BasicImpactProblem&& other) noexcept;
  ~BasicImpactProblem() = default;

  const ImpactSystem& system() const { return *system_; }
  int dof() const { return system_->dof(); }
  int contacts() const { return system_->contacts(); }  // closed contacts only
  // Index of closed contact i among the normals given (open contacts are skipped).
  int given_index(int i) const { return system_->given_index(i); }
  int given_contacts() const { return system_->given_contacts(); }
  // Given indices of the contacts closed because their gap was negative (penetration).
  int penetrating_contacts() const { return system_->penetrating_contacts(); }
  int penetrating_index(int j) const { return system_->penetrating_index(j); }

  const KineticMetric& metric() const { return system_->metric(); }
  const NormalMatrix& normals() const { return system_->normals(); }
  const DofVector& momentum() const { return momentum_; }
  double restitution() const { return restitution_; }
  const ContactMatrix& gram() const { return system_->gram(); }                  // A
  const ContactVector& initial_rates() const { return rates_; }                  // c⁻
  const ContactVector& tolerances() const { return tolerances_; }                // tol_i
  const ContactVector& normal_norms() const { return system_->normal_norms(); }  // ||u_i||_g
  double momentum_norm() const { return momentum_norm_; }                        // ||p⁻||_g
  double energy_before() const { return 0.5 * momentum_norm_sq_; }               // ½||p⁻||²_g [J]
  // B = L⁻¹Nᵀ (column i: whitened u_i) and y⁻ = L⁻¹p⁻ with M = LLᵀ: <p,u_i>_g = b_i·y, so the
  // plastic QP is a least-squares problem in B that never squares its condition number.
  const DofByContact& whitened_normals() const { return system_->whitened_normals(); }
  const DofVector& whitened_momentum() const { return whitened_momentum_; }

  // p = p⁻ + λᵀN.
  DofVector momentum_from_impulses(const ContactVector& impulses) const;
  // <p,u_i>_g for p = p⁻ + λᵀN: c = c⁻ + Aλ.
  ContactVector rates_from_impulses(const ContactVector& impulses) const {
    return rates_ + gram() * impulses;
  }
  // ½||p⁻ + λᵀN||²_g without forming p: ½(||p⁻||² + 2λ·c⁻ + λᵀAλ).
  double energy_from_impulses(const ContactVector& impulses) const;
  // ½||p||²_g for p = p⁻ + λᵀN (given both): the Gram form above where its terms cannot cancel
  // by more than 64× (rounding ≤ ~1e-13 of the result), else the whitened form of p (exact to
  // rounding whatever λ is).
  double outcome_energy(const ContactVector& impulses, const DofVector& p) const;
  // True when ||(λ_a − λ_b)ᵀN||_g > bound for certain: the Gram form ΔλᵀAΔλ, k² operations instead
  // of d², trusted only beyond its rounding bound. False: undecided, compare momenta instead.
  bool certainly_farther(const ContactVector& a, const ContactVector& b, double bound) const;
  // ||(λ_a − λ_b)ᵀN||_g: the g-distance between two momenta reached from p⁻, formed as a
  // momentum difference (linear in rounding) rather than the quadratic form ΔλᵀAΔλ, whose
  // rounding floor (~1e-8 relative) hides equal outcomes when the normals are dependent.
  double distance_between(const ContactVector& a, const ContactVector& b) const;
  // ||a − b||_g [kg·m/s-equivalent: sqrt(2 J · kg)]
  double distance(const DofVector& a, const DofVector& b) const { return metric().norm(a - b); }
  // ½||p||²_g [J]
  double energy(const DofVector& p) const {
    const double n = metric().norm(p);
    return 0.5 * n * n;
  }
  // True when every closed contact has <p,u_i>_g ≥ −tol_i.
  bool feasible(const ContactVector& rates) const { return (rates.array() >= -tolerances_.array()).all(); }

 private:
  void set_state(const Eigen::Ref<const Eigen::VectorXd>& momentum, double restitution);

  std::optional<ImpactSystem> owned_;  // set when this problem built its own system
  const ImpactSystem* system_;         // owned_ or the caller's
  DofVector momentum_;
  double restitution_ = 1.0;
  ContactVector rates_;
  ContactVector tolerances_;
  double momentum_norm_ = 0.0;
  double momentum_norm_sq_ = 0.0;
  DofVector whitened_momentum_;
};

// The contacts a system of `normals` normals keeps closed: all of them without gaps, else those
// with φ_i ≤ gap_tolerance (a non-finite φ_i counts as closed: the constructor then reports it).
// With the dimension d, what the entry points pass to fits_fixed_sizes to choose the size path.
inline int closed_contact_count(Eigen::Index normals, const Eigen::Ref<const Eigen::VectorXd>& gaps,
                                double gap_tolerance) {
  if (gaps.size() != normals) return static_cast<int>(normals);
  int closed = 0;
  for (Eigen::Index i = 0; i < gaps.size(); ++i) closed += !(gaps[i] > gap_tolerance);
  return closed;
}

extern template class BasicImpactSystem<FixedSizes>;
extern template class BasicImpactSystem<DynamicSizes>;
extern template class BasicImpactProblem<FixedSizes>;
extern template class BasicImpactProblem<DynamicSizes>;

// The fixed-capacity path (d ≤ kMaxDof, ≤ kMaxContacts closed contacts): allocation-free.
using ImpactSystem = BasicImpactSystem<FixedSizes>;
using ImpactProblem = BasicImpactProblem<FixedSizes>;
// The dynamic path beyond it (d ≤ kMaxDynamicDof, ≤ kMaxDynamicContacts closed contacts).
using DynamicImpactSystem = BasicImpactSystem<DynamicSizes>;
using DynamicImpactProblem = BasicImpactProblem<DynamicSizes>;

}  // namespace simpact
