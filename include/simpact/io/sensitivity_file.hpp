// Writes the results of `simpact analyze` into a finished sweep file (serial HDF5, one process):
//   /sensitivity/<axis>            copies of the grid axes (dimension scales), if any
//   /sensitivity/parameter         the analysed parameters' names (a string dimension scale)
//   /sensitivity/parameter_2       the same, second dimension of S2
//   /sensitivity/<output>/<index>  [grid axes..., parameter(, parameter_2)] float64 datasets
// Any earlier /sensitivity group is replaced. Attributes: on each output group `method`,
// `estimators`, `bootstrap`, `seed`, `confidence`, `samples_dataset`, `excluded` (values
// left out as non-finite); on each index `long_name`, `units`.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "simpact/io/safe_file.hpp"

namespace simpact {

struct SensitivityAxis {
  std::string name, units, long_name;
  std::vector<double> values;
};

struct SensitivityIndexData {
  std::string name;  // S1, ST, S1_conf, ST_conf, S2, S2_conf, mu, mu_star, sigma, mu_star_conf
  std::string long_name;
  std::string units = "1";
  bool pairwise = false;       // S2: one more `parameter_2` dimension
  std::vector<double> values;  // C order over [grid..., parameter(, parameter_2)]
};

struct SensitivityOutput {
  std::string name;  // group under /sensitivity
  std::vector<std::pair<std::string, std::string>> string_attributes;
  std::vector<std::pair<std::string, std::int64_t>> integer_attributes;
  std::vector<std::pair<std::string, double>> double_attributes;
  std::vector<SensitivityIndexData> indices;
};

// Writes (replaces) /sensitivity of the result `path`. Throws IoError. By default through a
// copy renamed over `path` when complete (a failure leaves `path` as it was; needs room for a
// second copy): a symbolic link is written through (its target replaced, the link kept), the
// copy keeps the file's mode and, where the process may, its owner; with `read_as` (the file's
// identity when its contents were read) the file must still be that one, unchanged, when it is
// copied and when the copy replaces it, else nothing is replaced (IoError). `in_place` writes
// into `path` itself (a staged file that a failure discards).
void write_sensitivity(const std::string& path, const std::vector<SensitivityAxis>& axes,
                       const std::vector<std::string>& parameters,
                       const std::vector<SensitivityOutput>& outputs, bool in_place = false,
                       const FileIdentity* read_as = nullptr);

}  // namespace simpact
