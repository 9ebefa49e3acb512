// Inelastic impacts (Sec. III-A): p⁺ = α p_e + (1−α) p_p (eq. 17) with α chosen so that the
// energy-based restitution of eq. (16) holds, R² = 1 − ΔE/E_p, E_p = ½||p⁻||² − ½||p_p||².
// DESIGN §1 errata: α = R when every contact stays active (not √(1−R²)).
#include "simpact/core/restitution.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "simpact/core/impact_resolution.hpp"

namespace simpact {
namespace {

// R recovered from energies through eq. (16).
double recovered_restitution(double energy_before, double energy_after, double energy_plastic) {
  const double delta = energy_before - energy_after;
  const double e_p = energy_before - energy_plastic;
  return std::sqrt(1.0 - delta / e_p);
}

TEST(Restitution, AlphaEqualsRWhenEveryContactStaysActive) {
  // Eq. (18): <p_p,p_e>_g = ||p_p||²_g, i.e. x = p.
  for (const double r : {0.0, 0.1, 0.5, 0.6, 0.9, 1.0}) {
    EXPECT_NEAR(restitution_alpha(r, 2.0, 0.5, 0.5), r, 1e-15) << "R = " << r;
    EXPECT_NEAR(restitution_alpha(r, 7.0, 0.0, 0.0), r, 1e-15) << "R = " << r;  // p_p = 0
  }
  // The printed α = √(1−R²) would make R = 0 elastic and R = 0.6 give 0.8.
  EXPECT_EQ(restitution_alpha(0.0, 2.0, 0.5, 0.5), 0.0);
  EXPECT_EQ(restitution_alpha(1.0, 2.0, 0.5, 0.5), 1.0);
  EXPECT_GT(std::abs(restitution_alpha(0.6, 2.0, 0.5, 0.5) - 0.8), 0.1);
}

TEST(Restitution, AlphaSolvesTheEnergyEquationForGeneralMomenta) {
  // Random p_e, p_p in R^4 (Euclidean metric) with ||p_e|| ≥ ||p_p||: the energy after is
  // ||p⁺||² = ||p_p||² + R²(||p_e||² − ||p_p||²), which has exactly one root α ∈ [0, 1].
  std::mt19937_64 gen(41);
  std::normal_distribution<double> normal;
  int checked = 0;
  for (int trial = 0; trial < 500; ++trial) {
    Eigen::Vector4d pe, pp;
    for (int i = 0; i < 4; ++i) pe[i] = normal(gen), pp[i] = normal(gen);
    if (pe.squaredNorm() < pp.squaredNorm()) std::swap(pe, pp);
    const double e = pe.squaredNorm(), p = pp.squaredNorm(), x = pe.dot(pp);
    for (const double r : {0.05, 0.3, 0.7, 0.95}) {
      const double alpha = restitution_alpha(r, e, p, x);
      ASSERT_GE(alpha, 0.0);
      ASSERT_LE(alpha, 1.0);
      const double after = (alpha * pe + (1.0 - alpha) * pp).squaredNorm();
      EXPECT_NEAR(after, p + r * r * (e - p), 1e-12 * e) << "trial " << trial << " R " << r;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2000);
}

TEST(Restitution, DegenerateInputs) {
  // p_e = p_p (nothing to blend): α = R by convention, and the energy is unchanged anyway.
  EXPECT_NEAR(restitution_alpha(0.4, 1.0, 1.0, 1.0), 0.4, 1e-15);
  // Out-of-range R is clamped to the elastic/plastic ends.
  EXPECT_EQ(restitution_alpha(1.5, 2.0, 0.5, 0.5), 1.0);
  EXPECT_EQ(restitution_alpha(-0.5, 2.0, 0.5, 0.5), 0.0);
}

ImpactProblem cradle(const Eigen::Vector3d& p, double restitution) {
  ImpactProblem::RowMajorMatrix normals(2, 3);
  normals << -1, 1, 0, 0, -1, 1;
  return ImpactProblem(KineticMetric(Eigen::MatrixXd::Identity(3, 3)), normals, p, restitution);
}

TEST(Restitution, CradleBlendClosedForm) {
  // p⁻ = [1,0,0]: p_e = [0,0,1], p_p = [⅓,⅓,⅓], both contacts active ⇒ α = R and
  // p⁺ = R p_e + (1−R) p_p; R = ½ gives [⅙, ⅙, ⅔] with energy ¼.
  ImpactWorkspace ws;
  ResolveOptions options;
  const ImpactProblem half = cradle(Eigen::Vector3d(1, 0, 0), 0.5);
  const ImpactResolution res = resolve_impact(half, options, ws);
  ASSERT_EQ(res.outcome_count, 1);
  EXPECT_TRUE(res.plastic_computed);
  const Outcome& o = ws.outcomes.items[0];
  EXPECT_NEAR(o.alpha, 0.5, 1e-15);
  EXPECT_LE((half.momentum_from_impulses(o.impulses) - Eigen::Vector3d(1.0 / 6, 1.0 / 6, 2.0 / 3)).norm(),
            1e-15);
  EXPECT_NEAR(o.energy, 0.25, 1e-15);
  EXPECT_LE((half.momentum_from_impulses(o.elastic_impulses) - Eigen::Vector3d(0, 0, 1)).norm(), 1e-15);
  EXPECT_NEAR(recovered_restitution(res.energy_before, o.energy, res.plastic.energy), 0.5, 1e-14);
  // R = 0 is the plastic outcome, R = 1 the elastic one.
  const ImpactProblem plastic = cradle(Eigen::Vector3d(1, 0, 0), 0.0);
  resolve_impact(plastic, options, ws);
  EXPECT_LE(
      (plastic.momentum_from_impulses(ws.outcomes.items[0].impulses) - Eigen::Vector3d::Constant(1.0 / 3))
          .norm(),
      1e-15);
  EXPECT_EQ(ws.outcomes.items[0].alpha, 0.0);
  const ImpactProblem elastic = cradle(Eigen::Vector3d(1, 0, 0), 1.0);
  resolve_impact(elastic, options, ws);
  EXPECT_EQ(ws.outcomes.items[0].alpha, 1.0);
  EXPECT_NEAR(ws.outcomes.items[0].energy, 0.5, 1e-15);
}

TEST(Restitution, SeparatingPlasticContactNeedsTheQuadraticRoot) {
  // p⁻ = [1, 0, 0.9]: the elastic outcome uses both contacts ([0, 0.9, 1]), the plastic one only
  // the first ([½, ½, 0.9], C separating), so eq. (18) fails and α ≠ R; eq. (16) still holds.
  for (const double r : {0.2, 0.5, 0.9}) {
    const ImpactProblem problem = cradle(Eigen::Vector3d(1, 0, 0.9), r);
    ImpactWorkspace ws;
    const ImpactResolution res = resolve_impact(problem, ResolveOptions{}, ws);
    ASSERT_EQ(res.outcome_count, 1);
    EXPECT_LE((problem.momentum_from_impulses(res.plastic.impulses) - Eigen::Vector3d(0.5, 0.5, 0.9)).norm(),
              1e-15);
    EXPECT_EQ(res.plastic.impulses[1], 0.0);
    const Outcome& o = ws.outcomes.items[0];
    EXPECT_LE((problem.momentum_from_impulses(o.elastic_impulses) - Eigen::Vector3d(0, 0.9, 1)).norm(),
              1e-15);
    EXPECT_GT(std::abs(o.alpha - r), 1e-3) << "R = " << r;
    EXPECT_NEAR(recovered_restitution(res.energy_before, o.energy, res.plastic.energy), r, 1e-12);
    // Closed form of the root: a α² + b α + c = 0 with e = 1.81, p = 1.31, x = 1.35.
    const double a = 0.42, b = 0.08, c = -r * r * 0.5;
    EXPECT_NEAR(o.alpha, (-b + std::sqrt(b * b - 4 * a * c)) / (2 * a), 1e-13);
    // A convex combination of feasible momenta is feasible.
    EXPECT_TRUE(problem.feasible(problem.rates_from_impulses(o.impulses)));
  }
}

}  // namespace
}  // namespace simpact
