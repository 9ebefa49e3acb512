#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "simpact/core/input_error.hpp"
#include "simpact/io/config_expression.hpp"
#include "sweep_config_parser.hpp"

namespace simpact::detail {

void ConfigParser::parse_monte_carlo(const YAML::Node* node) {
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
    if (auto n =
            integer(*per_point, child(path, "samples_per_point"), 1, kMaxTasks, "must be a positive integer"))
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

std::optional<RandomParameter> ConfigParser::parse_random(const std::string& name, const YAML::Node& node,
                                                          const std::string& path,
                                                          const ParameterInfo* info) {
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
  read_labels(view, path, parameter.units, parameter.long_name);
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
      // The sampler keeps u in [2^-64, 1 - 2^-53] (sweep/sampling.cpp), so z lies in about
      // [-9.1, 8.3]: a normal or lognormal escapes the parameter's range only if its draw at one
      // of those ends does. Every parameter's range is finite (issue 39): refusing unbounded
      // supports outright would refuse every normal and lognormal.
      const auto draw = [&](double u) {
        const double x = *a + *b * normal_quantile(u);
        return normal ? x : std::exp(x);
      };
      const bool escapes =
          bounded && a && b && !(info->min <= draw(0x1.0p-64) && draw(1.0 - 0x1.0p-53) <= info->max);
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

}  // namespace simpact::detail
