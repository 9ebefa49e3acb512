// Energy bookkeeping by source (Simulator::force_work_parts, energy_bookkeeping): the dropped,
// driven TREX (touchdown, resting contacts with friction, Zeno impacts, PD hips), checked against
// closed forms that each part must satisfy on its own.
#include <gtest/gtest.h>

#include <cmath>

#include "simpact/integrate/simulation.hpp"
#include "simpact/models/trex_model.hpp"

namespace simpact {
namespace {

struct TrexRun {
  EnergyBookkeeping energy;
  DynVector q0, q;
};

TrexRun run_trex(double force_split, double dt, double t_end) {
  const TrexTableRow row = trex_table1_initial();
  const DynamicSystem s = make_trex(row.design, row.q, 0.17, TrexDrive{});
  SimulationOptions o;
  o.dt = dt;
  o.steps = std::lround(t_end / dt);
  o.newton.force_split = force_split;
  const SimulationResult r = simulate(*s.model, s.q0, s.model->mass_matrix(s.q0) * s.v0, o);
  TrexRun out;
  out.energy = r.energy;
  out.q0 = s.q0;
  out.q = r.q;
  return out;
}

// ½k(q − rest)² of the knee and body springs at the end (rest = the stance = q0's angles).
double final_spring_energy(const TrexRun& run) {
  const TrexDrive d;
  double energy = 0.0;
  for (int i : {kTrexKneeL, kTrexKneeR}) energy += 0.5 * d.knee_stiffness * std::pow(run.q[i] - run.q0[i], 2);
  return energy + 0.5 * d.body_stiffness * std::pow(run.q[kTrexTail] - run.q0[kTrexTail], 2);
}

double work_of(const EnergyBookkeeping& e, const std::string& source) {
  for (std::size_t i = 0; i < e.sources.size(); ++i)
    if (e.sources[i] == source) return e.work[i];
  ADD_FAILURE() << "no source " << source;
  return NAN;
}

// The knee and body springs keep their rest angles (the stance), so their midpoint work
// −k(q_m − r)Δq telescopes to −ΔV_springs exactly; the dash pots' −c(Δq)²/h per step and
// friction only dissipate; elastic impacts conserve energy, plastic ones lose it.
TEST(EnergyBookkeeping, TrexSourcesObeyTheirOwnClosedForms) {
  const TrexRun run = run_trex(0.5, 1e-4, 0.3);
  const EnergyBookkeeping& e = run.energy;
  const std::vector<std::string> expected = {"springs",         "dampers",          "drives",
                                             "force_split",     "resting_contacts", "friction",
                                             "impacts_elastic", "impacts_plastic"};
  EXPECT_EQ(e.sources, expected);
  const double spring_energy = final_spring_energy(run);
  EXPECT_GT(spring_energy, 1e-6);  // the springs did move
  EXPECT_NEAR(work_of(e, "springs"), -spring_energy, 1e-12 * e.initial);
  EXPECT_LT(work_of(e, "dampers"), 0.0);
  EXPECT_GT(work_of(e, "drives"), 0.0);  // the hips are driven after touchdown
  EXPECT_EQ(work_of(e, "force_split"), 0.0);
  EXPECT_LT(work_of(e, "friction"), 0.0);
  EXPECT_LT(std::abs(work_of(e, "impacts_elastic")), 1e-12 * e.initial);
  EXPECT_LE(work_of(e, "impacts_plastic"), 0.0);
  // What is left is the integrator's error: small against the energy that moved.
  EXPECT_LT(std::abs(e.residual()), 2e-4 * e.initial);
}

// With the L-stable split θ = 1 the split's impulses get their own line and the parts keep their
// closed forms; the balance closes to the step's O(h²) error (Table I's initial stance dropped).
TEST(EnergyBookkeeping, ForceSplitEnergyIsBookedApart) {
  const TrexRun run = run_trex(1.0, 2.5e-5, 0.3);
  const EnergyBookkeeping& e = run.energy;
  const double spring_energy = final_spring_energy(run);
  EXPECT_NEAR(work_of(e, "springs"), -spring_energy, 1e-12 * e.initial);
  EXPECT_NE(work_of(e, "force_split"), 0.0);
  EXPECT_LT(std::abs(e.residual()), 4e-6 * e.initial);  // measured 2.05e-6
}

}  // namespace
}  // namespace simpact
