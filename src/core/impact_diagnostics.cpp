#include "simpact/core/impact_diagnostics.hpp"

#include <algorithm>
#include <cmath>

namespace simpact {

template <typename S>
typename S::ContactMatrix normalized_gram(const BasicImpactProblem<S>& problem) {
  const typename S::ContactVector inv = problem.normal_norms().cwiseInverse();
  typename S::ContactMatrix g = inv.asDiagonal() * problem.gram() * inv.asDiagonal();
  g.diagonal().setOnes();  // exactly 1, not 1 − ulp
  return g;
}

template <typename S>
BasicImpactDiagnostics<S> diagnose(const BasicImpactProblem<S>& problem) {
  constexpr double kPi = 3.141592653589793;
  BasicImpactDiagnostics<S> out;
  out.normalized_gram = normalized_gram(problem);
  const int k = problem.contacts();
  out.orthogonal = true;
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j)
      if (i != j && std::abs(out.normalized_gram(i, j)) > kOrthogonalityTolerance) out.orthogonal = false;
  if (k == 2) {
    const double g = std::clamp(out.normalized_gram(0, 1), -1.0, 1.0);
    if (g > -1.0 && g < 1.0) {
      // angle between the normals φ = acos(G); G = −cos(π/m) ⇔ m = π / (π − φ).
      const double m = kPi / std::acos(-g);
      const long rounded = std::lround(m);
      if (rounded >= 2 && rounded <= kMaxDihedralOrder &&
          std::abs(-std::cos(kPi / static_cast<double>(rounded)) - g) <= kDihedralTolerance)
        out.dihedral_m = static_cast<int>(rounded);
      // <r0,u>_g = (1 + G) / √(2 + 2G) = √((1 + G)/2)
      const double gamma = std::asin(std::sqrt((1.0 + g) / 2.0));
      out.theorem1_bound = static_cast<int>(std::ceil(kPi / gamma - 1e-12));
    }
  }
  return out;
}

template FixedSizes::ContactMatrix normalized_gram<FixedSizes>(const BasicImpactProblem<FixedSizes>&);
template DynamicSizes::ContactMatrix normalized_gram<DynamicSizes>(const BasicImpactProblem<DynamicSizes>&);
template BasicImpactDiagnostics<FixedSizes> diagnose<FixedSizes>(const BasicImpactProblem<FixedSizes>&);
template BasicImpactDiagnostics<DynamicSizes> diagnose<DynamicSizes>(const BasicImpactProblem<DynamicSizes>&);

}  // namespace simpact
