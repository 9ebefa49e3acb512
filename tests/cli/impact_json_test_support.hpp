// Shared helpers of the JSON layer's tests (impact_json_test.cpp, impact_json_outcomes_test.cpp):
// the cradle request, the InputError field of a bad request, and the parsed replies.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "simpact/core/input_error.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/text_io.hpp"
#include "simpact/study/impact_service.hpp"

namespace simpact::impact_json_test {

using nlohmann::json;

inline const char* const kCradle = R"({"mass_matrix": [[1,0,0],[0,1,0],[0,0,1]],
                                 "normals": [[-1,1,0],[0,-1,1]], "momentum": [1,0,0]})";

// The cradle request with one field replaced (or removed when value is null).
inline std::string cradle_with(const std::string& key, const json& value) {
  json doc = json::parse(kCradle);
  if (value.is_null())
    doc.erase(key);
  else
    doc[key] = value;
  return doc.dump();
}

// Runs `parse` and returns the InputError's field, checking the message is one line.
template <typename Parse>
inline std::string error_field(Parse parse, const std::string& text, std::string* message = nullptr) {
  try {
    parse(text);
  } catch (const InputErrors& e) {  // several problems: one line each; the first is returned
    for (const InputError& one : e.errors())
      EXPECT_EQ(std::string(one.what()).find('\n'), std::string::npos) << one.what();
    if (message != nullptr) *message = e.errors().front().what();
    return e.field();
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_EQ(what.rfind(e.field() + ": ", 0), 0u) << what;
    if (message != nullptr) *message = what;
    return e.field();
  }
  ADD_FAILURE() << "no InputError for " << text;
  return "";
}

// Every field of the problems an InputError (or InputErrors) reports, in order.
inline std::vector<std::string> error_fields(const std::string& text, bool check = false) {
  try {
    if (check)
      parse_check_request(text);
    else
      parse_resolve_request(text);
  } catch (const InputErrors& e) {
    std::vector<std::string> fields;
    for (const InputError& one : e.errors()) fields.push_back(one.field());
    return fields;
  } catch (const InputError& e) {
    return {e.field()};
  }
  return {};
}

inline std::string resolve_error(const std::string& text, std::string* message = nullptr) {
  return error_field([](const std::string& t) { parse_resolve_request(t); }, text, message);
}
inline std::string check_error(const std::string& text, std::string* message = nullptr) {
  return error_field([](const std::string& t) { parse_check_request(t); }, text, message);
}

inline json resolve(const std::string& text) {
  return json::parse(resolve_json(text));
}
inline json check(const std::string& text) {
  return json::parse(check_json(text));
}

inline void expect_vector_near(const json& actual, const std::vector<double>& expected, double tol = 1e-12) {
  ASSERT_TRUE(actual.is_array()) << actual;
  ASSERT_EQ(actual.size(), expected.size()) << actual;
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(actual[i].get<double>(), expected[i], tol) << actual;
}

// ---- parsing ------------------------------------------------------------------------------------

}  // namespace simpact::impact_json_test
