// core/post_impact_check.hpp: validating another simulator's post-impact state.
#include "simpact/core/post_impact_check.hpp"

#include <gtest/gtest.h>

#include "simpact/models/cradle_model.hpp"

namespace simpact {
namespace {

struct Checked {
  ImpactProblem problem;
  ImpactWorkspace workspace;
  ImpactResolution resolution;
};

// Newton's cradle, three equal balls, ball 1 at speed 1: the propagative outcome is [0, 0, 1].
Checked cradle() {
  Checked c{CradleModel().make_problem({}), ImpactWorkspace{}, {}};
  c.resolution = resolve_impact(c.problem, ResolveOptions{}, c.workspace);
  return c;
}

TEST(PostImpactCheck, ThePropagativeOutcomeIsConsistent) {
  Checked c = cradle();
  const PostImpactCheck r = check_post_impact_state(c.problem, Eigen::Vector3d(0, 0, 1),
                                                    kDefaultCheckTolerance, c.resolution, c.workspace);
  EXPECT_TRUE(r.consistent_with_propagative_model);
  EXPECT_LE(r.distance_to_nearest_outcome, 1e-15);
  EXPECT_NEAR(r.relative_energy_error, 0.0, 1e-15);
  EXPECT_TRUE(r.feasibility_violations.empty());
  EXPECT_FALSE(r.negative_impulses);
  // implied impulses: λ1 = λ2 = 1 move the momentum from ball 1 through ball 2 to ball 3
  EXPECT_NEAR(r.implied_impulses[0], 1.0, 1e-15);
  EXPECT_NEAR(r.implied_impulses[1], 1.0, 1e-15);
  EXPECT_LE(r.impulse_residual, 1e-15);
  // plastic: all three move together at 1/3: ||[0,0,1] − [1/3,1/3,1/3]|| = √(2/3)
  EXPECT_NEAR(r.distance_to_plastic, std::sqrt(2.0 / 3.0), 1e-15);
}

TEST(PostImpactCheck, TheSetSAnswerIsInfeasibleAndFlagged) {
  // [0, 1, 0] is what the paper's set S would give: ball 2 moving into ball 3.
  Checked c = cradle();
  const PostImpactCheck r = check_post_impact_state(c.problem, Eigen::Vector3d(0, 1, 0),
                                                    kDefaultCheckTolerance, c.resolution, c.workspace);
  EXPECT_FALSE(r.consistent_with_propagative_model);
  ASSERT_EQ(r.feasibility_violations.size(), 1u);
  EXPECT_EQ(r.feasibility_violations[0].contact, 1);
  EXPECT_NEAR(r.feasibility_violations[0].rate, -1.0 / std::sqrt(2.0), 1e-15);  // <p,u>/(||p⁻|| ||u||)
  EXPECT_NEAR(r.distance_to_nearest_outcome, std::sqrt(2.0), 1e-15);
}

TEST(PostImpactCheck, EnergyGainAndAdhesiveImpulsesAreReported) {
  Checked c = cradle();
  // ball 3 leaves at speed 2: four times the energy, +300 %
  const PostImpactCheck gain = check_post_impact_state(c.problem, Eigen::Vector3d(0, 0, 2),
                                                       kDefaultCheckTolerance, c.resolution, c.workspace);
  EXPECT_NEAR(gain.relative_energy_error, 3.0, 1e-15);
  // p = [2, −1, 0]: Δp = [1, −1, 0] = λ1·(−1, 1, 0) with λ1 = −1 — contact 1 pulling (adhesion)
  const PostImpactCheck pull = check_post_impact_state(c.problem, Eigen::Vector3d(2, -1, 0),
                                                       kDefaultCheckTolerance, c.resolution, c.workspace);
  EXPECT_TRUE(pull.negative_impulses);
  EXPECT_NEAR(pull.implied_impulses[0], -1.0, 1e-15);
}

}  // namespace
}  // namespace simpact
