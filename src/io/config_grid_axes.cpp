#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "simpact/core/input_error.hpp"
#include "simpact/io/config_expression.hpp"
#include "sweep_config_parser.hpp"

namespace simpact::detail {

namespace {

// An axis's point count as declared (num, or the values' count; 1 when unreadable: its own
// errors come later), at most kMaxAxisPoints (a longer axis gets its own error).
double declared_points(const YAML::Node& node) {
  std::size_t n = 1;
  if (node.IsSequence()) n = node.size();
  if (node.IsMap() && node["values"] && node["values"].IsSequence()) n = node["values"].size();
  if (node.IsMap() && node["num"] && node["num"].IsScalar()) {
    const std::string& text = node["num"].Scalar();
    double v = 0.0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && end == text.data() + text.size() && v >= 1.0)
      return std::min(v, static_cast<double>(kMaxAxisPoints));
  }
  return static_cast<double>(std::max<std::size_t>(n, 1));
}

}  // namespace

void ConfigParser::parse_grid(const YAML::Node* node) {
  if (node == nullptr || !is_section(*node, "grid", "of parameter name to {start, stop, num} or {values}"))
    return;
  if (node->IsNull()) return;
  const auto axes = entries(*node, "grid").entries;
  // The grid's size from the declared axes first: two axes of 10^8 points took 25 s and 3 GB
  // to materialize before the run refused them.
  double points = 1.0;
  std::string sizes;
  for (const auto& [name, value] : axes) {
    points *= declared_points(value);
    sizes += fmt::format("{}{:g}", sizes.empty() ? "" : " x ", declared_points(value));
  }
  const bool too_large = points > static_cast<double>(kMaxGridPoints);
  if (too_large)
    error("grid", fmt::format("{} = {:g} grid points is too many (at most 2^40 = {}: the maps alone would "
                              "take over {:.3g} TiB)",
                              sizes, points, kMaxGridPoints, points * 64.0 / std::pow(2.0, 40)));
  for (const auto& [name, value] : axes) {
    const std::string path = child("grid", name);
    const ParameterInfo* info = lookup(name, path);
    claim(name, path, "grid");
    if (too_large) continue;
    if (auto axis = parse_axis(name, value, path, info)) config_.grid.push_back(std::move(*axis));
  }
}

std::optional<GridAxis> ConfigParser::parse_axis(const std::string& name, const YAML::Node& node,
                                                 const std::string& path, const ParameterInfo* info) {
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
  read_labels(view, path, axis.units, axis.long_name);
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

std::optional<GridAxis> ConfigParser::fill_values(GridAxis& axis, const YAML::Node& node,
                                                  const std::string& path, const ParameterInfo* info) {
  auto values = number_list(node, path);
  if (!values) return std::nullopt;
  bool ok = true;
  for (std::size_t i = 0; i < values->size(); ++i) ok = in_range((*values)[i], info, element(path, i)) && ok;
  if (!ok) return std::nullopt;
  axis.values = std::move(*values);
  return std::move(axis);
}

}  // namespace simpact::detail
