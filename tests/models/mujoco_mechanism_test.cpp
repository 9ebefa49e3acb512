// Mechanisms from MJCF files (MuJoCo) reproduce the built-in models they describe: the cradle
// (3 and 5 balls, equal and unequal masses) and the billiards break over billiards_theta's θ grid
// give the same outcomes, ξ, plastic outcome and energies to 1e-9; placement closes contacts;
// bad input names its field.
#include "simpact/models/mujoco_mechanism.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "../../tests/support/temp_dir.hpp"
#include "../support/resolution_summary.hpp"
#include "simpact/core/impact_resolution.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/models/billiards_scenario.hpp"
#include "simpact/models/cradle_scenario.hpp"
#include "simpact/models/file_mechanism_family.hpp"

namespace simpact {
namespace {

constexpr double kPi = 3.141592653589793;

std::string example(const std::string& name) {
  const char* root = std::getenv("SIMPACT_SOURCE_DIR");
  return std::string(root ? root : SIMPACT_SOURCE_DIR) + "/examples/mechanisms/" + name;
}

MechanismSpec spec_of(const std::string& file, std::vector<std::pair<std::string, std::string>> contacts,
                      std::vector<std::string> place = {}) {
  MechanismSpec spec;
  spec.file = example(file);
  spec.contacts = std::move(contacts);
  spec.place = std::move(place);
  return spec;
}

using Summary = test_support::ResolutionSummary;
using test_support::summarize;

void expect_same(const Summary& a, const Summary& b, double tol, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(a.status, b.status);
  ASSERT_EQ(a.outcomes.size(), b.outcomes.size());
  const double scale = std::sqrt(2 * a.energy_before) + 1.0;
  for (std::size_t j = 0; j < a.outcomes.size(); ++j) {
    ASSERT_EQ(a.outcomes[j].size(), b.outcomes[j].size());
    for (std::size_t i = 0; i < a.outcomes[j].size(); ++i)
      EXPECT_NEAR(a.outcomes[j][i], b.outcomes[j][i], tol * scale);
    EXPECT_NEAR(a.energies[j], b.energies[j], tol * (a.energy_before + 1));
  }
  ASSERT_EQ(a.plastic.size(), b.plastic.size());
  for (std::size_t i = 0; i < a.plastic.size(); ++i) EXPECT_NEAR(a.plastic[i], b.plastic[i], tol * scale);
  if (std::isnan(a.xi))
    EXPECT_TRUE(std::isnan(b.xi));
  else
    EXPECT_NEAR(a.xi, b.xi, tol);
  EXPECT_NEAR(a.energy_before, b.energy_before, tol * (a.energy_before + 1));
}

ImpactProblem mechanism_problem(const MujocoMechanism& mechanism, const ParameterSet& params) {
  auto ws = mechanism.make_workspace();
  MechanismState state = mechanism.state_from(params);
  mechanism.check_state(state, "qpos", "qvel");
  return mechanism.make_problem(state, *ws);
}

TEST(MujocoMechanism, CradleMatchesBuiltinEqualAndUnequalMasses) {
  const char* names = "abcde";
  for (int n : {3, 5}) {
    std::vector<std::pair<std::string, std::string>> contacts;
    for (int i = 0; i + 1 < n; ++i)
      contacts.emplace_back(std::string("ball_") + names[i], std::string("ball_") + names[i + 1]);
    const MujocoMechanism mechanism(spec_of(n == 3 ? "cradle3.xml" : "cradle5.xml", contacts));
    ASSERT_EQ(mechanism.nv(), n);
    const std::vector<std::vector<double>> mass_sets = {
        std::vector<double>(n, 1.0),
        n == 3 ? std::vector<double>{1, 3, 1} : std::vector<double>{1, 3, 1, 3, 1},
        n == 3 ? std::vector<double>{2, 1, 0.5} : std::vector<double>{2, 1, 0.5, 4, 1}};
    for (const auto& masses : mass_sets)
      for (double r : {1.0, 0.7, 0.0}) {
        ParameterSet builtin, file;
        builtin.set("n", n);
        builtin.set("speed", 1.5);
        builtin.set("restitution", r);
        file.set(std::string("qvel.x_a"), 1.5);
        file.set("restitution", r);
        for (int i = 0; i < n; ++i) {
          builtin.set("m" + std::to_string(i + 1), masses[i]);
          file.set(std::string("mass.") + names[i], masses[i]);
        }
        const ImpactProblem a = CradleFamily().make_problem(builtin);
        const ImpactProblem b = mechanism_problem(mechanism, file);
        ASSERT_EQ(b.contacts(), n - 1);
        expect_same(
            summarize(a), summarize(b), 1e-9,
            "n=" + std::to_string(n) + " m2=" + std::to_string(masses[1]) + " R=" + std::to_string(r));
      }
  }
}

TEST(MujocoMechanism, BilliardsMatchesBuiltinOverThetaGrid) {
  const MujocoMechanism mechanism(spec_of("billiards.xml", {{"ball_c", "ball_a"}, {"ball_c", "ball_b"}}));
  ASSERT_EQ(mechanism.nv(), 6);
  const double base = std::sqrt(2.0);
  int compared = 0, unique = 0;
  for (int k = 0; k < 1025; k += 8) {  // billiards_theta's grid, every 8th point (and θ = π/2, π)
    const double theta = kPi / 3 + (kPi - kPi / 3) * k / 1024.0;
    ParameterSet builtin, file;
    builtin.set("theta", theta);
    const double h = theta / 2;
    file.set("qpos.ax", 2 * std::cos(h) - base);
    file.set("qpos.ay", 2 * std::sin(h) - base);
    file.set("qpos.bx", 2 * std::cos(h) - base);
    file.set("qpos.by", -2 * std::sin(h) + base);
    file.set("qvel.cx", 1.0);
    const Summary a = summarize(BilliardsFamily().make_problem(builtin));
    const Summary b = summarize(mechanism_problem(mechanism, file));
    expect_same(a, b, 1e-9, "theta=" + std::to_string(theta));
    ++compared;
    unique += b.outcomes.size() == 1;
  }
  EXPECT_EQ(compared, 129);
  EXPECT_GT(unique, 0);  // θ = π/2 (k = 256) and θ = π (k = 1024): ξ = 0
}

TEST(MujocoMechanism, ParametersNamedByWhatTheySet) {
  const MujocoMechanism mechanism(spec_of("cradle3.xml", {{"ball_a", "ball_b"}}));
  std::vector<std::string> names;
  for (const auto& p : mechanism.parameters()) names.push_back(p.name);
  for (const char* expected : {"qpos.x_a", "qvel.x_c", "mass.b", "pos.c[0]", "size.ball_a[0]", "restitution"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  // pos.<body> moves a ball: with ball c 0.5 m further away, contact b–c opens.
  ParameterSet params;
  params.set("qvel.x_a", 1.0);
  params.set("pos.c[0]", 4.5);
  const MujocoMechanism two(spec_of("cradle3.xml", {{"ball_a", "ball_b"}, {"ball_b", "ball_c"}}));
  EXPECT_EQ(mechanism_problem(two, params).contacts(), 1);
  // size.<geom> grows a ball: its gap closes again (overlap: penetration, closed).
  params.set("size.ball_c[0]", 1.5);
  EXPECT_EQ(mechanism_problem(two, params).contacts(), 2);
}

TEST(MujocoMechanism, PlacementClosesContacts) {
  // Ball c starts 0.3 m away; placing x_c closes contact b–c exactly.
  const MujocoMechanism mechanism(
      spec_of("cradle3.xml", {{"ball_a", "ball_b"}, {"ball_b", "ball_c"}}, {"qpos.x_c"}));
  auto ws = mechanism.make_workspace();
  ParameterSet params;
  params.set("qpos.x_c", 0.3);
  params.set("qvel.x_a", 1.0);
  MechanismState state = mechanism.state_from(params);
  mechanism.place(state, *ws);
  EXPECT_NEAR(state.qpos[2], 0.0, 1e-9);
  // A coordinate that cannot close the contact: the error names it with its gap.
  const MujocoMechanism stuck(spec_of("cradle3.xml", {{"ball_b", "ball_c"}}, {"qpos.x_a"}));
  MechanismState far = stuck.state_from(params);
  try {
    stuck.place(far, *stuck.make_workspace());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "mechanism.contacts[0]");
    EXPECT_NE(std::string(e.what()).find("gap 0.3"), std::string::npos) << e.what();
  }
}

TEST(MujocoMechanism, BadInputNamesTheField) {
  auto field_of = [](const MechanismSpec& spec) {
    try {
      MujocoMechanism m(spec);
    } catch (const InputError& e) {
      return e.field();
    }
    return std::string("(none)");
  };
  EXPECT_EQ(field_of(spec_of("missing.xml", {{"a", "b"}})), "mechanism.file");
  EXPECT_EQ(field_of(spec_of("cradle3.xml", {{"ball_a", "ball_x"}})), "mechanism.contacts[0][1]");
  EXPECT_EQ(field_of(spec_of("cradle3.xml", {{"ball_a", "ball_b"}}, {"qpos.nope"})), "mechanism.place[0]");
  testing::TempDir dir;
  const std::string bad = dir / "bad.xml";
  std::ofstream(bad) << "<mujoco><worldbody><body></mujoco>";
  MechanismSpec malformed;
  malformed.file = bad;
  malformed.contacts = {{"a", "b"}};
  EXPECT_EQ(field_of(malformed), "mechanism.file");

  const MujocoMechanism mechanism(spec_of("cradle3.xml", {{"ball_a", "ball_b"}}));
  MechanismState state = mechanism.state_from({});
  state.qpos.resize(2);
  try {
    mechanism.check_state(state, "qpos", "qvel");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "qpos");
  }
  ParameterSet negative;
  negative.set("mass.a", -1.0);
  try {
    (void)mechanism.state_from(negative);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "mass.a");
  }
}

// One model serves every thread: each builds through its own workspace, with the same bits.
TEST(FileMechanismFamily, ThreadsGiveTheSameProblem) {
  const FileMechanismFamily model(std::make_shared<const MujocoMechanism>(
      spec_of("billiards.xml", {{"ball_c", "ball_a"}, {"ball_c", "ball_b"}})));
  ParameterSet params;
  params.set("qvel.cx", 1.0);
  params.set("qpos.ay", 0.1);
  const double xi = summarize(model.make_problem(params)).xi;
  std::vector<double> seen(8, 0.0);
#pragma omp parallel for num_threads(4)
  for (int i = 0; i < 8; ++i) seen[i] = summarize(model.make_problem(params)).xi;
  for (double x : seen) EXPECT_EQ(x, xi);
}

}  // namespace
}  // namespace simpact
