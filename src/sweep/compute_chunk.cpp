#include "simpact/sweep/compute_chunk.hpp"

#include <fmt/format.h>

#include <exception>
#include <stdexcept>
#include <string>

namespace simpact {

ChunkComputer::ChunkComputer(const ParameterSpace& space, const TaskKernel& kernel,
                             TaskErrorMode on_task_error, const volatile std::sig_atomic_t* stop)
    : space_(space),
      kernel_(kernel),
      on_task_error_(on_task_error),
      stop_(stop),
      scratch_(kernel.make_chunk_scratch()) {
  params_.names = &space.layout();
  params_.columns = space.parameter_count();
}

bool ChunkComputer::compute(ChunkResults& chunk) {
  // The parameter matrix: sampling costs the same for every task, so a static split.
  params_.rows = chunk.count;
  params_.values.resize(static_cast<std::size_t>(chunk.count * params_.columns));
  std::string error;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < chunk.count; ++i) {
    try {
      chunk.counters[static_cast<std::size_t>(i)] = space_.values_of(chunk.first_task + i, params_.row(i));
    } catch (const std::exception& e) {  // a task outside the space: the engine's error, not a task's
#pragma omp critical(simpact_parameter_error)
      if (error.empty()) error = e.what();
    }
  }
  if (!error.empty()) throw std::logic_error(error);
  ChunkOutput out;
  out.status = chunk.status.data();
  out.values = chunk.values.data();
  out.stop = stop_;
  kernel_.evaluate_chunk(chunk.first_task, chunk.count, params_, out, *scratch_);
  if (out.stopped) return false;
  if (out.failed_task >= 0 && on_task_error_ == TaskErrorMode::kAbort) {
    ParameterSet params = *params_.names;
    const double* row = params_.row(out.failed_task - chunk.first_task);
    for (std::size_t c = 0; c < params.entries().size(); ++c) params.set_at(c, row[c]);
    throw std::runtime_error(
        fmt::format("task {} failed ({}): {}", out.failed_task, params.describe(), out.failure));
  }
  return true;
}

}  // namespace simpact
