#include "simpact/core/parameter_set.hpp"

#include <fmt/format.h>

#include <atomic>

#include "simpact/core/input_error.hpp"

namespace simpact {

void ParameterSet::set(std::string_view name, double value) {
  for (auto& [key, v] : entries_) {
    if (key == name) {
      v = value;
      return;
    }
  }
  entries_.emplace_back(std::string(name), value);
  layout_ = 0;  // a new name: no longer the layout that was stamped
}

std::uint64_t ParameterSet::new_layout_id() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

bool ParameterSet::has(std::string_view name) const {
  for (const auto& entry : entries_)
    if (entry.first == name) return true;
  return false;
}

double ParameterSet::get(std::string_view name, double fallback) const {
  for (const auto& [key, v] : entries_)
    if (key == name) return v;
  return fallback;
}

double ParameterSet::require(std::string_view name) const {
  for (const auto& [key, v] : entries_)
    if (key == name) return v;
  throw InputError(std::string(name), "required parameter is missing");
}

std::string ParameterSet::describe() const {
  std::string out;
  for (const auto& [key, v] : entries_) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{}={:.17g}", key, v);
  }
  return out;
}

}  // namespace simpact
