// NewtonOptions::force_split on a damper (point mass m on a line, force −c·v): the symmetric split
// θ = ½ gives the trapezoidal factor p₂/p₁ = (m − hc/2)/(m + hc/2) (→ −1 when hc ≫ m: the momentum
// rings), θ = 1 the L-stable m/(m + hc); the Simulator's energy bookkeeping closes exactly for both
// (constant mass, linear force: the symmetric step conserves energy exactly).
#include <gtest/gtest.h>

#include <cmath>

#include "simpact/integrate/midpoint_integrator.hpp"
#include "simpact/integrate/simulation.hpp"
#include "simpact/models/planar_linkage.hpp"

namespace simpact {
namespace {

PlanarLinkage damped_mass(double mass, double damping) {
  PlanarLinkage model("damped", 1, 0.0);
  PlanarLinkage::Rows2 b = PlanarLinkage::Rows2::Zero(2, 1);
  b(0, 0) = 1.0;
  model.add_mass(mass, b, {});
  model.add_joint_law({0, 0.0, damping, 0.0});
  return model;
}

TEST(ForceSplit, DamperMomentumFactorIsTrapezoidalOrLStable) {
  const double m = 0.5, c = 1e4, h = 1e-4, p1 = 0.3;  // h c / m = 2: stiff
  const PlanarLinkage model = damped_mass(m, c);
  for (double split : {0.5, 0.75, 1.0}) {
    NewtonOptions options;
    options.force_split = split;
    const MidpointIntegrator integrator(model, options);
    DynVector q1 = DynVector::Zero(1), p = DynVector::Constant(1, p1), q2 = q1, p2;
    integrator.step(q1, p, 0.0, h, q2, p2, 1);
    // p₁ − θ h c v − m v = 0, p₂ = m v − (1 − θ) h c v.
    const double v = p1 / (m + split * h * c);
    EXPECT_NEAR(q2[0], h * v, 1e-15) << split;
    EXPECT_NEAR(p2[0], (m - (1.0 - split) * h * c) * v, 1e-14) << split;
  }
}

TEST(ForceSplit, EnergyBookkeepingClosesForEverySplit) {
  const double m = 0.5, c = 1e4;
  const PlanarLinkage model = damped_mass(m, c);
  for (double split : {0.5, 1.0}) {
    SimulationOptions options;
    options.dt = 1e-3;  // h c / m = 20
    options.newton.force_split = split;
    Simulator sim(model, options);
    sim.reset(DynVector::Zero(1), DynVector::Constant(1, 1.0));
    const double e0 = sim.energy();
    for (int k = 0; k < 50; ++k) {
      sim.advance();
      EXPECT_NEAR(sim.energy() - e0 - sim.force_work(), 0.0, 1e-14 * e0) << split << " step " << k;
    }
    // θ = 1 decays monotonically (θ = ½ flips the sign every step here: factor −9/11).
    if (split == 1.0) {
      EXPECT_GT(sim.p()[0], 0.0);
    }
  }
}

}  // namespace
}  // namespace simpact
