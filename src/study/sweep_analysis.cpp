// Sensitivity analysis of a finished sweep file (`simpact analyze`, and `simpact run`'s
// sensitivity.at_end): include/simpact/study/sweep_analysis.hpp.
#include "simpact/study/sweep_analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "simpact/analysis/morris_indices.hpp"
#include "simpact/analysis/sobol_indices.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/io/sensitivity_file.hpp"
#include "simpact/io/sweep_file.hpp"
#include "simpact/io/sweep_file_reader.hpp"
#include "simpact/study/sweep_setup.hpp"
#include "simpact/sweep/parameter_space.hpp"

namespace simpact {

namespace {

// The result column an output name means: "name" (unique) or "group/name".
int find_column(const TaskKernel& kernel, const std::string& wanted) {
  int found = -1;
  const auto& cols = kernel.columns();
  for (std::size_t c = 0; c < cols.size(); ++c) {
    if (cols[c].length != 1) continue;
    if (wanted == cols[c].group + "/" + cols[c].name) return static_cast<int>(c);
    if (wanted == cols[c].name) {
      if (found >= 0) return -2;  // ambiguous
      found = static_cast<int>(c);
    }
  }
  return found;
}

std::string allowed_outputs(const TaskKernel& kernel) {
  std::string out;
  for (const auto& c : kernel.columns())
    if (c.length == 1) out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

// The first bad name: (field, message), or two empty strings.
std::pair<std::string, std::string> check_names(const std::vector<std::string>& names,
                                                const TaskKernel& kernel, const std::string& field) {
  std::vector<int> columns;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const int c = find_column(kernel, names[i]);
    const std::string where = fmt::format("{}[{}]", field, i);
    if (c == -2) return {where, fmt::format("'{}' is ambiguous: write group/name", names[i])};
    if (c < 0) {
      std::vector<std::string> known;
      for (const auto& col : kernel.columns())
        if (col.length == 1) known.push_back(col.name), known.push_back(col.group + "/" + col.name);
      const std::string near = nearest_name(names[i], known);
      return {where,
              fmt::format("unknown output '{}' ({}allowed: {})", names[i],
                          near.empty() ? "" : "did you mean '" + near + "'?; ", allowed_outputs(kernel))};
    }
    // Each output is one group of /sensitivity: a repeat would clash in the file after the sweep.
    const auto seen = std::find(columns.begin(), columns.end(), c);
    if (seen != columns.end())
      return {where, fmt::format("'{}' repeats {}[{}]: name each output once", names[i], field,
                                 seen - columns.begin())};
    columns.push_back(c);
  }
  return {};
}

}  // namespace

std::string check_sensitivity_outputs(const SweepConfig& config, const TaskKernel& kernel) {
  if (!config.sensitivity.enabled) return "";
  const auto [field, message] = check_names(config.sensitivity.outputs, kernel, "sensitivity.outputs");
  return field.empty() ? "" : field + ": " + message;
}

AnalyzeSummary analyze_result(const std::string& path, const SweepConfig& config, const AnalyzeOverrides& o) {
  if (!config.design || config.design->kind == DesignKind::kPoints || config.design->kind == DesignKind::kZip)
    throw InputError("file", fmt::format("'{}': its config has no design.method saltelli, morris or radial: "
                                         "nothing to analyse (a user-supplied design, design.file or "
                                         "design.zip, has no Saltelli or Morris structure to estimate "
                                         "indices from; its per-row outputs are in /samples)",
                                         path));
  const auto kernel = make_task_kernel(config);
  std::vector<std::string> names = !o.outputs.empty() ? o.outputs : config.sensitivity.outputs;
  if (const auto [field, message] =
          check_names(names, *kernel, o.outputs.empty() ? "sensitivity.outputs" : "--variable");
      !field.empty())
    throw InputError(field, message);
  if (names.empty())
    for (const auto& c : kernel->columns())
      if (c.length == 1) names.push_back(c.group + "/" + c.name);
  BootstrapOptions boot;
  boot.resamples = o.bootstrap.value_or(config.sensitivity.bootstrap);
  boot.seed = o.seed.value_or(config.sensitivity.seed);
  boot.confidence = o.confidence.value_or(config.sensitivity.confidence);

  const ParameterSpace space(config);
  const SensitivityDesign& design = *space.design();
  const DesignSpec& spec = design.spec();
  const std::size_t d = design.dimension();
  const std::int64_t grid = space.grid_points(), rows = space.replicas(), bases = spec.base_samples;
  auto reader = std::make_unique<SweepFileReader>(path);

  // Morris / radial: which parameter each row moves, and by how much (unit-cube coordinates).
  std::vector<std::size_t> moved;
  std::vector<double> step;
  if (spec.kind != DesignKind::kSaltelli) {
    std::vector<double> u0(d), u1(d);
    for (std::int64_t b = 0; b < bases; ++b)
      for (std::size_t s = 0; s < d; ++s) {
        const std::int64_t row = b * design.rows_per_base() + static_cast<std::int64_t>(s) + 1;
        if (spec.kind == DesignKind::kMorris) {
          moved.push_back(design.morris_moved(row));
          step.push_back(design.morris_step(row));
        } else {
          design.unit_point(row - 1 - static_cast<std::int64_t>(s), u0.data());
          design.unit_point(row, u1.data());
          moved.push_back(s);
          step.push_back(u1[s] - u0[s]);  // 0 only on a degenerate (repeated) coordinate
        }
      }
  }

  std::vector<SensitivityOutput> outputs;
  AnalyzeSummary summary;
  std::vector<double> y(static_cast<std::size_t>(grid * rows));
  for (std::size_t n = 0; n < names.size(); ++n) {
    const int c = find_column(*kernel, names[n]);
    const ResultColumn& col = kernel->columns()[static_cast<std::size_t>(c)];
    const std::string dataset = "samples/" + col.group + "_" + col.name;
    reader->read(dataset, 0, grid * rows, y.data());
    SensitivityOutput out;
    out.name = col.name;
    out.string_attributes = {{"samples_dataset", "/" + dataset},
                             {"long_name", col.long_name},
                             {"method", std::string(kDesignKindNames[static_cast<std::size_t>(spec.kind)])}};
    out.integer_attributes = {{"bootstrap", boot.resamples},
                              {"seed", static_cast<std::int64_t>(boot.seed)},
                              {"base_samples", bases}};
    out.double_attributes = {{"confidence", boot.confidence}};
    std::int64_t excluded = 0;
    const auto stream_of = [&](std::int64_t g) {
      return (static_cast<std::uint64_t>(g) << 16) ^ static_cast<std::uint64_t>(c);
    };
    if (spec.kind == DesignKind::kSaltelli) {
      out.string_attributes.push_back(
          {"estimators",
           "S1: Saltelli et al. 2010; ST: Jansen 1999; S2: Saltelli 2002; conf: bootstrap "
           "half-width z*sd (as SALib)"});
      std::vector<std::string> keys = {"S1", "ST", "S1_conf", "ST_conf"};
      if (spec.second_order) keys.insert(keys.end(), {"S2", "S2_conf"});
      std::vector<std::vector<double>> v(keys.size());
      for (std::int64_t g = 0; g < grid; ++g) {
        const SobolIndices s =
            sobol_indices(y.data() + g * rows, bases, d, spec.second_order, boot, stream_of(g));
        excluded += s.nonfinite;
        const std::vector<const std::vector<double>*> parts = {&s.first,      &s.total,  &s.first_conf,
                                                               &s.total_conf, &s.second, &s.second_conf};
        for (std::size_t k = 0; k < keys.size(); ++k)
          v[k].insert(v[k].end(), parts[k]->begin(), parts[k]->end());
      }
      const std::string conf = fmt::format(" ({:g} % bootstrap half-width)", 100 * boot.confidence);
      const std::vector<std::string> long_names = {"first-order Sobol' index",
                                                   "total Sobol' index",
                                                   "first-order Sobol' index" + conf,
                                                   "total Sobol' index" + conf,
                                                   "second-order Sobol' index (upper triangle)",
                                                   "second-order Sobol' index (upper triangle)" + conf};
      for (std::size_t k = 0; k < keys.size(); ++k)
        out.indices.push_back({keys[k], long_names[k], "1", k >= 4, std::move(v[k])});
      out.integer_attributes.push_back({"excluded_base_samples", excluded});
    } else {
      out.string_attributes.push_back(
          {"estimators",
           "elementary effects in unit-cube steps (as SALib): mu, mu_star = mean |EE| "
           "(Campolongo 2007), sigma (ddof 1); mu_star_conf: bootstrap half-width"});
      std::vector<std::vector<double>> v(4);
      for (std::int64_t g = 0; g < grid; ++g) {
        const MorrisIndices m = morris_indices(y.data() + g * rows, bases, d, moved, step,
                                               spec.kind == DesignKind::kRadial, boot, stream_of(g));
        excluded += m.nonfinite;
        const std::vector<const std::vector<double>*> parts = {&m.mu, &m.mu_star, &m.sigma, &m.mu_star_conf};
        for (std::size_t k = 0; k < 4; ++k) v[k].insert(v[k].end(), parts[k]->begin(), parts[k]->end());
      }
      const std::vector<std::string> keys = {"mu", "mu_star", "sigma", "mu_star_conf"};
      const std::vector<std::string> long_names = {
          "mean elementary effect", "mean absolute elementary effect",
          "standard deviation of the elementary effects",
          fmt::format("mean absolute elementary effect ({:g} % bootstrap half-width)",
                      100 * boot.confidence)};
      for (std::size_t k = 0; k < 4; ++k)
        out.indices.push_back({keys[k], long_names[k], col.units, false, std::move(v[k])});
      out.integer_attributes.push_back({"excluded_elementary_effects", excluded});
    }
    // A one-line account per output (first grid point).
    std::string line = fmt::format("/sensitivity/{}:", out.name);
    const auto& first = out.indices[0].values;
    const auto& second = out.indices[1].values;
    for (std::size_t j = 0; j < d; ++j)
      line += fmt::format(" {} {}={:.3f} {}={:.3f}", spec.parameters[j].name, out.indices[0].name, first[j],
                          out.indices[1].name, second[j]);
    if (grid > 1) line += fmt::format(" (first of {} grid points)", grid);
    if (std::all_of(first.begin(), first.begin() + static_cast<std::ptrdiff_t>(d),
                    [](double v) { return std::isnan(v); })) {
      // Say why the indices are NaN: the first grid point's samples.
      double lo = HUGE_VAL, hi = -HUGE_VAL;
      for (std::int64_t r = 0; r < rows; ++r) {
        const double v = y[static_cast<std::size_t>(r)];
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
      }
      if (lo > hi)
        line += ": nan because no sample is finite (every task failed, was capped or gave no value)";
      else if (lo == hi)
        line += fmt::format(": nan because {} is constant ({:g}) over the design: no variance to apportion",
                            out.name, lo);
      else
        line += ": nan because too few samples are finite";
    }
    if (excluded > 0) line += fmt::format("; {} left out as non-finite", excluded);
    summary.lines.push_back(line);
    outputs.push_back(std::move(out));
  }
  std::vector<SensitivityAxis> axes;
  for (const auto& a : space.axes())
    axes.push_back({stored_axis_name(a.name), a.units, a.long_name, a.values});
  std::vector<std::string> parameters;
  for (const auto& p : spec.parameters) parameters.push_back(p.name);
  reader.reset();  // HDF5 refuses to open a file for writing that is open read-only
  write_sensitivity(path, axes, parameters, outputs, o.in_place, o.read_as ? &*o.read_as : nullptr);
  return summary;
}

}  // namespace simpact
