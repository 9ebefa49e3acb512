// The two size paths of the impact core. The fixed-capacity path (FixedSizes) keeps every Eigen
// matrix on the stack with compile-time maximum dimensions, so resolving an impact allocates
// nothing (d <= 16, <= 8 closed contacts). The dynamic path (DynamicSizes) takes the same code
// with heap-sized matrices for larger systems, up to documented hard limits. Every core class and
// function is a template on the size policy; today's names (ImpactProblem, DofVector, ...) are the
// fixed variant, and the entry points that build a problem from user input pick the variant from d
// and the number of closed contacts (fits_fixed_sizes).
#pragma once

#include <Eigen/Core>

namespace simpact {

inline constexpr int kMaxDof = 16;      // configuration dimension d of the fixed path
inline constexpr int kMaxContacts = 8;  // closed contacts per impact on the fixed path

// Hard limits of the dynamic path: a contact index is stored in one byte (ContactSequence), and
// the mass matrix is factored densely (d = 1024: ~0.4 GFLOP, 8 MB).
inline constexpr int kMaxDynamicDof = 1024;
inline constexpr int kMaxDynamicContacts = 255;

// The Eigen types of one size path; MaxDof/MaxContacts are compile-time maxima or Eigen::Dynamic.
template <int MaxDof, int MaxContacts>
struct EigenSizes {
  // A momentum covector p (stored as a column: p^T) or a velocity q̇, in R^d.
  template <typename T>
  using DofVectorOf = Eigen::Matrix<T, Eigen::Dynamic, 1, Eigen::ColMajor, MaxDof, 1>;
  template <typename T>
  using DofMatrixOf = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, MaxDof, MaxDof>;
  // Column i is M⁻¹ u_iᵀ (the velocity direction of an impulse along u_i).
  template <typename T>
  using DofByContactOf =
      Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, MaxDof, MaxContacts>;
  // One value per contact: impulses λ_i, rates <p,u_i>_g, tolerances; also flags and indices.
  template <typename T>
  using ContactVectorOf = Eigen::Matrix<T, Eigen::Dynamic, 1, Eigen::ColMajor, MaxContacts, 1>;

  using DofVector = DofVectorOf<double>;
  using DofMatrix = DofMatrixOf<double>;
  // Row i is the contact normal u_i = Dφ_i(q*) (a covector).
  using NormalMatrix =
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor, MaxContacts, MaxDof>;
  using DofByContact = DofByContactOf<double>;
  using ContactVector = ContactVectorOf<double>;
  // Contact-by-contact: the Gram matrix A_ij = <u_i,u_j>_g.
  using ContactMatrix =
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, MaxContacts, MaxContacts>;
};

// Stack storage, no allocation: the hot path of sweeps and time steppers.
struct FixedSizes : EigenSizes<kMaxDof, kMaxContacts> {
  static constexpr int kDofLimit = kMaxDof;
  static constexpr int kContactLimit = kMaxContacts;
};

// Heap storage beyond the fixed capacity (may allocate), up to the hard limits above.
struct DynamicSizes : EigenSizes<Eigen::Dynamic, Eigen::Dynamic> {
  static constexpr int kDofLimit = kMaxDynamicDof;
  static constexpr int kContactLimit = kMaxDynamicContacts;
};

// True when a system of dimension d with `closed_contacts` closed contacts fits the fixed path.
inline bool fits_fixed_sizes(int dof, int closed_contacts) {
  return dof <= kMaxDof && closed_contacts <= kMaxContacts;
}

using DofVector = FixedSizes::DofVector;
using DofMatrix = FixedSizes::DofMatrix;
using NormalMatrix = FixedSizes::NormalMatrix;
using DofByContact = FixedSizes::DofByContact;
using ContactVector = FixedSizes::ContactVector;
using ContactMatrix = FixedSizes::ContactMatrix;

}  // namespace simpact
