// The sweep's fast model path: ParameterBinding reads parameters by cached position (rebinding
// when the names change) with read_parameter's checks, and MechanismFamily::build gives bit for bit
// the problem of make_problem — for billiards (its own build) and the cradle (the default).
#include "simpact/models/parameter_binding.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "simpact/core/input_error.hpp"
#include "simpact/models/billiards_scenario.hpp"
#include "simpact/models/cradle_scenario.hpp"

namespace simpact {
namespace {

std::vector<ParameterInfo> infos() {
  return {{"a", "1", "", 1.0, 0.0, 10.0, false},
          {"b", "1", "", std::nan(""), -5.0, 5.0, false},
          {"n", "1", "", 2.0, 1.0, 8.0, true}};
}

TEST(ParameterBinding, ReadsByPositionAndRebindsWhenTheNamesChange) {
  ParameterBinding binding;
  double v[3];
  ParameterSet p;
  p.set("x", 7.0);  // not a parameter of these infos: skipped
  p.set("b", -2.0);
  binding.read(p, infos(), v);
  EXPECT_EQ(v[0], 1.0);  // default
  EXPECT_EQ(v[1], -2.0);
  EXPECT_EQ(v[2], 2.0);
  p.set("b", 3.5);  // same layout, new value
  binding.read(p, infos(), v);
  EXPECT_EQ(v[1], 3.5);
  ParameterSet q;  // another layout: b first, then a and n
  q.set("b", 0.25);
  q.set("a", 9.0);
  q.set("n", 5.0);
  binding.read(q, infos(), v);
  EXPECT_EQ(v[0], 9.0);
  EXPECT_EQ(v[1], 0.25);
  EXPECT_EQ(v[2], 5.0);
  ParameterSet r;  // same size as q, one name differs: a is absent again
  r.set("b", 1.0);
  r.set("z", 9.0);
  r.set("n", 3.0);
  binding.read(r, infos(), v);
  EXPECT_EQ(v[0], 1.0);
  EXPECT_EQ(v[2], 3.0);
}

// The same errors, naming the same field, as read_parameter.
TEST(ParameterBinding, ChecksLikeReadParameter) {
  const std::vector<ParameterInfo> list = infos();
  auto field_of = [&](const ParameterSet& p) {
    ParameterBinding binding;
    double v[3];
    try {
      binding.read(p, list, v);
    } catch (const InputError& e) {
      for (const ParameterInfo& info : list) {
        try {
          read_parameter(p, info);
        } catch (const InputError& expected) {
          EXPECT_EQ(std::string(e.what()), std::string(expected.what()));
          break;
        }
      }
      return e.field();
    }
    return std::string();
  };
  EXPECT_EQ(field_of(ParameterSet()), "b");  // required, missing
  ParameterSet range;
  range.set("b", 6.0);
  EXPECT_EQ(field_of(range), "b");
  ParameterSet integer;
  integer.set("b", 0.0);
  integer.set("n", 2.5);
  EXPECT_EQ(field_of(integer), "n");
  ParameterSet infinite;
  infinite.set("a", INFINITY);
  infinite.set("b", 0.0);
  EXPECT_EQ(field_of(infinite), "a");
}

void expect_same_problem(const ImpactProblem& a, const ImpactProblem& b) {
  ASSERT_EQ(a.dof(), b.dof());
  ASSERT_EQ(a.contacts(), b.contacts());
  EXPECT_EQ(a.metric().mass_matrix(), b.metric().mass_matrix());
  EXPECT_EQ(a.normals(), b.normals());
  EXPECT_EQ(a.gram(), b.gram());
  EXPECT_EQ(a.whitened_normals(), b.whitened_normals());
  EXPECT_EQ(a.momentum(), b.momentum());
  EXPECT_EQ(a.initial_rates(), b.initial_rates());
  EXPECT_EQ(a.whitened_momentum(), b.whitened_momentum());
  EXPECT_EQ(a.momentum_norm(), b.momentum_norm());
  EXPECT_EQ(a.restitution(), b.restitution());
}

// The sweep's fast path: the family's terms into reused scratch, the problem into a reused system.
struct FastPath {
  FamilyScratch scratch;
  ImpactTerms terms;
  PreImpact pre;
  ImpactSystem system;
  ImpactProblem build(const MechanismFamily& family, const ParameterSet& p) {
    family.impact_at(p, scratch, terms, pre, nullptr);
    return impact_problem_at<FixedSizes>(terms, pre, system);
  }
};

TEST(ImpactModelBuild, BilliardsBuildIsMakeProblemBitForBit) {
  const BilliardsFamily model;
  FastPath fast;
  for (int i = 0; i < 16; ++i) {
    ParameterSet p;  // the layout of a Monte Carlo sweep: fixed, axis, draws
    p.set("speed", 1.0 + 0.1 * i);
    p.set("restitution", 0.9);
    p.set("theta", 1.3 + 0.11 * i);
    p.set("r_a", 0.95 + 0.006 * i);
    p.set("m_c", 4.0 + 0.3 * i);
    p.set("psi", 0.01 * (i - 8));
    const ImpactProblem built = fast.build(model, p);
    EXPECT_EQ(&built.system(), &fast.system);
    expect_same_problem(built, model.make_problem(p));
  }
  ParameterSet bad;
  bad.set("theta", 0.5);  // below π/3: a and b overlap
  EXPECT_THROW(fast.build(model, bad), InputError);
}

TEST(ImpactModelBuild, DefaultBuildCopiesMakeProblem) {
  const CradleFamily model;
  FastPath fast;
  ParameterSet p;
  p.set("n", 4);
  p.set("speed", 2.0);
  p.set("restitution", 0.5);
  expect_same_problem(fast.build(model, p), model.make_problem(p));
}

}  // namespace
}  // namespace simpact
