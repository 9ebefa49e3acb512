// What a model says about each of its scalar parameters: used to validate configs,
// to label grid axes (units, long_name) and to document the models.
#pragma once

#include <limits>
#include <string>

namespace simpact {

struct ParameterInfo {
  std::string name;       // e.g. "theta"
  std::string units;      // e.g. "rad"; "1" for dimensionless
  std::string long_name;  // e.g. "angle between the contact normals at the cue ball"
  double default_value = std::numeric_limits<double>::quiet_NaN();  // NaN: required
  double min = -std::numeric_limits<double>::infinity();            // allowed range, inclusive
  double max = std::numeric_limits<double>::infinity();
  bool integer = false;  // e.g. the number of balls
};

}  // namespace simpact
