#include "sweep_layout.hpp"

#include <fmt/format.h>

#include <string>

#include "simpact/study/input_binding.hpp"

namespace simpact::detail {

namespace {
constexpr const char* kStatNames[] = {"mean", "std", "min", "max"};
}  // namespace

SweepFileLayout make_layout(const SweepConfig& config, const ParameterSpace& space, const TaskKernel& kernel,
                            std::int64_t chunk_count) {
  SweepFileLayout layout;
  for (const auto& axis : space.axes())
    layout.axes.push_back({stored_axis_name(axis.name), axis.units, axis.long_name, axis.values, axis.name});
  if (layout.axes.empty())
    layout.axes.push_back({"point", "1", "grid point (the sweep has no grid axes)", {0.0}});
  const bool replicas = space.replicas() > 1;
  for (const auto& c : kernel.columns()) {
    if (c.length > 1) continue;  // per-task arrays are not reduced
    if (!replicas) {
      MapSpec map{c.group, c.name, c.units, c.long_name};
      if (c.group == "outcomes" && (c.name == "unique" || c.name == "impact")) {  // 0/1 flags (NaN: failed)
        map.flag_values = {0.0, 1.0};
        map.flag_meanings = c.name == "unique" ? "indeterminate unique" : "no_impact impact";
      }
      layout.maps.push_back(std::move(map));
      continue;
    }
    for (const char* stat : kStatNames) {
      MapSpec map{c.group, c.name + "_" + stat, c.units,
                  fmt::format("{} ({} over replicas)", c.long_name, stat)};
      const std::string method = std::string(stat) == "std"   ? "standard_deviation"
                                 : std::string(stat) == "min" ? "minimum"
                                 : std::string(stat) == "max" ? "maximum"
                                                              : stat;
      map.cell_methods =
          "replica: " + method + " (over the finite values of the replicas of each grid point)";
      if (std::string(stat) == "std")
        map.comment = "population standard deviation: ddof = 0 (divides by _count)";
      layout.maps.push_back(std::move(map));
    }
    MapSpec count{c.group, c.name + "_count", "1", c.long_name + " (replicas with a finite value)"};
    count.cell_methods = "replica: sum (of 1 for each finite value)";
    layout.maps.push_back(std::move(count));
  }
  // Every map holds NaN where a task's value was not computed exactly (a cap hit, a failure):
  // these counts say how many tasks of each grid point ended in each status.
  for (int k = 0; k < kTaskStatusCount; ++k) {
    MapSpec count{"status", kTaskStatusNames[k], "1",
                  fmt::format("number of tasks at this grid point with status {}", kTaskStatusNames[k])};
    count.cell_methods = "replica: sum";
    layout.maps.push_back(std::move(count));
  }
  if (kernel.headline_column() >= 0) {
    const auto& c = kernel.columns()[static_cast<std::size_t>(kernel.headline_column())];
    layout.maps.push_back({"", "xi", c.units, c.long_name + (replicas ? " (mean over replicas)" : "")});
  }
  if (config.output.samples) {
    for (const auto& axis : space.axes())
      layout.samples.push_back({stored_axis_name(axis.name), axis.units, axis.long_name, false});
    for (const auto& p : space.random_parameters())
      layout.samples.push_back({p.name, p.units, p.long_name, false});
    SampleColumnSpec status{"status", "1", kTaskStatusLegend, true};
    for (int k = 0; k < kTaskStatusCount; ++k) {
      status.flag_values.push_back(k);
      status.flag_meanings += (k ? " " : "") + std::string(kTaskStatusNames[k]);
    }
    layout.samples.push_back(std::move(status));
    layout.samples.push_back(
        {"random_counter", "1", "uniform draws consumed from the (seed, task) stream", true});
    layout.samples.push_back({"grid_point", "1", "flat C-order index of the task's grid point", true});
    layout.samples.push_back(
        {"replica", "1", "replica of the task at its grid point (the design row with design:)", true});
    for (const auto& c : kernel.columns())
      if (c.length == 1) layout.samples.push_back({c.group + "_" + c.name, c.units, c.long_name, false});
  }
  // Per-task arrays exist only per task: stored whenever a kernel produces them.
  for (const auto& c : kernel.columns())
    if (c.length > 1)
      layout.samples.push_back(
          {c.group + "_" + c.name, c.units, c.long_name, false, c.length, {}, {}, c.dimensions, c.comment});
  layout.task_count = space.task_count();
  layout.chunk_count = chunk_count;
  layout.config_text = config.source_text;
  layout.config_hash = config.source_hash;
  layout.compression = config.output.compression;
  std::string orderings;
  for (auto o : config.orderings)
    orderings += (orderings.empty() ? "" : ",") + std::string(ordering_policy_name(o));
  // What the kernel used: an audit resolves the full outcome set whatever the (default) list says.
  if (config.audit) orderings = ordering_policy_name(OrderingPolicy::kAll);
  layout.root_string_attributes = {{"model", config.model}, {"orderings", orderings}};
  if (!config.base_dir.empty()) layout.root_string_attributes.push_back({"config_folder", config.base_dir});
  // What the results were computed from: "<sha256> <role> <path>" lines (study/input_binding.hpp).
  layout.root_string_attributes.push_back({"input_files", input_files_text(config.inputs)});
  layout.root_integer_attributes = {{"replicas", space.replicas()}};
  if (config.simulate) {
    // Time-stepped runs: each ordering resolves every impact of a run; minimality does not apply.
    layout.root_string_attributes.push_back({"task", "simulate"});
    layout.root_string_attributes.push_back(
        {"title", "simpact time-stepped sweep (midpoint variational integrator, propagative impacts)"});
    layout.root_integer_attributes.push_back({"steps", config.simulate->steps});
    layout.root_integer_attributes.push_back({"record", config.simulate->record});
  } else {
    layout.root_string_attributes.push_back({"task", "impact"});
    layout.root_string_attributes.push_back(
        {"minimality", config.minimality == Minimality::kDefinition1 ? "definition1" : "propagation"});
    layout.root_string_attributes.push_back({"title", "simpact sweep of simultaneous impacts"});
  }
  for (const auto& p : config.fixed_described)
    layout.fixed_parameters.push_back({p.name, p.units, p.long_name, p.values});
  return layout;
}

}  // namespace simpact::detail
