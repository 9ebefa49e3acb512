// Issue 34 §3, contacts as the robot has them: every witness point of a contact within the gap
// tolerance is a contact of the impact (a box flat on a plane: 4, a level capsule: 2), so ξ and
// the outcomes are continuous as a foot tilts through flat; contacts may name bodies (a URDF
// link); tolerances follow the mechanism's scale (a file in mm and g gives the metre file's
// answers); parameter edits give the model the file compiles to with the edited values (issue 35).
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../support/resolution_summary.hpp"
#include "../support/temp_dir.hpp"
#include "simpact/core/impact_resolution.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/models/mujoco_mechanism.hpp"
#include "simpact/study/design_service.hpp"

namespace simpact {
namespace {

using Contacts = std::vector<std::pair<std::string, std::string>>;
using test_support::summarize;

std::string example(const std::string& name) {
  const char* root = std::getenv("SIMPACT_SOURCE_DIR");
  return std::string(root ? root : SIMPACT_SOURCE_DIR) + "/examples/mechanisms/" + name;
}

std::string write(const testing::TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir / name;
  std::ofstream(path) << text;
  return path;
}

MechanismSpec spec_of(const std::string& file, Contacts contacts, std::vector<std::string> place = {},
                      const std::string& witnesses = "all") {
  MechanismSpec spec;
  spec.file = file;
  spec.contacts = std::move(contacts);
  spec.place = std::move(place);
  spec.witnesses = witnesses;
  return spec;
}

// A leg on a hip that slides in x and z, pitching about y, with a foot at its end 0.54 below the
// hip: `foot` is the foot's geom (box or capsule), lengths in `unit` m and masses in `mass_unit`
// kg (1, 1: metres and kilograms; 1e-3, 1e-3: millimetres and grams).
std::string leg_xml(const std::string& foot, double unit = 1.0, double mass_unit = 1.0) {
  const auto l = [&](double metres) { return std::to_string(metres / unit); };
  const auto kg = [&](double kilograms) { return std::to_string(kilograms / mass_unit); };
  const auto inertia = [&](double si) { return std::to_string(si / (mass_unit * unit * unit)); };
  std::string foot_geom =
      foot == "box"
          ? "<geom name=\"foot\" type=\"box\" pos=\"" + l(0.03) + " 0 " + l(-0.52) + "\" size=\"" + l(0.1) +
                " " + l(0.04) + " " + l(0.02) + "\" mass=\"" + kg(0.5) + "\"/>"
          : "<geom name=\"foot\" type=\"capsule\" fromto=\"" + l(-0.08) + " 0 " + l(-0.52) + " " + l(0.12) +
                " 0 " + l(-0.52) + "\" size=\"" + l(0.02) + "\" mass=\"" + kg(0.5) + "\"/>";
  return "<mujoco><option gravity=\"0 0 0\"/><worldbody>\n"
         "<geom name=\"floor\" type=\"plane\" size=\"" +
         l(5) + " " + l(5) + " " + l(0.1) +
         "\"/>\n"
         "<body name=\"hip\" pos=\"0 0 " +
         l(0.6) +
         "\">\n"
         "  <joint name=\"z\" type=\"slide\" axis=\"0 0 1\"/><joint name=\"x\" type=\"slide\" axis=\"1 0 "
         "0\"/>\n"
         "  <inertial pos=\"0 0 0\" mass=\"" +
         kg(5) + "\" diaginertia=\"" + inertia(0.1) + " " + inertia(0.1) + " " + inertia(0.1) +
         "\"/>\n"
         "  <body name=\"leg\"><joint name=\"pitch\" type=\"hinge\" axis=\"0 1 0\"/>\n"
         "    <geom name=\"shank\" type=\"capsule\" fromto=\"0 0 0 0 0 " +
         l(-0.5) + "\" size=\"" + l(0.02) + "\" mass=\"" + kg(1) + "\"/>\n    " + foot_geom +
         "\n  </body>\n</body></worldbody></mujoco>\n";
}

struct Resolved {
  ImpactProblem problem;
  MechanismSolvedState solved;
};

Resolved resolve_at(const MujocoMechanism& mechanism, const ParameterSet& params) {
  auto ws = mechanism.make_workspace();
  MechanismState state = mechanism.state_from(params);
  mechanism.check_state(state, "qpos", "qvel");
  Resolved r;
  r.problem = mechanism.make_problem(state, *ws, &r.solved);
  return r;
}

int closed_witnesses(const MechanismSolvedState& solved) {
  int closed = 0;
  for (const auto& w : solved.witnesses) closed += w.gap <= solved.gap_tolerance;
  return closed;
}

ParameterSet leg_state(double pitch) {
  ParameterSet p;
  p.set("qpos.pitch", pitch);
  p.set("qvel.z", -1.0);
  p.set("qvel.x", 0.3);
  p.set("qvel.pitch", 0.5);
  p.set("restitution", 0.5);
  return p;
}

TEST(MechanismWitnesses, AFlatBoxIsFourContactsALevelCapsuleTwo) {
  const testing::TempDir dir("simpact-witness");
  for (const std::string foot : {"box", "capsule"}) {
    SCOPED_TRACE(foot);
    const std::string file = write(dir, foot + ".xml", leg_xml(foot));
    const MujocoMechanism all(spec_of(file, {{"foot", "floor"}}, {"qpos.z"}));
    const Resolved r = resolve_at(all, leg_state(0.0));
    const int expected = foot == "box" ? 4 : 2;
    ASSERT_EQ(closed_witnesses(r.solved), expected);
    EXPECT_EQ(r.problem.contacts(), expected);
    // The witnesses are the foot's bottom corners (box) or the ends of its segment (capsule), on
    // the floor: closed forms.
    std::vector<double> xs;
    for (const auto& w : r.solved.witnesses) {
      EXPECT_EQ(w.contact, 0);
      EXPECT_NEAR(w.position.z(), 0.0, all.gap_tolerance());  // place stops within the tolerance
      EXPECT_NEAR(w.normal.z(), -1.0, 1e-15);                 // from the foot to the floor
      xs.push_back(w.position.x());
      EXPECT_NEAR(std::abs(w.position.y()), foot == "box" ? 0.04 : 0.0, 1e-12);
    }
    std::sort(xs.begin(), xs.end());
    const std::vector<double> ends =
        foot == "box" ? std::vector<double>{-0.07, -0.07, 0.13, 0.13} : std::vector<double>{-0.08, 0.12};
    for (std::size_t i = 0; i < ends.size(); ++i) EXPECT_NEAR(xs[i], ends[i], 1e-12);
    EXPECT_NEAR(r.solved.qpos[0], -0.06, all.gap_tolerance());  // the sole 0.54 below the hip, 0.6 high
    const MujocoMechanism deepest(spec_of(file, {{"foot", "floor"}}, {"qpos.z"}, "deepest"));
    EXPECT_EQ(resolve_at(deepest, leg_state(0.0)).problem.contacts(), 1);
  }
}

// A free box dropped flat at R = 0 stops: every corner at rest, so p⁺ = 0 whatever the ordering.
// Its deepest corner alone would leave it spinning.
TEST(MechanismWitnesses, AFlatBoxDroppedPlasticallyStops) {
  const testing::TempDir dir("simpact-witness");
  const std::string file = write(dir, "box.xml",
                                 "<mujoco><worldbody><geom name=\"floor\" type=\"plane\" size=\"5 5 .1\"/>"
                                 "<body name=\"box\" pos=\"0.3 -0.2 1\"><freejoint name=\"root\"/>"
                                 "<geom name=\"box\" type=\"box\" size=\"0.1 0.06 0.03\" mass=\"2\"/>"
                                 "</body></worldbody></mujoco>");
  ParameterSet p;
  p.set("qvel.root[2]", -2.0);
  p.set("restitution", 0.0);
  const MujocoMechanism all(spec_of(file, {{"box", "floor"}}, {"qpos.root[2]"}));
  const Resolved r = resolve_at(all, p);
  ASSERT_EQ(r.problem.contacts(), 4);
  const auto s = summarize(r.problem);
  ASSERT_EQ(s.plastic.size(), 6u);
  for (double v : s.plastic) EXPECT_NEAR(v, 0.0, 1e-12);
  const MujocoMechanism deepest(spec_of(file, {{"box", "floor"}}, {"qpos.root[2]"}, "deepest"));
  const auto one = summarize(resolve_at(deepest, p).problem);
  ASSERT_EQ(one.plastic.size(), 6u);
  double spin = 0;
  for (std::size_t i = 3; i < 6; ++i) spin = std::max(spin, std::abs(one.plastic[i]));
  EXPECT_GT(spin, 1e-3);
}

void expect_close(const test_support::ResolutionSummary& a, const test_support::ResolutionSummary& b,
                  double tol) {
  ASSERT_EQ(a.status, b.status);
  ASSERT_EQ(a.outcomes.size(), b.outcomes.size());
  for (std::size_t j = 0; j < a.outcomes.size(); ++j)
    for (std::size_t i = 0; i < a.outcomes[j].size(); ++i)
      EXPECT_NEAR(a.outcomes[j][i], b.outcomes[j][i], tol);
  EXPECT_NEAR(a.xi, b.xi, tol);
  ASSERT_EQ(a.plastic.size(), b.plastic.size());
  for (std::size_t i = 0; i < a.plastic.size(); ++i) EXPECT_NEAR(a.plastic[i], b.plastic[i], tol);
}

// Through flat, a 1e-9 rad change of the foot's pitch moves ξ and every outcome by ≤ 1e-6 (the
// deepest witness alone flips between heel and toe).
TEST(MechanismWitnesses, BoxAndCapsuleFeetAreContinuousThroughFlat) {
  const testing::TempDir dir("simpact-witness");
  for (const std::string foot : {"box", "capsule"}) {
    SCOPED_TRACE(foot);
    const std::string file = write(dir, foot + ".xml", leg_xml(foot));
    const MujocoMechanism mechanism(spec_of(file, {{"foot", "floor"}}, {"qpos.z"}));
    const auto flat = summarize(resolve_at(mechanism, leg_state(0.0)).problem);
    ASSERT_FALSE(flat.outcomes.empty());
    for (double tilt : {-1e-9, 1e-9, -2e-9, 2e-9}) {
      SCOPED_TRACE(tilt);
      const Resolved r = resolve_at(mechanism, leg_state(tilt));
      EXPECT_EQ(closed_witnesses(r.solved), foot == "box" ? 4 : 2);
      expect_close(flat, summarize(r.problem), 1e-6);
    }
  }
}

// The humanoid (examples/mechanisms/humanoid.xml: free root, nv = 27, capsule feet along x) placed
// on both feet and pitched through level by ±1e-9 rad: 2 contacts per foot, and the outcome moves
// by ≤ 1e-6 (the dynamic-size path). At R = 0 (a unique outcome: at R > 0 these 4 contacts have
// more than the 4096 outcomes the enumeration keeps, so ξ is NaN under its cap); with its deepest
// points alone the outcome jumps between heels and toes.
TEST(MechanismWitnesses, TheHumanoidsCapsuleFeetAreContinuousThroughLevel) {
  const auto outcome = [&](double pitch, const std::string& witnesses, int& closed) {
    const MujocoMechanism humanoid(spec_of(
        example("humanoid.xml"), {{"foot_l", "floor"}, {"foot_r", "floor"}}, {"qpos.root[2]"}, witnesses));
    EXPECT_TRUE(humanoid.needs_dynamic_sizes());
    ParameterSet p;
    p.set("qpos.root[3]", std::cos(pitch / 2));
    p.set("qpos.root[5]", std::sin(pitch / 2));
    p.set("qvel.root[0]", 0.4);
    p.set("qvel.root[2]", -1.0);
    p.set("qvel.root[4]", 0.3);  // pitching
    p.set("restitution", 0.0);
    auto ws = humanoid.make_workspace();
    MechanismState state = humanoid.state_from(p);
    humanoid.check_state(state, "qpos", "qvel");
    MechanismSolvedState solved;
    const DynamicImpactProblem problem = humanoid.make_dynamic_problem(state, *ws, &solved);
    closed = closed_witnesses(solved);
    DynamicImpactWorkspace workspace;
    ResolveOptions options;
    options.policy = OrderingPolicy::kAll;
    const auto res = resolve_impact(problem, options, workspace);
    EXPECT_EQ(res.outcome_count, 1);
    const auto& m = workspace.outcomes.items[0].momentum;
    return Eigen::VectorXd(m);
  };
  int closed = 0;
  const Eigen::VectorXd level = outcome(0.0, "all", closed);
  EXPECT_EQ(closed, 4);
  for (double tilt : {-1e-9, 1e-9}) {
    SCOPED_TRACE(tilt);
    EXPECT_LE((outcome(tilt, "all", closed) - level).cwiseAbs().maxCoeff(), 1e-6);
    EXPECT_EQ(closed, 4);
  }
  const Eigen::VectorXd heel = outcome(-1e-9, "deepest", closed), toe = outcome(1e-9, "deepest", closed);
  EXPECT_EQ(closed, 2);
  EXPECT_GT((heel - toe).cwiseAbs().maxCoeff(), 1e-3);
}

// A box on a box floor (a URDF floor is a box): the face manifold, clipped. Flat: the 4 corners
// (closed forms), and a plastic drop stops; turned 45° on an equal box: the octagon's 8 vertices;
// tilted ±1e-9 rad: the same 4 contacts and outcomes within 1e-6.
TEST(MechanismWitnesses, ABoxOnABoxHasItsFaceManifold) {
  const testing::TempDir dir("simpact-witness");
  const auto file = [&](const std::string& name, const std::string& floor, double yaw_degrees) {
    return write(dir, name,
                 "<mujoco><worldbody><geom name=\"floor\" type=\"box\" pos=\"0 0 -0.05\" size=\"" + floor +
                     "\"/><body name=\"box\" pos=\"0.01 -0.02 0.5\" euler=\"0 0 " +
                     std::to_string(yaw_degrees) +
                     "\"><freejoint name=\"root\"/><geom name=\"box\" type=\"box\" size=\"0.1 0.06 0.03\" "
                     "mass=\"2\"/></body></worldbody></mujoco>");
  };
  ParameterSet p;
  p.set("qvel.root[2]", -2.0);
  p.set("qvel.root[0]", 0.5);
  p.set("qvel.root[4]", 0.7);
  p.set("restitution", 0.0);
  const MujocoMechanism flat(spec_of(file("flat.xml", "2 2 0.05", 0), {{"box", "floor"}}, {"qpos.root[2]"}));
  const Resolved r = resolve_at(flat, p);
  ASSERT_EQ(closed_witnesses(r.solved), 4);
  std::vector<std::pair<double, double>> corners;
  for (const auto& w : r.solved.witnesses) {
    EXPECT_NEAR(w.position.z(), 0.0, 1e-12);
    EXPECT_NEAR(w.normal.z(), -1.0, 1e-15);
    corners.emplace_back(w.position.x(), w.position.y());
  }
  std::sort(corners.begin(), corners.end());
  const double xs[4] = {-0.09, -0.09, 0.11, 0.11}, ys[4] = {-0.08, 0.04, -0.08, 0.04};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(corners[i].first, xs[i], 1e-12);
    EXPECT_NEAR(corners[i].second, ys[i], 1e-12);
  }
  ParameterSet still = p;
  still.set("qvel.root[0]", 0.0);
  still.set("qvel.root[4]", 0.0);
  const auto stop = summarize(resolve_at(flat, still).problem);
  ASSERT_EQ(stop.plastic.size(), 6u);
  for (double v : stop.plastic) EXPECT_NEAR(v, 0.0, 1e-12);
  const auto level = summarize(r.problem);
  for (double tilt : {-1e-9, 1e-9}) {
    SCOPED_TRACE(tilt);
    ParameterSet tilted = p;
    tilted.set("qpos.root[3]", std::cos(tilt / 2));
    tilted.set("qpos.root[5]", std::sin(tilt / 2));
    const Resolved t = resolve_at(flat, tilted);
    EXPECT_EQ(closed_witnesses(t.solved), 4);
    expect_close(level, summarize(t.problem), 1e-6);
  }
  // An equal box turned 45° about z on a 0.06 × 0.06 square top: a regular octagon.
  const MujocoMechanism turned(
      spec_of(write(dir, "turned.xml",
                    "<mujoco><worldbody><geom name=\"floor\" type=\"box\" pos=\"0 0 -0.05\" "
                    "size=\"0.06 0.06 0.05\"/><body name=\"box\" pos=\"0 0 0.5\" euler=\"0 0 "
                    "45\"><freejoint name=\"root\"/><geom name=\"box\" type=\"box\" "
                    "size=\"0.06 0.06 0.03\" mass=\"2\"/></body></worldbody></mujoco>"),
              {{"box", "floor"}}, {"qpos.root[2]"}));
  ParameterSet down;
  down.set("qvel.root[2]", -1.0);
  const Resolved o = resolve_at(turned, down);
  ASSERT_EQ(closed_witnesses(o.solved), 8);
  for (const auto& w : o.solved.witnesses) {
    // On the square's edges, at the octagon's vertices: max(|x|, |y|) = 0.06, min = 0.06(√2 − 1).
    const double a = std::abs(w.position.x()), b = std::abs(w.position.y());
    EXPECT_NEAR(std::max(a, b), 0.06, 1e-12);
    EXPECT_NEAR(std::min(a, b), 0.06 * (std::sqrt(2.0) - 1), 1e-12);
  }
}

// 3 boxes of one body flat on the floor: 12 witness points, over the cap of 8.
TEST(MechanismWitnesses, MoreWitnessesThanTheCapAreRefusedNamingTheContactAndTheCount) {
  const testing::TempDir dir("simpact-witness");
  const std::string file =
      write(dir, "sled.xml",
            "<mujoco><worldbody><geom name=\"floor\" type=\"plane\" size=\"5 5 .1\"/>"
            "<body name=\"sled\" pos=\"0 0 0.03\"><freejoint name=\"root\"/>"
            "<geom name=\"a\" type=\"box\" pos=\"-0.3 0 0\" size=\"0.1 0.06 0.03\" mass=\"1\"/>"
            "<geom name=\"b\" type=\"box\" pos=\"0 0 0\" size=\"0.1 0.06 0.03\" mass=\"1\"/>"
            "<geom name=\"c\" type=\"box\" pos=\"0.3 0 0\" size=\"0.1 0.06 0.03\" mass=\"1\"/>"
            "</body></worldbody></mujoco>");
  ParameterSet p;
  p.set("qvel.root[2]", -1.0);
  const MujocoMechanism sled(spec_of(file, {{"sled", "floor"}}));
  try {
    resolve_at(sled, p);
    FAIL() << "12 witnesses accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "mechanism.contacts[0]");
    EXPECT_NE(std::string(e.what()).find("'sled'–'floor' has 12 witness points"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("at most 8"), std::string::npos) << e.what();
  }
  // witnesses: deepest resolves it (one row), and one box named alone has its 4.
  EXPECT_EQ(
      resolve_at(MujocoMechanism(spec_of(file, {{"sled", "floor"}}, {}, "deepest")), p).problem.contacts(),
      1);
  EXPECT_EQ(resolve_at(MujocoMechanism(spec_of(file, {{"b", "floor"}})), p).problem.contacts(), 4);
}

TEST(MechanismWitnesses, ContactsNameBodiesAndBadNamesAreRefused) {
  const std::string file = example("hopper.xml");
  const auto error_of = [&](Contacts contacts, const std::string& witnesses = "all") {
    try {
      MujocoMechanism m(spec_of(file, std::move(contacts), {}, witnesses));
    } catch (const InputError& e) {
      return std::string(e.field()) + ": " + e.what();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error_of({{"body:shin", "ground"}}), "accepted");
  EXPECT_EQ(error_of({{"geom:foot", "body:ground"}}), "accepted");
  EXPECT_NE(error_of({{"body:shoe", "ground"}})
                .find("mechanism.contacts[0][0]: unknown body 'shoe' (bodies: world, "
                      "ground, trunk, thigh, shin)"),
            std::string::npos);
  EXPECT_NE(error_of({{"foot", "grund"}}).find("mechanism.contacts[0][1]: unknown geom or body 'grund'"),
            std::string::npos);
  EXPECT_NE(error_of({{"body:shin", "body:shin"}}).find("mechanism.contacts[0]: a body cannot touch itself"),
            std::string::npos);
  EXPECT_NE(
      error_of({{"foot", "body:shin"}}).find("mechanism.contacts[0]: 'foot' and 'body:shin' have no pair"),
      std::string::npos);
  EXPECT_NE(error_of({{"foot", "ground"}}, "some").find("mechanism.witnesses: must be 'all' or 'deepest'"),
            std::string::npos);
}

// The URDF robot with its contact named by link resolves the impact its MJCF twin resolves with
// named geoms: the same M, normals, ξ and outcomes.
TEST(MechanismWitnesses, AUrdfRobotsContactsNamedByLinkMatchItsMjcf) {
  const MujocoMechanism urdf(spec_of(example("hopper.urdf"), {{"shin", "ground"}}, {"qpos.slider"}));
  const MujocoMechanism mjcf(spec_of(example("hopper.xml"), {{"body:shin", "body:ground"}}, {"qpos.slider"}));
  const MujocoMechanism foot(spec_of(example("hopper.xml"), {{"foot", "ground"}}, {"qpos.slider"}));
  ASSERT_EQ(urdf.nv(), 3);
  for (double knee : {-0.6, -0.2}) {
    SCOPED_TRACE(knee);
    ParameterSet p;
    p.set("qpos.hip", 0.3);
    p.set("qpos.knee", knee);
    p.set("qvel.slider", -1.5);
    p.set("qvel.hip", 0.4);
    p.set("restitution", 0.4);
    const Resolved a = resolve_at(urdf, p), b = resolve_at(mjcf, p), c = resolve_at(foot, p);
    ASSERT_EQ(a.problem.contacts(), 1);
    EXPECT_NEAR(a.solved.qpos[0], b.solved.qpos[0], 1e-14);
    EXPECT_NEAR(a.solved.witnesses[0].position.z(), 0.0, urdf.gap_tolerance());
    const auto sa = summarize(a.problem), sb = summarize(b.problem), sc = summarize(c.problem);
    EXPECT_GT(sa.energy_before, 0.1);
    expect_close(sa, sb, 1e-12);
    expect_close(sa, sc, 1e-12);
  }
}

// The leg in millimetres and grams: lengths ×1000, masses ×1000. The placement, ξ, the closed
// witnesses and the outcomes are the metre file's (momenta: slide ×1e6 = g·mm/s per kg·m/s,
// hinge ×1e9 = g·mm²/s per kg·m²/s, with velocities in mm/s).
TEST(MechanismWitnesses, AFileInMillimetresAndGramsGivesTheMetreFilesAnswers) {
  const testing::TempDir dir("simpact-witness");
  for (const std::string foot : {"box", "capsule"}) {
    SCOPED_TRACE(foot);
    const MujocoMechanism metres(
        spec_of(write(dir, foot + "_m.xml", leg_xml(foot)), {{"foot", "floor"}}, {"qpos.z"}));
    const MujocoMechanism mm(
        spec_of(write(dir, foot + "_mm.xml", leg_xml(foot, 1e-3, 1e-3)), {{"foot", "floor"}}, {"qpos.z"}));
    EXPECT_NEAR(mm.length_scale(), 1000 * metres.length_scale(), 1e-9 * mm.length_scale());
    for (double tilt : {0.0, 1e-9, 0.2}) {
      SCOPED_TRACE(tilt);
      ParameterSet pm = leg_state(tilt), pmm = leg_state(tilt);
      pmm.set("qvel.z", -1000.0);
      pmm.set("qvel.x", 300.0);
      const Resolved a = resolve_at(metres, pm), b = resolve_at(mm, pmm);
      EXPECT_NEAR(b.solved.qpos[0], 1000 * a.solved.qpos[0], 1e-9);  // both roots to round-off
      EXPECT_EQ(closed_witnesses(a.solved), closed_witnesses(b.solved));
      const auto sa = summarize(a.problem), sb = summarize(b.problem);
      ASSERT_EQ(sa.outcomes.size(), sb.outcomes.size());
      const double scale[3] = {1e6, 1e6, 1e9};
      for (std::size_t j = 0; j < sa.outcomes.size(); ++j)
        for (std::size_t i = 0; i < 3; ++i)
          EXPECT_NEAR(sb.outcomes[j][i] / scale[i], sa.outcomes[j][i],
                      1e-9 * (1 + std::abs(sa.outcomes[j][i])));
      EXPECT_NEAR(sa.xi, sb.xi, 1e-9);
    }
  }
}

// Issue 35: mass, size and position edits give the model MuJoCo compiles from the file with the
// edited values: M, gaps and normals bit for bit, and the constants mj_setConst derives.
TEST(MechanismWitnesses, EditedModelEqualsTheFileCompiledWithTheEditedValues) {
  const testing::TempDir dir("simpact-witness");
  const auto xml = [](const std::string& leg_mass, const std::string& leg_inertia,
                      const std::string& foot_size, const std::string& leg_pos) {
    return "<mujoco><worldbody><geom name=\"floor\" type=\"plane\" size=\"5 5 .1\"/>"
           "<body name=\"hip\" pos=\"0 0 0.6\"><joint name=\"z\" type=\"slide\" axis=\"0 0 1\"/>"
           "<joint name=\"x\" type=\"slide\" axis=\"1 0 0\"/>"
           "<inertial pos=\"0 0 0\" mass=\"5\" diaginertia=\"0.1 0.1 0.1\"/>"
           "<body name=\"leg\" pos=\"" +
           leg_pos +
           "\"><joint name=\"pitch\" type=\"hinge\" axis=\"0 1 0\"/>"
           "<inertial pos=\"0.01 0 -0.3\" mass=\"" +
           leg_mass + "\" diaginertia=\"" + leg_inertia +
           "\"/>"
           "<geom name=\"shank\" type=\"capsule\" fromto=\"0 0 0 0 0 -0.5\" size=\"0.02\"/>"
           "<geom name=\"foot\" type=\"box\" pos=\"0.03 0 -0.52\" size=\"" +
           foot_size + "\"/></body></body></worldbody></mujoco>";
  };
  const std::string base = write(dir, "base.xml", xml("2", "0.04 0.04 0.002", "0.1 0.04 0.02", "0 0 0"));
  // mass 2 → 4 scales the inertia by 2 exactly; the size and position as written.
  const std::string edited_file =
      write(dir, "edited.xml", xml("4", "0.08 0.08 0.004", "0.125 0.04 0.0375", "0.0625 0 -0.125"));
  const MujocoMechanism edited(spec_of(base, {{"foot", "floor"}, {"shank", "floor"}}));
  const MujocoMechanism compiled(spec_of(edited_file, {{"foot", "floor"}, {"shank", "floor"}}));
  ParameterSet p;
  p.set("mass.leg", 4.0);
  p.set("size.foot[0]", 0.125);
  p.set("size.foot[2]", 0.0375);
  p.set("pos.leg[0]", 0.0625);
  p.set("pos.leg[2]", -0.125);
  p.set("qpos.pitch", 0.3);
  p.set("qpos.z", -0.1);
  MechanismState se = edited.state_from(p);
  ParameterSet q;
  q.set("qpos.pitch", 0.3);
  q.set("qpos.z", -0.1);
  MechanismState sc = compiled.state_from(q);
  ASSERT_EQ(se.edits.size(), 5u);
  auto we = edited.make_workspace(), wc = compiled.make_workspace();
  for (int repeat = 0; repeat < 2; ++repeat) {  // the second evaluation reuses the applied edits
    MechanismEvaluation a, b;
    edited.evaluate(se, se.qpos, *we, a);
    compiled.evaluate(sc, sc.qpos, *wc, b);
    EXPECT_TRUE(a.mass == b.mass) << a.mass - b.mass;
    EXPECT_TRUE(a.gaps == b.gaps) << (a.gaps - b.gaps).transpose();
    EXPECT_TRUE(a.normals == b.normals) << a.normals - b.normals;
  }
  const auto [me, de] = edited.mujoco_at(se, se.qpos, *we);
  const auto [mc, dc] = compiled.mujoco_at(sc, sc.qpos, *wc);
  (void)de, (void)dc;
  const mjModel* m1 = me;
  const mjModel* m2 = mc;
  for (int g = 0; g < m1->ngeom; ++g) EXPECT_EQ(m1->geom_rbound[g], m2->geom_rbound[g]) << "geom " << g;
  for (int b = 0; b < m1->nbody; ++b) {
    EXPECT_EQ(m1->body_subtreemass[b], m2->body_subtreemass[b]) << "body " << b;
    for (int i = 0; i < 2; ++i)
      EXPECT_EQ(m1->body_invweight0[2 * b + i], m2->body_invweight0[2 * b + i]) << b;
  }
  for (int v = 0; v < m1->nv; ++v) {
    EXPECT_EQ(m1->dof_invweight0[v], m2->dof_invweight0[v]) << "dof " << v;
    EXPECT_EQ(m1->dof_M0[v], m2->dof_M0[v]) << "dof " << v;
  }
  // Back to the file's values: the edits undone exactly.
  MechanismState plain = edited.state_from(q);
  MechanismEvaluation first, again;
  auto fresh = edited.make_workspace();
  edited.evaluate(plain, plain.qpos, *fresh, first);
  edited.evaluate(plain, plain.qpos, *we, again);
  EXPECT_TRUE(first.mass == again.mass);
  EXPECT_TRUE(first.gaps == again.gaps);
}

// Parallel capsules: MuJoCo 2.2.2's own capsule–capsule gives 0.339 m for two touching parallel
// capsules at a large margin; simpact's is the closed form, touching and 1 mm apart, tilted too.
TEST(MechanismWitnesses, ParallelCapsulesHaveTheirClosedFormGap) {
  const testing::TempDir dir("simpact-witness");
  const std::string file =
      write(dir, "capsules.xml",
            "<mujoco><worldbody><geom name=\"a\" type=\"capsule\" fromto=\"-1 0 0 1 0 0\" size=\"0.1\"/>"
            "<body name=\"top\" pos=\"0 0 0.2\"><joint name=\"z\" type=\"slide\" axis=\"0 0 1\"/>"
            "<joint name=\"roll\" type=\"hinge\" axis=\"1 0 0\"/>"
            "<geom name=\"b\" type=\"capsule\" fromto=\"-0.5 0 0 0.5 0 0\" size=\"0.1\" mass=\"1\"/>"
            "</body></worldbody></mujoco>");
  const MujocoMechanism mechanism(spec_of(file, {{"b", "a"}}));
  auto ws = mechanism.make_workspace();
  for (double lift : {0.0, 1e-3})
    for (double roll : {0.0, 0.7}) {
      ParameterSet p;
      p.set("qpos.z", lift);
      p.set("qpos.roll", roll);  // about the common axis: still parallel, same gap
      const MechanismState state = mechanism.state_from(p);
      MechanismEvaluation e;
      mechanism.evaluate(state, state.qpos, *ws, e);
      EXPECT_NEAR(e.gaps[0], lift, 1e-12) << lift << " " << roll;
      EXPECT_NEAR(e.normals(0, 0), 1.0, 1e-12);  // dφ/dz = 1
    }
}

// The biped with every length ×1000 and every mass ×1000 (mm and g).
std::string biped_in_millimetres() {
  std::ifstream in(example("biped.xml"));
  std::stringstream text;
  text << in.rdbuf();
  std::string xml = text.str();
  xml = xml.substr(xml.find("<mujoco"));  // the comment names attributes too
  const std::regex attribute(R"re(\b(pos|fromto|size|mass)="([^"]*)")re");
  std::string out;
  auto begin = std::sregex_iterator(xml.begin(), xml.end(), attribute);
  std::size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out += xml.substr(last, static_cast<std::size_t>(it->position()) - last);
    std::istringstream numbers((*it)[2].str());
    std::string scaled;
    double v;
    while (numbers >> v) scaled += (scaled.empty() ? "" : " ") + std::to_string(v * 1000);
    out += (*it)[1].str() + "=\"" + scaled + "\"";
    last = static_cast<std::size_t>(it->position() + it->length());
  }
  return out + xml.substr(last);
}

// `design` places the `place` coordinates itself (not repeated in `free`), and a file in mm and
// g designs the metre file's touchdown: the same hip angle, the placed height ×1000.
TEST(MechanismWitnesses, DesignPlacesItselfAndAFileInMillimetresDesignsTheSameTouchdown) {
  const testing::TempDir dir("simpact-witness");
  const std::string mm = write(dir, "biped_mm.xml", biped_in_millimetres());
  const auto request = [](const std::string& file, double unit) {
    return "{\"mechanism\": {\"file\": \"" + file +
           "\", \"contacts\": [[\"floor\", \"foot_l\"], [\"floor\", \"foot_r\"]]}, \"params\": "
           "{\"qpos.root_z\": " +
           std::to_string(-0.1 * unit) +
           ", \"qpos.knee_l\": -0.4, \"qpos.knee_r\": -0.4, \"qpos.hip_l\": 0.3, \"qpos.hip_r\": -0.1}, "
           "\"place\": [\"qpos.root_z\", \"qpos.root_pitch\"], \"free\": {\"qpos.hip_r\": {\"min\": -1.2, "
           "\"max\": 1.2}}}";
  };
  const DesignRun metres = run_design(request(example("biped.xml"), 1.0));
  const DesignRun millimetres = run_design(request(mm, 1000.0));
  ASSERT_TRUE(metres.report.converged());
  ASSERT_TRUE(millimetres.report.converged());
  const auto value = [](const DesignReport& r, const std::string& name) {
    for (const auto& [n, v] : r.placed_qpos)
      if (n == name) return v;
    return std::nan("");
  };
  // The design moved hip_r and kept both feet on the floor by moving root_z and root_pitch.
  EXPECT_GT(std::abs(value(metres.report, "qpos.hip_r") + 0.1), 1e-3);
  EXPECT_NEAR(std::abs(metres.report.rows.back().normalized_product), 0.0, 1e-10);
  for (const auto& [name, gap] : metres.report.rows.back().gaps) EXPECT_LE(std::abs(gap), 1e-12) << name;
  EXPECT_NEAR(value(millimetres.report, "qpos.hip_r"), value(metres.report, "qpos.hip_r"), 1e-9);
  EXPECT_NEAR(value(millimetres.report, "qpos.root_pitch"), value(metres.report, "qpos.root_pitch"), 1e-9);
  EXPECT_NEAR(value(millimetres.report, "qpos.root_z"), 1000 * value(metres.report, "qpos.root_z"), 1e-6);
}

}  // namespace
}  // namespace simpact
