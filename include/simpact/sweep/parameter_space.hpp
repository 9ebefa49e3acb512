// The tasks of a sweep and their inputs. Task k is replica r of grid point g with
//   k = g * R + r,  R = replicas() (Monte Carlo samples per point, 1 without Monte Carlo),
// so the replicas of a grid point are contiguous (per-point statistics reduce over a range of
// tasks in task order). The grid point g is the C-order (row-major) flat index over the axes,
// slowest axis first, matching the shape of the /grid-shaped maps in the output.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "simpact/core/parameter_set.hpp"
#include "simpact/sweep/sampling.hpp"
#include "simpact/sweep/sensitivity_design.hpp"
#include "simpact/sweep/sweep_config.hpp"

namespace simpact {

class ParameterSpace {
 public:
  explicit ParameterSpace(const SweepConfig& config);

  std::int64_t task_count() const { return grid_points_ * replicas_; }
  std::int64_t grid_points() const { return grid_points_; }
  std::int64_t replicas() const { return replicas_; }

  std::int64_t grid_point_of(std::int64_t task) const { return task / replicas_; }
  std::int64_t replica_of(std::int64_t task) const { return task % replicas_; }
  std::int64_t task_of(std::int64_t grid_point, std::int64_t replica) const {
    return grid_point * replicas_ + replica;
  }

  // Axis sizes, slowest first; empty with no grid (one grid point).
  std::vector<std::int64_t> grid_shape() const;
  // The per-axis indices of a grid point, and back (C order).
  std::vector<std::int64_t> grid_index_of(std::int64_t grid_point) const;
  std::int64_t grid_point_at(const std::vector<std::int64_t>& index) const;

  const std::vector<GridAxis>& axes() const { return axes_; }
  const ParameterSet& fixed() const { return fixed_; }
  // The Monte Carlo parameters, or the design's (empty without either), in draw/column order.
  const std::vector<RandomParameter>& random_parameters() const;
  // The design whose rows are the replicas (design: in the config), or nullptr.
  const SensitivityDesign* design() const { return design_ ? &*design_ : nullptr; }

  // Replaces `out` with the inputs of `task`: the fixed params, then the task's grid values,
  // then its Monte Carlo draws. Everything random comes from (seed, task) alone (see
  // MonteCarloSampler), so the result does not depend on call order or thread. Returns the
  // number of uniforms the task drew from its (seed, kSampling, task) stream: 0 without Monte
  // Carlo or with sobol, else one per random parameter. Throws std::out_of_range for a task
  // outside [0, task_count()).
  std::uint64_t parameters_of(std::int64_t task, ParameterSet& out) const;
  // The names parameters_of writes, in its order, stamped with this space's layout id: the
  // columns of a chunk's ParameterMatrix (their values: the fixed params, 0 elsewhere).
  const ParameterSet& layout() const { return layout_; }
  std::int64_t parameter_count() const { return static_cast<std::int64_t>(layout_.entries().size()); }
  // parameters_of's values as a dense row: row[i] is the value of layout() entry i (row holds
  // parameter_count() doubles). Returns the uniforms drawn, as parameters_of does.
  std::uint64_t values_of(std::int64_t task, double* row) const;

 private:
  ParameterSet fixed_;
  std::vector<GridAxis> axes_;
  std::vector<std::int64_t> strides_;  // flat grid index = Σ index[i] * strides_[i]
  std::int64_t grid_points_ = 1;
  std::int64_t replicas_ = 1;
  MonteCarloSampler sampler_;
  std::optional<SensitivityDesign> design_;
  // Every task's names, in parameters_of's order, stamped with a layout id: a set already in
  // this layout gets its values written by position, without a name compared.
  ParameterSet layout_;
  std::vector<std::size_t> axis_at_;    // entry of axis i in layout_
  std::vector<std::size_t> random_at_;  // entry of random parameter j in layout_
};

}  // namespace simpact
