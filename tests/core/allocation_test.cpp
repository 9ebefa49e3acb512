// STYLE: "Hot code allocates nothing." With an ImpactWorkspace built beforehand, resolve_impact
// must not touch the heap. Counted at the malloc level — Eigen's dynamic matrices call malloc
// directly, and libstdc++'s operator new goes through malloc too — by interposing the malloc
// family in this executable (forwarding to glibc's __libc_* entry points) and counting only
// while a flag is set, so the other tests in this executable are unaffected.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "simpact/core/impact_resolution.hpp"
#include "simpact/models/billiards_scenario.hpp"
#include "simpact/models/cradle_scenario.hpp"
// After every other header: it defines malloc and friends (C library declarations first).
#include "../support/malloc_counter.hpp"

namespace simpact {
namespace {

using test::count_allocations;

TEST(Allocation, CounterSeesEveryKindOfAllocation) {
  // The counter must be able to fail: std::vector, operator new, Eigen's dynamic matrices.
  EXPECT_GE(count_allocations([] {
              std::vector<int> v(100);
              v[3] = 1;
              EXPECT_EQ(v[3], 1);
            }),
            1);
  static std::unique_ptr<double> kept;  // stored beyond the scope: the allocation cannot be elided
  EXPECT_GE(count_allocations([] { kept = std::make_unique<double>(1.0); }), 1);
  kept.reset();
  EXPECT_GE(count_allocations([] {
              Eigen::VectorXd v = Eigen::VectorXd::Ones(200);
              EXPECT_EQ(v.sum(), 200.0);
            }),
            1);
  EXPECT_EQ(count_allocations([] {
              DofVector v = DofVector::Ones(kMaxDof);  // fixed maximum size: on the stack
              EXPECT_EQ(v.sum(), kMaxDof);
            }),
            0);
}

ImpactProblem billiards(double theta, double restitution) {
  ParameterSet params;
  params.set("theta", theta);
  params.set("restitution", restitution);
  return BilliardsFamily().make_problem(params);
}

ImpactProblem four_contacts(double restitution) {
  std::mt19937_64 gen(91);
  std::normal_distribution<double> normal;
  const int d = 7;
  Eigen::MatrixXd a(d, d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) a(i, j) = normal(gen);
  const Eigen::MatrixXd m = a.transpose() * a + d * Eigen::MatrixXd::Identity(d, d);
  ImpactProblem::RowMajorMatrix normals(4, d);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < d; ++j) normals(i, j) = normal(gen);
  // p⁻ = −Nᵀ1: the rates −A1 sum to −1ᵀA1 < 0, so at least one contact is violated.
  const Eigen::VectorXd p = -normals.transpose() * Eigen::VectorXd::Ones(4);
  return ImpactProblem(KineticMetric(m), normals, p, restitution);
}

ImpactProblem cradle(int n, const std::vector<double>& masses) {
  ParameterSet params;
  params.set("n", n);
  for (int i = 0; i < n; ++i) params.set("m" + std::to_string(i + 1), masses[static_cast<std::size_t>(i)]);
  return CradleFamily().make_problem(params);
}

TEST(Allocation, ResolveImpactAllocatesNothingWithAWorkspace) {
  std::vector<std::pair<std::string, ImpactProblem>> problems;
  for (const double r : {1.0, 0.5}) {
    const std::string tag = r == 1.0 ? " R=1" : " R=0.5";
    problems.emplace_back("billiards 2pi/3" + tag, billiards(2.0 * 3.141592653589793 / 3.0, r));
    problems.emplace_back("billiards pi/2" + tag, billiards(3.141592653589793 / 2.0, r));
    problems.emplace_back("random 4 contacts" + tag, four_contacts(r));
  }
  problems.emplace_back("cradle 6 (1,3,1,3,1,3)", cradle(6, {1, 3, 1, 3, 1, 3}));
  problems.emplace_back("cradle 6 equal", cradle(6, {1, 1, 1, 1, 1, 1}));
  const OrderingPolicy policies[] = {OrderingPolicy::kAll, OrderingPolicy::kArgmin, OrderingPolicy::kRandom,
                                     OrderingPolicy::kIndex};
  ImpactWorkspace ws;
  for (const auto& [name, problem] : problems) {
    for (const OrderingPolicy policy : policies) {
      for (const bool extras : {false, true}) {
        ResolveOptions options;
        options.policy = policy;
        options.seed = 17;
        options.task = 3;
        options.compute_plastic = extras;
        options.compare_argmin_argmax = extras;
        options.check_definition1 = extras;
        ImpactResolution res;
        const long count = count_allocations([&] { res = resolve_impact(problem, options, ws); });
        EXPECT_EQ(count, 0) << name << ", policy " << ordering_policy_name(policy)
                            << (extras ? ", with extras" : "");
        EXPECT_NE(res.status, ResolveStatus::kCapHit) << name;
        EXPECT_GE(res.outcome_count, 1) << name;
      }
    }
    ResolveOptions definition1;
    definition1.minimality = Minimality::kDefinition1;
    EXPECT_EQ(count_allocations([&] { resolve_impact(problem, definition1, ws); }), 0) << name;
  }
}

TEST(Allocation, ReportWhatElseAllocates) {
  // Not a contract: documents which setup steps touch the heap (they run once per task, not in
  // the reflection loop).
  ParameterSet params;
  params.set("theta", 2.0);
  const BilliardsFamily model;
  const long model_problem = count_allocations([&] { model.make_problem(params); });
  const Eigen::MatrixXd m = Eigen::MatrixXd::Identity(6, 6);
  const ImpactProblem::RowMajorMatrix normals = ImpactProblem::RowMajorMatrix::Ones(2, 6);
  const Eigen::VectorXd p = Eigen::VectorXd::Ones(6);
  const long direct_problem =
      count_allocations([&] { ImpactProblem problem(KineticMetric(m), normals, p, 1.0); });
  const long workspace = count_allocations([] { ImpactWorkspace ws; });
  std::printf(
      "[ info ] heap allocations: BilliardsFamily::make_problem %ld, ImpactProblem from "
      "prebuilt Eigen inputs %ld, ImpactWorkspace() %ld\n",
      model_problem, direct_problem, workspace);
  EXPECT_GE(workspace, 1);  // the enumeration stack is a std::vector, sized once
}

}  // namespace
}  // namespace simpact
