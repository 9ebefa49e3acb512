// Named scalar parameters of one impact (a model's params, grid values, Monte Carlo draws).
// A flat, ordered list: tiny, cheap to copy, and printable in error messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace simpact {

class ParameterSet {
 public:
  // Sets (or overwrites) a parameter.
  void set(std::string_view name, double value);
  bool has(std::string_view name) const;
  // The value, or `fallback` when absent.
  double get(std::string_view name, double fallback) const;
  // The value; throws InputError(name, "required parameter is missing") when absent.
  double require(std::string_view name) const;
  const std::vector<std::pair<std::string, double>>& entries() const { return entries_; }
  // "theta=1.5708, r_a=1" — for error messages naming a task's inputs.
  std::string describe() const;

  // The layout tag: a sweep fills the same names in the same order for every task, so it stamps
  // the set with an id (new_layout_id) and then writes values by position, and a model reading
  // the set by position re-checks only the tag instead of comparing every name. 0: untagged.
  // Copies keep the tag (they copy the names too); adding a name clears it.
  std::uint64_t layout() const { return layout_; }
  void stamp_layout(std::uint64_t id) { layout_ = id; }
  // Overwrites entry i's value (i < entries().size()); the names, hence the tag, stay.
  void set_at(std::size_t i, double value) { entries_[i].second = value; }
  // A process-wide unique non-zero id for stamp_layout.
  static std::uint64_t new_layout_id();

 private:
  std::vector<std::pair<std::string, double>> entries_;
  std::uint64_t layout_ = 0;
};

}  // namespace simpact
