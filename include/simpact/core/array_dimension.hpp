// A named dimension of a per-task array (a sweep's time series [record, coordinate]): shared by
// every array that names it, stored as a dimension scale of that name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace simpact {

struct ArrayDimension {
  std::string name;  // e.g. "record", "coordinate"
  std::int64_t extent = 0;
  std::string long_name = {};
  std::vector<std::string> labels = {};       // string values of the scale; empty: 0..extent-1
  std::vector<std::string> label_units = {};  // optional: a <name>_units variable, per label
};

}  // namespace simpact
