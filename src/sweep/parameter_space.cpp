#include "simpact/sweep/parameter_space.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace simpact {

ParameterSpace::ParameterSpace(const SweepConfig& config)
    : fixed_(config.fixed),
      axes_(config.grid),
      replicas_(config.replicas()),
      sampler_(config.monte_carlo.value_or(MonteCarloSpec{})) {
  if (config.design) design_.emplace(*config.design);
  strides_.resize(axes_.size());
  for (std::size_t i = axes_.size(); i-- > 0;) {
    strides_[i] = grid_points_;
    grid_points_ *= static_cast<std::int64_t>(axes_[i].values.size());
  }
  if (grid_points_ < 1 || replicas_ < 1)
    throw std::invalid_argument("ParameterSpace: a grid axis or the replica count is empty");
  // The layout parameters_of produces: fixed_, then each axis, then each random parameter, set
  // by name in that order (a name given twice keeps its first position, the last value wins).
  layout_ = fixed_;
  const auto position = [this](const std::string& name) {
    layout_.set(name, 0.0);
    const auto& entries = layout_.entries();
    for (std::size_t i = 0; i < entries.size(); ++i)
      if (entries[i].first == name) return i;
    return entries.size();  // unreachable: set() just wrote it
  };
  for (const auto& axis : axes_) axis_at_.push_back(position(axis.name));
  for (const auto& parameter : random_parameters()) random_at_.push_back(position(parameter.name));
  layout_.stamp_layout(ParameterSet::new_layout_id());
}

std::vector<std::int64_t> ParameterSpace::grid_shape() const {
  std::vector<std::int64_t> shape;
  for (const auto& axis : axes_) shape.push_back(static_cast<std::int64_t>(axis.values.size()));
  return shape;
}

std::vector<std::int64_t> ParameterSpace::grid_index_of(std::int64_t grid_point) const {
  std::vector<std::int64_t> index(axes_.size());
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    index[i] = grid_point / strides_[i];
    grid_point %= strides_[i];
  }
  return index;
}

std::int64_t ParameterSpace::grid_point_at(const std::vector<std::int64_t>& index) const {
  std::int64_t point = 0;
  for (std::size_t i = 0; i < axes_.size() && i < index.size(); ++i) point += index[i] * strides_[i];
  return point;
}

const std::vector<RandomParameter>& ParameterSpace::random_parameters() const {
  if (design_) return design_->spec().parameters;
  return sampler_.spec().parameters;
}

std::uint64_t ParameterSpace::parameters_of(std::int64_t task, ParameterSet& out) const {
  // The same entries, in the same order, as copying fixed_ and setting each value by name.
  if (out.layout() != layout_.layout()) out = layout_;
  const std::size_t n = layout_.entries().size();
  // Small sets stay on the stack; configs with many parameters pay one allocation.
  std::array<double, 32> small;
  std::vector<double> large;
  double* row = small.data();
  if (n > small.size()) {
    large.resize(n);
    row = large.data();
  }
  const std::uint64_t used = values_of(task, row);
  for (std::size_t i = 0; i < n; ++i) out.set_at(i, row[i]);
  return used;
}

std::uint64_t ParameterSpace::values_of(std::int64_t task, double* row) const {
  if (task < 0 || task >= task_count()) {
    throw std::out_of_range("ParameterSpace: task " + std::to_string(task) + " is outside [0, " +
                            std::to_string(task_count()) + ")");
  }
  // Written in parameters_of's order, so that a name given twice keeps the last value.
  const auto& fixed = fixed_.entries();
  for (std::size_t i = 0; i < fixed.size(); ++i) row[i] = fixed[i].second;
  const std::int64_t grid_point = grid_point_of(task);
  std::int64_t rest = grid_point;
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    row[axis_at_[i]] = axes_[i].values[static_cast<std::size_t>(rest / strides_[i])];
    rest %= strides_[i];
  }
  const std::size_t d = design_ ? design_->dimension() : sampler_.dimension();
  if (d == 0) return 0;
  // Small draws stay on the stack; configs with many random parameters pay one allocation.
  std::array<double, 16> small;
  std::vector<double> large;
  double* values = small.data();
  if (d > small.size()) {
    large.resize(d);
    values = large.data();
  }
  std::uint64_t used = 0;
  if (design_)
    design_->point(replica_of(task), values);  // design rows draw nothing from the task's stream
  else
    used = sampler_.draw(task, grid_point, replica_of(task), values);
  for (std::size_t j = 0; j < d; ++j) row[random_at_[j]] = values[j];
  return used;
}

}  // namespace simpact
