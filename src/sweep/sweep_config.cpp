#include "simpact/sweep/sweep_config.hpp"

namespace simpact {

std::int64_t SweepConfig::grid_points() const {
  std::int64_t points = 1;
  for (const auto& axis : grid) points *= static_cast<std::int64_t>(axis.values.size());
  return points;
}

std::int64_t SweepConfig::replicas() const {
  if (design) return design_size(*design);
  return monte_carlo ? monte_carlo->samples_per_point : 1;
}

std::int64_t SweepConfig::task_count() const {
  return grid_points() * replicas();
}

}  // namespace simpact
