// Coulomb friction at resting contacts (MidpointIntegrator::step_with_contacts, maximum
// dissipation by stick/slide active set): a point mass sliding on the floor y = 0.
#include <gtest/gtest.h>

#include <cmath>

#include "simpact/integrate/midpoint_integrator.hpp"
#include "simpact/models/planar_linkage.hpp"

namespace simpact {
namespace {

PlanarLinkage sliding_block(double mass, double mu, double g) {
  PlanarLinkage model("block", 2, g);
  PlanarLinkage::Rows2 b = PlanarLinkage::Rows2::Zero(2, 2);
  b(0, 0) = 1.0;
  b(1, 1) = 1.0;
  model.add_floor_contact(model.add_mass(mass, b, {}), 0.0);
  model.set_friction(mu);
  return model;
}

// Sliding (from the discrete resting state p_y = −m g h/2): the friction impulse is μ times the holding
// impulse λ = m g h, so the speed drops by exactly μ g h per step, and the contact sticks (|β| < μλ, zero
// slip) once it would reverse.
TEST(Friction, SlidingBlockDeceleratesAtMuGThenSticks) {
  const double m = 2.0, mu = 0.4, g = 9.81, h = 1e-3, v0 = 0.1;
  const PlanarLinkage model = sliding_block(m, mu, g);
  const MidpointIntegrator integrator(model);
  ActiveContacts active;
  active.add(0);
  DynVector q = DynVector::Zero(2), p(2), q2, p2;
  p << m * v0, -0.5 * m * g * h;  // the discrete momentum of resting under gravity
  const int sliding_steps = static_cast<int>(std::floor(v0 / (mu * g * h)));
  for (int k = 0; k < sliding_steps + 10; ++k) {
    q2 = q + h * p / m;
    const MidpointStep step = integrator.step(q, p, k * h, h, q2, p2, k, active);
    ASSERT_EQ(step.friction_impulses.size(), 1);
    EXPECT_NEAR(step.impulses[0], m * g * h, 1e-12);
    EXPECT_LE(std::abs(step.friction_impulses[0]), mu * step.impulses[0] * (1 + 1e-9));
    EXPECT_NEAR(q2[1], 0.0, 1e-15);
    if (k < sliding_steps) {
      EXPECT_NEAR(p2[0] / m, v0 - mu * g * h * (k + 1), 1e-12) << k;
      EXPECT_NEAR(step.friction_impulses[0], -mu * m * g * h, 1e-12);
    } else {
      EXPECT_NEAR(p2[0], 0.0, 1e-12) << k;  // stuck: no slip, |β| below the cone's edge
    }
    EXPECT_GE(q2[0], q[0] - 1e-15);  // friction never drives the block backwards
    q = q2;
    p = p2;
  }
}

TEST(Friction, FrictionlessWhenMuIsZero) {
  const PlanarLinkage model = sliding_block(1.0, 0.0, 9.81);
  const MidpointIntegrator integrator(model);
  ActiveContacts active;
  active.add(0);
  DynVector q = DynVector::Zero(2), p(2), q2, p2;
  p << 0.3, 0.0;
  q2 = q + 1e-3 * p;
  const MidpointStep step = integrator.step(q, p, 0.0, 1e-3, q2, p2, 0, active);
  EXPECT_EQ(step.friction_impulses.size(), 0);
  EXPECT_NEAR(p2[0], 0.3, 1e-15);
}

}  // namespace
}  // namespace simpact
