// Billiards break (Sec. VII-A, Fig. 4–5) with DESIGN §1's errata: true normals
// Dφ_a = [n_a, 0, −n_a]; normalized cosine cos θ/(m_c √((1/m_a+1/m_c)(1/m_b+1/m_c))), ½cos θ for
// equal masses; ξ(θ) = 0 at θ = π/2 (any masses and radii) and θ = π, and for unequal masses also
// where G_12 = −cos(π/m); the smallest θ is π/3 for equal radii.
#include "simpact/models/billiards_scenario.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "simpact/core/impact_diagnostics.hpp"
#include "simpact/core/impact_resolution.hpp"
#include "simpact/core/input_error.hpp"

namespace simpact {
namespace {

constexpr double kPi = 3.141592653589793;

ParameterSet with_theta(double theta) {
  ParameterSet params;
  params.set("theta", theta);
  return params;
}

ImpactResolution resolve(const ImpactProblem& problem) {
  ImpactWorkspace ws;
  return resolve_impact(problem, ResolveOptions{}, ws);
}

TEST(BilliardsFamily, GeometryMassesAndCue) {
  const BilliardsFamily model;
  const double theta = 1.9, half = theta / 2;
  ParameterSet params = with_theta(theta);
  params.set("r_a", 2.0);
  params.set("density", 3.0);
  params.set("speed", 2.5);
  const ImpactProblem problem = model.make_problem(params);
  ASSERT_EQ(problem.dof(), 6);
  ASSERT_EQ(problem.contacts(), 2);
  const DofMatrix& m = problem.metric().mass_matrix();
  const double m_unit = 3.0 * 4.0 / 3.0 * kPi;  // density · (4/3)π r³, r = 1
  EXPECT_NEAR(m(4, 4), m_unit, 1e-13);
  EXPECT_NEAR(m(0, 0), 8.0 * m(4, 4), 1e-12);  // r_a = 2: eight times the volume
  EXPECT_EQ(m(0, 0), m(1, 1));
  EXPECT_EQ(m(2, 2), m(4, 4));
  // Dφ_a = [n_a, 0, −n_a], n_a the unit vector from c to a (the paper prints the negative).
  Eigen::Matrix<double, 1, 6> ua, ub;
  ua << std::cos(half), std::sin(half), 0, 0, -std::cos(half), -std::sin(half);
  ub << 0, 0, std::cos(half), -std::sin(half), -std::cos(half), std::sin(half);
  EXPECT_LE((problem.normals().row(0) - ua).norm(), 1e-15);
  EXPECT_LE((problem.normals().row(1) - ub).norm(), 1e-15);
  // The cue moves along the bisector (+x) towards both balls: both contacts violated.
  EXPECT_NEAR(problem.momentum()[4], m_unit * 2.5, 1e-12);
  EXPECT_EQ(problem.momentum()[5], 0.0);
  EXPECT_NEAR(problem.initial_rates()[0], -2.5 * std::cos(half), 1e-14);
  EXPECT_NEAR(problem.initial_rates()[1], -2.5 * std::cos(half), 1e-14);
  // Eq. (31), corrected: <Dφ_a, Dφ_b>_g = +cos θ / m_c.
  EXPECT_NEAR(problem.gram()(0, 1), std::cos(theta) / m(4, 4), 1e-15);
}

TEST(BilliardsFamily, PsiRotatesTheCue) {
  const BilliardsFamily model;
  const double theta = 2.0;
  for (const double psi : {-0.6, 0.0, 0.3, 1.0}) {
    ParameterSet params = with_theta(theta);
    params.set("psi", psi);
    const ImpactProblem problem = model.make_problem(params);
    const double mc = problem.metric().mass_matrix()(4, 4);
    EXPECT_NEAR(problem.momentum()[4], mc * std::cos(psi), 1e-13);
    EXPECT_NEAR(problem.momentum()[5], mc * std::sin(psi), 1e-13);
    EXPECT_EQ(problem.momentum().head(4), Eigen::Vector4d::Zero());
    // Rates −cos(θ/2 ∓ ψ): rotating towards a makes the a-contact more violated.
    EXPECT_NEAR(problem.initial_rates()[0], -std::cos(theta / 2 - psi), 1e-14);
    EXPECT_NEAR(problem.initial_rates()[1], -std::cos(theta / 2 + psi), 1e-14);
  }
  ParameterSet too_far = with_theta(theta);
  too_far.set("psi", 2.0);
  EXPECT_THROW(model.make_problem(too_far), InputError);
}

TEST(BilliardsFamily, NormalizedCosineIsHalfCosThetaForEqualMasses) {
  const BilliardsFamily model;
  for (int i = 0; i <= 12; ++i) {
    const double theta = kPi / 3 + i * (2 * kPi / 3) / 12;
    const ImpactDiagnostics diag = diagnose(model.make_problem(with_theta(theta)));
    EXPECT_NEAR(diag.normalized_gram(0, 1), 0.5 * std::cos(theta), 1e-15) << "theta = " << theta;
  }
  // Unequal masses: cos θ / (m_c √((1/m_a + 1/m_c)(1/m_b + 1/m_c))).
  ParameterSet params = with_theta(2.2);
  params.set("m_a", 1.0);
  params.set("m_b", 5.0);
  params.set("m_c", 0.3);
  const double expected = std::cos(2.2) / (0.3 * std::sqrt((1 / 1.0 + 1 / 0.3) * (1 / 5.0 + 1 / 0.3)));
  EXPECT_NEAR(diagnose(model.make_problem(params)).normalized_gram(0, 1), expected, 1e-15);
}

TEST(BilliardsFamily, XiVanishesAtRightAngleAndGrazing) {
  const BilliardsFamily model;
  for (const double theta : {kPi / 2, kPi}) {
    const ImpactResolution res = resolve(model.make_problem(with_theta(theta)));
    EXPECT_NE(res.status, ResolveStatus::kCapHit);
    EXPECT_LE(res.xi, 1e-12) << "theta = " << theta;
    EXPECT_LE(res.xi_argmin_argmax, 1e-12) << "theta = " << theta;
    EXPECT_TRUE(res.unique);
  }
  for (const double theta : {2 * kPi / 3, 5 * kPi / 6}) {
    const ImpactResolution res = resolve(model.make_problem(with_theta(theta)));
    EXPECT_EQ(res.status, ResolveStatus::kOk);
    EXPECT_GT(res.xi, 1e-3) << "theta = " << theta;
    EXPECT_GT(res.xi_argmin_argmax, 1e-3) << "theta = " << theta;
    EXPECT_NEAR(res.xi, res.xi_argmin_argmax, 1e-14);  // two contacts: the paper's ξ
    EXPECT_FALSE(res.unique);
  }
}

TEST(BilliardsFamily, XiIsPositiveAwayFromTheZeros) {
  // Fig. 5: equal balls, θ from π/3 to π; zeros only at π/2 and π.
  const BilliardsFamily model;
  for (int i = 0; i <= 40; ++i) {
    const double theta = kPi / 3 + i * (2 * kPi / 3) / 40;
    if (std::abs(theta - kPi / 2) < 0.03 || kPi - theta < 0.03) continue;
    const ImpactResolution res = resolve(model.make_problem(with_theta(theta)));
    EXPECT_GT(res.xi, 1e-4) << "theta = " << theta;
  }
}

TEST(BilliardsFamily, RightAngleZeroIsIndependentOfMassesAndRadii) {
  const BilliardsFamily model;
  std::vector<ParameterSet> choices(3, with_theta(kPi / 2));
  choices[0].set("r_c", 2.0);
  choices[0].set("r_a", 0.5);
  choices[1].set("m_a", 1.0);
  choices[1].set("m_b", 5.0);
  choices[1].set("m_c", 0.3);
  choices[2].set("r_a", 1.5);
  choices[2].set("r_b", 0.7);
  choices[2].set("r_c", 1.2);
  choices[2].set("density", 7.0);
  choices[2].set("psi", 0.2);
  for (std::size_t c = 0; c < choices.size(); ++c) {
    const ImpactProblem problem = model.make_problem(choices[c]);
    const ImpactDiagnostics diag = diagnose(problem);
    EXPECT_TRUE(diag.orthogonal) << "choice " << c;
    const ImpactResolution res = resolve(problem);
    EXPECT_LE(res.xi, 1e-12) << "choice " << c;
    EXPECT_LE(res.xi_argmin_argmax, 1e-12) << "choice " << c;
    // Off the right angle the same balls are order-dependent.
    ParameterSet off = choices[c];
    off.set("theta", kPi / 2 + 0.3);
    EXPECT_GT(resolve(model.make_problem(off)).xi, 1e-4) << "choice " << c;
  }
}

// With unequal masses ξ also vanishes where G_12 = −cos(π/m): solve for θ given the masses.
TEST(BilliardsFamily, DihedralAnglesWithUnequalMasses) {
  const BilliardsFamily model;
  struct Case {
    int m;
    double m_a, m_b, m_c;
  };
  for (const Case& c : {Case{3, 1.0, 5.0, 0.3}, Case{4, 3.0, 5.0, 1.0}, Case{6, 8.0, 8.0, 1.0}}) {
    const double factor = std::sqrt((1 + c.m_c / c.m_a) * (1 + c.m_c / c.m_b));
    const double cos_theta = -std::cos(kPi / c.m) * factor;
    ASSERT_GT(cos_theta, -1.0) << "m = " << c.m;
    const double theta = std::acos(cos_theta);
    ParameterSet params = with_theta(theta);
    params.set("m_a", c.m_a);
    params.set("m_b", c.m_b);
    params.set("m_c", c.m_c);
    const ImpactProblem problem = model.make_problem(params);
    const ImpactDiagnostics diag = diagnose(problem);
    EXPECT_NEAR(diag.normalized_gram(0, 1), -std::cos(kPi / c.m), 1e-14);
    EXPECT_EQ(diag.dihedral_m, c.m);
    const ImpactResolution res = resolve(problem);
    EXPECT_EQ(res.status, ResolveStatus::kOk);
    EXPECT_EQ(res.outcome_count, 1) << "m = " << c.m;
    EXPECT_LE(res.xi, 1e-10) << "m = " << c.m;
    EXPECT_LE(res.xi_argmin_argmax, 1e-10) << "m = " << c.m;
    // Nearby angles are not dihedral: ξ > 0.
    for (const double delta : {-0.05, 0.02}) {
      params.set("theta", theta + delta);
      const ImpactProblem near = model.make_problem(params);
      EXPECT_EQ(diagnose(near).dihedral_m, 0);
      const ImpactResolution r = resolve(near);
      EXPECT_GT(r.xi, 1e-4) << "m = " << c.m << " delta " << delta;
    }
  }
}

TEST(BilliardsFamily, SmallestAngle) {
  EXPECT_NEAR(BilliardsFamily::min_theta(1, 1, 1), kPi / 3, 1e-15);
  // Law of cosines: sides r_a + r_c, r_b + r_c around θ, r_a + r_b opposite.
  EXPECT_NEAR(BilliardsFamily::min_theta(0.5, 1.0, 2.0), std::acos(13.0 / 15.0), 1e-15);
  const BilliardsFamily model;
  EXPECT_NO_THROW(model.make_problem(with_theta(kPi / 3)));
  try {
    model.make_problem(with_theta(kPi / 3 - 1e-3));
    ADD_FAILURE() << "theta below pi/3 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "theta");
    EXPECT_NE(std::string(e.what()).find("theta"), std::string::npos);
  }
  // Bigger targets need a wider angle.
  ParameterSet big = with_theta(1.2);
  big.set("r_a", 3.0);
  big.set("r_b", 3.0);
  EXPECT_GT(BilliardsFamily::min_theta(3, 3, 1), 1.2);
  EXPECT_THROW(model.make_problem(big), InputError);
}

TEST(BilliardsFamily, MissingAndOutOfRangeParameters) {
  const BilliardsFamily model;
  const auto field_of = [&](const ParameterSet& params) -> std::string {
    try {
      model.make_problem(params);
    } catch (const InputError& e) {
      return e.field();
    }
    return "";
  };
  EXPECT_EQ(field_of(ParameterSet{}), "theta");
  EXPECT_EQ(field_of(with_theta(3.5)), "theta");
  ParameterSet negative_mass = with_theta(2.0);
  negative_mass.set("m_b", -1.0);
  EXPECT_EQ(field_of(negative_mass), "m_b");
  ParameterSet zero_radius = with_theta(2.0);
  zero_radius.set("r_c", 0.0);
  EXPECT_EQ(field_of(zero_radius), "r_c");
  ParameterSet restitution = with_theta(2.0);
  restitution.set("restitution", -0.1);
  EXPECT_EQ(field_of(restitution), "restitution");
}

}  // namespace
}  // namespace simpact
