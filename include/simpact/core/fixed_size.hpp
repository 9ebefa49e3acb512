// Fixed maximum sizes for the impact hot path: Eigen matrices with compile-time maximum
// dimensions live on the stack, so resolving an impact allocates nothing (d <= 16, <= 8 contacts).
#pragma once

#include <Eigen/Core>

namespace simpact {

inline constexpr int kMaxDof = 16;      // configuration dimension d
inline constexpr int kMaxContacts = 8;  // closed contacts per impact

// A momentum covector p (stored as a column: p^T) or a velocity q̇, in R^d.
using DofVector = Eigen::Matrix<double, Eigen::Dynamic, 1, Eigen::ColMajor, kMaxDof, 1>;
using DofMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, kMaxDof, kMaxDof>;
// Row i is the contact normal u_i = Dφ_i(q*) (a covector).
using NormalMatrix =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor, kMaxContacts, kMaxDof>;
// Column i is M⁻¹ u_iᵀ (the velocity direction of an impulse along u_i).
using DofByContact =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, kMaxDof, kMaxContacts>;
// One value per contact: impulses λ_i, rates <p,u_i>_g, tolerances.
using ContactVector = Eigen::Matrix<double, Eigen::Dynamic, 1, Eigen::ColMajor, kMaxContacts, 1>;
// Contact-by-contact: the Gram matrix A_ij = <u_i,u_j>_g.
using ContactMatrix =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, kMaxContacts, kMaxContacts>;

}  // namespace simpact
