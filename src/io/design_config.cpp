// design: and sensitivity: of a sweep config (docs/config.md "design", "sensitivity"); the
// external design files are read by design_table_readers.hpp.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config_reader.hpp"
#include "design_table_readers.hpp"
#include "simpact/io/sha256.hpp"

namespace simpact::config_io {
namespace {

const Names kDesignKeys = {"method",       "file",         "dataset", "columns",      "zip",
                           "base_samples", "trajectories", "levels",  "second_order", "scramble",
                           "skip",         "seed",         "params"};
const Names kSensitivityKeys = {"outputs", "bootstrap", "seed", "confidence", "at_end"};
constexpr std::uintmax_t kMaxDesignFileBytes = std::uintmax_t{1} << 30;

bool flag(const YAML::Node& node, const std::string& path, ConfigReader& r, bool& out) {
  if (node.IsScalar() && YAML::convert<bool>::decode(node, out)) return true;
  r.error(path, "must be true or false");
  return false;
}

std::optional<Names> name_list(const YAML::Node& node, const std::string& path, ConfigReader& r) {
  if (!node.IsSequence() || node.size() == 0) {
    r.error(path, "must be a non-empty list of names");
    return std::nullopt;
  }
  Names out;
  for (std::size_t i = 0; i < node.size(); ++i) {
    auto s = r.text(node[i], fmt::format("{}[{}]", path, i));
    if (!s) return std::nullopt;
    out.push_back(*s);
  }
  return out;
}

// The columns of an explicit design become parameters: known to the model, given nowhere else,
// every value in range.
bool adopt_columns(const Names& columns, const std::vector<double>& values, const std::string& path,
                   const std::string& values_path, ConfigReader& r, DesignSpec& spec) {
  bool ok = true;
  std::vector<const ParameterInfo*> infos;
  for (std::size_t j = 0; j < columns.size(); ++j) {
    const std::string p = fmt::format("{}[{}]", path, j);
    if (std::count(columns.begin(), columns.end(), columns[j]) > 1) {
      r.error(p, fmt::format("'{}' is listed twice", columns[j]));
      ok = false;
    }
    const ParameterInfo* info = r.lookup(columns[j], p);
    r.claim(columns[j], p, "design");
    infos.push_back(info);
    RandomParameter parameter;
    parameter.name = columns[j];
    if (info != nullptr) {
      parameter.units = info->units;
      parameter.long_name = info->long_name;
    }
    spec.parameters.push_back(std::move(parameter));
  }
  const std::size_t d = columns.size();
  int reported = 0;
  for (std::size_t k = 0; k < values.size() && reported < 5; ++k) {
    if (!r.in_range(values[k], infos[k % d],
                    fmt::format("{} point {} '{}'", values_path, k / d, columns[k % d]))) {
      ok = false;
      ++reported;
    }
  }
  spec.values = values;
  return ok;
}

void parse_file(const YAML::Node& file_node, const Entries& view, ConfigReader& r, SweepConfig& config,
                DesignSpec& spec) {
  const auto given = r.text(file_node, "design.file");
  if (!given) return;
  const std::optional<std::string> path = r.resolve_path(*given);  // from the config's folder
  spec.source = *path;
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(*path, ec);
  if (ec || !fs::exists(status)) {
    r.error("design.file", fmt::format("cannot read '{}': No such file or directory", *path));
    return;
  }
  if (!fs::is_regular_file(status)) {
    r.error("design.file", fmt::format("'{}' is not a regular file", *path));
    return;
  }
  if (fs::file_size(*path, ec) > kMaxDesignFileBytes) {
    r.error("design.file", fmt::format("'{}' is larger than 1 GiB", *path));
    return;
  }
  std::ifstream in(*path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in && !in.eof()) {
    r.error("design.file", fmt::format("cannot read '{}'", *path));
    return;
  }
  const std::string ext = fs::path(*path).extension().string();
  DesignTable t;
  std::string problem;
  if (ext == ".csv") {
    problem = read_design_csv(bytes, t);
  } else if (ext == ".npy") {
    problem = read_design_npy(bytes, t);
  } else if (ext == ".h5" || ext == ".hdf5") {
    std::string dataset = "points";
    if (const auto* node = view.get("dataset"))
      if (auto s = r.text(*node, "design.dataset")) dataset = *s;
    problem = read_design_h5(*path, dataset, t);
  } else {
    r.error("design.file",
            fmt::format("'{}': unknown file type '{}' (allowed: .csv, .npy, .h5)", *path, ext));
    return;
  }
  if (!problem.empty()) {
    r.error("design.file", fmt::format("'{}': {}", *path, problem));
    return;
  }
  if (t.values.empty()) {
    r.error("design.file", fmt::format("'{}' holds no points", *path));
    return;
  }
  Names columns = t.columns;
  std::string columns_path = "design.file";
  if (const auto* node = view.get("columns")) {
    auto names = name_list(*node, "design.columns", r);
    if (!names) return;
    columns = *names;
    columns_path = "design.columns";
  }
  if (columns.empty()) {
    r.error("design.columns", fmt::format("required for '{}' (the parameter of each column)", ext));
    return;
  }
  if (columns.size() != t.width) {
    r.error(columns_path, fmt::format("{} names for {} columns in '{}'", columns.size(), t.width, *path));
    return;
  }
  adopt_columns(columns, t.values, columns_path, "design.file", r, spec);
  // A resume must refuse a design file that changed: the file's bytes enter the config hash.
  const std::string digest = sha256_hex(bytes);
  config.source_hash = sha256_hex(config.source_hash + "\ndesign.file " + digest);
  config.inputs.push_back({"design_file", *path, digest});
}

void parse_zip(const YAML::Node& node, ConfigReader& r, DesignSpec& spec) {
  if (!node.IsMap() || node.size() == 0) {
    r.error("design.zip",
            "must be a mapping of parameter name to a list of values, all lists of equal length");
    return;
  }
  Names columns;
  std::vector<std::vector<double>> lists;
  for (const auto& [name, value] : r.entries(node, "design.zip").entries) {
    auto list = r.number_list(value, "design.zip." + name);
    if (!list) return;
    if (!lists.empty() && list->size() != lists.front().size()) {
      r.error("design.zip." + name, fmt::format("has {} values; '{}' has {} (zipped lists have equal length)",
                                                list->size(), columns.front(), lists.front().size()));
      return;
    }
    columns.push_back(name);
    lists.push_back(std::move(*list));
  }
  std::vector<double> values;
  for (std::size_t i = 0; i < lists.front().size(); ++i)
    for (const auto& list : lists) values.push_back(list[i]);
  // Name errors point at design.zip.<name>.
  bool ok = true;
  for (std::size_t j = 0; j < columns.size(); ++j) {
    const std::string p = "design.zip." + columns[j];
    const ParameterInfo* info = r.lookup(columns[j], p);
    r.claim(columns[j], p, "design");
    RandomParameter parameter;
    parameter.name = columns[j];
    if (info != nullptr) {
      parameter.units = info->units;
      parameter.long_name = info->long_name;
    }
    spec.parameters.push_back(std::move(parameter));
    for (std::size_t i = 0; i < lists[j].size(); ++i)
      ok = r.in_range(lists[j][i], info, fmt::format("{}[{}]", p, i)) && ok;
  }
  spec.values = std::move(values);
}

void parse_sampled(const Entries& view, ConfigReader& r, DesignSpec& spec) {
  const std::string method(kDesignKindNames[static_cast<std::size_t>(spec.kind)]);
  const bool morris = spec.kind == DesignKind::kMorris;
  const char* count_key = morris ? "trajectories" : "base_samples";
  for (const char* key : {"file", "dataset", "columns", "zip"})
    if (view.get(key) != nullptr)
      r.error(std::string("design.") + key, fmt::format("not used by method '{}'", method));
  const char* other_count = morris ? "base_samples" : "trajectories";
  if (view.get(other_count) != nullptr)
    r.error(std::string("design.") + other_count,
            fmt::format("not used by method '{}' (it takes {})", method, count_key));
  if (!morris && view.get("levels") != nullptr) r.error("design.levels", "only used by method 'morris'");
  if (spec.kind != DesignKind::kSaltelli && view.get("second_order") != nullptr)
    r.error("design.second_order", "only used by method 'saltelli'");
  if (morris && (view.get("scramble") != nullptr || view.get("skip") != nullptr))
    r.error(view.get("scramble") ? "design.scramble" : "design.skip", "not used by method 'morris'");
  if (const auto* n = view.get(count_key)) {
    spec.base_samples = r.integer(*n, std::string("design.") + count_key, 1, std::int64_t{1} << 40,
                                  "must be a positive integer")
                            .value_or(0);
  } else {
    r.error(std::string("design.") + count_key, fmt::format("required by method '{}'", method));
  }
  if (const auto* n = view.get("levels"))
    spec.levels = r.integer(*n, "design.levels", 2, 1 << 20, "must be an even integer >= 2").value_or(4);
  if (spec.levels % 2 != 0) r.error("design.levels", "must be an even integer >= 2");
  if (const auto* n = view.get("second_order")) flag(*n, "design.second_order", r, spec.second_order);
  if (const auto* n = view.get("scramble")) flag(*n, "design.scramble", r, spec.scramble);
  if (const auto* n = view.get("skip"))
    spec.skip =
        r.integer(*n, "design.skip", 0, std::int64_t{1} << 40, "must be a non-negative integer").value_or(1);
  if (const auto* n = view.get("seed")) spec.seed = r.seed(*n, "design.seed").value_or(0);
  const YAML::Node* params = view.get("params");
  if (params == nullptr || !params->IsMap() || params->size() == 0) {
    r.error("design.params",
            fmt::format("method '{}' needs a mapping of parameter name to distribution, e.g. "
                        "{{x1: {{dist: uniform, low: 0, high: 1}}}}",
                        method));
    return;
  }
  for (const auto& [name, value] : r.entries(*params, "design.params").entries) {
    const std::string p = "design.params." + name;
    const ParameterInfo* info = r.lookup(name, p);
    r.claim(name, p, "design.params");
    if (auto parameter = r.random_parameter(name, value, p, info))
      spec.parameters.push_back(std::move(*parameter));
  }
  const std::size_t sobol_dims = 2 * spec.parameters.size();
  if (!morris && sobol_dims > SobolSequence::kMaxDimension)
    r.error("design.params", fmt::format("method '{}' supports at most {} parameters", method,
                                         SobolSequence::kMaxDimension / 2));
}

void parse_sensitivity(const YAML::Node& node, ConfigReader& r, SweepConfig& config) {
  SensitivitySpec& s = config.sensitivity;
  s.enabled = true;
  if (!r.is_section(node, "sensitivity", "(outputs, bootstrap, seed, confidence, at_end)") || !node.IsMap())
    return;
  const Entries view = r.keys(node, "sensitivity", kSensitivityKeys);
  if (const auto* n = view.get("outputs")) {
    if (n->IsScalar()) {
      if (auto s1 = r.text(*n, "sensitivity.outputs")) s.outputs = {*s1};
    } else if (auto names = name_list(*n, "sensitivity.outputs", r)) {
      s.outputs = *names;
    }
  }
  if (const auto* n = view.get("bootstrap"))
    s.bootstrap = r.integer(*n, "sensitivity.bootstrap", 0, 1'000'000, "must be an integer in 0..1000000")
                      .value_or(s.bootstrap);
  if (const auto* n = view.get("seed")) s.seed = r.seed(*n, "sensitivity.seed").value_or(0);
  if (const auto* n = view.get("confidence")) {
    const auto c = r.number(*n, "sensitivity.confidence");
    if (c && !(*c > 0.0 && *c < 1.0))
      r.error("sensitivity.confidence", fmt::format("must lie in (0, 1) (got {:g}), e.g. 0.95", *c));
    else if (c)
      s.confidence = *c;
  }
  if (const auto* n = view.get("at_end")) flag(*n, "sensitivity.at_end", r, s.at_end);
}

}  // namespace

void parse_design_sections(const YAML::Node* design, const YAML::Node* sensitivity, ConfigReader& r,
                           SweepConfig& config) {
  if (design != nullptr) {
    if (!design->IsMap()) {
      r.error("design",
              "must be a mapping: {file: points.csv}, {zip: {...}} or {method: saltelli|morris|radial, ...}");
    } else {
      const Entries view = r.keys(*design, "design", kDesignKeys);
      DesignSpec spec;
      const YAML::Node* file = view.get("file");
      const YAML::Node* zip = view.get("zip");
      const YAML::Node* method = view.get("method");
      Names methods(kDesignKindNames.begin(), kDesignKindNames.end());
      bool ok = true;
      if (method != nullptr) {
        if (auto m = r.keyword(*method, "design.method", methods, "design method"))
          spec.kind = static_cast<DesignKind>(*m);
        else
          ok = false;
      } else if (file != nullptr) {
        spec.kind = DesignKind::kPoints;
      } else if (zip != nullptr) {
        spec.kind = DesignKind::kZip;
      } else {
        r.error(
            "design",
            "needs file (a point list), zip (axes varying together) or method (saltelli, morris, radial)");
        ok = false;
      }
      if (config.monte_carlo) {
        r.error("design",
                "a sweep has either monte_carlo or design, not both (the design's rows are the replicas)");
        ok = false;
      }
      if (ok) {
        if (file != nullptr && zip != nullptr) {
          r.error("design", "give either file or zip, not both");
        } else if (spec.kind == DesignKind::kPoints) {
          if (file == nullptr) r.error("design.file", "required by method 'points'");
          for (const char* key : {"base_samples", "trajectories", "levels", "second_order", "scramble",
                                  "skip", "seed", "params", "zip"})
            if (view.get(key) != nullptr) r.error(std::string("design.") + key, "not used by a point file");
          if (file != nullptr) parse_file(*file, view, r, config, spec);
        } else if (spec.kind == DesignKind::kZip) {
          if (zip == nullptr) r.error("design.zip", "required by method 'zip'");
          for (const char* key : {"file", "dataset", "columns", "base_samples", "trajectories", "levels",
                                  "second_order", "scramble", "skip", "seed", "params"})
            if (view.get(key) != nullptr) r.error(std::string("design.") + key, "not used by zip");
          if (zip != nullptr) parse_zip(*zip, r, spec);
        } else {
          parse_sampled(view, r, spec);
        }
        if (!spec.parameters.empty()) {
          const std::int64_t rows = design_size(spec);
          const std::int64_t points = r.grid_points();
          if (rows > 0 && points > (std::int64_t{1} << 62) / rows)
            r.error("design", fmt::format("{} grid points x {} design rows is too many tasks (at most 2^62)",
                                          points, rows));
          config.design = std::move(spec);
        }
      }
    }
  }
  if (sensitivity != nullptr) {
    parse_sensitivity(*sensitivity, r, config);
    const bool analysable = config.design && (config.design->kind == DesignKind::kSaltelli ||
                                              config.design->kind == DesignKind::kMorris ||
                                              config.design->kind == DesignKind::kRadial);
    if (!analysable && (design == nullptr || config.design))
      r.error("sensitivity",
              "needs design.method saltelli, morris or radial (the estimators need their row layout)");
  }
  // The estimators read every task's value: a sensitivity design always writes /samples.
  if (config.design && config.design->kind != DesignKind::kPoints && config.design->kind != DesignKind::kZip)
    config.output.samples = true;
}

}  // namespace simpact::config_io
