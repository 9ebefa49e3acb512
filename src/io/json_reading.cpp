#include "json_reading.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "simpact/io/sweep_config_yaml.hpp"  // nearest_name: the same "did you mean" as the YAML configs

namespace simpact::detail {

// ---- one-line messages -------------------------------------------------------------------------

// User text inside a one-line message: control characters escaped, long text cut.
std::string printable(const std::string& s, std::size_t max_shown) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < max_shown; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += s[i];
  }
  if (s.size() > max_shown) out += "...";
  return out;
}

std::string in_quotes(const std::string& s) {
  return "'" + printable(s) + "'";
}

bool contains(const Names& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string index_field(const std::string& field, std::size_t i) {
  return fmt::format("{}[{}]", field, i);
}

// The message of an InputError without its "field: " prefix (to re-throw under another field).
std::string message_of(const InputError& e) {
  const std::string what = e.what();
  const std::size_t prefix = e.field().size() + 2;
  return what.size() >= prefix ? what.substr(prefix) : what;
}

namespace {

bool names_non_finite(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.erase(0, 1);
  return s == "nan" || s == "inf" || s == "infinity";
}

// Whether the JSON syntax error at byte `byte` (1-based, as nlohmann reports it) is a NaN or
// Infinity token, which many writers emit for non-finite doubles.
bool names_non_finite_at(const std::string& text, std::size_t byte) {
  if (byte == 0 || byte > text.size()) return false;
  std::size_t start = byte - 1;
  while (start > 0 && std::isalpha(static_cast<unsigned char>(text[start - 1]))) --start;
  std::size_t end = start;
  while (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end]))) ++end;
  return names_non_finite(text.substr(start, end - start));
}

// The text of every number token, in document order (strings skipped): nlohmann rounds 1e-999
// to 0.0 without a word, so the callback compares each parsed number with its literal.
std::vector<std::string> number_tokens(const std::string& text) {
  std::vector<std::string> tokens;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      const std::size_t start = i;
      while (i < text.size() && std::strchr("0123456789+-.eE", text[i]) != nullptr && text[i] != '\0') ++i;
      tokens.push_back(text.substr(start, i - start));
      --i;
    }
  }
  return tokens;
}

// A nonzero literal (a nonzero digit before the exponent) read as 0 or as a subnormal, which
// has lost precision: 1e-999, 2e-310.
bool underflowed(const std::string& literal, double parsed) {
  if (std::fabs(parsed) >= std::numeric_limits<double>::min()) return false;
  const std::size_t exponent = literal.find_first_of("eE");
  return literal.substr(0, exponent).find_first_of("123456789") != std::string::npos;
}

}  // namespace

// ---- parsing the document -----------------------------------------------------------------------

namespace {

// Where the parser is: one frame per open object or array, with the object's current key or the
// array's count of finished elements.
struct Frame {
  bool object = false;
  std::set<std::string> keys;
  std::string key;
  std::size_t count = 0;
};

// A key as a path component: control characters escaped, the empty key as "".
std::string key_name(const std::string& key) {
  return key.empty() ? std::string("\"\"") : printable(key);
}

// The field the parser is at: "newton.tolerance", "q0[2]", "records[1].x".
std::string field_of(const std::vector<Frame>& frames) {
  std::string path;
  for (const Frame& f : frames) {
    if (f.object)
      path += (path.empty() ? "" : ".") + key_name(f.key);
    else
      path += index_field("", f.count);
  }
  return path.empty() ? "input" : path;
}

}  // namespace

// nlohmann keeps the last of repeated keys silently; a repeated key is almost always a mistake
// (two edits of the same field), so the parser callback rejects it, naming the key path. The
// frames also name the field of a number beyond the doubles (1e999), which nlohmann refuses,
// and of a nonzero number below them (1e-999), which nlohmann would read as 0.
Json parse_document(const std::string& text) {
  std::vector<Frame> frames;
  const std::vector<std::string> numbers = number_tokens(text);
  std::size_t number_index = 0;
  const auto finished_element = [&frames] {
    if (!frames.empty() && !frames.back().object) ++frames.back().count;
  };
  const Json::parser_callback_t callback = [&frames, &finished_element, &numbers, &number_index](
                                               int /*depth*/, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
        frames.push_back({true, {}, {}, 0});
        break;
      case Json::parse_event_t::array_start:
        frames.push_back({false, {}, {}, 0});
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        if (!frames.empty()) frames.pop_back();
        finished_element();
        break;
      case Json::parse_event_t::key: {
        const std::string key = parsed.get<std::string>();
        if (!frames.empty()) frames.back().key = key;
        if (!frames.empty() && !frames.back().keys.insert(key).second)
          throw InputError(field_of(frames), "duplicate key");
        break;
      }
      case Json::parse_event_t::value:
        if (parsed.is_number() && number_index < numbers.size()) {
          const std::string& literal = numbers[number_index++];
          if (parsed.is_number_float() && underflowed(literal, parsed.get<double>()))
            throw InputError(
                field_of(frames),
                fmt::format("number underflow: '{}' is nonzero but below the normal doubles "
                            "(about 2.2e-308) and would be read as {:g}: write 0, or change units",
                            printable(literal, 80), parsed.get<double>()));
        }
        finished_element();
        break;
    }
    return true;
  };
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError("input", "is empty (expected a JSON object)");
  try {
    return Json::parse(text, callback);
  } catch (const Json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 9: syntax error ..."
    std::string what = e.what();
    const std::size_t at = what.find(" at line ");
    what = at == std::string::npos ? what.substr(what.find(']') + 2) : what.substr(at + 1);
    throw InputError("input",
                     "invalid JSON " + printable(what, 400) +
                         (names_non_finite_at(text, e.byte) ? " (JSON has no NaN or Infinity)" : ""));
  } catch (const Json::out_of_range& e) {
    // out_of_range.406 "number overflow parsing '1e400'": a number beyond the doubles, at the
    // field the frames point to.
    std::string what = e.what();
    what = what.substr(what.find(']') + 2);
    if (e.id == 406)
      throw InputError(field_of(frames), "number overflow: " + printable(what.substr(what.find('\'')), 80) +
                                             " is beyond the range of a double (about 1.8e308)");
    throw InputError("input", "invalid JSON: " + printable(what, 400));
  } catch (const Json::exception& e) {
    std::string what = e.what();
    what = what.substr(what.find(']') + 2);
    throw InputError("input", "invalid JSON: " + printable(what, 400));
  }
}

// ---- typed readers, each naming its field -------------------------------------------------------

double read_number(const Json& j, const std::string& field) {
  if (j.is_number()) {
    const double v = j.get<double>();
    if (!std::isfinite(v)) throw InputError(field, "must be finite");
    return v;
  }
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (names_non_finite(s))
      throw InputError(field, fmt::format("must be a finite number (got the string {}; JSON has no NaN "
                                          "or Infinity)",
                                          in_quotes(s)));
    throw InputError(field, fmt::format("must be a number (got the string {})", in_quotes(s)));
  }
  throw InputError(field, fmt::format("must be a number (got {})", j.type_name()));
}

std::string read_string(const Json& j, const std::string& field) {
  if (!j.is_string()) throw InputError(field, fmt::format("must be a string (got {})", j.type_name()));
  return j.get<std::string>();
}

// An integer in [lo, hi]; integral floats (1e3) are accepted, fractions are not.
long long read_integer(const Json& j, const std::string& field, long long lo, long long hi) {
  const std::string range = fmt::format("must be an integer in [{}, {}]", lo, hi);
  if (j.is_number_unsigned()) {
    const auto v = j.get<unsigned long long>();
    if ((lo > 0 && v < static_cast<unsigned long long>(lo)) || v > static_cast<unsigned long long>(hi))
      throw InputError(field, fmt::format("{} (got {})", range, v));
    return static_cast<long long>(v);
  }
  if (j.is_number_integer()) {
    const auto v = j.get<long long>();
    if (v < lo || v > hi) throw InputError(field, fmt::format("{} (got {})", range, v));
    return v;
  }
  const double v = read_number(j, field);
  if (v != std::floor(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi))
    throw InputError(field, fmt::format("{} (got {})", range, v));
  return static_cast<long long>(v);
}

Eigen::VectorXd read_vector(const Json& j, const std::string& field) {
  if (!j.is_array())
    throw InputError(field, fmt::format("must be an array of numbers (got {})", j.type_name()));
  Eigen::VectorXd v(static_cast<Eigen::Index>(j.size()));
  for (std::size_t i = 0; i < j.size(); ++i)
    v[static_cast<Eigen::Index>(i)] = read_number(j[i], index_field(field, i));
  return v;
}

// Rows of equal length; expected_cols ≥ 0 also fixes that length (the normals against d).
Eigen::MatrixXd read_matrix(const Json& j, const std::string& field, int expected_cols) {
  if (!j.is_array())
    throw InputError(field,
                     fmt::format("must be an array of rows (arrays of numbers), got {}", j.type_name()));
  const std::size_t rows = j.size();
  std::size_t cols = expected_cols >= 0 ? static_cast<std::size_t>(expected_cols) : 0;
  for (std::size_t i = 0; i < rows; ++i) {
    const Json& row = j[i];
    const std::string row_field = index_field(field, i);
    if (!row.is_array())
      throw InputError(row_field, fmt::format("must be an array of numbers (got {})", row.type_name()));
    if (expected_cols < 0 && i == 0) cols = row.size();
    if (row.size() != cols) {
      if (expected_cols >= 0)
        throw InputError(row_field, fmt::format("must have length d = {} (got {})", cols, row.size()));
      throw InputError(row_field, fmt::format("has {} entries but {}[0] has {} (rows must be equal)",
                                              row.size(), field, cols));
    }
  }
  Eigen::MatrixXd m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(rows == 0 ? 0 : cols));
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t c = 0; c < cols; ++c)
      m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c)) =
          read_number(j[i][c], index_field(index_field(field, i), c));
  return m;
}

}  // namespace simpact::detail
