// The journal manifest of a sweep and its default chunk size (declared in sweep_runner.hpp).
#include <fmt/format.h>

#include <algorithm>

#include "simpact/study/input_binding.hpp"
#include "simpact/study/sweep_runner.hpp"
#include "simpact/version.hpp"

namespace simpact {

namespace {

std::string column_list(const TaskKernel& kernel) {
  std::string out;
  for (const auto& c : kernel.columns())
    out += (out.empty() ? "" : ",") + c.group + "/" + c.name +
           (c.length > 1 ? fmt::format("[{}]", c.length) : "");
  return out;
}

}  // namespace

JournalManifest sweep_manifest(const SweepConfig& config, const TaskKernel& kernel) {
  JournalManifest manifest;
  manifest.config_hash = config.source_hash;
  manifest.task_count = config.task_count();
  manifest.chunk_size =
      config.output.chunk_size > 0 ? config.output.chunk_size : default_chunk_size(config.task_count());
  manifest.values_per_task = values_per_task(kernel);
  manifest.columns = column_list(kernel);
  manifest.replicas = config.replicas();
  manifest.build = build_identity();
  manifest.inputs = input_files_text(config.inputs);
  bool arrays = false;
  for (const auto& c : kernel.columns()) {
    arrays = arrays || c.length > 1;
    if (c.length == 1) ++manifest.statistic_columns;
  }
  // Rows only where a task's own values are written: per-task tables or arrays, or grids without
  // replicas (a grid point's map value is its one task's value, NaN and ±inf included).
  manifest.records = config.output.samples || arrays || manifest.replicas == 1 ? JournalRecords::kRows
                                                                               : JournalRecords::kStatistics;
  return manifest;
}

// Version, git revision (at configure time) and flags: what decides the records' layout and
// arithmetic. A build with revision "unknown" matches only builds of the same version and flags.
std::string build_identity() {
  return fmt::format("{} git {} flags {}", kVersion, kGitRevision, kBuildFlags);
}

std::int64_t default_chunk_size(std::int64_t task_count) {
  // ~512 chunks: enough to balance 16+ ranks, few enough that journal syncs cost nothing.
  return std::clamp<std::int64_t>((task_count + 511) / 512, 16, 4096);
}

}  // namespace simpact
