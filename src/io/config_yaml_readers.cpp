#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "simpact/core/input_error.hpp"
#include "simpact/io/config_expression.hpp"
#include "simpact/io/sha256.hpp"
#include "sweep_config_parser.hpp"

namespace simpact::detail {

SweepConfig ConfigParser::parse(const std::string& text) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigErrors({fmt::format("config: YAML syntax error at line {}, column {}: {}", e.mark.line + 1,
                                    e.mark.column + 1, e.msg)});
  }
  config_.source_text = text;
  config_.source_hash = sha256_hex(text);
  config_.inputs = {{"config", "", config_.source_hash}};  // its path: the loader's (load_sweep_config)
  if (!root.IsMap()) {
    throw ConfigErrors({fmt::format("config: {}; expected a mapping with keys {}",
                                    root.IsNull() ? "the file is empty" : "not a mapping", join(kTopKeys))});
  }
  try {
    const MapView top = keys(root, "", kTopKeys);
    if (const auto* simulate = top.get("simulate")) {
      parse_simulate(*simulate, top.get("model"));
    } else {
      parse_model(top.get("model"));
    }
    parse_params(top.get("params"));
    parse_grid(top.get("grid"));
    parse_monte_carlo(top.get("monte_carlo"));
    parse_orderings(top.get("orderings"));
    parse_options(top);
    if (config_.simulate) check_simulate(top);
    if (const auto* audit = top.get("audit")) {
      parse_audit(*audit);
      check_audit(top);
    }
    const std::size_t errors_before_design = errors_.size();
    parse_design(top.get("design"), top.get("sensitivity"));
    // A design that failed may have been meant to give the missing parameters: one line is enough.
    design_failed_ = errors_.size() > errors_before_design;
    // A user-supplied design's per-row outputs are its result: stored unless refused explicitly.
    if (config_.design && !config_.output.samples_given &&
        (config_.design->kind == DesignKind::kPoints || config_.design->kind == DesignKind::kZip))
      config_.output.samples = true;
    check_required();
  } catch (const YAML::Exception& e) {
    // Not expected (every access is checked); keep the one-line contract anyway.
    error("config", fmt::format("cannot read the YAML at line {}: {}", e.mark.line + 1, e.msg));
  }
  if (!errors_.empty()) throw ConfigErrors(errors_);
  return std::move(config_);
}

void ConfigParser::error(const std::string& path, const std::string& message) {
  errors_.push_back(path + ": " + message);
}

std::int64_t ConfigParser::grid_points_saturated() const {
  std::int64_t points = 1;
  for (const auto& axis : config_.grid) {
    if (__builtin_mul_overflow(points, static_cast<std::int64_t>(axis.values.size()), &points))
      return std::numeric_limits<std::int64_t>::max();
  }
  return points;
}

MapView ConfigParser::keys(const YAML::Node& map, const std::string& path, const Names& allowed) {
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

MapView ConfigParser::entries(const YAML::Node& map, const std::string& path) {
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

bool ConfigParser::is_section(const YAML::Node& node, const std::string& path, const std::string& what) {
  if (node.IsMap() || node.IsNull()) return true;
  error(path, "must be a mapping " + what);
  return false;
}

std::optional<double> ConfigParser::number(const YAML::Node& node, const std::string& path) {
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

std::optional<std::int64_t> ConfigParser::integer(const YAML::Node& node, const std::string& path,
                                                  std::int64_t min, std::int64_t max,
                                                  const std::string& message) {
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

std::optional<std::uint64_t> ConfigParser::seed(const YAML::Node& node, const std::string& path) {
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

std::optional<std::string> ConfigParser::text(const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar()) {
    error(path, "must be a string");
    return std::nullopt;
  }
  return node.Scalar();
}

std::optional<std::size_t> ConfigParser::keyword(const YAML::Node& node, const std::string& path,
                                                 const Names& allowed, const std::string& what) {
  const auto name = text(node, path);
  if (!name) return std::nullopt;
  const auto it = std::find(allowed.begin(), allowed.end(), *name);
  if (it == allowed.end()) {
    error(path, fmt::format("unknown {} '{}' (allowed: {})", what, *name, join(allowed)));
    return std::nullopt;
  }
  return static_cast<std::size_t>(it - allowed.begin());
}

std::optional<std::vector<double>> ConfigParser::number_list(const YAML::Node& node,
                                                             const std::string& path) {
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

void ConfigParser::read_labels(const MapView& view, const std::string& path, std::string& units,
                               std::string& long_name) {
  if (const auto* node = view.get("units")) {
    if (auto s = text(*node, child(path, "units"))) units = *s;
  }
  if (const auto* node = view.get("long_name")) {
    if (auto s = text(*node, child(path, "long_name"))) long_name = *s;
  }
}

}  // namespace simpact::detail
