// Time stepping through impacts: the acceptance cases, each against a closed form or
// against the impact core (`resolve`).
#include "simpact/integrate/simulation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "simpact/models/billiards_scenario.hpp"
#include "simpact/models/cradle_scenario.hpp"
#include "simpact/models/dynamic_models.hpp"

namespace simpact {
namespace {

DynVector momentum_of(const DynamicSystem& s) {
  return s.model->mass_matrix(s.q0) * s.v0;
}

// Elastic cradle, 3 equal balls (r = 0.05 m, 1 kg), B and C touching, A arriving at speed v after
// k + phase steps: ends at velocities [0, 0, v] with the energy unchanged, at 60 Hz, 600 Hz, 6 kHz.
TEST(Simulation, ElasticCradleEndsAtZeroZeroV) {
  for (double v : {0.1, 1.0, 10.0}) {
    for (double dt : {1.0 / 60, 1.0 / 600, 1.0 / 6000}) {
      for (double phase : {0.0, 0.25, 0.5, 0.73, 0.999999}) {
        const DynamicSystem s = make_cradle(3, 1.0, 0.05, v * (3.0 + phase) * dt, v);
        SimulationOptions o;
        o.dt = dt;
        o.steps = 10;
        const SimulationResult r = simulate(*s.model, s.q0, momentum_of(s), o);
        const DynVector vel = r.p;  // M = I
        const double e0 = 0.5 * v * v;
        SCOPED_TRACE(testing::Message() << "v " << v << " dt " << dt << " phase " << phase);
        ASSERT_EQ(r.impacts.size(), 1u);
        // A penetration below the gap tolerance is no impact yet: t* may be late by gap_tol / v.
        EXPECT_NEAR(r.impacts[0].t, (3.0 + phase) * dt, 1e-12 * dt + o.gap_tolerance / v);
        EXPECT_EQ(r.impacts[0].contacts, (std::vector<int>{0, 1}));
        EXPECT_LE(std::abs(vel[0]), 1e-9 * v);
        EXPECT_LE(std::abs(vel[1]), 1e-9 * v);
        EXPECT_LE(std::abs(vel[2] - v), 1e-9 * v);
        const double e = s.model->energy(r.q, r.p);
        EXPECT_LE(std::abs(e - e0), 1e-9 * e0);
        // no ball ever overlaps another beyond the gap tolerance
        DynVector phi;
        s.model->gaps(r.q, phi);
        EXPECT_GE(phi.minCoeff(), -o.gap_tolerance);
      }
    }
  }
}

// Inelastic cradle: p_e = [0,0,1]v, p_p = [1,1,1]v/3, α = e ⇒ E⁺/E⁻ = e² + (1−e²)/3.
TEST(Simulation, InelasticCradleEnergyRatio) {
  for (double e : {0.0, 0.7}) {
    const DynamicSystem s = make_cradle(3, 1.0, 0.05, 0.0123, 1.0);
    SimulationOptions o;
    o.dt = 1e-3;
    o.steps = 100;
    o.restitution = e;
    const SimulationResult r = simulate(*s.model, s.q0, momentum_of(s), o);
    ASSERT_EQ(r.impacts.size(), 1u) << e;
    const double ratio = s.model->energy(r.q, r.p) / 0.5;
    EXPECT_NEAR(ratio, e * e + (1 - e * e) / 3, 1e-9) << e;
    EXPECT_NEAR(r.impacts[0].energy_after / r.impacts[0].energy_before, e * e + (1 - e * e) / 3, 1e-9) << e;
    EXPECT_EQ(r.impacts[0].plastic, e == 0.0);
  }
}

// The billiards break approached from a distance: with equal arrival times the time-stepped
// reset is `resolve`'s outcome of the same ordering; with an arrival offset above the
// simultaneity tolerance it is two sequential impacts and the orderings agree (ξ → 0).
TEST(Simulation, BilliardsFromADistance) {
  const double theta = 2.0 * std::acos(-1.0) / 3.0;
  ParameterSet params;
  params.set("theta", theta);
  for (const char* m : {"m_a", "m_b", "m_c"}) params.set(m, 1.0);
  params.set("speed", 1.0);
  const ImpactProblem reference = BilliardsFamily().make_problem(params);
  DynVector final_states[2];
  int index = 0;
  for (OrderingPolicy policy : {OrderingPolicy::kArgmin, OrderingPolicy::kArgmax}) {
    ResolveOptions ro;
    ro.policy = policy;
    ImpactWorkspace ws;
    resolve_impact(reference, ro, ws);
    const DynVector expected = ws.outcomes.items[0].momentum;
    const DynamicSystem s = make_billiards(theta, 1.0, 0.05, 1.0, 0.0101, 0.0);
    SimulationOptions o;
    o.dt = 1e-3;
    o.steps = 20;
    o.policy = policy;
    const SimulationResult r = simulate(*s.model, s.q0, momentum_of(s), o);
    ASSERT_EQ(r.impacts.size(), 1u);
    EXPECT_EQ(r.impacts[0].contacts.size(), 2u);
    EXPECT_LE((r.p - expected).cwiseAbs().maxCoeff(), 1e-9);
    final_states[index++] = r.p;
  }
  EXPECT_GT((final_states[0] - final_states[1]).norm(), 0.1);  // ξ > 0 when simultaneous
  for (double offset : {1e-3, 1e-5, 1e-7}) {
    DynVector finals[2];
    int k = 0;
    for (OrderingPolicy policy : {OrderingPolicy::kArgmin, OrderingPolicy::kArgmax}) {
      const DynamicSystem s = make_billiards(theta, 1.0, 0.05, 1.0, 0.0101, offset);
      SimulationOptions o;
      o.dt = 1e-3;
      o.steps = 40;
      o.policy = policy;
      const SimulationResult r = simulate(*s.model, s.q0, momentum_of(s), o);
      EXPECT_EQ(r.impacts.size(), 2u) << offset;
      for (const auto& imp : r.impacts) EXPECT_EQ(imp.sequence.size(), 1u) << offset;
      EXPECT_NEAR(s.model->energy(r.q, r.p), 0.5, 1e-12);
      finals[k++] = r.p;
    }
    EXPECT_LE((finals[0] - finals[1]).norm(), 1e-9) << offset;  // ξ = 0: |p⁻|_g = 1
  }
}

// A ball bouncing with e = 0.5 on the floor: elastic-blend bounces until they come faster than
// the step (Zeno), then one plastic impact; it then rests on the floor: no penetration, no stall.
TEST(Simulation, BouncingBallComesToRest) {
  const double r0 = 0.1, g = 9.81, e = 0.5, dt = 1e-3;
  const DynamicSystem s = make_ball(1.0, r0, 1.0, 0.0, g);
  SimulationOptions o;
  o.dt = dt;
  o.steps = 3000;
  o.restitution = e;
  for (long k = 0; k <= o.steps; ++k) o.record_steps.push_back(k);
  const SimulationResult r = simulate(*s.model, s.q0, momentum_of(s), o);
  ASSERT_GE(r.impacts.size(), 3u);
  // Bounce speeds e^k·v₀ give flight times 2e^k v₀/g: the first flight shorter than Δt is Zeno.
  const double v0 = std::sqrt(2 * g * (1.0 - r0));
  int expected_elastic = 0;
  while (2 * std::pow(e, expected_elastic + 1) * v0 / g >= dt) ++expected_elastic;
  int zeno = 0, before_zeno = 0;
  for (const auto& imp : r.impacts) {
    if (imp.zeno) ++zeno;
    if (zeno == 0) ++before_zeno;
  }
  EXPECT_EQ(zeno, 1);
  EXPECT_TRUE(r.impacts.back().plastic);
  EXPECT_NEAR(before_zeno, expected_elastic + 1, 1);  // first impact + bounces ≥ Δt apart
  for (const auto& rec : r.records) EXPECT_GE(rec.q[0] - r0, -o.gap_tolerance) << rec.step;
  EXPECT_NEAR(r.q[0], r0, 1e-9);
  EXPECT_LE(std::abs(r.p[0]), 0.5 * g * dt + 1e-12);  // the discrete momentum of resting: −h m g/2
  EXPECT_EQ(r.records.back().step, o.steps);
  EXPECT_NEAR(r.t, o.steps * dt, 1e-12);
  EXPECT_LE(r.newton_max, 50);
}

// An ordering of 'all' is refused: time stepping needs one outcome.
TEST(Simulation, RejectsPolicyAll) {
  const DynamicSystem s = make_cradle(3, 1.0, 0.05, 0.1, 1.0);
  SimulationOptions o;
  o.policy = OrderingPolicy::kAll;
  EXPECT_THROW(Simulator(*s.model, o), std::invalid_argument);
}

// A state that leaves the doubles stops the run naming the step (found by the simulate fuzzer: the
// records carried q = inf silently). A free ball (g = 0) rising at 1e300 m/s with dt = 1e6 s moves
// 1e306 m per step: q = 1 + 179e306 is finite, 1 + 180e306 > DBL_MAX ≈ 1.798e308 is not.
TEST(Simulation, NonFiniteStateStopsAtItsStep) {
  const DynamicSystem s = make_ball(1.0, 0.1, 1.0, 1e300, 0.0);
  SimulationOptions o;
  o.dt = 1e6;
  o.steps = 200;
  try {
    simulate(*s.model, s.q0, momentum_of(s), o);
    ADD_FAILURE() << "no NonFiniteStateError";
  } catch (const NonFiniteStateError& e) {
    EXPECT_EQ(e.step(), 180);
    EXPECT_NE(std::string(e.what()).find("step 180 (t = 180000000 s): the state is not finite"),
              std::string::npos)
        << e.what();
  }
  // 179 steps end finite, as before.
  o.steps = 179;
  const SimulationResult r = simulate(*s.model, s.q0, momentum_of(s), o);
  EXPECT_TRUE(std::isfinite(r.q[0]));
  EXPECT_NEAR(r.q[0], 1.0 + 179e306, 1e-12 * 179e306);
  // A non-finite initial state is refused at step 0.
  DynVector p_inf(1);
  p_inf[0] = INFINITY;
  EXPECT_THROW(simulate(*s.model, s.q0, p_inf, o), NonFiniteStateError);
}

}  // namespace
}  // namespace simpact
