#include "design_table_readers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>

#include "hdf5_handle.hpp"

namespace simpact::config_io {
namespace {

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    s = s.substr(1, s.size() - 2);
  return s;
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) out.push_back(trim(cell));
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

}  // namespace

// CSV: a header of parameter names, then one row per point ('#' lines and blank lines skipped).
std::string read_design_csv(const std::string& bytes, DesignTable& t) {
  std::istringstream in(bytes);
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string stripped = trim(line);
    if (stripped.empty() || stripped[0] == '#') continue;
    const auto cells = split_csv(stripped);
    if (t.columns.empty()) {
      t.columns = cells;
      t.width = cells.size();
      continue;
    }
    if (cells.size() != t.width)
      return fmt::format("line {} has {} values; the header has {} columns", line_no, cells.size(), t.width);
    for (std::size_t j = 0; j < cells.size(); ++j) {
      const char* begin = cells[j].c_str();
      char* end = nullptr;
      const double v = std::strtod(begin, &end);
      if (cells[j].empty() || end != begin + cells[j].size() || !std::isfinite(v))
        return fmt::format("line {}, column {}: '{}' is not a finite number", line_no, j + 1, cells[j]);
      t.values.push_back(v);
    }
  }
  if (t.columns.empty()) return "no header line (the parameter names, comma-separated)";
  return "";
}

namespace {

// The most values a design file may hold (8 bytes each: 1 GiB).
constexpr std::size_t kMaxDesignValues = std::size_t{1} << 27;

// Text from a file, fit for an error line: printable ASCII kept, other bytes as \xNN.
std::string printable(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    out += (c >= 0x20 && c < 0x7f) ? std::string(1, ch) : fmt::format("\\x{:02x}", c);
  }
  return out;
}

// The header of a .npy file: a Python dict literal {'descr': '<f8', 'fortran_order': False,
// 'shape': (3, 2), } padded with spaces and a newline. Parsed strictly: every field checked, no
// index past the end, no size that overflows.
struct NpyHeader {
  std::string descr, fortran_order;
  std::vector<std::size_t> shape;
  bool has_shape = false;
};

class NpyHeaderParser {
 public:
  explicit NpyHeaderParser(const std::string& text) : s_(text) {}

  std::string parse(NpyHeader& h) {
    skip();
    if (!eat('{')) return "header is not a Python dict ('{' expected)";
    for (;;) {
      skip();
      if (eat('}')) break;
      std::string key;
      if (!quoted(key)) return fmt::format("header: a quoted key expected at byte {}", i_);
      skip();
      if (!eat(':')) return fmt::format("header: ':' expected after '{}'", printable(key));
      skip();
      if (key == "descr") {
        if (!h.descr.empty() || !quoted(h.descr)) return "header: 'descr' is not one quoted dtype";
      } else if (key == "fortran_order") {
        if (!h.fortran_order.empty()) return "header: 'fortran_order' given twice";
        if (s_.compare(i_, 4, "True") == 0)
          h.fortran_order = "True", i_ += 4;
        else if (s_.compare(i_, 5, "False") == 0)
          h.fortran_order = "False", i_ += 5;
        else
          return "header: 'fortran_order' is not True or False";
      } else if (key == "shape") {
        if (h.has_shape) return "header: 'shape' given twice";
        if (std::string why = tuple(h.shape); !why.empty()) return "header: 'shape' " + why;
        h.has_shape = true;
      } else {
        return fmt::format("header: unknown key '{}' (descr, fortran_order, shape)", printable(key));
      }
      skip();
      if (eat(',')) continue;
      skip();
      if (eat('}')) break;
      return fmt::format("header: ',' or '}}' expected at byte {}", i_);
    }
    skip();
    if (i_ != s_.size()) return "header: text after the dict";
    if (h.descr.empty() || h.fortran_order.empty() || !h.has_shape)
      return "header lacks 'descr', 'fortran_order' or 'shape'";
    return "";
  }

 private:
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  bool quoted(std::string& out) {
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) return false;
    const char q = s_[i_];
    const std::size_t end = s_.find(q, i_ + 1);
    if (end == std::string::npos || end - i_ - 1 > 64) return false;
    out = s_.substr(i_ + 1, end - i_ - 1);
    i_ = end + 1;
    return !out.empty();
  }
  // (n,) or (n, m) or (): non-negative decimal integers below 2^40.
  std::string tuple(std::vector<std::size_t>& dims) {
    if (!eat('(')) return "is not a tuple";
    for (;;) {
      skip();
      if (eat(')')) return "";
      std::size_t n = 0, digits = 0;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
        if (++digits > 12) return "has a dimension too large";
        n = n * 10 + static_cast<std::size_t>(s_[i_++] - '0');
      }
      if (digits == 0) return "has a dimension that is not a non-negative integer";
      if (dims.size() >= 8) return "has too many dimensions";
      dims.push_back(n);
      skip();
      if (eat(',')) continue;
      if (eat(')')) return "";
      return "is not a tuple of integers";
    }
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

}  // namespace

// .npy version 1/2/3: a 2-D (points × parameters) or 1-D array of little-endian f8, f4, i8 or i4.
std::string read_design_npy(const std::string& bytes, DesignTable& t) {
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    return "not a .npy file (no \\x93NUMPY magic)";
  const int major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) |
                 static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8;
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return "truncated .npy header";
    for (int k = 0; k < 4; ++k)
      header_len |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + k])) << (8 * k);
    offset = 12;
  } else {
    return fmt::format(".npy format version {} is not supported (1, 2, 3)", major);
  }
  if (header_len > bytes.size() - offset) return "truncated .npy header";
  const std::string header = bytes.substr(offset, header_len);
  NpyHeader h;
  if (std::string why = NpyHeaderParser(header).parse(h); !why.empty()) return ".npy " + why;
  const std::string& descr = h.descr;
  std::size_t item = 0;
  char kind = 0;
  if (descr == "<f8" || descr == "float64")
    kind = 'f', item = 8;
  else if (descr == "<f4")
    kind = 'f', item = 4;
  else if (descr == "<i8")
    kind = 'i', item = 8;
  else if (descr == "<i4")
    kind = 'i', item = 4;
  else
    return fmt::format("dtype '{}' is not supported (little-endian float64, float32, int64, int32)",
                       printable(descr));
  if (h.fortran_order != "False")
    return "Fortran-ordered arrays are not supported (save with np.ascontiguousarray)";
  const std::vector<std::size_t>& dims = h.shape;
  std::string shape = "(";
  for (std::size_t k = 0; k < dims.size(); ++k) shape += (k ? ", " : "") + std::to_string(dims[k]);
  shape += dims.size() == 1 ? ",)" : ")";
  if (dims.empty() || dims.size() > 2)
    return fmt::format("shape {} is not 1-D or 2-D (points × parameters)", shape);
  const std::size_t rows = dims[0], width = dims.size() == 2 ? dims[1] : 1;
  if (rows == 0 || width == 0) return fmt::format("shape {} holds no point", shape);
  if (width > kMaxDesignValues / rows)
    return fmt::format("shape {} is over the limit of {} values", shape, kMaxDesignValues);
  const std::size_t data = offset + header_len;
  if (rows * width * item != bytes.size() - data)
    return fmt::format("{} bytes of data for shape {} of {}-byte values", bytes.size() - data, shape, item);
  t.width = width;
  t.values.resize(rows * width);
  for (std::size_t k = 0; k < rows * width; ++k) {
    const char* p = bytes.data() + data + k * item;
    double v = 0;
    if (kind == 'f' && item == 8) {
      std::memcpy(&v, p, 8);
    } else if (kind == 'f') {
      float f;
      std::memcpy(&f, p, 4);
      v = f;
    } else if (item == 8) {
      std::int64_t i;
      std::memcpy(&i, p, 8);
      v = static_cast<double>(i);
    } else {
      std::int32_t i;
      std::memcpy(&i, p, 4);
      v = i;
    }
    if (!std::isfinite(v)) return fmt::format("point {}, column {} is not finite", k / width, k % width + 1);
    t.values[k] = v;
  }
  return "";
}

// HDF5: a 2-D (points × parameters) or 1-D numeric dataset.
std::string read_design_h5(const std::string& path, const std::string& dataset, DesignTable& t) {
  try {
    h5::silence_error_printing();
    const auto file = h5::File::open(path, false);
    if (!h5::link_exists(file.id(), dataset)) return fmt::format("no dataset '{}' in the file", dataset);
    const auto ds = h5::Dataset::open(file.id(), dataset);
    const auto dims = ds.space().dims();
    if (dims.empty() || dims.size() > 2) return fmt::format("dataset '{}' is not 1-D or 2-D", dataset);
    t.width = dims.size() == 2 ? dims[1] : 1;
    if (dims[0] == 0 || t.width == 0) return fmt::format("dataset '{}' holds no point", dataset);
    if (t.width > kMaxDesignValues / dims[0])
      return fmt::format("dataset '{}' is over the limit of {} values", dataset, kMaxDesignValues);
    t.values.resize(static_cast<std::size_t>(dims[0]) * t.width);
    ds.read(H5T_NATIVE_DOUBLE, t.values.data());
  } catch (const std::exception& e) {
    return e.what();
  }
  for (double v : t.values)
    if (!std::isfinite(v)) return "a value is not finite";
  return "";
}

}  // namespace simpact::config_io
