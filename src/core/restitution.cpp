#include "simpact/core/restitution.hpp"

#include <algorithm>
#include <cmath>

namespace simpact {

double restitution_alpha(double restitution, double e, double p, double x) {
  if (restitution >= 1.0) return 1.0;
  if (restitution <= 0.0) return 0.0;
  // f(α) = ||α p_e + (1−α) p_p||² − target = a α² + b α + c, f(0) = c ≤ 0 ≤ f(1).
  const double a = std::max(0.0, e - 2.0 * x + p);  // ||p_e − p_p||²
  const double b = 2.0 * (x - p);
  const double c = -restitution * restitution * std::max(0.0, e - p);
  if (a <= 1e-15 * std::max(e, 1e-300) || c == 0.0) return restitution;  // p_e = p_p or no loss
  const double disc = std::sqrt(std::max(0.0, b * b - 4.0 * a * c));
  // The two algebraically equal forms of the non-negative root; pick the one without cancellation.
  const double alpha = b >= 0.0 ? (-2.0 * c) / (b + disc) : (disc - b) / (2.0 * a);
  return std::clamp(alpha, 0.0, 1.0);
}

}  // namespace simpact
