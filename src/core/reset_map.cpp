#include "simpact/core/reset_map.hpp"

namespace simpact {

DofMatrix reset_map_matrix(const KineticMetric& metric, const DofVector& normal) {
  const DofVector w = metric.velocity(normal);  // M⁻¹uᵀ
  const double norm_sq = normal.dot(w);
  DofMatrix gamma = DofMatrix::Identity(metric.dof(), metric.dof());
  gamma.noalias() -= (2.0 / norm_sq) * w * normal.transpose();
  return gamma;
}

DofVector apply_reset_map(const KineticMetric& metric, const DofVector& normal, const DofVector& momentum) {
  const DofVector w = metric.velocity(normal);
  return momentum - (2.0 * momentum.dot(w) / normal.dot(w)) * normal;
}

}  // namespace simpact
