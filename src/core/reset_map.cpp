#include "simpact/core/reset_map.hpp"

namespace simpact {

template <typename S>
typename S::DofMatrix reset_map_matrix(const BasicKineticMetric<S>& metric,
                                       const typename S::DofVector& normal) {
  using DofVector = typename S::DofVector;
  using DofMatrix = typename S::DofMatrix;
  const DofVector w = metric.velocity(normal);  // M⁻¹uᵀ
  const double norm_sq = normal.dot(w);
  DofMatrix gamma = DofMatrix::Identity(metric.dof(), metric.dof());
  gamma.noalias() -= (2.0 / norm_sq) * w * normal.transpose();
  return gamma;
}

template <typename S>
typename S::DofVector apply_reset_map(const BasicKineticMetric<S>& metric,
                                      const typename S::DofVector& normal,
                                      const typename S::DofVector& momentum) {
  const typename S::DofVector w = metric.velocity(normal);
  return momentum - (2.0 * momentum.dot(w) / normal.dot(w)) * normal;
}

#define SIMPACT_INSTANTIATE_RESET_MAP(S)                                                        \
  template S::DofMatrix reset_map_matrix<S>(const BasicKineticMetric<S>&, const S::DofVector&); \
  template S::DofVector apply_reset_map<S>(const BasicKineticMetric<S>&, const S::DofVector&,   \
                                           const S::DofVector&);
SIMPACT_INSTANTIATE_RESET_MAP(FixedSizes)
SIMPACT_INSTANTIATE_RESET_MAP(DynamicSizes)
#undef SIMPACT_INSTANTIATE_RESET_MAP

}  // namespace simpact
