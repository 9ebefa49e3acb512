#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "simpact/core/input_error.hpp"
#include "simpact/io/config_expression.hpp"
#include "sweep_config_parser.hpp"

namespace simpact::detail {

void ConfigParser::parse_orderings(const YAML::Node* node) {
  const Names allowed = to_names(kOrderingPolicyNames);
  if (node == nullptr) {
    config_.orderings.assign(kDefaultSweepOrderings.begin(), kDefaultSweepOrderings.end());
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

void ConfigParser::parse_options(const MapView& top) {
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
      node != nullptr && is_section(*node, "limits", "(" + join(kLimitKeys) + ")") && node->IsMap()) {
    const MapView view = keys(*node, "limits", kLimitKeys);
    for (const auto& field : kResolveLimitFields) {
      const auto* value = view.get(field.name);
      if (value == nullptr) continue;
      const auto v = integer(*value, child("limits", field.name), 1, std::numeric_limits<std::int64_t>::max(),
                             "must be a positive integer");
      if (v && *v > field.max) {
        error(child("limits", field.name), fmt::format("must be at most {}", field.max));
      } else if (v) {
        field.set(config_.limits, *v);
      }
    }
  }
  if (const auto* node = top.get("output");
      node != nullptr && is_section(*node, "output", "(samples, momenta, chunk_size, compression)") &&
      node->IsMap()) {
    const MapView view = keys(*node, "output", kOutputKeys);
    auto read_flag = [&](const char* key, bool& out) {
      const auto* field = view.get(key);
      if (field == nullptr) return;
      bool flag = false;
      if (field->IsScalar() && YAML::convert<bool>::decode(*field, flag)) {
        out = flag;
      } else {
        error(child("output", key), "must be true or false");
      }
    };
    read_flag("samples", config_.output.samples);
    config_.output.samples_given = view.get("samples") != nullptr;
    read_flag("momenta", config_.output.momenta);
    if (const auto* field = view.get("chunk_size")) {
      config_.output.chunk_size = integer(*field, "output.chunk_size", 0, kMaxTasks,
                                          "must be a non-negative integer (tasks per chunk, 0 = auto)")
                                      .value_or(config_.output.chunk_size);
    }
    if (const auto* field = view.get("compression")) {
      config_.output.compression =
          static_cast<int>(integer(*field, "output.compression", 0, 9, "must be an integer in 0..9")
                               .value_or(config_.output.compression));
    }
  }
}

}  // namespace simpact::detail
