// The magnitudes the impact core computes with in double precision. Energies and Gram entries
// are products of up to three inputs (p²/m, u²/m), so inputs within [1e-60, 1e60] keep every
// intermediate far from overflow (1e308) and from the subnormal range (1e-308). Anything outside
// is refused with the field's name — never resolved into a silent "no impact" or ξ = 0.
#pragma once

#include <cmath>

namespace simpact {

inline constexpr double kMinMagnitude = 1e-60;
inline constexpr double kMaxMagnitude = 1e60;

// True for a finite x with |x| in [kMinMagnitude, kMaxMagnitude]; zero is handled by callers
// (an exact zero is always representable).
inline bool in_computable_range(double x) {
  const double a = std::abs(x);
  return std::isfinite(a) && a >= kMinMagnitude && a <= kMaxMagnitude;
}

}  // namespace simpact
