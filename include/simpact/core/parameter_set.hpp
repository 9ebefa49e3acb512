// Named scalar parameters of one impact (a model's params, grid values, Monte Carlo draws).
// A flat, ordered list: tiny, cheap to copy, and printable in error messages.
#pragma once

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

 private:
  std::vector<std::pair<std::string, double>> entries_;
};

}  // namespace simpact
