// What the sweep engine runs: a model-agnostic task that maps one task's parameters to a fixed
// list of named scalar results. The engine never special-cases a model; analysis/ provides the
// kernel for impact models.
#pragma once

#include <array>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "simpact/core/array_dimension.hpp"
#include "simpact/core/parameter_set.hpp"

namespace simpact {

struct ResultColumn {
  std::string name;       // e.g. "argmin_vs_argmax"
  std::string group;      // HDF5 group of its grid maps, e.g. "xi_maps", "energy", "outcomes"
  std::string units;      // e.g. "J", "1"
  std::string long_name;  // e.g. "indeterminacy between the argmin and argmax orderings"
  // Values per task: 1 = a scalar, reduced to grid maps; L > 1 = a small per-task array (e.g. a
  // post-impact momentum, or a time series), stored per task only, as /samples/<group>_<name>.
  std::int64_t length = 1;
  // A per-task array with named dimensions (row-major, extents multiplying to length), stored
  // [task, dimensions...]; empty: one dimension <group>_<name>_element.
  std::vector<ArrayDimension> dimensions = {};
  // Set when units is "" (units differ by element, e.g. m or rad per coordinate): why.
  std::string comment = {};
};

// Per-task outcome code stored in /samples/status (and counted per grid point).
enum class TaskStatus : std::int64_t {
  kOk = 0,
  kNoImpact = 1,          // already feasible: nothing happened
  kNoElasticOutcome = 2,  // normals positively span: only the plastic outcome exists
  kCapHit = 3,            // a resolution cap was hit: results may be incomplete
  kFailed = 4,            // the task threw (recorded under on_task_error: record); values NaN
  kNoContact = 5,         // no contact closed (every gap above the tolerance): ξ NaN, not 0
};
// The one source of the status names (file flag_meanings, per-grid-point counts, summaries).
inline constexpr int kTaskStatusCount = 6;
inline constexpr const char* kTaskStatusNames[kTaskStatusCount] = {
    "ok", "no_impact", "no_elastic_outcome", "cap_hit", "failed", "no_contact"};
using TaskStatusCounts = std::array<std::int64_t, kTaskStatusCount>;  // tasks per status
inline constexpr const char* kTaskStatusLegend =
    "task status: 0 ok, 1 no impact, 2 no elastic outcome, 3 cap hit, 4 failed, 5 no contact closed";

// Per-thread scratch a kernel needs (e.g. an impact workspace); created once per thread.
class TaskScratch {
 public:
  virtual ~TaskScratch() = default;
  // The sweep's stop flag while evaluate_chunk runs (ChunkOutput::stop), else null. A kernel
  // whose task can run long (an audit's engine runs) checks it and throws TaskInterrupted.
  const volatile std::sig_atomic_t* stop = nullptr;
};

// Thrown by evaluate when the stop flag was raised mid-task: the task has no values, and the
// chunk is given up (ChunkOutput::stopped), never journaled.
struct TaskInterrupted final : std::exception {
  const char* what() const noexcept override { return "interrupted"; }
};

// What evaluate_chunk reuses from chunk to chunk, created once per run (make_chunk_scratch): by
// default one TaskScratch per OpenMP thread; a batch kernel keeps its own buffers here.
class ChunkScratch {
 public:
  virtual ~ChunkScratch() = default;
};

// A chunk's task parameters as a dense matrix: row i holds task first_task + i's values in the
// order of `names`' entries. The names are given once (a ParameterSet stamped with its layout
// id, ParameterSet::stamp_layout), so a task's set is filled by position, no name compared.
struct ParameterMatrix {
  const ParameterSet* names = nullptr;  // the columns (their values are not used)
  std::int64_t rows = 0;
  std::int64_t columns = 0;
  std::vector<double> values;  // rows × columns, row-major

  const double* row(std::int64_t i) const { return values.data() + i * columns; }
  double* row(std::int64_t i) { return values.data() + i * columns; }
};

// Where evaluate_chunk writes a chunk's results, one slot per task.
struct ChunkOutput {
  std::int64_t* status = nullptr;  // count: each task's TaskStatus
  double* values = nullptr;        // count × values_per_task, row-major
  // The lowest task that threw and its exception's message (−1: none). Every task that throws is
  // recorded as kFailed with NaN values; the engine stops the sweep on it under on_task_error:
  // abort.
  std::int64_t failed_task = -1;
  std::string failure;
  // The sweep's stop flag (raised to the signal number by SIGINT/SIGTERM), or null. Tasks see it
  // (TaskScratch::stop); one that throws TaskInterrupted gives the chunk up: the tasks not begun
  // are skipped, `stopped` is set, and the sweep journals nothing of the chunk. Kernels whose
  // tasks end soon ignore the flag: their chunk in hand is finished and kept.
  const volatile std::sig_atomic_t* stop = nullptr;
  bool stopped = false;
};

class TaskKernel {
 public:
  virtual ~TaskKernel() = default;
  virtual const std::vector<ResultColumn>& columns() const = 0;
  virtual std::unique_ptr<TaskScratch> make_scratch() const = 0;
  // Writes values_per_task() values to `results`; throws (InputError or other) on a bad task.
  virtual TaskStatus evaluate(std::int64_t task, const ParameterSet& params, TaskScratch& scratch,
                              double* results) const = 0;
  // The batch seam: evaluates tasks first_task .. first_task + count − 1, whose parameters are
  // the rows of `params`, into `results` (status and values_per_task values per task, in task
  // order) — what the sweep engine calls for every chunk. The default is the per-task loop: the
  // tasks split over the OpenMP threads (one TaskScratch each), each row written by position into
  // a ParameterSet of the matrix's names and passed to evaluate; a task that throws is kFailed
  // with NaN values, one that throws TaskInterrupted gives the chunk up (ChunkOutput::stopped).
  // A vectorized or GPU kernel overrides this (and make_chunk_scratch, for its
  // buffers) to evaluate the whole matrix at once; it must give every task the values and status
  // evaluate would, so that results stay bit-identical for any ranks, threads and kernels.
  virtual void evaluate_chunk(std::int64_t first_task, std::int64_t count, const ParameterMatrix& params,
                              ChunkOutput& results, ChunkScratch& scratch) const;
  // The scratch evaluate_chunk reuses; the default: make_scratch() for each OpenMP thread.
  virtual std::unique_ptr<ChunkScratch> make_chunk_scratch() const;
  // The dry run's timing of one task (estimate_compute_time): computes `task`, or a bounded part
  // of it, and returns the seconds the whole task is estimated to take on one thread. The default
  // evaluates it (a task that throws is timed too) and returns its wall time; a kernel whose tasks
  // can run long (an audit's engine runs, up to 1e7 steps each) times a bounded part and
  // extrapolates, so that a dry run stays short.
  virtual double time_task(std::int64_t task, const ParameterSet& params, TaskScratch& scratch,
                           double* results) const;
  // Index of the column shown as the headline map (/xi; a scalar column), or −1.
  virtual int headline_column() const { return -1; }
  // Throws InputError when a task with these parameters would be refused before computing
  // (`run` checks every grid point and the extremes of every distribution before any work).
  virtual void check_parameters(const ParameterSet& params) const { (void)params; }
};

// Doubles a task writes: the sum of the column lengths, in column order.
inline std::int64_t values_per_task(const TaskKernel& kernel) {
  std::int64_t n = 0;
  for (const auto& c : kernel.columns()) n += c.length;
  return n;
}

// Where each result column sits in a task's values.
struct ColumnOffsets {
  std::vector<std::size_t> offset;   // per column
  std::vector<std::size_t> scalars;  // indices of the length-1 columns (they get grid maps)
  std::vector<std::size_t> arrays;   // indices of the per-task arrays
  explicit ColumnOffsets(const TaskKernel& kernel) {
    std::size_t at = 0;
    for (std::size_t c = 0; c < kernel.columns().size(); ++c) {
      offset.push_back(at);
      at += static_cast<std::size_t>(kernel.columns()[c].length);
      (kernel.columns()[c].length == 1 ? scalars : arrays).push_back(c);
    }
  }
};

}  // namespace simpact
