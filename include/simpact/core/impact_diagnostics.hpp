// Uniqueness diagnostics of Sec. V, from the normalized Gram matrix
//   G_ij = <u_i,u_j>_g / (||u_i||_g ||u_j||_g).
// Theorem 2: pairwise g-orthogonal normals ⇒ order-independent, one reflection per contact.
// Theorem 3 and its dihedral generalization (verified numerically in this project): two contacts
// with G_12 = −cos(π/m), integer m ≥ 2, generate a finite dihedral group whose chamber is the
// feasible cone; both orderings reach the same outcome (m = 3: equal-mass Newton's cradle).
// Theorem 1 bounds a two-contact propagation by ⌈π/γ⌉ reflections, γ = arcsin<r0,u>_g,
// r0 = (u+v)/||u+v||_g for unit u, v — a loose bound.
#pragma once

#include "simpact/core/fixed_size.hpp"
#include "simpact/core/impact_problem.hpp"

namespace simpact {

inline constexpr double kOrthogonalityTolerance = 1e-9;
inline constexpr double kDihedralTolerance = 1e-9;
inline constexpr int kMaxDihedralOrder = 64;

template <typename S>
struct BasicImpactDiagnostics {
  typename S::ContactMatrix normalized_gram;  // G (dimensionless)
  bool orthogonal = false;                    // Theorem 2 applies
  int dihedral_m = 0;                         // m with G_12 = −cos(π/m) (two contacts), else 0
  int theorem1_bound = 0;                     // ⌈π/γ⌉ for two contacts, else 0
};

using ImpactDiagnostics = BasicImpactDiagnostics<FixedSizes>;

template <typename S>
typename S::ContactMatrix normalized_gram(const BasicImpactProblem<S>& problem);
// G_ij alone (i ≠ j), bit for bit the entry normalized_gram computes: for callers that need one
// entry per impact (a sweep task's cosine) without the k×k matrix.
template <typename S>
double normalized_gram_entry(const BasicImpactProblem<S>& problem, int i, int j);
// The integer m in [2, kMaxDihedralOrder] with |−cos(π/m) − g| ≤ kDihedralTolerance, else 0
// (diagnose's dihedral_m for two contacts with G_12 = g).
int dihedral_order(double g);
template <typename S>
BasicImpactDiagnostics<S> diagnose(const BasicImpactProblem<S>& problem);

}  // namespace simpact
