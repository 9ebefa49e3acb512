// The sweep task of a scalar test function (models/test_functions.hpp): parameters → y. One
// result column, `y` in group `outputs` (maps /outputs/y, samples /samples/outputs_y), so the
// sweep engine, journal, resume and `simpact analyze` treat it exactly like an impact sweep.
#pragma once

#include <memory>
#include <vector>

#include "simpact/models/test_functions.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

class FunctionTaskKernel final : public TaskKernel {
 public:
  explicit FunctionTaskKernel(std::unique_ptr<TestFunction> function);
  const std::vector<ResultColumn>& columns() const override { return columns_; }
  std::unique_ptr<TaskScratch> make_scratch() const override;
  TaskStatus evaluate(std::int64_t task, const ParameterSet& params, TaskScratch& scratch,
                      double* results) const override;

 private:
  std::unique_ptr<TestFunction> function_;
  std::vector<ResultColumn> columns_;
};

}  // namespace simpact
