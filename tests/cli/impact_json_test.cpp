// The JSON layer of `simpact resolve` / `simpact check` (include/simpact/io/impact_json.hpp):
// requests parse into the right problem, and every malformed input names its field in one line.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "impact_json_test_support.hpp"

namespace simpact {
namespace {

using namespace impact_json_test;
using nlohmann::json;

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
