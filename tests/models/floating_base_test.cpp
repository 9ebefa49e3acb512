// Free and ball joints in time stepping (issue 34 §2): the Lie-group midpoint rule of
// MidpointIntegrator on examples/mechanisms/humanoid.xml (free root, ball waist, 18 hinges:
// nq = 29, nv = 27) and on a pendulum hanging from a ball joint.
//  - free flight without gravity, 1 s at dt = 1e-3 with every joint moving: the free joint's
//    translational momentum (the total linear momentum) is conserved to rounding, the energy error
//    stays below 1e-5 relative and does not grow (second half no worse than the first), and the
//    world-frame angular momentum (mj_subtreeVel) is conserved;
//  - dropped on the floor at R = 1 the energy after each elastic touchdown equals the energy before
//    to 1e-9 relative; at R = 0 (0.5 s, each foot's heel and toe end caps as separate contacts) every
//    touchdown leaves each closed contact at rest along its normal;
//  - a box dropped flat at R = 0 lands on its 4 bottom corners at once and rests there;
//  - the ball pendulum conserves its angular momentum about the vertical to 1e-10 with bounded
//    energy error;
//  - hinge-only models are untouched (the tests of the other time-stepping models).
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <Eigen/Cholesky>
#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "../support/mechanism_loading.hpp"
#include "../support/temp_dir.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/integrate/simulation.hpp"
#include "simpact/models/file_mechanism.hpp"

namespace simpact {
namespace {

std::string example(const std::string& name) {
  const char* root = std::getenv("SIMPACT_SOURCE_DIR");
  return std::string(root ? root : SIMPACT_SOURCE_DIR) + "/examples/mechanisms/" + name;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

using testing::load_mechanism;

// The humanoid without gravity (a copy of the file in `dir`).
std::string weightless_humanoid(const testing::TempDir& dir) {
  std::string text = read(example("humanoid.xml"));
  const std::string g = "gravity=\"0 0 -9.81\"";
  text.replace(text.find(g), g.size(), "gravity=\"0 0 0\"");
  const std::string path = dir / "humanoid_weightless.xml";
  write(path, text);
  return path;
}

// A unit quaternion (w x y z) rolled by `roll` about x, then pitched by `pitch` about y (body axes).
Eigen::Vector4d roll_pitch(double roll, double pitch) {
  const Eigen::Quaterniond q =
      Eigen::AngleAxisd(roll, Eigen::Vector3d::UnitX()) * Eigen::AngleAxisd(pitch, Eigen::Vector3d::UnitY());
  return {q.w(), q.x(), q.y(), q.z()};
}

// World-frame angular momentum about the origin and linear momentum, from MuJoCo at (q, v).
void world_momenta(const MujocoMechanism& mechanism, MujocoMechanism::Workspace& ws,
                   const MechanismState& state, const DynVector& q, const DynVector& v,
                   Eigen::Vector3d& angular, Eigen::Vector3d& linear) {
  auto [m, d] = mechanism.mujoco_at(state, q, ws);
  for (int i = 0; i < m->nv; ++i) d->qvel[i] = v[i];
  mj_comVel(m, d);
  mj_subtreeVel(m, d);
  const int root = 1;  // the first body below the world: its subtree is the whole robot
  const double mass = m->body_subtreemass[root];
  const Eigen::Map<const Eigen::Vector3d> com(d->subtree_com + 3 * root), vcom(d->subtree_linvel + 3 * root),
      lcom(d->subtree_angmom + 3 * root);
  linear = mass * vcom;
  angular = lcom + com.cross(linear);
}

DynVector humanoid_velocity(int nv) {
  DynVector v(nv);
  // root: linear (world), angular (body); waist ball (body); then the hinges, alternating.
  v << 0.3, -0.2, 0.5, 0.4, -0.3, 0.2, 0.5, -0.4, 0.3;
  for (int i = 9; i < nv; ++i) v[i] = (i % 2 == 0 ? 0.3 : -0.2) * (1.0 + 0.05 * i);
  return v;
}

TEST(FloatingBase, HumanoidFreeFlightConservesMomentaAndEnergy) {
  const testing::TempDir dir("simpact-floating");
  const auto mechanism = load_mechanism(weightless_humanoid(dir));
  const MechanismState state = mechanism->state_from({});
  const FileMechanism model(mechanism, state);
  ASSERT_EQ(model.configuration_size(), 29);
  ASSERT_EQ(model.dof(), 27);
  ASSERT_EQ(model.rotation_blocks(), (std::vector<int>{3, 6}));
  DynVector q0 = mechanism->default_qpos();
  q0.segment<4>(3) = roll_pitch(0.3, -0.2);
  const DynVector p0 = model.mass_matrix(q0) * humanoid_velocity(model.dof());
  SimulationOptions options;
  options.dt = 1e-3;
  options.steps = 4000;  // 1 s for the acceptance bounds, 4 s to see the energy error come back
  for (long s = 0; s <= options.steps; s += 10) options.record_steps.push_back(s);
  const SimulationResult run = simulate(model, q0, p0, options);
  ASSERT_EQ(run.records.size(), 401u);
  auto ws = mechanism->make_workspace();
  Eigen::Vector3d l0, p_lin0;
  world_momenta(*mechanism, *ws, state, q0, humanoid_velocity(model.dof()), l0, p_lin0);
  const double e0 = run.records[0].energy;
  double linear = 0.0, linear_mujoco = 0.0, angular = 0.0, quaternion = 0.0;
  double first_second = 0.0, first_half = 0.0, second_half = 0.0;
  for (const StateRecord& r : run.records) {
    linear = std::max(linear, (r.p.head<3>() - p0.head<3>()).norm() / p0.head<3>().norm());
    const DynVector v = model.mass_matrix(r.q).ldlt().solve(r.p);
    Eigen::Vector3d l, lin;
    world_momenta(*mechanism, *ws, state, r.q, v, l, lin);
    linear_mujoco = std::max(linear_mujoco, (lin - p_lin0).norm() / p_lin0.norm());
    angular = std::max(angular, (l - l0).norm() / l0.norm());
    const double e = std::abs(r.energy - e0) / e0;
    if (r.step <= 1000) first_second = std::max(first_second, e);
    double& half = r.step <= 2000 ? first_half : second_half;
    half = std::max(half, e);
    quaternion = std::max(
        {quaternion, std::abs(r.q.segment<4>(3).norm() - 1.0), std::abs(r.q.segment<4>(7).norm() - 1.0)});
  }
  const double last = std::abs(run.records.back().energy - e0) / e0;
  std::printf(
      "free flight: linear momentum %.2e (MuJoCo's sum %.2e), angular momentum %.2e, energy error "
      "over 1 s %.2e, over 0-2 s %.2e, 2-4 s %.2e, at 4 s %.2e (relative); quaternion norms within "
      "%.1e; Newton %.2f/step\n",
      linear, linear_mujoco, angular, first_second, first_half, second_half, last, quaternion,
      run.newton_mean);
  EXPECT_LE(linear, 1e-10);
  EXPECT_LE(linear_mujoco, 1e-10);
  EXPECT_LE(angular, 1e-10);
  EXPECT_LE(first_second, 1e-5);
  EXPECT_GT(first_half, 1e-12);              // the measure can see an error
  EXPECT_LE(second_half, 2.0 * first_half);  // bounded: no drift
  EXPECT_LE(last, first_half);
  EXPECT_LE(quaternion, 1e-14);             // the configuration stays on the group
  EXPECT_GT(run.records.back().q[0], 0.9);  // it flew (the centre of mass: 0.3 m/s · 4 s)
}

// The humanoid dropped with its pelvis rolled 0.02 rad and pitched 0.3 rad back (heels first, the
// right foot 2 ms before the left), through its touchdowns.
SimulationResult drop(const FileMechanism& model, const MujocoMechanism& mechanism, double restitution,
                      long steps) {
  DynVector q0 = mechanism.default_qpos();
  q0[2] = 1.1;
  q0.segment<4>(3) = roll_pitch(0.02, -0.3);
  DynVector v0 = DynVector::Zero(model.dof());
  v0[0] = 0.1;
  SimulationOptions options;
  options.dt = 1e-3;
  options.steps = steps;
  options.restitution = restitution;
  return simulate(model, q0, model.mass_matrix(q0) * v0, options);
}

TEST(FloatingBase, HumanoidElasticTouchdownsKeepTheEnergy) {
  const auto mechanism = load_mechanism(example("humanoid.xml"), {{"floor", "foot_l"}, {"floor", "foot_r"}});
  const FileMechanism model(mechanism, mechanism->state_from({}));
  const SimulationResult run = drop(model, *mechanism, 1.0, 300);
  int elastic = 0;
  bool left = false, right = false;
  double worst = 0.0;
  for (const ImpactRecord& i : run.impacts) {
    if (i.zeno) continue;  // chatter faster than dt: plastic by the Zeno rule (Sec. VII-B)
    ++elastic;
    worst = std::max(worst, std::abs(i.energy_after - i.energy_before) / i.energy_before);
    for (int c : i.contacts) (model.feature_contact(c) == 0 ? left : right) = true;
  }
  std::printf("R = 1: %zu impacts (%d elastic), worst relative energy change across one %.2e\n",
              run.impacts.size(), elastic, worst);
  EXPECT_GE(elastic, 2);
  EXPECT_TRUE(left && right);
  EXPECT_LE(worst, 1e-9);
}

// The largest |⟨p, u_i⟩_g| / approach speed over an impact's closed contacts (0: each at rest along
// its normal after it), and whether every closed contact was approaching.
double worst_rest(const FileMechanism& model, const ImpactRecord& i, bool& approaching) {
  DynRowMatrix normals;
  model.gap_jacobian(i.configuration, normals);
  const Eigen::LDLT<DynMatrix> m(model.mass_matrix(i.configuration));
  const DynVector before = m.solve(i.momentum_before), after = m.solve(i.momentum_after);
  double worst = 0.0, scale = 0.0;
  for (int c : i.contacts) scale = std::max(scale, std::abs(normals.row(c).dot(before)));
  approaching = scale > 1e-3;
  for (int c : i.contacts) worst = std::max(worst, std::abs(normals.row(c).dot(after)) / scale);
  return worst;
}

TEST(FloatingBase, HumanoidFeetAreTwoContactsEachAgainstTheFloor) {
  const auto mechanism = load_mechanism(example("humanoid.xml"), {{"floor", "foot_l"}, {"floor", "foot_r"}});
  const FileMechanism model(mechanism, mechanism->state_from({}));
  ASSERT_EQ(model.contacts(), 4);  // each capsule's heel and toe end-cap centres
  EXPECT_EQ(model.feature_name(0), "floor/foot_l#0");
  EXPECT_EQ(model.feature_name(3), "floor/foot_r#1");
  // At a tilted state the deepest feature of each foot is the pair's MuJoCo gap (the capsule's
  // lowest point is on one of its end caps), and each row is the gap's derivative.
  DynVector q = mechanism->default_qpos();
  q[2] = 1.0;
  q.segment<4>(3) = roll_pitch(0.02, -0.3);
  DynVector phi;
  model.gaps(q, phi);
  MechanismEvaluation e;
  auto ws = mechanism->make_workspace();
  mechanism->evaluate(mechanism->state_from({}), q, *ws, e);
  EXPECT_NEAR(std::min(phi[0], phi[1]), e.gaps[0], 1e-12);
  EXPECT_NEAR(std::min(phi[2], phi[3]), e.gaps[1], 1e-12);
  DynRowMatrix jac;
  model.gap_jacobian(q, jac);
  DynVector v = humanoid_velocity(model.dof()), plus, minus, phi_p, phi_m;
  const double h = 1e-6;
  model.integrate(q, v, h, plus);
  model.integrate(q, v, -h, minus);
  model.gaps(plus, phi_p);
  model.gaps(minus, phi_m);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR((phi_p[i] - phi_m[i]) / (2 * h), jac.row(i).dot(v), 1e-7) << i;
}

TEST(FloatingBase, WitnessesDeepestKeepsOneGapPerContactAndTooManyFeaturesAreRefused) {
  MechanismSpec spec;
  spec.file = example("humanoid.xml");
  spec.contacts = {{"floor", "foot_l"}, {"floor", "foot_r"}};
  spec.witnesses = "deepest";
  const auto deepest = std::make_shared<const MujocoMechanism>(spec);
  const FileMechanism model(deepest, deepest->state_from({}));
  ASSERT_EQ(model.contacts(), 2);
  EXPECT_EQ(model.feature_name(1), "floor/foot_r");
  // A body of 9 boxes on a floor: 72 corners, over the 64 time stepping takes.
  const testing::TempDir dir("simpact-boxes");
  const std::string path = dir / "boxes.xml";
  std::string xml =
      "<mujoco><worldbody><geom name='floor' type='plane' size='5 5 0.1'/><body name='raft' "
      "pos='0 0 1'><freejoint/>";
  for (int i = 0; i < 9; ++i)
    xml += "<geom type='box' pos='" + std::to_string(0.3 * i) + " 0 0' size='0.1 0.1 0.1' mass='1'/>";
  write(path, xml + "</body></worldbody></mujoco>");
  const auto raft = load_mechanism(path, {{"floor", "raft"}});
  try {
    const FileMechanism refused(raft, raft->state_from({}));
    FAIL() << "72 features accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "mechanism.contacts");
    EXPECT_NE(std::string(e.what()).find("floor/raft: 72"), std::string::npos) << e.what();
  }
}

TEST(FloatingBase, HumanoidPlasticTouchdownsStopEveryClosedContact) {
  const auto mechanism = load_mechanism(example("humanoid.xml"), {{"floor", "foot_l"}, {"floor", "foot_r"}});
  const FileMechanism model(mechanism, mechanism->state_from({}));
  // 0.5 s: both heels, then both toes land (each capsule's end caps are separate contacts, so a
  // foot lying flat rests on two smooth gaps instead of one that switches between heel and toe).
  const SimulationResult run = drop(model, *mechanism, 0.0, 500);
  EXPECT_NEAR(run.t, 0.5, 1e-12);
  double worst = 0.0;
  bool features[4] = {false, false, false, false};
  for (const ImpactRecord& i : run.impacts) {
    bool approaching = false;
    const double w = worst_rest(model, i, approaching);
    EXPECT_LE(i.energy_after, i.energy_before);
    if (!approaching) continue;  // a re-closure at rounding speed
    worst = std::max(worst, w);
    for (int c : i.contacts) features[c] = true;
  }
  std::printf("R = 0: %zu impacts, closed contacts' normal speed after / before at most %.2e\n",
              run.impacts.size(), worst);
  EXPECT_GE(run.impacts.size(), 3u);
  for (int c = 0; c < 4; ++c) EXPECT_TRUE(features[c]) << model.feature_name(c) << " never landed";
  EXPECT_LE(worst, 1e-9);
  // No end cap sinks into the floor (beyond the step's rounding) at the end.
  DynVector phi;
  model.gaps(run.q, phi);
  std::printf("R = 0 at 0.5 s: feature gaps %.2e %.2e %.2e %.2e\n", phi[0], phi[1], phi[2], phi[3]);
  for (int c = 0; c < 4; ++c) EXPECT_GT(phi[c], -1e-6) << model.feature_name(c);
}

// A box dropped flat onto the floor at R = 0: its 4 bottom corners land at once and stay at rest.
TEST(FloatingBase, FlatBoxDropsToRestOnFourCorners) {
  const testing::TempDir dir("simpact-box");
  const std::string path = dir / "box_drop.xml";
  write(path,
        "<mujoco><option gravity='0 0 -9.81'/><worldbody><geom name='floor' type='plane' size='5 5 0.1'/>"
        "<body name='block' pos='0 0 0.5'><freejoint name='root'/>"
        "<geom name='box' type='box' size='0.2 0.1 0.05' mass='2'/></body></worldbody></mujoco>");
  const auto mechanism = load_mechanism(path, {{"floor", "box"}});
  const FileMechanism model(mechanism, mechanism->state_from({}));
  ASSERT_EQ(model.contacts(), 8);
  DynVector q0 = mechanism->default_qpos();
  q0[2] = 0.2;
  const DynVector v0 = DynVector::Zero(6);
  SimulationOptions options;
  options.dt = 1e-3;
  options.steps = 400;
  options.restitution = 0.0;
  options.record_steps = {300, 400};
  const SimulationResult run = simulate(model, q0, model.mass_matrix(q0) * v0, options);
  ASSERT_GE(run.impacts.size(), 1u);
  const ImpactRecord& first = run.impacts.front();
  // The bottom corners are features 0..3 (z = −half height).
  EXPECT_EQ(first.contacts.size(), 4u);
  for (int c : first.contacts) EXPECT_LT(c, 4);
  bool approaching = false;
  EXPECT_LE(worst_rest(model, first, approaching), 1e-9);
  EXPECT_TRUE(approaching);
  // At rest: the corners stay on the floor and the configuration stops moving (the end-of-step
  // momentum still carries half a step of gravity, M·g·dt/2, held by the resting contacts).
  ASSERT_EQ(run.records.size(), 2u);
  DynVector phi;
  model.gaps(run.q, phi);
  DynVector moved;
  model.difference(run.records[1].q, run.records[0].q, moved);
  std::printf("box at 0.4 s: %zu impacts, bottom gaps %.2e %.2e %.2e %.2e, moved over 0.3-0.4 s %.2e\n",
              run.impacts.size(), phi[0], phi[1], phi[2], phi[3], moved.norm());
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(phi[c], 0.0, 1e-9) << c;
  for (int c = 4; c < 8; ++c) EXPECT_NEAR(phi[c], 0.1, 1e-9) << c;
  EXPECT_LE(moved.norm(), 1e-9);
}

TEST(FloatingBase, BallPendulumConservesVerticalAngularMomentum) {
  const testing::TempDir dir("simpact-ball");
  const std::string path = dir / "ball_pendulum.xml";
  write(path,
        "<mujoco><option gravity='0 0 -9.81'/><worldbody><body name='bob' pos='0 0 2'>"
        "<joint name='pivot' type='ball'/>"
        "<geom name='rod' type='capsule' fromto='0 0 0 0.3 0.1 -1' size='0.05' mass='2'/>"
        "<geom name='weight' type='box' pos='0.3 0.1 -1' size='0.1 0.2 0.05' mass='3'/>"
        "</body></worldbody></mujoco>");
  const auto mechanism = load_mechanism(path);
  const FileMechanism model(mechanism, mechanism->state_from({}));
  ASSERT_EQ(model.configuration_size(), 4);
  ASSERT_EQ(model.dof(), 3);
  DynVector q0(4);
  q0 = roll_pitch(0.4, 0.2);
  DynVector v0(3);
  v0 << 0.5, -1.0, 2.0;  // body frame
  SimulationOptions options;
  options.dt = 1e-3;
  options.steps = 2000;
  for (long s = 0; s <= options.steps; s += 10) options.record_steps.push_back(s);
  const SimulationResult run = simulate(model, q0, model.mass_matrix(q0) * v0, options);
  // The momentum map of rotations about the world's z: e_z · R(q) p (p: body-frame angular momentum).
  auto vertical = [](const StateRecord& r) {
    const Eigen::Quaterniond q(r.q[0], r.q[1], r.q[2], r.q[3]);
    return (q.toRotationMatrix() * Eigen::Vector3d(r.p[0], r.p[1], r.p[2])).z();
  };
  const double l0 = vertical(run.records[0]), e0 = run.records[0].energy, scale = run.records[0].p.norm();
  double worst = 0.0, energy = 0.0, tilt_min = 1.0, tilt_max = -1.0;
  for (const StateRecord& r : run.records) {
    worst = std::max(worst, std::abs(vertical(r) - l0) / scale);
    energy = std::max(energy, std::abs(r.energy - e0) / std::abs(e0));
    const Eigen::Quaterniond q(r.q[0], r.q[1], r.q[2], r.q[3]);
    const double c = (q.toRotationMatrix() * Eigen::Vector3d::UnitZ()).z();
    tilt_min = std::min(tilt_min, c);
    tilt_max = std::max(tilt_max, c);
  }
  std::printf("ball pendulum 2 s: vertical angular momentum %.2e (relative to |p|), energy %.2e\n", worst,
              energy);
  EXPECT_LE(worst, 1e-10);
  EXPECT_LE(energy, 1e-4);
  EXPECT_GT(tilt_max - tilt_min, 0.05);  // it swings
}

}  // namespace
}  // namespace simpact
