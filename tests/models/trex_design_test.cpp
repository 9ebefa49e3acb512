// Impact design of TREX (issue 14 acceptance): Table I's "Initial" row, placed in our geometry so
// the right foot and the tail tip touch, has a clearly non-zero normalized <u,v>_g; the design
// step reaches |<u,v>_g| < 1e-9 with both gaps below 1e-12 m, inside its bounds, identically on
// every run. Also the `trex` impact model: placement, normals, momentum, inadmissible postures.
#include "simpact/models/trex_design.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "simpact/core/impact_diagnostics.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/models/trex_scenario.hpp"

namespace simpact {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

DesignResult place_initial() {
  const TrexTableRow row = trex_table1_initial();
  DesignSolverOptions options;
  options.orthogonality = false;
  return solve_impact_design(trex_design_evaluator(kTrexFootR), trex_variables(row.q, row.design),
                             {{kTrexY, -kInf, kInf, 0.01}, {kTrexTheta}}, options);
}

// Every variable but x free; design lengths within ±1 cm of Table I's.
std::vector<FreeVariable> free_with_bounds() {
  std::vector<FreeVariable> free;
  const TrexTableRow row = trex_table1_initial();
  const Eigen::VectorXd w = trex_variables(row.q, row.design);
  for (int i = kTrexY; i < kTrexVariables; ++i) {
    FreeVariable f{i, -kInf, kInf, trex_variable_scale(i)};
    if (i >= kTrexDof) f = {i, w[i] - 0.01, w[i] + 0.01, 0.01};
    free.push_back(f);
  }
  return free;
}

TEST(TrexDesign, VariableNamesAndVectorRoundTrip) {
  EXPECT_EQ(trex_variable_names().size(), static_cast<std::size_t>(kTrexVariables));
  EXPECT_EQ(trex_variable_index("phi_R"), kTrexHipR);
  EXPECT_EQ(trex_variable_index("l_l"), kTrexShank);
  EXPECT_EQ(trex_variable_index("nose"), -1);
  const TrexTableRow row = trex_table1_initial();
  const Eigen::VectorXd w = trex_variables(row.q, row.design);
  EXPECT_EQ(trex_design_of(w).r2, row.design.r2);
  EXPECT_EQ(trex_configuration(w)[kTrexKneeR], row.q[kTrexKneeR]);
}

TEST(TrexDesign, Table1InitialPlacedHasClearlyNonOrthogonalNormals) {
  const DesignResult placed = place_initial();
  ASSERT_EQ(placed.status, DesignStatus::kConverged);
  EXPECT_LE(std::abs(placed.gap_a), 1e-13);
  EXPECT_LE(std::abs(placed.gap_b), 1e-13);
  // Only y and θ moved, and not far (Table I: y = 12.38 cm, θ = 5.78).
  EXPECT_NEAR(placed.w[kTrexY], 0.1238, 0.002);
  EXPECT_NEAR(placed.w[kTrexTheta], 5.78, 0.05);
  std::printf("Table I Initial placed: y = %.4f cm, theta = %.4f rad, normalized <u,v>_g = %.4e\n",
              100 * placed.w[kTrexY], placed.w[kTrexTheta], placed.cosine);
  EXPECT_GT(std::abs(placed.cosine), 1e-4);
}

TEST(TrexDesign, DesignStepReachesOrthogonalityWithBothContactsClosed) {
  const DesignResult placed = place_initial();
  const std::vector<FreeVariable> free = free_with_bounds();
  const DesignResult r =
      solve_impact_design(trex_design_evaluator(kTrexFootR), placed.w, free, DesignSolverOptions{});
  ASSERT_EQ(r.status, DesignStatus::kConverged) << to_string(r.status);
  std::printf("optimized after %d iterations: normalized <u,v>_g = %.3e, gaps %.1e %.1e m\n", r.iterations,
              r.cosine, r.gap_a, r.gap_b);
  EXPECT_LT(std::abs(r.cosine), 1e-9);
  EXPECT_LT(std::abs(r.gap_a), 1e-12);
  EXPECT_LT(std::abs(r.gap_b), 1e-12);
  for (const FreeVariable& f : free) {
    EXPECT_GE(r.w[f.index], f.lower);
    EXPECT_LE(r.w[f.index], f.upper);
  }
  EXPECT_EQ(r.w[kTrexX], placed.w[kTrexX]);
  // The left foot stays in the air: a two-contact impact.
  ContactVector phi;
  TrexGeometry(trex_design_of(r.w)).gaps(trex_configuration(r.w), phi);
  EXPECT_GT(phi[kTrexFootL], 0.05);
  // Repeated runs: bit-identical.
  const DesignResult again = solve_impact_design(trex_design_evaluator(kTrexFootR), placed.w, free, {});
  EXPECT_EQ(again.iterations, r.iterations);
  for (int i = 0; i < kTrexVariables; ++i) EXPECT_EQ(again.w[i], r.w[i]) << trex_variable_names()[i];
}

TEST(TrexDesign, DesignOnlyStepHoldsThePostureAngles) {
  // Free: y, θ (placement) and the four design lengths; the joint angles stay as given.
  const DesignResult placed = place_initial();
  std::vector<FreeVariable> free = {{kTrexY, -kInf, kInf, 0.01}, {kTrexTheta}};
  for (int i = kTrexDof; i < kTrexVariables; ++i) free.push_back({i, 0.02, 0.2, 0.01});
  const DesignResult r = solve_impact_design(trex_design_evaluator(kTrexFootR), placed.w, free, {});
  ASSERT_EQ(r.status, DesignStatus::kConverged);
  EXPECT_LT(std::abs(r.cosine), 1e-9);
  for (int i = kTrexHipL; i <= kTrexTail; ++i) EXPECT_EQ(r.w[i], placed.w[i]);
  EXPECT_LT(r.w[kTrexR2], r.w[kTrexR1]);
}

TEST(TrexFamily, PlacesFootAndTailOnTheFloorFallingAtSpeed) {
  const TrexFamily model;
  ParameterSet params;
  params.set("speed", 2.0);
  const DofVector q = model.placed_configuration(params);
  const DesignResult placed = place_initial();
  EXPECT_NEAR(q[kTrexY], placed.w[kTrexY], 1e-12);
  EXPECT_NEAR(q[kTrexTheta], placed.w[kTrexTheta], 1e-10);
  const ImpactProblem problem = model.make_problem(params);
  ASSERT_EQ(problem.contacts(), 2);
  // Both contacts approach at the falling speed: <p⁻, u_i>_g = u_i·v = ∂φ_i/∂y · (−2) = −2.
  EXPECT_NEAR(problem.initial_rates()[0], -2.0, 1e-12);
  EXPECT_NEAR(problem.initial_rates()[1], -2.0, 1e-12);
  EXPECT_NEAR(normalized_gram(problem)(0, 1), placed.cosine, 1e-10);
}

TEST(TrexFamily, InadmissiblePosturesNameTheParameter) {
  const TrexFamily model;
  ParameterSet params;
  params.set("r2", 0.08);  // above r1: no taper, no tail length
  EXPECT_THROW(model.make_problem(params), InputError);
  ParameterSet down;
  down.set("phi_L", 1.99);  // the left leg copies the right one: both feet on the floor
  down.set("gamma_L", 5.24);
  try {
    model.make_problem(down);
    ADD_FAILURE() << "a third contact accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "phi_L");
  }
}

}  // namespace
}  // namespace simpact
