// One mechanism, one adapter (issue 34 §1): each built-in scenario is written once, so its impact
// is the time-stepping mechanism's impact at the touching state, through impact_problem_at; and
// the TREX impact equals the closed-form M(q) and Dφ(q) of TrexGeometry.
#include <gtest/gtest.h>

#include <cmath>

#include "simpact/models/billiards_scenario.hpp"
#include "simpact/models/cradle_scenario.hpp"
#include "simpact/models/impact_problem_at.hpp"
#include "simpact/models/trex_geometry.hpp"
#include "simpact/models/trex_scenario.hpp"

namespace simpact {
namespace {

double max_abs(const Eigen::MatrixXd& m) {
  return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff();
}

// a and b: the same impact to rounding (relative to each quantity's scale).
void expect_same_impact(const ImpactProblem& a, const ImpactProblem& b, double tol) {
  ASSERT_EQ(a.dof(), b.dof());
  ASSERT_EQ(a.contacts(), b.contacts());
  EXPECT_LE(max_abs(a.normals() - b.normals()), tol * max_abs(a.normals()));
  EXPECT_LE(max_abs(a.gram() - b.gram()), tol * max_abs(a.gram()));
  EXPECT_LE(max_abs(a.momentum() - b.momentum()), tol * max_abs(a.momentum()));
  EXPECT_LE(max_abs(a.initial_rates() - b.initial_rates()), tol * max_abs(a.initial_rates()));
  EXPECT_EQ(a.restitution(), b.restitution());
}

// The time-stepping billiards with no approach is the impact family's break: equal balls, cue
// along the bisector. Its real gaps (not assumed closed) close both contacts at the tolerance.
TEST(OneMechanism, BilliardsImpactIsTheTimeSteppingMechanismTouching) {
  for (double theta : {1.2, 2.0, 2.9}) {
    const DynamicSystem s = make_billiards(theta, 0.7, 0.05, 1.3, 0.0, 0.0);
    PreImpact pre;
    pre.velocity = s.v0;
    pre.restitution = 0.6;
    const ImpactProblem stepped = impact_problem_at<FixedSizes>(*s.model, s.q0, pre);
    ParameterSet p;
    p.set("theta", theta);
    for (const char* r : {"r_a", "r_b", "r_c"}) p.set(r, 0.05);
    for (const char* m : {"m_a", "m_b", "m_c"}) p.set(m, 0.7);
    p.set("speed", 1.3);
    p.set("restitution", 0.6);
    const ImpactProblem family = BilliardsFamily().make_problem(p);
    EXPECT_EQ(stepped.contacts(), 2);
    expect_same_impact(stepped, family, 1e-14);
    // The closed form of the break: equal masses give the normalized cosine ½cos θ.
    const double g12 = family.gram()(0, 1) / std::sqrt(family.gram()(0, 0) * family.gram()(1, 1));
    EXPECT_NEAR(g12, 0.5 * std::cos(theta), 1e-15);
  }
}

TEST(OneMechanism, CradleImpactIsTheTimeSteppingMechanismTouching) {
  const DynamicSystem s = make_cradle(5, 2.0, 0.1, 0.0, 3.0);
  PreImpact pre;
  pre.velocity = s.v0;
  const ImpactProblem stepped = impact_problem_at<FixedSizes>(*s.model, s.q0, pre);
  ParameterSet p;
  p.set("n", 5);
  for (int i = 1; i <= 5; ++i) {
    p.set("m" + std::to_string(i), 2.0);
    p.set("r" + std::to_string(i), 0.1);
  }
  p.set("speed", 3.0);
  const ImpactProblem family = CradleFamily().make_problem(p);
  EXPECT_EQ(stepped.contacts(), 4);
  expect_same_impact(stepped, family, 1e-15);
}

// Balls of 1e-300 m and 1e60 m: the normals stay unit vectors (no under- or overflow in the
// distance) and both contacts close.
TEST(OneMechanism, BilliardsNormalsAtExtremeScales) {
  for (double r : {1e-300, 1e60}) {
    ParameterSet p;
    p.set("theta", 2.0);
    for (const char* name : {"r_a", "r_b", "r_c"}) p.set(name, r);
    for (const char* name : {"m_a", "m_b", "m_c"}) p.set(name, 1.0);
    const ImpactProblem problem = BilliardsFamily().make_problem(p);
    ASSERT_EQ(problem.contacts(), 2);
    SCOPED_TRACE(r);
    for (int i = 0; i < 2; ++i) EXPECT_NEAR(problem.normals().row(i).tail(2).norm(), 1.0, 1e-15);  // at c
    EXPECT_NEAR(problem.normals()(0, 0), std::cos(1.0), 1e-15);
    EXPECT_NEAR(problem.normals()(0, 1), std::sin(1.0), 1e-15);
  }
}

// TREX's impact goes through its time-stepping linkage: M(q) and the foot's and tail tip's
// normals equal TrexGeometry's closed forms at the placed configuration.
TEST(OneMechanism, TrexImpactIsTheGeometrysClosedForm) {
  const TrexFamily family;
  for (double gamma_r : {0.0, 0.3}) {  // Table I's initial posture, then a bent right knee
    const double foot = 1.0;
    ParameterSet p;
    p.set("gamma_R", gamma_r);
    p.set("speed", 0.8);
    const DofVector q = family.placed_configuration(p);
    const ImpactProblem problem = family.make_problem(p);
    const TrexGeometry g(
        TrexDesign{family.parameters()[0].default_value, family.parameters()[1].default_value,
                   family.parameters()[2].default_value, family.parameters()[3].default_value});
    NormalMatrix jac;
    g.gap_jacobian(q, jac);
    ASSERT_EQ(problem.contacts(), 2);
    const int f = foot == 0.0 ? kTrexFootL : kTrexFootR;
    EXPECT_LE((problem.normals().row(0) - jac.row(f)).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_LE((problem.normals().row(1) - jac.row(kTrexTailTip)).cwiseAbs().maxCoeff(), 1e-14);
    DofVector v = DofVector::Zero(kTrexDof);
    v[kTrexY] = -0.8;
    const DofVector p_closed = g.mass_matrix(q) * v;
    EXPECT_LE((problem.momentum() - p_closed).cwiseAbs().maxCoeff(), 1e-14 * p_closed.cwiseAbs().maxCoeff());
  }
}

}  // namespace
}  // namespace simpact
