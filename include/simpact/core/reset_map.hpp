// The elastic reset map of one contact, eq. (7): p⁺ = p⁻ Γ(u) with
//   Γ(u) = I − 2 M⁻¹uᵀu / ||u||²_g,  i.e.  p⁺ = p⁻ − 2 <p⁻,u>_g / ||u||²_g · u.
// A reflection in the kinetic metric: Γ² = I, Γ(αu) = Γ(u), ||p⁺||_g = ||p⁻||_g.
#pragma once

#include "simpact/core/fixed_size.hpp"
#include "simpact/core/kinetic_metric.hpp"

namespace simpact {

// Γ(u) as a d×d matrix acting on row covectors from the right (p⁺ = p⁻ Γ): for tests and output.
template <typename S>
typename S::DofMatrix reset_map_matrix(const BasicKineticMetric<S>& metric,
                                       const typename S::DofVector& normal);

// p Γ(u) for one momentum, in the full d-dimensional space.
template <typename S>
typename S::DofVector apply_reset_map(const BasicKineticMetric<S>& metric,
                                      const typename S::DofVector& normal,
                                      const typename S::DofVector& momentum);

// The same reflection in contact coordinates (what the propagation uses): with p = p⁻ + λᵀN and
// rates c = N M⁻¹ pᵀ, reflecting across contact i updates λ_i and c in O(k).
template <typename ContactMatrixT, typename ContactVectorT>
inline void reflect_in_contact_coordinates(const ContactMatrixT& gram, int i, ContactVectorT& impulses,
                                           ContactVectorT& rates) {
  const double step = -2.0 * rates[i] / gram(i, i);  // impulse along u_i [kg·m/s per unit of u]
  impulses[i] += step;
  rates.noalias() += step * gram.col(i);
}

}  // namespace simpact
