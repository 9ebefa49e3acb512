// One simultaneous impact, read-only once built (STYLE: immutable description): the factored
// mass matrix, the closed contacts' normals u_i = Dφ_i(q*), the pre-impact momentum p⁻ and the
// restitution R. Everything the resolution needs is precomputed in contact coordinates:
//   A = N M⁻¹ Nᵀ (Gram matrix, A_ij = <u_i,u_j>_g) and c⁻ = N M⁻¹ p⁻ᵀ (rates <p⁻,u_i>_g),
// so a reflection costs O(k) and a momentum is p = p⁻ + λᵀN for impulses λ.
#pragma once

#include <cstdint>

#include "simpact/core/fixed_size.hpp"
#include "simpact/core/kinetic_metric.hpp"

namespace simpact {

// Relative tolerances (DESIGN §1): a contact is violated when <p,u_i>_g < −tol_i with
// tol_i = kFeasibilityTolerance · ||p⁻||_g · ||u_i||_g. A contact is closed when φ_i ≤ the gap
// tolerance (in the gaps' own length unit; the default below, a documented input in JSON).
// A negative gap is penetration: the contact is closed (and reported), never dropped.
inline constexpr double kFeasibilityTolerance = 1e-10;
inline constexpr double kGapTolerance = 1e-9;

class ImpactProblem {
 public:
  ImpactProblem() = default;
  // normals: one row per contact (k×d); momentum: p⁻ (length d); gaps: optional φ_i (empty:
  // every contact closed; open contacts, φ_i > gap_tolerance, are dropped; φ_i < −gap_tolerance
  // is penetration: closed and counted in penetrating_contacts()). Throws InputError naming the
  // field ("normals[2]", "momentum", "restitution", ...), also for magnitudes outside
  // [kMinMagnitude, kMaxMagnitude] (magnitude_range.hpp).
  using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  ImpactProblem(KineticMetric metric, const Eigen::Ref<const RowMajorMatrix>& normals,
                const Eigen::Ref<const Eigen::VectorXd>& momentum, double restitution,
                const Eigen::Ref<const Eigen::VectorXd>& gaps = Eigen::VectorXd(),
                double gap_tolerance = kGapTolerance);

  int dof() const { return metric_.dof(); }
  int contacts() const { return static_cast<int>(normals_.rows()); }  // closed contacts only
  // Index of closed contact i among the normals given (open contacts are skipped).
  int given_index(int i) const { return given_index_[i]; }
  int given_contacts() const { return given_contacts_; }
  // Given indices of the contacts closed because their gap was negative (penetration).
  int penetrating_contacts() const { return penetrating_count_; }
  int penetrating_index(int j) const { return penetrating_[j]; }

  const KineticMetric& metric() const { return metric_; }
  const NormalMatrix& normals() const { return normals_; }
  const DofVector& momentum() const { return momentum_; }
  double restitution() const { return restitution_; }
  const ContactMatrix& gram() const { return gram_; }                  // A
  const ContactVector& initial_rates() const { return rates_; }        // c⁻
  const ContactVector& tolerances() const { return tolerances_; }      // tol_i
  const ContactVector& normal_norms() const { return normal_norms_; }  // ||u_i||_g
  double momentum_norm() const { return momentum_norm_; }              // ||p⁻||_g
  double energy_before() const { return 0.5 * momentum_norm_sq_; }     // ½||p⁻||²_g [J]
  // B = L⁻¹Nᵀ (column i: whitened u_i) and y⁻ = L⁻¹p⁻ with M = LLᵀ: <p,u_i>_g = b_i·y, so the
  // plastic QP is a least-squares problem in B that never squares its condition number.
  const DofByContact& whitened_normals() const { return whitened_normals_; }
  const DofVector& whitened_momentum() const { return whitened_momentum_; }

  // p = p⁻ + λᵀN.
  DofVector momentum_from_impulses(const ContactVector& impulses) const;
  // <p,u_i>_g for p = p⁻ + λᵀN: c = c⁻ + Aλ.
  ContactVector rates_from_impulses(const ContactVector& impulses) const { return rates_ + gram_ * impulses; }
  // ½||p⁻ + λᵀN||²_g without forming p: ½(||p⁻||² + 2λ·c⁻ + λᵀAλ).
  double energy_from_impulses(const ContactVector& impulses) const;
  // ||(λ_a − λ_b)ᵀN||_g: the g-distance between two momenta reached from p⁻, formed as a
  // momentum difference (linear in rounding) rather than the quadratic form ΔλᵀAΔλ, whose
  // rounding floor (~1e-8 relative) hides equal outcomes when the normals are dependent.
  double distance_between(const ContactVector& a, const ContactVector& b) const;
  // ||a − b||_g [kg·m/s-equivalent: sqrt(2 J · kg)]
  double distance(const DofVector& a, const DofVector& b) const { return metric_.norm(a - b); }
  // ½||p||²_g [J]
  double energy(const DofVector& p) const {
    const double n = metric_.norm(p);
    return 0.5 * n * n;
  }
  // True when every closed contact has <p,u_i>_g ≥ −tol_i.
  bool feasible(const ContactVector& rates) const { return (rates.array() >= -tolerances_.array()).all(); }

 private:
  KineticMetric metric_;
  NormalMatrix normals_;
  DofVector momentum_;
  double restitution_ = 1.0;
  ContactMatrix gram_;
  ContactVector rates_;
  ContactVector tolerances_;
  ContactVector normal_norms_;
  double momentum_norm_ = 0.0;
  double momentum_norm_sq_ = 0.0;
  DofByContact whitened_normals_;
  DofVector whitened_momentum_;
  int given_index_[kMaxContacts] = {};
  int given_contacts_ = 0;
  int penetrating_[kMaxContacts] = {};
  int penetrating_count_ = 0;
};

}  // namespace simpact
