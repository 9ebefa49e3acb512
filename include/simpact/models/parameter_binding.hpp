// Reads a model's parameters from a ParameterSet by position instead of by name. The positions
// are resolved once per layout of names and reused while the layout stays the same — a sweep's
// tasks all share one (fixed parameters, grid axes, random draws, in that order), so a task
// pays one name comparison per entry instead of a search per parameter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simpact/core/parameter_info.hpp"
#include "simpact/core/parameter_set.hpp"

namespace simpact {

class ParameterBinding {
 public:
  // values[i] = parameter infos[i] of `params` (its default when absent), checked exactly as
  // read_parameter checks it (same errors). `infos` must be the same list on every call.
  void read(const ParameterSet& params, const std::vector<ParameterInfo>& infos, double* values);

 private:
  bool matches(const ParameterSet& params) const;
  void bind(const ParameterSet& params, const std::vector<ParameterInfo>& infos);

  std::vector<std::string> layout_;  // the names of the entries the positions refer to
  std::vector<int> position_;        // per info: index into the entries, -1 when absent
  std::uint64_t layout_id_ = 0;      // the ParameterSet layout tag of layout_ (0: none)
};

}  // namespace simpact
