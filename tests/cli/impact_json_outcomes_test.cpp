// The JSON replies of `simpact resolve` / `simpact check` (study/impact_service.hpp): the output
// carries the paper's reference results (Newton's cradle, eq. 15 reversal, billiards at θ = π/2),
// the check report measures what it claims (energy, feasibility, impulses), and a written reply is
// whole or absent.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "impact_json_test_support.hpp"

namespace simpact {
namespace {

using namespace impact_json_test;
using nlohmann::json;

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

}  // namespace
}  // namespace simpact
