// Readers of an external design file into a table of points (docs/config.md "design.file"):
// CSV with a header, NumPy .npy (v1–3, 1-D or 2-D, f8/f4/i8/i4), HDF5 (1-D or 2-D numeric dataset).
// io-internal. Each returns "" on success, else the problem (the caller names the field).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace simpact::config_io {

struct DesignTable {
  std::vector<std::string> columns;  // from the file (CSV header), may be empty
  std::vector<double> values;        // row-major
  std::size_t width = 0;
};

std::string read_design_csv(const std::string& bytes, DesignTable& t);
std::string read_design_npy(const std::string& bytes, DesignTable& t);
std::string read_design_h5(const std::string& path, const std::string& dataset, DesignTable& t);

}  // namespace simpact::config_io
