#include "simpact/core/elastic_obstruction.hpp"

#include <cmath>

#include "simpact/core/plastic_impact.hpp"

namespace simpact {

template <typename Z>
bool elastic_outcome_obstructed(const BasicImpactProblem<Z>& problem) {
  using ContactVector = typename Z::ContactVector;
  using DofVector = typename Z::DofVector;
  const int k = problem.contacts();
  constexpr int kMaxChecked = 64;  // beyond: not decided here (the enumeration decides)
  if (k < 2 || k > kMaxChecked) return false;
  const typename Z::ContactMatrix& a = problem.gram();
  const ContactVector& norms = problem.normal_norms();
  // Cheap certificate against any lineality: w = Σ u_j/||u_j|| with <w,u_i>_g > 0 for all i.
  // (A plain loop: Eigen's general gemv costs more than this k×k product; a failed certificate
  // only sends the problem to the exact test below.)
  double inverse_norms[kMaxChecked];
  for (int j = 0; j < k; ++j) inverse_norms[j] = 1.0 / norms[j];
  bool certified = true;
  for (int i = 0; i < k && certified; ++i) {
    double rate = 0.0;
    for (int j = 0; j < k; ++j) rate += a(i, j) * inverse_norms[j];
    certified = rate > 1e-12 * norms[i];
  }
  if (certified) return false;
  // S = {i : −u_i ∈ cone{u_j}}: min |b_i + Σ μ_j b_j|² over μ ≥ 0 is zero (to 1e-12 |b_i|, the
  // accuracy of the QR projection) — the same test as normals_positively_span.
  const typename Z::DofByContact& b = problem.whitened_normals();
  bool in_s[kMaxChecked] = {};
  bool any = false;
  for (int i = 0; i < k; ++i) {
    const DofVector bi = b.col(i);
    const BasicNonnegativeLeastSquares<Z> sol = solve_nonnegative_least_squares<Z>(b, bi, 1e-14 * bi.norm());
    in_s[i] = sol.y.norm() <= 1e-12 * bi.norm();
    any = any || in_s[i];
  }
  if (!any) return false;
  // Every other normal g-orthogonal to L = span S (else its reflections could turn v_L away).
  for (int j = 0; j < k; ++j) {
    if (in_s[j]) continue;
    for (int i = 0; i < k; ++i)
      if (in_s[i] && std::abs(a(i, j)) > 1e-12 * norms[i] * norms[j]) return false;
  }
  // p⁻ approaches a contact of S: v_L ≠ 0 (S positively spans L, so some rate is negative).
  const ContactVector& rates = problem.initial_rates();
  for (int i = 0; i < k; ++i)
    if (in_s[i] && rates[i] < -problem.tolerances()[i]) return true;
  return false;
}

template bool elastic_outcome_obstructed<FixedSizes>(const BasicImpactProblem<FixedSizes>&);
template bool elastic_outcome_obstructed<DynamicSizes>(const BasicImpactProblem<DynamicSizes>&);

}  // namespace simpact
