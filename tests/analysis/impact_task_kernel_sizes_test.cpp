// ImpactTaskKernel chooses the size path per task: a cradle of up to 9 balls on the fixed path, a
// larger one (here 20 balls: 19 contacts) on the dynamic path, with the same columns. Closed form:
// equal balls hit at one end hand the velocity to the last ball under every ordering; R = 0 moves
// them all at v/n.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "simpact/analysis/impact_task_kernel.hpp"
#include "simpact/models/cradle_scenario.hpp"

namespace simpact {
namespace {

ParameterSet equal_cradle(int n, double restitution) {
  ParameterSet p;
  p.set("n", n);
  p.set("speed", 2.0);
  p.set("restitution", restitution);
  return p;
}

TEST(ImpactTaskKernelSizes, TwentyBallCradleTakesTheDynamicPath) {
  ImpactStudyOptions o;
  o.orderings = {OrderingPolicy::kAll, OrderingPolicy::kArgmin, OrderingPolicy::kArgmax};
  o.momenta = true;
  const ImpactTaskKernel kernel(std::make_unique<CradleFamily>(), o);
  auto scratch = kernel.make_scratch();
  auto& s = static_cast<ImpactTaskScratch&>(*scratch);
  for (int n : {3, 20, 9, 20}) {  // fixed and dynamic tasks alternating on one scratch
    for (double restitution : {1.0, 0.0}) {
      ASSERT_EQ(kernel.compute(0, equal_cradle(n, restitution), s), TaskStatus::kOk) << n;
      if (n == 3) {
        EXPECT_EQ(s.dynamic_workspace, nullptr) << "the fixed path made no dynamic workspace";
      }
      const ImpactTaskValues& v = s.values;
      EXPECT_EQ(v.dof, n);
      EXPECT_EQ(v.outcome_count, 1.0);
      EXPECT_EQ(v.unique, 1.0);
      EXPECT_EQ(v.xi_all, 0.0);
      EXPECT_EQ(v.energy_before, 2.0);  // ½ · 1 kg · (2 m/s)²
      for (std::size_t k = 0; k < 2; ++k) {
        ASSERT_TRUE(v.ok[k]);
        for (int i = 0; i < n; ++i) {
          const double expected = restitution == 1.0 ? (i == n - 1 ? 2.0 : 0.0) : 2.0 / n;
          EXPECT_NEAR(v.momenta[k][i], expected, 1e-12) << n << " ball " << i;
        }
        EXPECT_NEAR(v.after[k], restitution == 1.0 ? 2.0 : 2.0 / n, 1e-12);
      }
      EXPECT_EQ(v.pair_xi[0], 0.0);
    }
  }
  EXPECT_NE(s.dynamic_workspace, nullptr);
}

}  // namespace
}  // namespace simpact
