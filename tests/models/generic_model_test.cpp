// The generic model: M, normals and p⁻ (or q̇⁻, with p⁻ = M q̇⁻) given directly.
#include "simpact/models/generic_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "simpact/core/impact_resolution.hpp"
#include "simpact/core/input_error.hpp"

namespace simpact {
namespace {

GenericImpactInput cradle_input() {
  GenericImpactInput in;
  in.mass_matrix = Eigen::MatrixXd::Identity(3, 3);
  in.normals.resize(2, 3);
  in.normals << -1, 1, 0, 0, -1, 1;
  in.momentum = Eigen::Vector3d(1, 0, 0);
  return in;
}

std::string field_of(const GenericImpactInput& in) {
  try {
    make_generic_problem(in);
  } catch (const InputError& e) {
    return e.field();
  }
  return "";
}

TEST(GenericModel, MomentumFromVelocityIsMTimesQdot) {
  GenericImpactInput in;
  in.mass_matrix.resize(3, 3);
  in.mass_matrix << 4, 1, 0, 1, 3, 0.5, 0, 0.5, 2;  // coupled, SPD
  in.normals.resize(1, 3);
  in.normals << 0, 0, 1;
  in.velocity = Eigen::Vector3d(1, -2, 0.5);
  in.restitution = 0.25;
  const ImpactProblem problem = make_generic_problem(in);
  const Eigen::Vector3d expected = in.mass_matrix * in.velocity;
  EXPECT_LE((problem.momentum() - expected).norm(), 1e-15);
  EXPECT_EQ(problem.restitution(), 0.25);
  // The velocity is recovered by the metric: q̇ = M⁻¹ p.
  EXPECT_LE((problem.metric().velocity(problem.momentum()) - in.velocity).norm(), 1e-14);
  // And the same problem given by momentum is identical.
  GenericImpactInput by_momentum = in;
  by_momentum.velocity.resize(0);
  by_momentum.momentum = expected;
  const ImpactProblem same = make_generic_problem(by_momentum);
  EXPECT_EQ(same.initial_rates(), problem.initial_rates());
}

TEST(GenericModel, ResolvesNewtonsCradle) {
  const ImpactProblem problem = make_generic_problem(cradle_input());
  ImpactWorkspace ws;
  const ImpactResolution res = resolve_impact(problem, ResolveOptions{}, ws);
  ASSERT_EQ(res.outcome_count, 1);
  EXPECT_LE((problem.momentum_from_impulses(ws.outcomes.items[0].impulses) - Eigen::Vector3d(0, 0, 1)).norm(),
            1e-15);
}

TEST(GenericModel, GapsSelectTheClosedContacts) {
  GenericImpactInput in = cradle_input();
  in.gaps = Eigen::Vector2d(0.0, 0.5);  // B and C apart: only A–B collide
  const ImpactProblem problem = make_generic_problem(in);
  ASSERT_EQ(problem.contacts(), 1);
  EXPECT_EQ(problem.given_index(0), 0);
  ImpactWorkspace ws;
  resolve_impact(problem, ResolveOptions{}, ws);
  EXPECT_LE((problem.momentum_from_impulses(ws.outcomes.items[0].impulses) - Eigen::Vector3d(0, 1, 0)).norm(),
            1e-15);
}

TEST(GenericModel, RejectsBadInputNamingTheField) {
  GenericImpactInput both = cradle_input();
  both.velocity = Eigen::Vector3d(1, 0, 0);
  EXPECT_EQ(field_of(both), "momentum");
  GenericImpactInput neither = cradle_input();
  neither.momentum.resize(0);
  EXPECT_EQ(field_of(neither), "momentum");
  GenericImpactInput short_velocity = neither;
  short_velocity.velocity = Eigen::Vector2d(1, 0);
  EXPECT_EQ(field_of(short_velocity), "velocity");
  GenericImpactInput nan_velocity = neither;
  nan_velocity.velocity = Eigen::Vector3d(1, std::numeric_limits<double>::quiet_NaN(), 0);
  EXPECT_EQ(field_of(nan_velocity), "velocity");
  GenericImpactInput bad_mass = cradle_input();
  bad_mass.mass_matrix(0, 0) = -1;
  EXPECT_EQ(field_of(bad_mass), "mass_matrix");
  GenericImpactInput wide = cradle_input();
  wide.normals = Eigen::MatrixXd::Ones(2, 4);
  EXPECT_EQ(field_of(wide), "normals");
  GenericImpactInput zero_normal = cradle_input();
  zero_normal.normals.row(1).setZero();
  EXPECT_EQ(field_of(zero_normal), "normals[1]");
  GenericImpactInput gaps = cradle_input();
  gaps.gaps = Eigen::Vector3d(0, 0, 0);
  EXPECT_EQ(field_of(gaps), "gaps");
  GenericImpactInput restitution = cradle_input();
  restitution.restitution = 2.0;
  EXPECT_EQ(field_of(restitution), "restitution");
  GenericImpactInput short_momentum = cradle_input();
  short_momentum.momentum = Eigen::Vector2d(1, 0);
  EXPECT_EQ(field_of(short_momentum), "momentum");
}

}  // namespace
}  // namespace simpact
