#include "simpact/io/sweep_config_yaml.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "simpact/core/input_error.hpp"
#include "simpact/io/config_expression.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/safe_file.hpp"
#include "simpact/io/sha256.hpp"
#include "config_reader.hpp"

namespace simpact {
namespace {

using Names = std::vector<std::string>;

constexpr double kInf = std::numeric_limits<double>::infinity();
// Task indices are int64; keep a margin so index arithmetic (g * R + r) never overflows.
constexpr std::int64_t kMaxTasks = std::int64_t{1} << 62;
// One axis is materialized in memory (and in the file as a coordinate): cap its length.
constexpr std::int64_t kMaxAxisPoints = 100'000'000;

const Names kTopKeys = {"model",      "params", "grid",          "monte_carlo", "orderings",
                        "minimality", "seed",   "on_task_error", "limits",      "output",
                        "design",     "sensitivity"};
const Names kAxisKeys = {"start", "stop", "num", "spacing", "values", "units", "long_name"};
const Names kMonteCarloKeys = {"samples_per_point", "samples", "seed", "method", "params"};
const Names kLimitKeys = {"max_steps", "max_depth", "max_nodes", "max_outcomes", "max_definition1_checks"};
const Names kOutputKeys = {"samples", "momenta", "chunk_size", "compression"};
const Names kRandomCommonKeys = {"dist", "units", "long_name"};
// The keys each distribution takes, indexed by DistributionKind.
const std::vector<Names> kDistributionKeys = {
    {"low", "high"}, {"mean", "std"}, {"mu", "sigma"}, {"mean", "std", "low", "high"}, {"values", "weights"}};
const Names kRandomKeys = {"dist", "units", "long_name", "low",    "high",   "mean",
                           "std",  "mu",    "sigma",     "values", "weights"};

std::string join(const Names& names) {
  std::string out;
  for (const auto& name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

template <std::size_t N>
Names to_names(const std::array<std::string_view, N>& names) {
  return Names(names.begin(), names.end());
}

std::string child(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}
std::string element(const std::string& path, std::size_t index) {
  return fmt::format("{}[{}]", path, index);
}

std::string number_text(double v) {
  return fmt::format("{:g}", v);
}

// "[0, inf] of 'm_c' (kg)": the range phrase of every out-of-range message.
std::string range_text(const ParameterInfo& info) {
  std::string out = fmt::format("[{}, {}] of '{}'", number_text(info.min), number_text(info.max), info.name);
  if (!info.units.empty() && info.units != "1") out += fmt::format(" ({})", info.units);
  return out;
}

bool contains(const Names& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A mapping's entries in document order, first occurrence of each key.
struct MapView {
  std::vector<std::pair<std::string, YAML::Node>> entries;
  const YAML::Node* get(std::string_view key) const {
    for (const auto& [name, node] : entries)
      if (name == key) return &node;
    return nullptr;
  }
};

class ConfigParser {
  friend class ReaderAccess;  // design/sensitivity sections (src/io/design_config.cpp)

 public:
  ConfigParser(const Names& known_models, const ModelCatalog& catalog)
      : known_models_(known_models), catalog_(catalog) {}

  SweepConfig parse(const std::string& text) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      throw ConfigErrors({fmt::format("config: YAML syntax error at line {}, column {}: {}", e.mark.line + 1,
                                      e.mark.column + 1, e.msg)});
    }
    config_.source_text = text;
    config_.source_hash = sha256_hex(text);
    if (!root.IsMap()) {
      throw ConfigErrors(
          {fmt::format("config: {}; expected a mapping with keys {}",
                       root.IsNull() ? "the file is empty" : "not a mapping", join(kTopKeys))});
    }
    try {
      const MapView top = keys(root, "", kTopKeys);
      parse_model(top.get("model"));
      parse_params(top.get("params"));
      parse_grid(top.get("grid"));
      parse_monte_carlo(top.get("monte_carlo"));
      parse_orderings(top.get("orderings"));
      parse_options(top);
      parse_design(top.get("design"), top.get("sensitivity"));
      check_required();
    } catch (const YAML::Exception& e) {
      // Not expected (every access is checked); keep the one-line contract anyway.
      error("config", fmt::format("cannot read the YAML at line {}: {}", e.mark.line + 1, e.msg));
    }
    if (!errors_.empty()) throw ConfigErrors(errors_);
    return std::move(config_);
  }

 private:
  void error(const std::string& path, const std::string& message) {
    errors_.push_back(path + ": " + message);
  }

  // The product of the axis sizes read so far, saturated at INT64_MAX: unlike
  // SweepConfig::grid_points(), safe before check_required has bounded it.
  std::int64_t grid_points_saturated() const {
    std::int64_t points = 1;
    for (const auto& axis : config_.grid) {
      if (__builtin_mul_overflow(points, static_cast<std::int64_t>(axis.values.size()), &points))
        return std::numeric_limits<std::int64_t>::max();
    }
    return points;
  }

  // ---- generic readers ---------------------------------------------------------------------

  // Entries of a mapping whose keys are fixed names: unknown and repeated keys are errors.
  MapView keys(const YAML::Node& map, const std::string& path, const Names& allowed) {
    MapView view = entries(map, path);
    for (const auto& entry : view.entries) {
      const std::string& key = entry.first;
      if (contains(allowed, key)) continue;
      const std::string near = nearest_name(key, allowed);
      error(child(path, key), near.empty() ? fmt::format("unknown key (allowed: {})", join(allowed))
                                           : fmt::format("unknown key (did you mean '{}'?)", near));
    }
    return view;
  }

  // Entries of a mapping whose keys are user names (parameters): repeated keys are errors.
  MapView entries(const YAML::Node& map, const std::string& path) {
    MapView view;
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (!it->first.IsScalar()) {
        error(path.empty() ? "config" : path, "keys must be plain names");
        continue;
      }
      const std::string key = it->first.Scalar();
      if (view.get(key) != nullptr) {
        error(child(path, key), "duplicate key");
        continue;
      }
      view.entries.emplace_back(key, it->second);
    }
    return view;
  }

  // A section that must be a mapping; null (the key with nothing after it) counts as empty.
  bool is_section(const YAML::Node& node, const std::string& path, const std::string& what) {
    if (node.IsMap() || node.IsNull()) return true;
    error(path, "must be a mapping " + what);
    return false;
  }

  std::optional<double> number(const YAML::Node& node, const std::string& path) {
    if (!node.IsScalar()) {
      error(path, "must be a number or an expression such as pi/3");
      return std::nullopt;
    }
    try {
      return evaluate_expression(node.Scalar(), path);
    } catch (const InputError& e) {
      errors_.push_back(e.what());
      return std::nullopt;
    }
  }

  // Integers are plain literals, or expressions with an integral value ("1e6").
  std::optional<std::int64_t> integer(const YAML::Node& node, const std::string& path, std::int64_t min,
                                      std::int64_t max, const std::string& message) {
    std::optional<std::int64_t> value;
    if (node.IsScalar()) {
      const std::string& s = node.Scalar();
      std::int64_t parsed = 0;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), parsed);
      if (ec == std::errc() && end == s.data() + s.size()) {
        value = parsed;
      } else {
        try {
          const double x = evaluate_expression(s, path);
          if (x == std::floor(x) && std::fabs(x) <= 0x1.0p53) value = static_cast<std::int64_t>(x);
        } catch (const InputError&) {
        }
      }
    }
    if (!value || *value < min || *value > max) {
      error(path, message);
      return std::nullopt;
    }
    return value;
  }

  std::optional<std::uint64_t> seed(const YAML::Node& node, const std::string& path) {
    if (node.IsScalar()) {
      const std::string& s = node.Scalar();
      std::uint64_t parsed = 0;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), parsed);
      if (ec == std::errc() && end == s.data() + s.size()) return parsed;
    }
    const auto small = integer(node, path, 0, std::int64_t{1} << 53,
                               "must be a non-negative integer (at most 18446744073709551615)");
    if (!small) return std::nullopt;
    return static_cast<std::uint64_t>(*small);
  }

  std::optional<std::string> text(const YAML::Node& node, const std::string& path) {
    if (!node.IsScalar()) {
      error(path, "must be a string");
      return std::nullopt;
    }
    return node.Scalar();
  }

  // A name from a closed list: returns its index.
  std::optional<std::size_t> keyword(const YAML::Node& node, const std::string& path, const Names& allowed,
                                     const std::string& what) {
    const auto name = text(node, path);
    if (!name) return std::nullopt;
    const auto it = std::find(allowed.begin(), allowed.end(), *name);
    if (it == allowed.end()) {
      error(path, fmt::format("unknown {} '{}' (allowed: {})", what, *name, join(allowed)));
      return std::nullopt;
    }
    return static_cast<std::size_t>(it - allowed.begin());
  }

  // A non-empty list of numbers; element errors name path[i].
  std::optional<std::vector<double>> number_list(const YAML::Node& node, const std::string& path) {
    if (!node.IsSequence() || node.size() == 0) {
      error(path, "must be a non-empty list of numbers");
      return std::nullopt;
    }
    std::vector<double> values;
    bool ok = true;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const auto v = number(node[i], element(path, i));
      ok = ok && v.has_value();
      values.push_back(v.value_or(0.0));
    }
    if (!ok) return std::nullopt;
    return values;
  }

  // ---- model parameters --------------------------------------------------------------------

  // The model's description of `name`; nullptr (with an error) if the model has no such
  // parameter, nullptr (silently) if the model itself is unknown.
  const ParameterInfo* lookup(const std::string& name, const std::string& path) {
    if (!have_catalog_) return nullptr;
    for (const auto& info : parameters_)
      if (info.name == name) return &info;
    Names names;
    for (const auto& info : parameters_) names.push_back(info.name);
    const std::string near = nearest_name(name, names);
    if (!near.empty()) suggested_.insert(near);
    error(path, fmt::format("unknown parameter of model '{}' ({})", config_.model,
                            near.empty() ? "parameters: " + join(names) : "did you mean '" + near + "'?"));
    return nullptr;
  }

  // A parameter is fixed, a grid axis or random: exactly one of these.
  void claim(const std::string& name, const std::string& path, const std::string& section) {
    const auto [it, inserted] = section_of_.emplace(name, section);
    if (!inserted) {
      error(path, fmt::format("'{}' is already given in {} (a parameter is fixed, a grid axis or "
                              "random, only one of these)",
                              name, it->second));
    }
  }

  bool in_range(double v, const ParameterInfo* info, const std::string& path) {
    if (info == nullptr) return true;
    if (v < info->min || v > info->max) {
      error(path, fmt::format("{} is outside the allowed range {}", number_text(v), range_text(*info)));
      return false;
    }
    if (info->integer && v != std::round(v)) {
      error(path,
            fmt::format("{} is not an integer ('{}' takes integer values)", number_text(v), info->name));
      return false;
    }
    return true;
  }

  // ---- sections ----------------------------------------------------------------------------

  void parse_model(const YAML::Node* node) {
    if (node == nullptr) {
      error("model", known_models_.empty() ? std::string("required")
                                           : fmt::format("required (allowed: {})", join(known_models_)));
      return;
    }
    if (!node->IsScalar()) {
      error("model", fmt::format("must be a model name (allowed: {})", join(known_models_)));
      return;
    }
    const auto name = text(*node, "model");
    if (!name) return;
    config_.model = *name;
    const bool listed = contains(known_models_, *name) || known_models_.empty();
    std::vector<ParameterInfo> parameters;
    if (listed && catalog_ && catalog_(*name, parameters)) {
      parameters_ = std::move(parameters);
      have_catalog_ = true;
      if (std::none_of(parameters_.begin(), parameters_.end(),
                       [](const ParameterInfo& p) { return p.name == "restitution"; })) {
        parameters_.push_back({"restitution", "1", "coefficient of restitution", 1.0, 0.0, 1.0});
      }
      return;
    }
    if (listed && !catalog_) return;  // no catalog: names are checked, parameters are not
    const std::string near = nearest_name(*name, known_models_);
    error("model", fmt::format("unknown model '{}' ({}allowed: {})", *name,
                               near.empty() ? "" : "did you mean '" + near + "'?; ", join(known_models_)));
  }

  void parse_params(const YAML::Node* node) {
    if (node == nullptr || !is_section(*node, "params", "of parameter name to value")) return;
    if (node->IsNull()) return;
    for (const auto& [name, value] : entries(*node, "params").entries) {
      const std::string path = child("params", name);
      const ParameterInfo* info = lookup(name, path);
      claim(name, path, "params");
      const auto v = number(value, path);
      if (v && in_range(*v, info, path)) {
        config_.fixed.set(name, *v);
        config_.fixed_described.push_back(
            {name, info != nullptr ? info->units : "", info != nullptr ? info->long_name : "", {*v}});
      }
    }
  }

  void parse_grid(const YAML::Node* node) {
    if (node == nullptr || !is_section(*node, "grid", "of parameter name to {start, stop, num} or {values}"))
      return;
    if (node->IsNull()) return;
    for (const auto& [name, value] : entries(*node, "grid").entries) {
      const std::string path = child("grid", name);
      const ParameterInfo* info = lookup(name, path);
      claim(name, path, "grid");
      if (auto axis = parse_axis(name, value, path, info)) config_.grid.push_back(std::move(*axis));
    }
  }

  std::optional<GridAxis> parse_axis(const std::string& name, const YAML::Node& node, const std::string& path,
                                     const ParameterInfo* info) {
    GridAxis axis;
    axis.name = name;
    if (info != nullptr) {
      axis.units = info->units;
      axis.long_name = info->long_name;
    }
    if (node.IsSequence()) {  // shorthand: `theta: [0.1, 0.2]` is `theta: {values: [...]}`
      return fill_values(axis, node, path, info);
    }
    if (!node.IsMap()) {
      error(path, "must be a mapping {start, stop, num[, spacing]} or {values: [...]}");
      return std::nullopt;
    }
    const MapView view = keys(node, path, kAxisKeys);
    if (const auto* units = view.get("units")) {
      if (auto s = text(*units, child(path, "units"))) axis.units = *s;
    }
    if (const auto* long_name = view.get("long_name")) {
      if (auto s = text(*long_name, child(path, "long_name"))) axis.long_name = *s;
    }
    const YAML::Node* start = view.get("start");
    const YAML::Node* stop = view.get("stop");
    const YAML::Node* num = view.get("num");
    const YAML::Node* spacing = view.get("spacing");
    const YAML::Node* values = view.get("values");
    const bool has_range = start != nullptr || stop != nullptr || num != nullptr;
    if (values != nullptr) {
      if (has_range) {
        error(path, "give either start/stop/num or values, not both");
        return std::nullopt;
      }
      if (spacing != nullptr) error(child(path, "spacing"), "only applies to start/stop/num");
      return fill_values(axis, *values, child(path, "values"), info);
    }
    if (!has_range) {
      error(path, "needs start, stop and num (and optional spacing), or values");
      return std::nullopt;
    }
    std::optional<double> first, last;
    std::int64_t count = 0;  // 0: missing or invalid
    for (const auto& [key, field] : {std::pair{"start", start}, {"stop", stop}, {"num", num}}) {
      if (field == nullptr) error(child(path, key), "missing (a range needs start, stop and num)");
    }
    if (start != nullptr) first = number(*start, child(path, "start"));
    if (stop != nullptr) last = number(*stop, child(path, "stop"));
    if (num != nullptr) {
      count = integer(*num, child(path, "num"), 1, std::numeric_limits<std::int64_t>::max(),
                      "must be a positive integer")
                  .value_or(0);
      if (count > kMaxAxisPoints) {
        error(child(path, "num"), fmt::format("must be at most {} (points per axis)", kMaxAxisPoints));
        count = 0;
      }
    }
    bool log = false;
    if (spacing != nullptr) {
      const auto kind = keyword(*spacing, child(path, "spacing"), {"linear", "log"}, "spacing");
      if (!kind) return std::nullopt;
      log = *kind == 1;
    }
    if (!first || !last || count == 0) return std::nullopt;
    // An axis costs 8 bytes a point: refuse one that makes the grid too large to run before
    // allocating it (check_required would reject the grid anyway, after up to 10^8 points of
    // every axis were in memory).
    const std::int64_t before = grid_points_saturated();
    if (count > kMaxTasks / before) {
      error(child(path, "num"),
            fmt::format("{} grid points x {} is too many tasks (at most 2^62)", before, count));
      return std::nullopt;
    }
    bool ok = true;
    if (log) {
      for (const auto& [key, v] : {std::pair{"start", *first}, {"stop", *last}}) {
        if (v > 0) continue;
        error(child(path, key), fmt::format("must be > 0 with spacing: log (got {})", number_text(v)));
        ok = false;
      }
    }
    ok = in_range(*first, info, child(path, "start")) && ok;
    if (count > 1) ok = in_range(*last, info, child(path, "stop")) && ok;
    if (!ok) return std::nullopt;

    const auto n = static_cast<std::size_t>(count);
    axis.values.resize(n);
    axis.values[0] = *first;
    if (n > 1) {
      const double lo = std::min(*first, *last), hi = std::max(*first, *last);
      const double a = log ? std::log(*first) : *first;
      const double step = ((log ? std::log(*last) : *last) - a) / static_cast<double>(n - 1);
      for (std::size_t i = 1; i + 1 < n; ++i) {
        const double x = a + static_cast<double>(i) * step;
        axis.values[i] = std::clamp(log ? std::exp(x) : x, lo, hi);  // endpoints stay exact
      }
      axis.values[n - 1] = *last;
    }
    if (info != nullptr && info->integer) {
      for (std::size_t i = 1; i + 1 < n; ++i) {
        double& v = axis.values[i];
        // Accept what is an integer up to rounding of the spacing arithmetic.
        if (std::fabs(v - std::round(v)) <= 1e-9 * std::max(1.0, std::fabs(v))) {
          v = std::round(v);
        } else {
          error(path, fmt::format("point {} ({}) is not an integer ('{}' takes integer values)", i,
                                  number_text(v), name));
          return std::nullopt;
        }
      }
    }
    return axis;
  }

  std::optional<GridAxis> fill_values(GridAxis& axis, const YAML::Node& node, const std::string& path,
                                      const ParameterInfo* info) {
    auto values = number_list(node, path);
    if (!values) return std::nullopt;
    bool ok = true;
    for (std::size_t i = 0; i < values->size(); ++i)
      ok = in_range((*values)[i], info, element(path, i)) && ok;
    if (!ok) return std::nullopt;
    axis.values = std::move(*values);
    return std::move(axis);
  }

  void parse_monte_carlo(const YAML::Node* node) {
    const std::string path = "monte_carlo";
    if (node == nullptr || !is_section(*node, path, "(samples_per_point or samples, seed, method, params)"))
      return;
    MonteCarloSpec spec;
    MapView view;
    if (node->IsMap()) view = keys(*node, path, kMonteCarloKeys);
    const YAML::Node* per_point = view.get("samples_per_point");
    const YAML::Node* total = view.get("samples");
    if (per_point != nullptr && total != nullptr) {
      error(path, "give either samples_per_point or samples, not both");
    } else if (per_point != nullptr) {
      if (auto n = integer(*per_point, child(path, "samples_per_point"), 1, kMaxTasks,
                           "must be a positive integer"))
        spec.samples_per_point = *n;
    } else if (total != nullptr) {
      if (auto n = integer(*total, child(path, "samples"), 1, kMaxTasks, "must be a positive integer")) {
        // The grid is not checked yet: its size may not fit in int64 (the check comes later).
        const std::int64_t points = grid_points_saturated();
        spec.samples_per_point = points >= *n ? 1 : (*n + points - 1) / points;
      }
    } else {
      error(path, "needs samples_per_point (replicas of each grid point) or samples (in total)");
    }
    if (const auto* s = view.get("seed")) spec.seed = seed(*s, child(path, "seed")).value_or(0);
    if (const auto* method = view.get("method")) {
      if (auto m = keyword(*method, child(path, "method"), to_names(kSamplingMethodNames), "method"))
        spec.method = static_cast<SamplingMethod>(*m);
    }
    if (const auto* params = view.get("params")) {
      const std::string params_path = child(path, "params");
      if (is_section(*params, params_path, "of parameter name to {dist: ..., ...}") && params->IsMap()) {
        for (const auto& [name, value] : entries(*params, params_path).entries) {
          const std::string p = child(params_path, name);
          const ParameterInfo* info = lookup(name, p);
          claim(name, p, "monte_carlo.params");
          if (auto parameter = parse_random(name, value, p, info))
            spec.parameters.push_back(std::move(*parameter));
        }
      }
      if (spec.method == SamplingMethod::kSobol && spec.parameters.size() > SobolSequence::kMaxDimension) {
        error(params_path, fmt::format("sobol supports at most {} parameters", SobolSequence::kMaxDimension));
      }
    }
    config_.monte_carlo = std::move(spec);
  }

  std::optional<RandomParameter> parse_random(const std::string& name, const YAML::Node& node,
                                              const std::string& path, const ParameterInfo* info) {
    const Names dist_names = to_names(kDistributionNames);
    if (!node.IsMap()) {
      error(path,
            "must be a mapping with dist and its parameters, e.g. {dist: uniform, low: 0, "
            "high: 1}");
      return std::nullopt;
    }
    RandomParameter parameter;
    parameter.name = name;
    if (info != nullptr) {
      parameter.units = info->units;
      parameter.long_name = info->long_name;
    }
    const MapView view = keys(node, path, kRandomKeys);
    if (const auto* units = view.get("units")) {
      if (auto s = text(*units, child(path, "units"))) parameter.units = *s;
    }
    if (const auto* long_name = view.get("long_name")) {
      if (auto s = text(*long_name, child(path, "long_name"))) parameter.long_name = *s;
    }
    const YAML::Node* dist_node = view.get("dist");
    if (dist_node == nullptr) {
      error(child(path, "dist"), fmt::format("missing (allowed: {})", join(dist_names)));
      return std::nullopt;
    }
    const auto index = keyword(*dist_node, child(path, "dist"), dist_names, "distribution");
    if (!index) return std::nullopt;
    const std::string& dist = dist_names[*index];
    const Names& takes = kDistributionKeys[*index];
    bool ok = true;
    for (const auto& entry : view.entries) {
      const std::string& key = entry.first;
      if (contains(kRandomKeys, key) && !contains(kRandomCommonKeys, key) && !contains(takes, key)) {
        error(child(path, key), fmt::format("not used by dist '{}' (it takes: {})", dist, join(takes)));
        ok = false;
      }
    }
    // A required number of this distribution.
    auto need = [&](const char* key, const Names& required) -> std::optional<double> {
      const YAML::Node* field = view.get(key);
      if (field == nullptr) {
        error(child(path, key), fmt::format("missing ({} needs {})", dist, join(required)));
        return std::nullopt;
      }
      return number(*field, child(path, key));
    };
    auto positive = [&](const char* key, std::optional<double> v) {
      if (v && *v <= 0) {
        error(child(path, key), fmt::format("must be > 0 (got {})", number_text(*v)));
        return false;
      }
      return v.has_value();
    };
    const auto kind = static_cast<DistributionKind>(*index);
    Distribution& d = parameter.distribution;
    d.kind = kind;
    if (info != nullptr && info->integer && kind != DistributionKind::kChoice) {
      error(child(path, "dist"), fmt::format("'{}' takes integer values: use dist: choice", name));
      ok = false;
    }
    const bool bounded = info != nullptr && (info->min > -kInf || info->max < kInf);
    switch (kind) {
      case DistributionKind::kUniform: {
        const auto low = need("low", takes), high = need("high", takes);
        if (!low || !high) return std::nullopt;
        if (!(*low < *high)) {
          error(child(path, "high"), fmt::format("must be greater than low ({})", number_text(*low)));
          return std::nullopt;
        }
        ok = in_range(*low, info, child(path, "low")) && ok;
        ok = in_range(*high, info, child(path, "high")) && ok;
        d.a = *low;
        d.b = *high;
        break;
      }
      case DistributionKind::kNormal:
      case DistributionKind::kLogNormal: {
        const bool normal = kind == DistributionKind::kNormal;
        const auto a = need(normal ? "mean" : "mu", takes);
        const auto b = need(normal ? "std" : "sigma", takes);
        ok = a.has_value() && positive(normal ? "std" : "sigma", b) && ok;
        // A lognormal lives on (0, inf): fine for a parameter allowed on all of it. A positive
        // `min` (models write 1e-300 for "> 0") is fine below the smallest value the sampler can
        // produce (u is clamped to >= 2^-64, so z >= about -9.1).
        const bool escapes =
            normal ? bounded
                   : info != nullptr && a && b &&
                         (info->max < kInf || info->min > std::exp(*a + *b * normal_quantile(0x1.0p-64)));
        if (escapes) {
          error(child(path, "dist"),
                fmt::format("{} draws can fall outside the allowed range {}: use truncated_normal "
                            "with low/high inside it",
                            dist, range_text(*info)));
          ok = false;
        }
        if (!ok) return std::nullopt;
        d.a = *a;
        d.b = *b;
        break;
      }
      case DistributionKind::kTruncatedNormal: {
        const auto mean = need("mean", Names{"mean", "std"});
        const auto std_dev = need("std", Names{"mean", "std"});
        ok = mean.has_value() && positive("std", std_dev) && ok;
        // Bounds default to the parameter's allowed range.
        double low = info != nullptr ? info->min : -kInf;
        double high = info != nullptr ? info->max : kInf;
        if (const auto* field = view.get("low")) {
          const auto v = number(*field, child(path, "low"));
          ok = v && in_range(*v, info, child(path, "low")) && ok;
          low = v.value_or(low);
        }
        if (const auto* field = view.get("high")) {
          const auto v = number(*field, child(path, "high"));
          ok = v && in_range(*v, info, child(path, "high")) && ok;
          high = v.value_or(high);
        }
        if (!ok) return std::nullopt;
        if (!(low < high)) {
          error(child(path, "high"), fmt::format("must be greater than low ({})", number_text(low)));
          return std::nullopt;
        }
        // The interval must hold some probability, or the inverse CDF has nothing to invert.
        const double alpha = (low - *mean) / *std_dev, beta = (high - *mean) / *std_dev;
        const double below = 0.5 * (std::erfc(-beta / std::sqrt(2.0)) - std::erfc(-alpha / std::sqrt(2.0)));
        const double above = 0.5 * (std::erfc(alpha / std::sqrt(2.0)) - std::erfc(beta / std::sqrt(2.0)));
        if (!(std::max(below, above) > 1e-300)) {
          error(path,
                fmt::format("[{}, {}] lies too far in the tail of normal(mean {}, std {}) "
                            "to sample",
                            number_text(low), number_text(high), number_text(*mean), number_text(*std_dev)));
          return std::nullopt;
        }
        d.a = *mean;
        d.b = *std_dev;
        d.low = low;
        d.high = high;
        break;
      }
      case DistributionKind::kChoice: {
        const YAML::Node* values_node = view.get("values");
        if (values_node == nullptr) {
          error(child(path, "values"), "missing (choice needs values, weights optional)");
          return std::nullopt;
        }
        auto values = number_list(*values_node, child(path, "values"));
        if (!values) return std::nullopt;
        for (std::size_t i = 0; i < values->size(); ++i)
          ok = in_range((*values)[i], info, element(child(path, "values"), i)) && ok;
        if (const auto* weights_node = view.get("weights")) {
          const std::string wpath = child(path, "weights");
          auto weights = number_list(*weights_node, wpath);
          if (!weights) return std::nullopt;
          if (weights->size() != values->size()) {
            error(wpath, fmt::format("must have one entry per value ({} values, {} weights)", values->size(),
                                     weights->size()));
            return std::nullopt;
          }
          double sum = 0;
          for (std::size_t i = 0; i < weights->size(); ++i) {
            if ((*weights)[i] < 0) {
              error(element(wpath, i),
                    fmt::format("must be a non-negative number (got {})", number_text((*weights)[i])));
              ok = false;
            }
            sum += (*weights)[i];
          }
          if (ok && !(sum > 0)) {
            error(wpath, "must not all be zero");
            ok = false;
          }
          d.weights = std::move(*weights);
        }
        d.values = std::move(*values);
        break;
      }
    }
    if (!ok) return std::nullopt;
    return parameter;
  }

  void parse_orderings(const YAML::Node* node) {
    const Names allowed = to_names(kOrderingPolicyNames);
    if (node == nullptr) {
      config_.orderings = {OrderingPolicy::kAll, OrderingPolicy::kArgmin, OrderingPolicy::kArgmax};
      return;
    }
    if (node->IsScalar()) {  // `orderings: all` is a one-element list
      if (auto i = keyword(*node, "orderings", allowed, "ordering"))
        config_.orderings = {static_cast<OrderingPolicy>(*i)};
      return;
    }
    if (!node->IsSequence() || node->size() == 0) {
      error("orderings",
            fmt::format("must be a non-empty list of ordering names (allowed: {})", join(allowed)));
      return;
    }
    for (std::size_t i = 0; i < node->size(); ++i) {
      const std::string path = element("orderings", i);
      const auto index = keyword((*node)[i], path, allowed, "ordering");
      if (!index) continue;
      const auto policy = static_cast<OrderingPolicy>(*index);
      if (std::find(config_.orderings.begin(), config_.orderings.end(), policy) != config_.orderings.end()) {
        error(path, fmt::format("'{}' is listed twice", allowed[*index]));
        continue;
      }
      config_.orderings.push_back(policy);
    }
  }

  void parse_options(const MapView& top) {
    if (const auto* node = top.get("minimality")) {
      if (auto i = keyword(*node, "minimality", {"propagation", "definition1"}, "minimality"))
        config_.minimality = static_cast<Minimality>(*i);
    }
    config_.seed = config_.monte_carlo ? config_.monte_carlo->seed : 0;
    if (const auto* node = top.get("seed")) config_.seed = seed(*node, "seed").value_or(0);
    if (const auto* node = top.get("on_task_error")) {
      if (auto i = keyword(*node, "on_task_error", {"abort", "record"}, "mode"))
        config_.on_task_error = static_cast<TaskErrorMode>(*i);
    }
    if (const auto* node = top.get("limits");
        node != nullptr && is_section(*node, "limits", "(max_steps, max_depth, max_nodes, max_outcomes, max_definition1_checks)") &&
        node->IsMap()) {
      const MapView view = keys(*node, "limits", kLimitKeys);
      const std::int64_t big = std::numeric_limits<std::int64_t>::max();
      // The core counts steps and depth in int (ResolveLimits).
      const std::int64_t int_max = std::numeric_limits<int>::max();
      auto read = [&](const char* key, std::int64_t cap, std::int64_t& out) {
        const auto* field = view.get(key);
        if (field == nullptr) return;
        const auto v = integer(*field, child("limits", key), 1, big, "must be a positive integer");
        if (v && *v > cap) {
          error(child("limits", key), fmt::format("must be at most {}", cap));
        } else if (v) {
          out = *v;
        }
      };
      read("max_steps", int_max, config_.limits.max_steps);
      read("max_depth", int_max, config_.limits.max_depth);
      read("max_nodes", big, config_.limits.max_nodes);
      read("max_outcomes", std::int64_t{1} << 24, config_.limits.max_outcomes);
      read("max_definition1_checks", std::int64_t{1} << 40, config_.limits.max_definition1_checks);
    }
    if (const auto* node = top.get("output");
        node != nullptr && is_section(*node, "output", "(samples, momenta, chunk_size, compression)") &&
        node->IsMap()) {
      const MapView view = keys(*node, "output", kOutputKeys);
      if (const auto* field = view.get("samples")) {
        bool flag = false;
        if (field->IsScalar() && YAML::convert<bool>::decode(*field, flag)) {
          config_.output.samples = flag;
        } else {
          error("output.samples", "must be true or false");
        }
      }
      if (const auto* field = view.get("momenta")) {
        bool flag = false;
        if (field->IsScalar() && YAML::convert<bool>::decode(*field, flag)) {
          config_.output.momenta = flag;
        } else {
          error("output.momenta", "must be true or false");
        }
      }
      if (const auto* field = view.get("chunk_size")) {
        config_.output.chunk_size = integer(*field, "output.chunk_size", 0, kMaxTasks,
                                            "must be a non-negative integer (tasks per chunk, 0 = auto)")
                                        .value_or(0);
      }
      if (const auto* field = view.get("compression")) {
        config_.output.compression = static_cast<int>(
            integer(*field, "output.compression", 0, 9, "must be an integer in 0..9").value_or(4));
      }
    }
  }

  void check_required() {
    if (have_catalog_) {
      for (const auto& info : parameters_) {
        // A misspelled name already got "did you mean" for this parameter: one line is enough.
        if (std::isnan(info.default_value) && section_of_.count(info.name) == 0 &&
            suggested_.count(info.name) == 0) {
          error("params", fmt::format("missing required parameter '{}' of model '{}' (give it in "
                                      "params, grid or monte_carlo.params)",
                                      info.name, config_.model));
        }
      }
    }
    // Sizes: the task index g * R + r must fit comfortably in int64.
    double points = 1;
    for (const auto& axis : config_.grid) points *= static_cast<double>(axis.values.size());
    const double replicas = config_.design        ? static_cast<double>(design_size(*config_.design))
                             : config_.monte_carlo ? static_cast<double>(config_.monte_carlo->samples_per_point)
                                                   : 1.0;
    if (points * replicas > static_cast<double>(kMaxTasks)) {
      error(config_.monte_carlo ? "monte_carlo" : "grid",
            fmt::format("{:g} grid points x {:g} samples per point is too many tasks (at most "
                        "2^62)",
                        points, replicas));
    }
  }

  void parse_design(const YAML::Node* design, const YAML::Node* sensitivity);

  const Names& known_models_;
  const ModelCatalog& catalog_;
  bool have_catalog_ = false;
  std::vector<ParameterInfo> parameters_;
  std::map<std::string, std::string> section_of_;  // parameter -> where it was given
  std::set<std::string> suggested_;                // parameters offered as "did you mean"
  Names errors_;
  SweepConfig config_;
};

// The loader's checked readers, for the sections parsed in other files.
class ReaderAccess final : public config_io::ConfigReader {
 public:
  explicit ReaderAccess(ConfigParser& p) : p_(p) {}
  void error(const std::string& path, const std::string& message) override { p_.error(path, message); }
  config_io::Entries keys(const YAML::Node& map, const std::string& path, const Names& allowed) override {
    return {p_.keys(map, path, allowed).entries};
  }
  config_io::Entries entries(const YAML::Node& map, const std::string& path) override {
    return {p_.entries(map, path).entries};
  }
  bool is_section(const YAML::Node& node, const std::string& path, const std::string& what) override {
    return p_.is_section(node, path, what);
  }
  std::optional<double> number(const YAML::Node& node, const std::string& path) override {
    return p_.number(node, path);
  }
  std::optional<std::int64_t> integer(const YAML::Node& node, const std::string& path, std::int64_t min,
                                      std::int64_t max, const std::string& message) override {
    return p_.integer(node, path, min, max, message);
  }
  std::optional<std::uint64_t> seed(const YAML::Node& node, const std::string& path) override {
    return p_.seed(node, path);
  }
  std::optional<std::string> text(const YAML::Node& node, const std::string& path) override {
    return p_.text(node, path);
  }
  std::optional<std::size_t> keyword(const YAML::Node& node, const std::string& path, const Names& allowed,
                                     const std::string& what) override {
    return p_.keyword(node, path, allowed, what);
  }
  std::optional<std::vector<double>> number_list(const YAML::Node& node, const std::string& path) override {
    return p_.number_list(node, path);
  }
  const ParameterInfo* lookup(const std::string& name, const std::string& path) override {
    return p_.lookup(name, path);
  }
  void claim(const std::string& name, const std::string& path, const std::string& section) override {
    p_.claim(name, path, section);
  }
  bool in_range(double value, const ParameterInfo* info, const std::string& path) override {
    return p_.in_range(value, info, path);
  }
  std::optional<RandomParameter> random_parameter(const std::string& name, const YAML::Node& node,
                                                  const std::string& path, const ParameterInfo* info) override {
    return p_.parse_random(name, node, path, info);
  }
  std::int64_t grid_points() const override { return p_.grid_points_saturated(); }

 private:
  ConfigParser& p_;
};

void ConfigParser::parse_design(const YAML::Node* design, const YAML::Node* sensitivity) {
  ReaderAccess access(*this);
  config_io::parse_design_sections(design, sensitivity, access, config_);
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) {
    if (!out.empty()) out += '\n';
    out += line;
  }
  return out;
}

}  // namespace

ConfigErrors::ConfigErrors(std::vector<std::string> error_lines)
    : std::runtime_error(join_lines(error_lines)), lines(std::move(error_lines)) {}


std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance: Levenshtein plus adjacent transpositions ("nmu" → "num"
  // is one edit, the commonest typo).
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

std::string nearest_name(std::string_view word, const std::vector<std::string>& candidates) {
  std::string lower(word);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Near: within 2 edits (and fewer edits than the word has letters, so "x" is not near "n"),
  // or a truncation of the name ("chunk" for "chunk_size"), which ranks after any edit match.
  std::string best;
  std::size_t best_score = std::numeric_limits<std::size_t>::max();
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(lower, candidate);
    std::size_t score = best_score;
    if (distance <= 2 && distance < lower.size()) {
      score = distance;
    } else if (lower.size() >= 2 && candidate.compare(0, lower.size(), lower) == 0) {
      score = 3 + candidate.size() - lower.size();
    }
    if (score < best_score) {
      best = candidate;
      best_score = score;
    }
  }
  return best;
}

namespace {
// YAML forbids most C0 control characters; a NUL would reach error lines raw and cut C strings
// (long_name) short. Reject them up front, naming where.
void reject_control_characters(const std::string& text) {
  std::size_t line = 1, column = 1;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
      throw ConfigErrors({fmt::format("config: line {}, column {}: control character U+{:04X} is not allowed "
                                      "(only printable text, tabs and newlines)",
                                      line, column, static_cast<unsigned>(c))});
    if (ch == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
}
}  // namespace

SweepConfig parse_sweep_config(const std::string& yaml_text, const std::vector<std::string>& known_models,
                               const ModelCatalog& catalog) {
  reject_control_characters(yaml_text);
  return ConfigParser(known_models, catalog).parse(yaml_text);
}

SweepConfig load_sweep_config(const std::string& path, const std::vector<std::string>& known_models,
                              const ModelCatalog& catalog) {
  std::string text;
  try {
    text = read_capped_input(path, kMaxConfigBytes, "config", false);
  } catch (const IoError& e) {
    throw ConfigErrors({e.what()});
  }
  return parse_sweep_config(text, known_models, catalog);
}

}  // namespace simpact
