// The JSON layer of `simpact resolve` / `simpact check` (include/simpact/io/impact_json.hpp):
// requests parse into the right problem, every malformed input names its field in one line,
// the output carries the paper's reference results (Newton's cradle, eq. 15 reversal, billiards
// at θ = π/2), and the check report measures what it claims (energy, feasibility, impulses).
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

namespace simpact {
namespace {

using nlohmann::json;

const char* const kCradle = R"({"mass_matrix": [[1,0,0],[0,1,0],[0,0,1]],
                                 "normals": [[-1,1,0],[0,-1,1]], "momentum": [1,0,0]})";

// The cradle request with one field replaced (or removed when value is null).
std::string cradle_with(const std::string& key, const json& value) {
  json doc = json::parse(kCradle);
  if (value.is_null())
    doc.erase(key);
  else
    doc[key] = value;
  return doc.dump();
}

// Runs `parse` and returns the InputError's field, checking the message is one line.
template <typename Parse>
std::string error_field(Parse parse, const std::string& text, std::string* message = nullptr) {
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
std::vector<std::string> error_fields(const std::string& text, bool check = false) {
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

std::string resolve_error(const std::string& text, std::string* message = nullptr) {
  return error_field([](const std::string& t) { parse_resolve_request(t); }, text, message);
}
std::string check_error(const std::string& text, std::string* message = nullptr) {
  return error_field([](const std::string& t) { parse_check_request(t); }, text, message);
}

json resolve(const std::string& text) {
  return json::parse(resolve_json(text));
}
json check(const std::string& text) {
  return json::parse(check_json(text));
}

void expect_vector_near(const json& actual, const std::vector<double>& expected, double tol = 1e-12) {
  ASSERT_TRUE(actual.is_array()) << actual;
  ASSERT_EQ(actual.size(), expected.size()) << actual;
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(actual[i].get<double>(), expected[i], tol) << actual;
}

// ---- parsing ------------------------------------------------------------------------------------

TEST(ImpactJsonParse, RawRequestWithDefaults) {
  const ResolveRequest r = parse_resolve_request(kCradle);
  EXPECT_EQ(r.problem.dof(), 3);
  EXPECT_EQ(r.problem.contacts(), 2);
  EXPECT_EQ(r.problem.restitution(), 1.0);
  EXPECT_EQ(r.problem.momentum()[0], 1.0);
  EXPECT_EQ(r.options.policy, OrderingPolicy::kAll);
  EXPECT_EQ(r.options.minimality, Minimality::kPropagation);
  EXPECT_TRUE(r.options.check_definition1);  // resolve reports definition1_minimal
  EXPECT_TRUE(r.model.empty());
}

TEST(ImpactJsonParse, VelocityIsMultipliedByTheMassMatrix) {
  const ResolveRequest r = parse_resolve_request(
      R"({"mass_matrix": [[2,1],[1,3]], "normals": [[1,0]], "velocity": [1,-1], "restitution": 0.25})");
  EXPECT_DOUBLE_EQ(r.problem.momentum()[0], 1.0);   // 2·1 + 1·(−1)
  EXPECT_DOUBLE_EQ(r.problem.momentum()[1], -2.0);  // 1·1 + 3·(−1)
  EXPECT_EQ(r.problem.restitution(), 0.25);
}

TEST(ImpactJsonParse, OptionsCommentAndLimits) {
  const ResolveRequest r = parse_resolve_request(
      R"({"_comment": "simpact resolve x.json", "mass_matrix": [[1]], "normals": [[1]], "momentum": [-1],
          "ordering": "random", "seed": 18446744073709551615, "minimality": "definition1",
          "limits": {"max_steps": 7, "max_depth": 1e3, "max_nodes": 99}})");
  EXPECT_EQ(r.options.policy, OrderingPolicy::kRandom);
  EXPECT_EQ(r.options.seed, 18446744073709551615ull);
  EXPECT_EQ(r.options.minimality, Minimality::kDefinition1);
  EXPECT_EQ(r.options.limits.max_steps, 7);
  EXPECT_EQ(r.options.limits.max_depth, 1000);
  EXPECT_EQ(r.options.limits.max_nodes, 99);
}

TEST(ImpactJsonParse, GapsDropOpenContacts) {
  const ResolveRequest r = parse_resolve_request(
      R"({"mass_matrix": [[1,0,0],[0,1,0],[0,0,1]], "normals": [[1,0,0],[-1,1,0],[0,-1,1]],
          "momentum": [1,0,0], "gaps": [0.5, 0, 0]})");
  EXPECT_EQ(r.problem.given_contacts(), 3);
  ASSERT_EQ(r.problem.contacts(), 2);
  EXPECT_EQ(r.problem.given_index(0), 1);
  EXPECT_EQ(r.problem.given_index(1), 2);
}

TEST(ImpactJsonParse, ModelWithArrayParameters) {
  const ResolveRequest r =
      parse_resolve_request(R"({"model": "cradle", "params": {"n": 3, "m": [1, 3, 2], "speed": 2}})");
  EXPECT_EQ(r.model, "cradle");
  EXPECT_EQ(r.params.get("m1", 0), 1.0);
  EXPECT_EQ(r.params.get("m2", 0), 3.0);
  EXPECT_EQ(r.params.get("m3", 0), 2.0);
  EXPECT_FALSE(r.params.has("m"));
  ASSERT_EQ(r.problem.dof(), 3);
  EXPECT_EQ(r.problem.metric().mass_matrix()(1, 1), 3.0);
  EXPECT_EQ(r.problem.momentum()[0], 2.0);  // m1 · speed
}

TEST(ImpactJsonParse, TopLevelRestitutionGoesToTheModel) {
  const ResolveRequest r =
      parse_resolve_request(R"({"model": "billiards", "params": {"theta": 2}, "restitution": 0.5})");
  EXPECT_EQ(r.problem.restitution(), 0.5);
}

// ---- every error names its field ---------------------------------------------------------------

TEST(ImpactJsonErrors, MissingFields) {
  EXPECT_EQ(resolve_error(cradle_with("mass_matrix", nullptr)), "mass_matrix");
  EXPECT_EQ(resolve_error(cradle_with("normals", nullptr)), "normals");
  EXPECT_EQ(resolve_error(cradle_with("momentum", nullptr)), "momentum");
  EXPECT_EQ(resolve_error(cradle_with("velocity", json::array({1, 0, 0}))), "momentum");  // both given
}

TEST(ImpactJsonErrors, WrongTypes) {
  EXPECT_EQ(resolve_error(cradle_with("mass_matrix", 1)), "mass_matrix");
  EXPECT_EQ(resolve_error(cradle_with("mass_matrix", json::array({1, 1, 1}))), "mass_matrix[0]");
  EXPECT_EQ(resolve_error(cradle_with("normals", "x")), "normals");
  EXPECT_EQ(resolve_error(cradle_with("momentum", json::object())), "momentum");
  EXPECT_EQ(resolve_error(cradle_with("momentum", json::array({1, true, 0}))), "momentum[1]");
  EXPECT_EQ(resolve_error(cradle_with("restitution", "1")), "restitution");
  EXPECT_EQ(resolve_error(cradle_with("ordering", 3)), "ordering");
  EXPECT_EQ(resolve_error(cradle_with("minimality", "minimal")), "minimality");
  EXPECT_EQ(resolve_error(cradle_with("limits", 5)), "limits");
  EXPECT_EQ(resolve_error(cradle_with("limits", json{{"max_depth", 2.5}})), "limits.max_depth");
  EXPECT_EQ(resolve_error(cradle_with("limits", json{{"max_depth", 3e9}})), "limits.max_depth");
  EXPECT_EQ(resolve_error(cradle_with("limits", json{{"max_nodes", 0}})), "limits.max_nodes");
  EXPECT_EQ(resolve_error(cradle_with("limits", json{{"max_dept", 1}})), "limits.max_dept");
  EXPECT_EQ(resolve_error(cradle_with("seed", -1)), "seed");
  EXPECT_EQ(resolve_error(cradle_with("seed", 0.5)), "seed");
}

TEST(ImpactJsonErrors, WrongShapes) {
  EXPECT_EQ(resolve_error(cradle_with("mass_matrix", json::parse("[[1,0,0],[0,1],[0,0,1]]"))),
            "mass_matrix[1]");
  EXPECT_EQ(resolve_error(cradle_with("mass_matrix", json::parse("[[1,0],[0,1],[0,0]]"))), "mass_matrix");
  EXPECT_EQ(resolve_error(cradle_with("mass_matrix", json::array())), "mass_matrix");
  EXPECT_EQ(resolve_error(cradle_with("normals", json::parse("[[-1,1,0],[0,-1]]"))), "normals[1]");
  EXPECT_EQ(resolve_error(cradle_with("normals", json::array())), "normals");
  EXPECT_EQ(resolve_error(cradle_with("momentum", json::array({1, 0}))), "momentum");
  EXPECT_EQ(resolve_error(cradle_with("momentum", json::array())), "momentum");
  EXPECT_EQ(resolve_error(cradle_with("gaps", json::array({0}))), "gaps");
  std::string message;
  EXPECT_EQ(resolve_error(cradle_with("normals", json::parse("[[-1,1,0],[0,-1]]")), &message), "normals[1]");
  EXPECT_NE(message.find("d = 3"), std::string::npos) << message;
}

TEST(ImpactJsonErrors, MassMatrixPhysics) {
  std::string message;
  EXPECT_EQ(resolve_error(cradle_with("mass_matrix", json::parse("[[1,0.5,0],[0,1,0],[0,0,1]]")), &message),
            "mass_matrix");
  EXPECT_NE(message.find("symmetric"), std::string::npos) << message;
  EXPECT_EQ(resolve_error(cradle_with("mass_matrix", json::parse("[[1,2,0],[2,1,0],[0,0,1]]")), &message),
            "mass_matrix");
  EXPECT_NE(message.find("positive definite"), std::string::npos) << message;
  EXPECT_EQ(resolve_error(cradle_with("mass_matrix", json::parse("[[1,0,0],[0,0,0],[0,0,1]]"))),
            "mass_matrix");
}

TEST(ImpactJsonErrors, ZeroNormalAndRestitution) {
  EXPECT_EQ(resolve_error(cradle_with("normals", json::parse("[[-1,1,0],[0,0,0]]"))), "normals[1]");
  EXPECT_EQ(resolve_error(cradle_with("restitution", 1.5)), "restitution");
  EXPECT_EQ(resolve_error(cradle_with("restitution", -0.1)), "restitution");
}

TEST(ImpactJsonErrors, NonFiniteNumbers) {
  std::string message;
  EXPECT_EQ(resolve_error(cradle_with("momentum", json::array({"NaN", 0, 0})), &message), "momentum[0]");
  EXPECT_NE(message.find("NaN"), std::string::npos) << message;
  EXPECT_EQ(resolve_error(cradle_with("mass_matrix", json::parse(R"([["Infinity",0,0],[0,1,0],[0,0,1]])"))),
            "mass_matrix[0][0]");
  EXPECT_EQ(resolve_error(cradle_with("normals", json::parse(R"([[-1,1,0],[0,"-inf",1]])"))),
            "normals[1][1]");
  EXPECT_EQ(resolve_error(cradle_with("restitution", "nan")), "restitution");
  EXPECT_EQ(resolve_error(cradle_with("gaps", json::array({0, "NaN"}))), "gaps[1]");
  // A bare NaN token is not JSON: a syntax error with its position.
  EXPECT_EQ(resolve_error(R"({"mass_matrix": [[1]], "normals": [[1]], "momentum": [NaN]})", &message),
            "input");
  EXPECT_NE(message.find("line 1, column"), std::string::npos) << message;
  EXPECT_NE(message.find("NaN or Infinity"), std::string::npos) << message;
  // A number beyond the doubles is named by its field (nlohmann refuses it before any reader).
  EXPECT_EQ(resolve_error(R"({"mass_matrix": [[1]], "normals": [[1]], "momentum": [0, 1e400]})", &message),
            "momentum[1]");
  EXPECT_NE(message.find("1e400"), std::string::npos) << message;
  EXPECT_EQ(
      resolve_error(R"({"mass_matrix": [[1, 0], [0, -1e999]], "normals": [[1, 0]], "momentum": [1, 0]})"),
      "mass_matrix[1][1]");
}

// A nonzero literal below the doubles: nlohmann reads 1e-999 as 0, which turned a momentum into
// "no_impact" (exit 0). Refused, naming the field, like 1e999; zero itself and strings are not.
TEST(ImpactJsonErrors, UnderflowingNumbers) {
  std::string message;
  EXPECT_EQ(resolve_error(R"({"mass_matrix": [[1]], "normals": [[1]], "momentum": [1e-999]})", &message),
            "momentum[0]");
  EXPECT_NE(message.find("underflow"), std::string::npos) << message;
  EXPECT_NE(message.find("1e-999"), std::string::npos) << message;
  // A subnormal has lost its precision: refused too.
  EXPECT_EQ(resolve_error(R"({"mass_matrix": [[1]], "normals": [[1]], "momentum": [-2.5E-310]})"),
            "momentum[0]");
  EXPECT_EQ(resolve_error(R"({"mass_matrix": [[1, 0], [0, 1]], "normals": [[1, 0]], "momentum": [1, 0],
                              "restitution": 0.00001e-999})"),
            "restitution");
  EXPECT_EQ(resolve_error(R"({"model": "billiards", "params": {"theta": 2.0944, "r_c": 1e-400}})"),
            "params.r_c");
  EXPECT_EQ(check_error(cradle_with("momentum_after", json::parse("[0, 0, 5e-324]"))), "momentum_after[2]");
  // Zero written with an exponent, and digits inside strings, are what they say.
  const ResolveRequest zero = parse_resolve_request(
      R"({"_comment": "1e-999 \" 2e-999", "mass_matrix": [[1, 0], [0, 1]], "normals": [[1, 0]],
          "momentum": [-1, 0e-999], "gaps": [-0.0e-400]})");
  EXPECT_EQ(zero.problem.momentum()[1], 0.0);
  EXPECT_EQ(zero.problem.momentum()[0], -1.0);
  // The smallest normal double is a number like any other (and the core then refuses its magnitude).
  EXPECT_EQ(resolve_error(R"({"mass_matrix": [[1]], "normals": [[1]], "momentum": [2.3e-308]})", &message),
            "momentum");
  EXPECT_EQ(message.find("underflow"), std::string::npos) << message;
}

TEST(ImpactJsonErrors, UnknownNamesSuggestTheNearest) {
  std::string message;
  EXPECT_EQ(resolve_error(cradle_with("ordering", "argmn"), &message), "ordering");
  EXPECT_NE(message.find("did you mean 'argmin'"), std::string::npos) << message;
  EXPECT_NE(message.find("argmin, argmax, index, reverse, random, all"), std::string::npos) << message;
  EXPECT_EQ(resolve_error(cradle_with("normal", json::array()), &message), "normal");
  EXPECT_NE(message.find("did you mean 'normals'"), std::string::npos) << message;
  EXPECT_EQ(resolve_error(R"({"model": "biliards"})", &message), "model");
  EXPECT_NE(message.find("did you mean 'billiards'"), std::string::npos) << message;
  EXPECT_EQ(resolve_error(R"({"model": "pendulum"})", &message), "model");
  EXPECT_NE(message.find("billiards, cradle"), std::string::npos) << message;
  EXPECT_EQ(resolve_error(R"({"model": "billiards", "params": {"thet": 2}})", &message), "params.thet");
  EXPECT_NE(message.find("did you mean 'theta'"), std::string::npos) << message;
  EXPECT_EQ(resolve_error(cradle_with("momentum_after", json::array({0, 0, 1}))), "momentum_after");
  EXPECT_EQ(resolve_error(R"({"we\nird": 1})", &message), "we\\x0aird");  // stays one line
}

TEST(ImpactJsonErrors, ModelRequests) {
  EXPECT_EQ(resolve_error(R"({"model": "billiards"})"), "params.theta");  // required
  EXPECT_EQ(resolve_error(R"({"model": "billiards", "params": {"theta": 4}})"), "params.theta");
  EXPECT_EQ(resolve_error(R"({"model": "billiards", "params": {"theta": "2"}})"), "params.theta");
  EXPECT_EQ(resolve_error(R"({"model": "billiards", "params": [2]})"), "params");
  EXPECT_EQ(resolve_error(R"({"model": 3})"), "model");
  EXPECT_EQ(resolve_error(R"({"model": "billiards", "params": {"theta": 2}, "normals": [[1]]})"), "normals");
  EXPECT_EQ(resolve_error(R"({"model": "billiards", "params": {"theta": 2}, "restitution": 2})"),
            "restitution");
  EXPECT_EQ(resolve_error(R"({"model": "billiards", "params": {"theta": 2, "restitution": 2}})"),
            "params.restitution");
  EXPECT_EQ(resolve_error(R"({"model": "billiards", "params": {"theta": 2, "restitution": 1},
                              "restitution": 1})"),
            "restitution");
  EXPECT_EQ(resolve_error(R"({"model": "cradle", "params": {"m": [1, "x", 1]}})"), "params.m[1]");
  EXPECT_EQ(resolve_error(R"({"model": "cradle", "params": {"m": []}})"), "params.m");
  EXPECT_EQ(resolve_error(R"({"model": "cradle", "params": {"mass": [1, 2]}})"), "params.mass[0]");
  // Keys are read in sorted order: "m" first, so the clash is reported at "m1".
  EXPECT_EQ(resolve_error(R"({"model": "cradle", "params": {"m1": 1, "m": [1, 2]}})"), "params.m1");
  EXPECT_EQ(resolve_error(R"({"params": {"theta": 2}, "mass_matrix": [[1]]})"), "params");
}

TEST(ImpactJsonErrors, InvalidDocuments) {
  std::string message;
  EXPECT_EQ(resolve_error(R"({"mass_matrix": [[1]],)", &message), "input");
  EXPECT_NE(message.find("invalid JSON at line 1, column"), std::string::npos) << message;
  EXPECT_EQ(resolve_error("{\n\"a\": 1,\n}", &message), "input");
  EXPECT_NE(message.find("line 3"), std::string::npos) << message;
  EXPECT_EQ(resolve_error("", &message), "input");
  EXPECT_EQ(resolve_error("  \n", &message), "input");
  EXPECT_EQ(resolve_error("[1, 2]", &message), "input");
  EXPECT_NE(message.find("object"), std::string::npos) << message;
  EXPECT_EQ(resolve_error(R"({"mass_matrix": [[1]], "normals": [[1]], "momentum": [1], "momentum": [2]})"),
            "momentum");  // repeated key
  EXPECT_EQ(resolve_error(R"({"model": "cradle", "params": {"n": 3, "n": 4}})"), "params.n");
}

TEST(ImpactJsonErrors, CheckRequests) {
  const std::string base = cradle_with("momentum_after", json::array({0, 0, 1}));
  EXPECT_NO_THROW(parse_check_request(base));
  EXPECT_EQ(check_error(kCradle), "momentum_after");  // missing
  EXPECT_EQ(check_error(cradle_with("momentum_after", json::array({0, 1}))), "momentum_after");
  EXPECT_EQ(check_error(cradle_with("velocity_after", json::array({0, 1}))), "velocity_after");
  EXPECT_EQ(check_error(cradle_with("momentum_after", json::array({0, "NaN", 1}))), "momentum_after[1]");
  json both = json::parse(base);
  both["velocity_after"] = json::array({0, 0, 1});
  EXPECT_EQ(check_error(both.dump()), "momentum_after");
  json tol = json::parse(base);
  tol["tolerance"] = 0;
  EXPECT_EQ(check_error(tol.dump()), "tolerance");
  tol["tolerance"] = "small";
  EXPECT_EQ(check_error(tol.dump()), "tolerance");
  json consistency = json::parse(base);
  std::string message;
  for (const json& bad : {json(0), json(-1e-6), json(1), json("1e-6"), json(nullptr)}) {
    consistency["consistency_tolerance"] = bad;
    EXPECT_EQ(check_error(consistency.dump(), &message), "consistency_tolerance") << bad;
  }
  consistency["consistency_tolerance"] = 2;
  check_error(consistency.dump(), &message);
  EXPECT_EQ(message, "consistency_tolerance: must be a number in (0, 1) (got 2)");
  consistency["consistency_tolerance"] = 1e-3;
  EXPECT_EQ(parse_check_request(consistency.dump()).consistency_tolerance, 1e-3);
  json unknown = json::parse(base);
  unknown["momentum_afterr"] = 1;
  EXPECT_EQ(check_error(unknown.dump()), "momentum_afterr");
  // Every number of a check request within resolve's magnitudes: 1e200 gave exit 0 with
  // energy_after null, impulses [0, 0] and a tolerance of 1e195.
  EXPECT_EQ(check_error(cradle_with("momentum_after", json::array({0, 1e200, 0})), &message),
            "momentum_after[1]");
  EXPECT_NE(message.find("[1e-60, 1e+60]"), std::string::npos) << message;
  EXPECT_EQ(check_error(cradle_with("momentum_after", json::array({1e-70, 0, 1}))), "momentum_after[0]");
  EXPECT_EQ(check_error(cradle_with("velocity_after", json::array({0, 0, -1e61}))), "velocity_after[2]");
  json heavy = json::parse(cradle_with("velocity_after", json::array({1e40, 0, 0})));
  heavy["mass_matrix"] = json::parse("[[1e30, 0, 0], [0, 1, 0], [0, 0, 1]]");
  EXPECT_EQ(check_error(heavy.dump(), &message), "velocity_after") << message;  // M q̇ = 1e70
  for (const json& tiny : {json(1e-70), json(1e-300)}) {
    json t = json::parse(base);
    t["tolerance"] = tiny;
    EXPECT_EQ(check_error(t.dump()), "tolerance") << tiny;
    t.erase("tolerance");
    t["consistency_tolerance"] = tiny;
    EXPECT_EQ(check_error(t.dump()), "consistency_tolerance") << tiny;
  }
  // The problem's own errors still name their field under check.
  json bad = json::parse(base);
  bad["normals"][1] = json::array({0, 0, 0});
  EXPECT_EQ(check_error(bad.dump()), "normals[1]");
}

// ---- resolve output ----------------------------------------------------------------------------

TEST(ImpactJsonResolve, NewtonsCradleEndsWithTheLastBallMoving) {
  const json out = resolve(kCradle);
  EXPECT_EQ(out["status"], "ok");
  ASSERT_EQ(out["outcomes"].size(), 1u);
  const json& o = out["outcomes"][0];
  expect_vector_near(o["momentum"], {0, 0, 1});  // not [0,1,0]: DESIGN §1
  expect_vector_near(o["velocity"], {0, 0, 1});
  expect_vector_near(o["impulses"], {1, 1});
  EXPECT_NEAR(o["energy"].get<double>(), 0.5, 1e-12);
  EXPECT_EQ(o["sequences"], json::parse("[[0, 1]]"));
  EXPECT_EQ(o["sequence_count"], 1);
  EXPECT_EQ(o["definition1_minimal"], true);
  EXPECT_EQ(out["unique"], true);
  EXPECT_NEAR(out["xi"].get<double>(), 0.0, 1e-15);
  EXPECT_NEAR(out["gram"][0][1].get<double>(), -0.5, 1e-12);  // Theorem 3
  EXPECT_EQ(out["dihedral_m"], 3);
  EXPECT_EQ(out["orthogonal"], false);
  EXPECT_EQ(out["closed_contacts"], json::parse("[0, 1]"));
  EXPECT_NEAR(out["energy_before"].get<double>(), 0.5, 1e-15);
  // Plastic: all three balls at 1/3 (every contact stays active), complementarity exact.
  expect_vector_near(out["plastic"]["momentum"], {1.0 / 3, 1.0 / 3, 1.0 / 3});
  expect_vector_near(out["plastic"]["impulses"], {2.0 / 3, 1.0 / 3});
  EXPECT_LE(out["plastic"]["complementarity_residual"].get<double>(), 1e-12);
  EXPECT_EQ(out["caps"]["node_cap_hit"], false);
  EXPECT_EQ(out["model"], nullptr);
}

TEST(ImpactJsonResolve, ReversalForBothOrders) {
  // p⁻ violating both contacts: eq. (15), p⁺ = p⁻ · antidiag, reached by [0,1,0] and [1,0,1].
  const json out = resolve(cradle_with("momentum", json::array({1, 0, -1})));
  ASSERT_EQ(out["outcomes"].size(), 1u);
  const json& o = out["outcomes"][0];
  expect_vector_near(o["momentum"], {-1, 0, 1});
  EXPECT_EQ(o["sequence_count"], 2);
  EXPECT_EQ(o["sequences"], json::parse("[[0, 1, 0], [1, 0, 1]]"));
  EXPECT_EQ(o["sequence_lengths"], json::parse("[3, 3]"));
  EXPECT_EQ(o["sequences_truncated"], false);
  for (const char* policy : {"argmin", "argmax", "index", "reverse"}) {
    json doc = json::parse(cradle_with("momentum", json::array({1, 0, -1})));
    doc["ordering"] = policy;
    const json single = resolve(doc.dump());
    ASSERT_EQ(single["outcomes"].size(), 1u) << policy;
    expect_vector_near(single["outcomes"][0]["momentum"], {-1, 0, 1});
    EXPECT_EQ(single["ordering"], policy);
    EXPECT_EQ(single["xi"], nullptr);  // ξ needs the full outcome set: NaN → null
    EXPECT_NEAR(single["xi_argmin_argmax"].get<double>(), 0.0, 1e-12);
  }
}

TEST(ImpactJsonResolve, SequencesUseTheGivenNormalIndices) {
  const json out = resolve(
      R"({"mass_matrix": [[1,0,0],[0,1,0],[0,0,1]], "normals": [[1,0,0],[-1,1,0],[0,-1,1]],
          "momentum": [1,0,0], "gaps": [0.5, 0, 0]})");
  EXPECT_EQ(out["contacts"], 3);
  EXPECT_EQ(out["closed_contacts"], json::parse("[1, 2]"));
  ASSERT_EQ(out["outcomes"].size(), 1u);
  EXPECT_EQ(out["outcomes"][0]["sequences"], json::parse("[[1, 2]]"));
  expect_vector_near(out["outcomes"][0]["impulses"], {0, 1, 1});  // the open contact carries none
  expect_vector_near(out["plastic"]["impulses"], {0, 2.0 / 3, 1.0 / 3});
}

TEST(ImpactJsonResolve, InelasticBlendCarriesAlphaAndTheElasticMomentum) {
  // Every contact stays active in the plastic outcome here, so α = R (DESIGN §1 erratum).
  const double r = 0.5;
  const json out = resolve(cradle_with("restitution", r));
  const json& o = out["outcomes"][0];
  EXPECT_NEAR(o["alpha"].get<double>(), r, 1e-12);
  expect_vector_near(o["elastic_momentum"], {0, 0, 1});
  expect_vector_near(o["momentum"], {r * 0 + (1 - r) / 3, (1 - r) / 3, r + (1 - r) / 3});
  // Eq. (16): R² = 1 − ΔE / E_p.
  const double e0 = out["energy_before"], e = o["energy"], ep = out["plastic"]["energy"];
  EXPECT_NEAR(1.0 - (e0 - e) / (e0 - ep), r * r, 1e-12);
  const json elastic = resolve(kCradle);
  EXPECT_FALSE(elastic["outcomes"][0].contains("alpha"));
}

TEST(ImpactJsonResolve, NoElasticOutcomeGivesNullXi) {
  // Opposite normals on one axis positively span it: only p = 0 is feasible.
  const json out = resolve(R"({"mass_matrix": [[2]], "normals": [[1], [-1]], "momentum": [-1]})");
  EXPECT_EQ(out["status"], "no_elastic_outcome");
  EXPECT_TRUE(out["outcomes"].empty());
  EXPECT_EQ(out["xi"], nullptr);
  EXPECT_EQ(out["unique"], false);
  expect_vector_near(out["plastic"]["momentum"], {0});
  EXPECT_EQ(out["dihedral_m"], nullptr);
}

TEST(ImpactJsonResolve, NoImpactWhenAlreadyFeasible) {
  const json out = resolve(cradle_with("momentum", json::array({-1, 0, 1})));
  EXPECT_EQ(out["status"], "no_impact");
  ASSERT_EQ(out["outcomes"].size(), 1u);
  expect_vector_near(out["outcomes"][0]["momentum"], {-1, 0, 1});
  EXPECT_EQ(out["outcomes"][0]["sequences"], json::parse("[[]]"));
}

TEST(ImpactJsonResolve, BilliardsXiVanishesOnlyAtRightAngle) {
  const json right = resolve(R"({"model": "billiards", "params": {"theta": 1.5707963267948966}})");
  EXPECT_LE(right["xi"].get<double>(), 1e-12);
  EXPECT_EQ(right["orthogonal"], true);
  EXPECT_EQ(right["model"], "billiards");
  EXPECT_EQ(right["dof"], 6);
  const json wide = resolve(R"({"model": "billiards", "params": {"theta": 2.0943951023931957}})");
  EXPECT_GT(wide["xi"].get<double>(), 1e-3);
  EXPECT_EQ(wide["outcomes"].size(), 2u);
  // Equal masses: the normalized cosine is ½cos θ (DESIGN errata).
  EXPECT_NEAR(wide["gram"][0][1].get<double>(), 0.5 * std::cos(2.0943951023931957), 1e-12);
  for (const auto& o : wide["outcomes"])
    EXPECT_NEAR(o["energy"].get<double>(), wide["energy_before"].get<double>(), 1e-12);
}

TEST(ImpactJsonResolve, CapsAreReported) {
  json doc = json::parse(cradle_with("momentum", json::array({1, 0, -1})));
  doc["limits"] = {{"max_depth", 2}};
  const json out = resolve(doc.dump());
  EXPECT_EQ(out["status"], "cap_hit");
  EXPECT_EQ(out["caps"]["depth_cap_hit"], true);
  EXPECT_EQ(out["unique"], false);
  EXPECT_EQ(out["limits"]["max_depth"], 2);
}

TEST(ImpactJsonResolve, PrettyAndCompactAreTheSameDocument) {
  const std::string compact = resolve_json(kCradle), pretty = resolve_json(kCradle, 2);
  EXPECT_EQ(std::count(compact.begin(), compact.end(), '\n'), 1);
  EXPECT_GT(std::count(pretty.begin(), pretty.end(), '\n'), 10);
  EXPECT_EQ(json::parse(compact), json::parse(pretty));
  EXPECT_NE(pretty.find("\"momentum\": [0.0, 0.0, 1.0]"), std::string::npos) << pretty;
}

// ---- check output ------------------------------------------------------------------------------

TEST(ImpactJsonCheck, TheResolveOutcomeIsConsistent) {
  const json out = check(cradle_with("momentum_after", json::array({0, 0, 1})));
  EXPECT_EQ(out["consistent_with_propagative_model"], true);
  EXPECT_NEAR(out["distance_to_nearest_outcome"].get<double>(), 0.0, 1e-15);
  EXPECT_EQ(out["nearest_outcome"], 0);
  EXPECT_NEAR(out["relative_energy_error"].get<double>(), 0.0, 1e-15);
  EXPECT_TRUE(out["feasibility_violations"].empty());
  expect_vector_near(out["implied_impulses"], {1, 1});
  EXPECT_LE(out["impulse_residual"].get<double>(), 1e-12);
  EXPECT_EQ(out["negative_impulses"], false);
  EXPECT_LE(out["nonnegative_impulse_residual"].get<double>(), 1e-12);
  // Elastic: contact 2 separates while carrying impulse 1, at the model's own rate: 0 (the
  // plastic LCP's |λ·rate| / ||p⁻||² would be 1).
  EXPECT_LE(out["complementarity_residual"].get<double>(), 1e-12);
  EXPECT_NEAR(out["predicted_energy_after"].get<double>(), 0.5, 1e-12);
  EXPECT_NEAR(out["relative_energy_error_vs_model"].get<double>(), 0.0, 1e-12);
  EXPECT_NEAR(out["distance_to_plastic"].get<double>(), std::sqrt(2.0 / 3.0), 1e-12);
  // [0, 0, 1] shows 1 digit: taken as printed to 6, rounding ≤ ½·10⁻⁵ · 1, doubled.
  EXPECT_EQ(out["printed_significant_digits"], 6);
  EXPECT_EQ(out["consistency_tolerance_from"], "printed_precision");
  EXPECT_NEAR(out["consistency_tolerance"].get<double>(), 1e-5, 1e-18);
  EXPECT_NEAR(out["tolerance"].get<double>(), 1e-5, 1e-18);
}

TEST(ImpactJsonCheck, AnExactAnswerPrintedTo6DigitsIsConsistent) {
  // Masses 1, 2, 3 at COR 0.7: the outcome has long decimals; printed with %.6g into the JSON
  // text it sits ~1e-6 from the exact outcome (the old fixed tolerance called it inconsistent).
  json doc = json::parse(kCradle);
  doc["mass_matrix"] = json::parse("[[1,0,0],[0,2,0],[0,0,3]]");
  doc["restitution"] = 0.7;
  const json resolved = resolve(doc.dump());
  ASSERT_EQ(resolved["outcomes"].size(), 1u);
  std::string printed = "[";
  for (const json& x : resolved["outcomes"][0]["momentum"]) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.6g", x.get<double>());
    printed += std::string(printed.size() > 1 ? ", " : "") + buf;
  }
  printed += "]";
  std::string text = doc.dump();
  text.insert(text.size() - 1, ", \"momentum_after\": " + printed);
  const json out = check(text);
  EXPECT_GT(out["distance_to_nearest_outcome"].get<double>(), 1e-7) << printed;  // the rounding is real
  EXPECT_EQ(out["consistent_with_propagative_model"], true) << printed;
  EXPECT_EQ(out["printed_significant_digits"], 6);
  EXPECT_EQ(out["consistency_tolerance_from"], "printed_precision");
  EXPECT_GT(out["consistency_tolerance"].get<double>(), out["distance_to_nearest_outcome"].get<double>());
  EXPECT_LT(out["consistency_tolerance"].get<double>(), 1e-4);
  EXPECT_TRUE(out["feasibility_violations"].empty());  // the flags follow the printed precision too
  EXPECT_EQ(out["negative_impulses"], false);
  // A tolerance the printed digits cannot meet, given in the input, is honoured.
  text.insert(text.size() - 1, R"(, "consistency_tolerance": 1e-9)");
  const json tight = check(text);
  EXPECT_EQ(tight["consistent_with_propagative_model"], false);
  EXPECT_EQ(tight["consistency_tolerance"].get<double>(), 1e-9);
  EXPECT_EQ(tight["consistency_tolerance_from"], "input");
  // A state printed to all its digits keeps the 1e-9 floor.
  const json exact = check(cradle_with("momentum_after", json::array({1.0 / 3, 1.0 / 3, 1.0 / 3})));
  EXPECT_EQ(exact["printed_significant_digits"], 16);
  EXPECT_EQ(exact["consistency_tolerance"].get<double>(), 1e-9);
}

TEST(ImpactJsonCheck, EnergyErrorAgainstTheModelAtCor07) {
  // Equal masses at R = 0.7: p⁺ = 0.7·[0,0,1] + 0.3·[1,1,1]/3 = [0.1, 0.1, 0.8], which loses
  // (1 − 0.49)·(2/3) = 0.34 of the energy — all of it predicted by the model.
  json doc = json::parse(cradle_with("momentum_after", json::array({0.1, 0.1, 0.8})));
  doc["restitution"] = 0.7;
  const json out = check(doc.dump());
  EXPECT_EQ(out["consistent_with_propagative_model"], true);
  EXPECT_NEAR(out["relative_energy_error"].get<double>(), -0.34, 1e-12);
  EXPECT_NEAR(out["predicted_energy_after"].get<double>(), 0.33, 1e-12);
  EXPECT_NEAR(out["relative_energy_error_vs_model"].get<double>(), 0.0, 1e-12);
  EXPECT_LE(out["complementarity_residual"].get<double>(), 1e-12);
  // An elastic answer at R = 0.7 conserves energy: 0.34 more than the model predicts.
  doc["momentum_after"] = json::array({0, 0, 1});
  const json elastic = check(doc.dump());
  EXPECT_NEAR(elastic["relative_energy_error"].get<double>(), 0.0, 1e-12);
  EXPECT_NEAR(elastic["relative_energy_error_vs_model"].get<double>(), 0.34, 1e-12);
  EXPECT_EQ(elastic["consistent_with_propagative_model"], false);
}

TEST(ImpactJsonCheck, RedundantNormalsAreNotCalledPulling) {
  // u3 = u1 + u2 and Δp = u1 + 0.1·u2: the minimum-norm λ (0.633, −0.267, 0.367) has a negative
  // entry, but λ = (1, 0.1, 0) ≥ 0 reproduces Δp.
  const std::string base = R"({"mass_matrix": [[1,0,0],[0,1,0],[0,0,1]],
      "normals": [[1,0,0],[0,1,0],[1,1,0]], "momentum": [-1,-0.1,0.5]})";
  json doc = json::parse(base);
  doc["momentum_after"] = json::array({0, 0, 0.5});
  const json out = check(doc.dump());
  EXPECT_EQ(out["negative_impulses"], false);
  EXPECT_LE(out["nonnegative_impulse_residual"].get<double>(), 1e-12);
  const std::vector<double> lambda = out["implied_impulses"].get<std::vector<double>>();
  ASSERT_EQ(lambda.size(), 3u);
  for (double l : lambda) EXPECT_GE(l, 0.0);
  EXPECT_NEAR(lambda[0] + lambda[2], 1.0, 1e-12);  // Σ λ_i u_i = [1, 0.1, 0]
  EXPECT_NEAR(lambda[1] + lambda[2], 0.1, 1e-12);
  // Δp = −u1: every λ reproducing it has λ1 + λ3 = −1 — pulling, flagged.
  doc["momentum_after"] = json::array({-2, -0.1, 0.5});
  const json pull = check(doc.dump());
  EXPECT_EQ(pull["negative_impulses"], true);
  EXPECT_LE(pull["impulse_residual"].get<double>(), 1e-12);
  EXPECT_GT(pull["nonnegative_impulse_residual"].get<double>(), 0.5);
  expect_vector_near(pull["implied_impulses"], {-2.0 / 3, 1.0 / 3, -1.0 / 3});
}

TEST(ImpactJsonCheck, EnergyGainAndInfeasibilityAreReported) {
  // Ball 2 leaving at speed 2 into ball 3: contact 1 violated, energy ×4.
  const json out = check(cradle_with("momentum_after", json::array({0, 2, 0})));
  EXPECT_EQ(out["consistent_with_propagative_model"], false);
  EXPECT_NEAR(out["relative_energy_error"].get<double>(), 3.0, 1e-12);
  ASSERT_EQ(out["feasibility_violations"].size(), 1u);
  EXPECT_EQ(out["feasibility_violations"][0]["contact"], 1);
  // <p,u_2>_g / (||p⁻||_g ||u_2||_g) = −2 / √2.
  EXPECT_NEAR(out["feasibility_violations"][0]["rate"].get<double>(), -std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(out["max_feasibility_violation"].get<double>(), std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(out["distance_to_nearest_outcome"].get<double>(), std::sqrt(5.0), 1e-12);
}

TEST(ImpactJsonCheck, ImpulsesOutsideTheNormalsAndPulling) {
  // p_after − p⁻ = [−2/3, 1/3, 4/3] has the component [1,1,1]/3 outside span{u_i} (sum-free vectors).
  const json off = check(cradle_with("momentum_after", json::array({1.0 / 3, 1.0 / 3, 4.0 / 3})));
  EXPECT_NEAR(off["impulse_residual"].get<double>(), std::sqrt(1.0 / 3.0), 1e-12);
  // p_after = p⁻ − u_1: an adhesive impulse λ_1 = −1.
  const json pull = check(cradle_with("momentum_after", json::array({2, -1, 0})));
  EXPECT_EQ(pull["negative_impulses"], true);
  expect_vector_near(pull["implied_impulses"], {-1, 0});
  EXPECT_LE(pull["impulse_residual"].get<double>(), 1e-12);
}

TEST(ImpactJsonCheck, PlasticStateAndVelocityInput) {
  json doc = json::parse(kCradle);
  doc["mass_matrix"] = json::parse("[[2,0,0],[0,2,0],[0,0,2]]");
  doc["velocity_after"] = json::array({1.0 / 3, 1.0 / 3, 1.0 / 3});  // momentum 2/3 each
  doc["momentum"] = json::array({2, 0, 0});
  const json out = check(doc.dump());
  EXPECT_NEAR(out["distance_to_plastic"].get<double>(), 0.0, 1e-12);
  EXPECT_EQ(out["consistent_with_propagative_model"], false);
  EXPECT_NEAR(out["relative_energy_error"].get<double>(), -2.0 / 3.0, 1e-12);
  // λ = (4/3, 2/3); contact 2 closes at rate 0 where the elastic model separates at
  // <[0,0,2] − p_after, u_2>_g = 1: |(2/3)·1| / ||p⁻||²_g (= 2) = 1/3.
  EXPECT_NEAR(out["complementarity_residual"].get<double>(), 1.0 / 3.0, 1e-12);
  expect_vector_near(out["implied_impulses"], {4.0 / 3, 2.0 / 3});
  expect_vector_near(out["momentum_after"], {2.0 / 3, 2.0 / 3, 2.0 / 3});
}

TEST(ImpactJsonCheck, NearestOfSeveralOutcomesWithAModel) {
  const std::string request =
      R"({"model": "billiards", "params": {"theta": 2.0943951023931957}, "momentum_after": [0,0,0,0,0,0]})";
  const CheckRequest parsed = parse_check_request(request);
  const json resolved = resolve(R"({"model": "billiards", "params": {"theta": 2.0943951023931957}})");
  ASSERT_EQ(resolved["outcomes"].size(), 2u);
  json doc = json::parse(request);
  doc["momentum_after"] = resolved["outcomes"][1]["momentum"];
  const json out = check(doc.dump());
  EXPECT_EQ(out["nearest_outcome"], 1);
  EXPECT_LE(out["distance_to_nearest_outcome"].get<double>(), 1e-12);
  EXPECT_EQ(out["consistent_with_propagative_model"], true);
  EXPECT_EQ(parsed.impact.problem.dof(), 6);
}

// ---- text in and out ---------------------------------------------------------------------------

TEST(ImpactJsonFiles, WriteIsWholeOrNothing) {
  // Unique per process: other build trees may run this test at the same time.
  const auto dir =
      std::filesystem::temp_directory_path() / ("simpact_cli_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "out.json").string();
  write_text_output(path, "{\"a\": 1}\n");
  EXPECT_EQ(read_text_input(path), "{\"a\": 1}\n");
  // Only the renamed file remains: no temporaries beside it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()),
            1);
  // Missing folders are created (as `run -o` does); one that cannot be (a file in the way) fails.
  write_text_output((dir / "missing" / "sub" / "out.json").string(), "x");
  EXPECT_EQ(read_text_input((dir / "missing" / "sub" / "out.json").string()), "x");
  EXPECT_THROW(write_text_output((dir / "out.json" / "x.json").string(), "x"), IoError);
  EXPECT_EQ(read_text_input(path), "{\"a\": 1}\n");
  EXPECT_THROW(read_text_input((dir / "nope.json").string()), IoError);
  EXPECT_THROW(read_text_input(dir.string()), IoError);
  std::filesystem::remove_all(dir);
}

TEST(ImpactJsonErrors, EveryIndependentProblemIsReportedOnItsOwnLine) {
  // four independent problems: an unknown key, an unknown ordering, an unknown parameter, a
  // parameter of the wrong type
  const auto fields = error_fields(
      R"({"model": "billiards", "params": {"theta": "x", "r_z": 1}, "ordering": "argmn", "foo": 1})");
  EXPECT_EQ(fields, (std::vector<std::string>{"foo", "ordering", "params.r_z", "params.theta"}));
  // raw problem: normals of the wrong length for d = 1, momentum of the wrong length, bad minimality
  EXPECT_EQ(
      error_fields(R"({"mass_matrix": [[1]], "normals": [[1, 2]], "momentum": [1, 2], "minimality": "x"})"),
      (std::vector<std::string>{"minimality", "normals[0]", "momentum"}));
  // check: the impact is fine, its two check fields are not
  EXPECT_EQ(error_fields(R"({"model": "billiards", "params": {"theta": 2}, "tolerance": 2})", true),
            (std::vector<std::string>{"momentum_after", "tolerance"}));
  try {
    parse_resolve_request(R"({"foo": 1, "bar": 2, "model": "billiards", "params": {"theta": 2}})");
    ADD_FAILURE() << "accepted";
  } catch (const InputErrors& e) {
    EXPECT_EQ(std::string(e.what()),
              "bar: unknown key (allowed: mass_matrix, normals, momentum, velocity, gaps, gap_tolerance, "
              "restitution, ordering, "
              "minimality, seed, limits, model, params, mechanism, qpos, qvel)\n"
              "foo: unknown key (allowed: mass_matrix, normals, momentum, velocity, gaps, gap_tolerance, "
              "restitution, ordering, "
              "minimality, seed, limits, model, params, mechanism, qpos, qvel)");
  }
}

}  // namespace
}  // namespace simpact
