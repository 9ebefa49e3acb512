#include "simpact/core/impact_diagnostics.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace simpact {

namespace {
constexpr double kPi = 3.141592653589793;

// −cos(π/m) for m = 0 … kMaxDihedralOrder (entries 0 and 1 unused), strictly decreasing in m ≥ 2.
const std::array<double, kMaxDihedralOrder + 1>& dihedral_cosines() {
  static const std::array<double, kMaxDihedralOrder + 1> table = [] {
    std::array<double, kMaxDihedralOrder + 1> t{};
    for (int m = 2; m <= kMaxDihedralOrder; ++m) t[static_cast<std::size_t>(m)] = -std::cos(kPi / m);
    return t;
  }();
  return table;
}
}  // namespace

int dihedral_order(double g) {
  // The candidates −cos(π/m) lie ≥ 3.9e-5 apart (m = 63, 64), far beyond the tolerance, so at most
  // one can match: the nearest, found by bisection on the decreasing table. (Rounding π/acos(−g)
  // picks the same m for every g within the tolerance of a candidate: δm ≈ m³·1e-9/π² < 3e-5.)
  const auto& t = dihedral_cosines();
  if (!(g < 1.0 && g > -1.0)) return 0;
  int lo = 2, hi = kMaxDihedralOrder;  // t[lo] ≥ t[hi]
  if (g >= t[2]) return std::abs(t[2] - g) <= kDihedralTolerance ? 2 : 0;
  if (g <= t[hi]) return std::abs(t[hi] - g) <= kDihedralTolerance ? hi : 0;
  while (hi - lo > 1) {  // t[lo] > g > t[hi]; selects, not branches (g is data: unpredictable)
    const int mid = (lo + hi) / 2;
    const bool above = t[static_cast<std::size_t>(mid)] > g;
    lo = above ? mid : lo;
    hi = above ? hi : mid;
  }
  for (const int m : {lo, hi})
    if (std::abs(t[static_cast<std::size_t>(m)] - g) <= kDihedralTolerance) return m;
  return 0;
}

template <typename S>
typename S::ContactMatrix normalized_gram(const BasicImpactProblem<S>& problem) {
  const typename S::ContactVector inv = problem.normal_norms().cwiseInverse();
  typename S::ContactMatrix g = inv.asDiagonal() * problem.gram() * inv.asDiagonal();
  g.diagonal().setOnes();  // exactly 1, not 1 − ulp
  return g;
}

template <typename S>
double normalized_gram_entry(const BasicImpactProblem<S>& problem, int i, int j) {
  // (1/||u_i||) A_ij (1/||u_j||), in normalized_gram's order of operations.
  const double inv_i = 1.0 / problem.normal_norms()[i], inv_j = 1.0 / problem.normal_norms()[j];
  return inv_i * problem.gram()(i, j) * inv_j;
}

template <typename S>
BasicImpactDiagnostics<S> diagnose(const BasicImpactProblem<S>& problem) {
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
      out.dihedral_m = dihedral_order(g);
      // <r0,u>_g = (1 + G) / √(2 + 2G) = √((1 + G)/2)
      const double gamma = std::asin(std::sqrt((1.0 + g) / 2.0));
      out.theorem1_bound = static_cast<int>(std::ceil(kPi / gamma - 1e-12));
    }
  }
  return out;
}

template FixedSizes::ContactMatrix normalized_gram<FixedSizes>(const BasicImpactProblem<FixedSizes>&);
template DynamicSizes::ContactMatrix normalized_gram<DynamicSizes>(const BasicImpactProblem<DynamicSizes>&);
template double normalized_gram_entry<FixedSizes>(const BasicImpactProblem<FixedSizes>&, int, int);
template double normalized_gram_entry<DynamicSizes>(const BasicImpactProblem<DynamicSizes>&, int, int);
template BasicImpactDiagnostics<FixedSizes> diagnose<FixedSizes>(const BasicImpactProblem<FixedSizes>&);
template BasicImpactDiagnostics<DynamicSizes> diagnose<DynamicSizes>(const BasicImpactProblem<DynamicSizes>&);

}  // namespace simpact
