#include "simpact/analysis/function_task_kernel.hpp"

namespace simpact {

FunctionTaskKernel::FunctionTaskKernel(std::unique_ptr<TestFunction> function)
    : function_(std::move(function)) {
  columns_.push_back({"y", "outputs", "1", "value y of the " + function_->title() + " test function"});
}

std::unique_ptr<TaskScratch> FunctionTaskKernel::make_scratch() const {
  return std::make_unique<TaskScratch>();
}

TaskStatus FunctionTaskKernel::evaluate(std::int64_t /*task*/, const ParameterSet& params,
                                        TaskScratch& /*scratch*/, double* results) const {
  results[0] = function_->evaluate(params);
  return TaskStatus::kOk;
}

}  // namespace simpact
