// Task kernels for the sweep engine's tests: values computed from parameters by name, and tasks
// that throw on demand.
#pragma once

#include <omp.h>

#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "simpact/sweep/task_kernel.hpp"

namespace simpact::testing {

// Two scalar columns and a length-2 array: a mix of the parameters (by name), the task, and a
// status that depends on the task (so that per-task statuses are checked too). Tasks in `throws`
// throw std::runtime_error("bad <task>").
class MixKernel : public TaskKernel {
 public:
  MixKernel(std::vector<std::string> names, std::set<std::int64_t> throws = {})
      : names_(std::move(names)), throws_(std::move(throws)) {}
  const std::vector<ResultColumn>& columns() const override { return columns_; }
  std::unique_ptr<TaskScratch> make_scratch() const override { return std::make_unique<TaskScratch>(); }
  TaskStatus evaluate(std::int64_t task, const ParameterSet& params, TaskScratch&,
                      double* results) const override {
    if (throws_.count(task) > 0) throw std::runtime_error("bad " + std::to_string(task));
    double mix = 0.0;
    for (std::size_t i = 0; i < names_.size(); ++i) mix += std::sin(params.require(names_[i]) * (1.0 + i));
    results[0] = mix;
    results[1] = task % 5 == 0 ? std::nan("") : static_cast<double>(task) * 0.25;
    results[2] = mix * mix;
    results[3] = -mix;
    return task % 7 == 3 ? TaskStatus::kCapHit : TaskStatus::kOk;
  }

 private:
  std::vector<std::string> names_;
  std::set<std::int64_t> throws_;
  std::vector<ResultColumn> columns_ = {
      {"mix", "test", "1", "sum of sines of the parameters"},
      {"quarter", "test", "1", "task / 4 (NaN every fifth task)"},
      {"pair", "test", "1", "mix squared and negated", 2},
  };
};

// Restores the OpenMP thread count a test changed (omp_set_num_threads is process-wide).
class ThreadCountGuard {
 public:
  ThreadCountGuard() : threads_(omp_get_max_threads()) {}
  ~ThreadCountGuard() { omp_set_num_threads(threads_); }
  ThreadCountGuard(const ThreadCountGuard&) = delete;
  ThreadCountGuard& operator=(const ThreadCountGuard&) = delete;

 private:
  int threads_;
};

}  // namespace simpact::testing
