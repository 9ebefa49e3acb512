// Reading JSON requests (io/ only; not installed): one-line message helpers, an error list that
// collects the problems of independent fields, the document parser (repeated keys and NaN
// tokens refused) and typed readers that name the field they read.
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "name_list.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/io/impact_json.hpp"

namespace simpact::detail {

using Json = nlohmann::json;
using Names = std::vector<std::string>;

// Collects the problems of independent fields, so a request with several mistakes gets one
// line per problem (InputErrors) instead of only the first.
class ErrorList {
 public:
  template <class F>
  bool attempt(F&& f) {
    try {
      f();
      return true;
    } catch (const InputErrors& e) {
      for (const auto& one : e.errors()) errors_.push_back(one);
    } catch (const InputError& e) {
      errors_.push_back(e);
    }
    return false;
  }
  bool empty() const { return errors_.empty(); }
  void raise() const {
    if (errors_.size() == 1) throw errors_.front();
    if (!errors_.empty()) throw InputErrors(errors_);
  }

 private:
  std::vector<InputError> errors_;
};

// User text inside a one-line message: control characters escaped, long text cut.
std::string printable(const std::string& s, std::size_t max_shown = 60);

std::string in_quotes(const std::string& s);

bool contains(const Names& names, const std::string& name);

std::string index_field(const std::string& field, std::size_t i);

// The message of an InputError without its "field: " prefix (to re-throw under another field).
std::string message_of(const InputError& e);

// nlohmann keeps the last of repeated keys silently; a repeated key is almost always a mistake
// (two edits of the same field), so the parser callback rejects it, naming the key path.
Json parse_document(const std::string& text);

double read_number(const Json& j, const std::string& field);

std::string read_string(const Json& j, const std::string& field);

// An integer in [lo, hi]; integral floats (1e3) are accepted, fractions are not.
long long read_integer(const Json& j, const std::string& field, long long lo, long long hi);

Eigen::VectorXd read_vector(const Json& j, const std::string& field);

// Rows of equal length; expected_cols ≥ 0 also fixes that length (the normals against d).
Eigen::MatrixXd read_matrix(const Json& j, const std::string& field, int expected_cols);

}  // namespace simpact::detail
