// ImpactTaskKernel: every column is declared with its extractor, and the table cannot drift from
// the values (each extractor writes exactly its length, a task writes every slot once, names are
// unique); values against closed forms (billiards at θ = π/2, Newton's cradle, plastic R = 0);
// NaN for what a capped task did not compute; the shared p_p and positive-span test give the
// same bits as resolving each ordering on its own.
#include "simpact/analysis/impact_task_kernel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "simpact/core/impact_resolution.hpp"
#include "simpact/models/billiards_scenario.hpp"
#include "simpact/models/cradle_scenario.hpp"

namespace simpact {
namespace {

constexpr double kPi = 3.141592653589793;

// A NaN payload the kernel never produces: a slot still holding it was not written.
double sentinel() {
  const std::uint64_t bits = 0x7ff4dead0000beefULL;
  double x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}
bool is_sentinel(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof x);
  return bits == 0x7ff4dead0000beefULL;
}
bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

struct Case {
  std::string what;
  std::shared_ptr<ImpactTaskKernel> kernel;
  std::vector<ParameterSet> params;
};

ParameterSet billiards(double theta, double restitution = 1.0, double psi = 0.0) {
  ParameterSet p;
  p.set("theta", theta);
  p.set("restitution", restitution);
  p.set("psi", psi);
  return p;
}

ParameterSet cradle(int n, std::vector<double> masses, double restitution = 1.0, double v_last = 0.0) {
  ParameterSet p;
  p.set("n", n);
  for (std::size_t i = 0; i < masses.size(); ++i) p.set("m" + std::to_string(i + 1), masses[i]);
  p.set("restitution", restitution);
  if (v_last != 0.0) p.set("v" + std::to_string(n), v_last);
  return p;
}

std::shared_ptr<ImpactTaskKernel> billiards_kernel(std::vector<OrderingPolicy> orderings, bool momenta,
                                                   ResolveLimits limits = {}) {
  ImpactStudyOptions o;
  o.orderings = std::move(orderings);
  o.momenta = momenta;
  o.limits = limits;
  o.seed = 7;
  return std::make_shared<ImpactTaskKernel>(std::make_unique<BilliardsFamily>(), o);
}
std::shared_ptr<ImpactTaskKernel> cradle_kernel(std::vector<OrderingPolicy> orderings, bool momenta,
                                                ResolveLimits limits = {}) {
  ImpactStudyOptions o;
  o.orderings = std::move(orderings);
  o.momenta = momenta;
  o.limits = limits;
  o.seed = 7;
  return std::make_shared<ImpactTaskKernel>(std::make_unique<CradleFamily>(), o);
}

// Kernels in every layout (with/without `all`, one to four single orderings, momenta, caps) and
// tasks that reach every status.
std::vector<Case> cases() {
  using P = OrderingPolicy;
  const std::vector<ParameterSet> b = {billiards(kPi / 2), billiards(2 * kPi / 3, 0.9, 0.05),
                                       billiards(2.9, 0.0), billiards(1.3, 0.5, -0.1)};
  const std::vector<ParameterSet> c = {cradle(3, {1, 1, 1}), cradle(3, {1, 2, 5}, 0.7, -1.0),
                                       cradle(6, {1, 3, 1, 3, 1, 3}), cradle(3, {1, 1, 1}, 0.0, -1.0),
                                       cradle(4, {1, 2, 3, 4}, 1.0, 0.0)};
  ResolveLimits tight;
  tight.max_steps = 1;
  tight.max_depth = 1;
  return {
      {"billiards default", billiards_kernel({P::kAll, P::kArgmin, P::kArgmax}, false), b},
      {"billiards momenta", billiards_kernel({P::kAll, P::kArgmin, P::kArgmax, P::kRandom}, true), b},
      {"billiards no all", billiards_kernel({P::kArgmax, P::kReverse}, true), b},
      {"billiards only all", billiards_kernel({P::kAll}, true), b},
      {"cradle momenta", cradle_kernel({P::kAll, P::kArgmin, P::kArgmax, P::kIndex, P::kReverse}, true), c},
      {"cradle capped", cradle_kernel({P::kAll, P::kArgmin, P::kArgmax}, true, tight), c},
  };
}

TEST(ImpactTaskKernel, ColumnsAreTheTableAndNamesAreUnique) {
  for (const Case& k : cases()) {
    const auto& table = k.kernel->table();
    const auto& columns = k.kernel->columns();
    ASSERT_EQ(table.size(), columns.size()) << k.what;
    std::set<std::string> names;
    for (std::size_t i = 0; i < table.size(); ++i) {
      EXPECT_EQ(columns[i].name, table[i].column.name) << k.what;
      EXPECT_EQ(columns[i].group, table[i].column.group) << k.what;
      EXPECT_GE(columns[i].length, 1) << k.what << " " << columns[i].name;
      EXPECT_TRUE(static_cast<bool>(table[i].extract)) << k.what << " " << columns[i].name;
      EXPECT_FALSE(columns[i].units.empty()) << k.what << " " << columns[i].name;
      EXPECT_FALSE(columns[i].long_name.empty()) << k.what << " " << columns[i].name;
      // Names are unique across groups too: /samples/<group>_<name> and the journal use them.
      EXPECT_TRUE(names.insert(columns[i].name).second) << k.what << ": duplicate column " << columns[i].name;
    }
    const int headline = k.kernel->headline_column();
    ASSERT_GE(headline, 0) << k.what;
    EXPECT_EQ(columns[static_cast<std::size_t>(headline)].group, "xi_maps") << k.what;
    EXPECT_EQ(columns[static_cast<std::size_t>(headline)].length, 1) << k.what;
  }
}

TEST(ImpactTaskKernel, EveryExtractorWritesExactlyItsLength) {
  constexpr int kGuard = 4;
  for (const Case& k : cases()) {
    auto scratch_base = k.kernel->make_scratch();
    auto& scratch = dynamic_cast<ImpactTaskScratch&>(*scratch_base);
    for (std::size_t t = 0; t < k.params.size(); ++t) {
      k.kernel->compute(static_cast<std::int64_t>(t), k.params[t], scratch);
      for (const ImpactColumn& c : k.kernel->table()) {
        std::vector<double> buffer(static_cast<std::size_t>(c.column.length + 2 * kGuard), sentinel());
        c.extract(scratch.values, buffer.data() + kGuard);
        for (int i = 0; i < kGuard; ++i) {
          EXPECT_TRUE(is_sentinel(buffer[static_cast<std::size_t>(i)]))
              << k.what << ": " << c.column.name << " wrote before its slot";
          EXPECT_TRUE(is_sentinel(buffer[buffer.size() - 1 - static_cast<std::size_t>(i)]))
              << k.what << ": " << c.column.name << " wrote past its length " << c.column.length;
        }
        for (std::int64_t i = 0; i < c.column.length; ++i)
          EXPECT_FALSE(is_sentinel(buffer[static_cast<std::size_t>(kGuard + i)]))
              << k.what << ": " << c.column.name << " left value " << i << " of " << c.column.length
              << " unwritten";
      }
    }
  }
}

TEST(ImpactTaskKernel, EvaluateWritesEverySlotAndNothingBeyond) {
  for (const Case& k : cases()) {
    const std::int64_t n = values_per_task(*k.kernel);
    auto scratch = k.kernel->make_scratch();
    for (std::size_t t = 0; t < k.params.size(); ++t) {
      std::vector<double> row(static_cast<std::size_t>(n + 8), sentinel());
      k.kernel->evaluate(static_cast<std::int64_t>(t), k.params[t], *scratch, row.data());
      for (std::int64_t i = 0; i < n; ++i)
        EXPECT_FALSE(is_sentinel(row[static_cast<std::size_t>(i)]))
            << k.what << " task " << t << " slot " << i;
      for (std::size_t i = static_cast<std::size_t>(n); i < row.size(); ++i)
        EXPECT_TRUE(is_sentinel(row[i])) << k.what << " task " << t << " wrote past values_per_task";
    }
  }
}

// The values of one task by column name (arrays: every element).
std::map<std::string, std::vector<double>> evaluate(const ImpactTaskKernel& kernel,
                                                    const ParameterSet& params, TaskStatus* status = nullptr,
                                                    std::int64_t task = 0) {
  auto scratch = kernel.make_scratch();
  std::vector<double> row(static_cast<std::size_t>(values_per_task(kernel)));
  const TaskStatus s = kernel.evaluate(task, params, *scratch, row.data());
  if (status != nullptr) *status = s;
  std::map<std::string, std::vector<double>> out;
  std::size_t at = 0;
  for (const ResultColumn& c : kernel.columns()) {
    out[c.name].assign(row.begin() + static_cast<std::ptrdiff_t>(at),
                       row.begin() + static_cast<std::ptrdiff_t>(at + static_cast<std::size_t>(c.length)));
    at += static_cast<std::size_t>(c.length);
  }
  return out;
}

TEST(ImpactTaskKernel, BilliardsAtRightAngleIsUniqueWithClosedFormEnergies) {
  // Equal unit balls (m = 4π/3), cue along the bisector at speed 1, θ = π/2: the normals are
  // g-orthogonal (Theorem 2), so ξ = 0 and the cue stops, a and b leaving along their normals
  // with speed 1/√2. Plastic: w = 1/2 for the cue, 1/(2√2) for a and b: E_p = m/4, loss 1/2.
  using P = OrderingPolicy;
  const auto kernel = billiards_kernel({P::kAll, P::kArgmin, P::kArgmax}, true);
  TaskStatus status;
  auto v = evaluate(*kernel, billiards(kPi / 2), &status);
  const double m = 4.0 / 3.0 * kPi, e0 = 0.5 * m;
  EXPECT_EQ(status, TaskStatus::kOk);
  EXPECT_NEAR(v["outcome_set"][0], 0.0, 1e-14);
  EXPECT_NEAR(v["argmin_vs_argmax"][0], 0.0, 1e-14);
  EXPECT_EQ(v["count"][0], 1.0);
  EXPECT_EQ(v["unique"][0], 1.0);
  EXPECT_DOUBLE_EQ(v["before"][0], e0);
  for (const char* o : {"all", "argmin", "argmax"}) {
    EXPECT_NEAR(v[std::string("after_") + o][0], e0, 1e-14 * e0) << o;
    EXPECT_NEAR(v[std::string("relative_loss_") + o][0], 0.0, 1e-14) << o;
  }
  EXPECT_NEAR(v["after_plastic"][0], m / 4, 1e-14 * m);
  EXPECT_NEAR(v["relative_loss_plastic"][0], 0.5, 1e-14);
  EXPECT_EQ(v["impact"][0], 1.0);
  EXPECT_NEAR(v["normalized_cosine"][0], 0.0, 1e-15);
  EXPECT_EQ(v["dihedral_m"][0], 2.0);  // G_12 = −cos(π/2)
  EXPECT_EQ(v["steps_argmin"][0], 2.0);
  EXPECT_EQ(v["steps_argmax"][0], 2.0);
  // p⁺ = (a_x, a_y, b_x, b_y, c_x, c_y) = m (1/2, 1/2, 1/2, −1/2, 0, 0).
  const double expected[6] = {m / 2, m / 2, m / 2, -m / 2, 0.0, 0.0};
  for (const char* o : {"momentum_after_argmin", "momentum_after_argmax"}) {
    ASSERT_EQ(v[o].size(), 6u);
    for (int i = 0; i < 6; ++i)
      EXPECT_NEAR(v[o][static_cast<std::size_t>(i)], expected[i], 1e-14 * m) << o << i;
  }
}

TEST(ImpactTaskKernel, BilliardsBreakAtTwoThirdsPiIsNotUnique) {
  // θ = 2π/3: G_12 = ½cos θ = −1/4 (no dihedral m), two outcomes, ξ = the argmin/argmax ξ.
  using P = OrderingPolicy;
  auto v = evaluate(*billiards_kernel({P::kAll, P::kArgmin, P::kArgmax}, false), billiards(2 * kPi / 3));
  EXPECT_EQ(v["count"][0], 2.0);
  EXPECT_EQ(v["unique"][0], 0.0);
  EXPECT_GT(v["outcome_set"][0], 1e-3);
  EXPECT_NEAR(v["outcome_set"][0], v["argmin_vs_argmax"][0], 1e-14);
  EXPECT_NEAR(v["normalized_cosine"][0], -0.25, 1e-15);
  EXPECT_EQ(v["dihedral_m"][0], 0.0);
}

TEST(ImpactTaskKernel, CradleOutcomesAndPlasticClosedForms) {
  using P = OrderingPolicy;
  const auto kernel = cradle_kernel({P::kAll, P::kArgmin, P::kArgmax}, true);
  // Equal masses, [1,0,0] → [0,0,1] under every ordering: two reflections, G_12 = −1/2 (m = 3).
  // Plastic: all three at 1/3: E_p = 3·½·(1/3)² = 1/6, loss 2/3.
  auto v = evaluate(*kernel, cradle(3, {1, 1, 1}));
  EXPECT_EQ(v["outcome_set"][0], 0.0);
  EXPECT_EQ(v["count"][0], 1.0);
  EXPECT_EQ(v["unique"][0], 1.0);
  EXPECT_EQ(v["before"][0], 0.5);
  EXPECT_NEAR(v["after_argmin"][0], 0.5, 1e-15);
  EXPECT_NEAR(v["after_plastic"][0], 1.0 / 6.0, 1e-15);
  EXPECT_NEAR(v["relative_loss_plastic"][0], 2.0 / 3.0, 1e-15);
  EXPECT_NEAR(v["normalized_cosine"][0], -0.5, 1e-15);
  EXPECT_EQ(v["dihedral_m"][0], 3.0);
  EXPECT_EQ(v["steps_argmin"][0], 2.0);
  const std::vector<double>& p = v["momentum_after_argmax"];
  ASSERT_EQ(p.size(), static_cast<std::size_t>(kMaxCradleBalls));
  EXPECT_NEAR(p[0], 0.0, 1e-15);
  EXPECT_NEAR(p[1], 0.0, 1e-15);
  EXPECT_NEAR(p[2], 1.0, 1e-15);
  for (std::size_t i = 3; i < p.size(); ++i) EXPECT_TRUE(std::isnan(p[i])) << "padding " << i;

  // R = 0, both ends moving in ([1,0,−1]): every ordering ends in p_p = 0 (all at rest), loss 1.
  auto z = evaluate(*kernel, cradle(3, {1, 1, 1}, 0.0, -1.0));
  EXPECT_EQ(z["count"][0], 1.0);
  EXPECT_EQ(z["before"][0], 1.0);
  for (const char* o : {"all", "argmin", "argmax", "plastic"})
    EXPECT_NEAR(z[std::string("relative_loss_") + o][0], 1.0, 1e-15) << o;
  EXPECT_EQ(z["argmin_vs_argmax"][0], 0.0);

  // Alternating masses 1,3,1,3,1,3: several outcomes, ξ > 0.
  auto a = evaluate(*kernel, cradle(6, {1, 3, 1, 3, 1, 3}));
  EXPECT_GT(a["count"][0], 1.0);
  EXPECT_EQ(a["unique"][0], 0.0);
  EXPECT_GT(a["outcome_set"][0], 1e-3);
  EXPECT_NEAR(a["after_all"][0], a["before"][0], 1e-12);  // elastic: every outcome keeps E
}

TEST(ImpactTaskKernel, NoImpactIsReportedAndLosesNothing) {
  // Ball 1 at rest hit by nobody: v1 = 0, ball 3 moving away (v3 = +1): p⁻ feasible.
  using P = OrderingPolicy;
  ParameterSet p = cradle(3, {1, 1, 1});
  p.set("speed", 0.0);
  p.set("v3", 1.0);
  TaskStatus status;
  auto v = evaluate(*cradle_kernel({P::kAll, P::kArgmin, P::kArgmax}, false), p, &status);
  EXPECT_EQ(status, TaskStatus::kNoImpact);
  EXPECT_EQ(v["impact"][0], 0.0);
  EXPECT_EQ(v["outcome_set"][0], 0.0);
  EXPECT_EQ(v["relative_loss_argmin"][0], 0.0);
  EXPECT_EQ(v["steps_argmin"][0], 0.0);
}

TEST(ImpactTaskKernel, CappedTaskPublishesNaNForWhatItDidNotCompute) {
  // Equal cradle needs two reflections; max_steps = max_depth = 1 caps every ordering.
  using P = OrderingPolicy;
  ResolveLimits tight;
  tight.max_steps = 1;
  tight.max_depth = 1;
  TaskStatus status;
  auto v =
      evaluate(*cradle_kernel({P::kAll, P::kArgmin, P::kArgmax}, true, tight), cradle(3, {1, 1, 1}), &status);
  EXPECT_EQ(status, TaskStatus::kCapHit);
  for (const char* c :
       {"outcome_set", "count", "unique", "argmin_vs_argmax", "after_all", "relative_loss_all",
        "after_argmin", "relative_loss_argmin", "after_argmax", "steps_argmin", "steps_argmax"})
    EXPECT_TRUE(std::isnan(v[c][0])) << c << " = " << v[c][0];
  for (double x : v["momentum_after_argmin"]) EXPECT_TRUE(std::isnan(x));
  // What does not depend on the cap is still published.
  EXPECT_EQ(v["before"][0], 0.5);
  EXPECT_NEAR(v["after_plastic"][0], 1.0 / 6.0, 1e-15);
  EXPECT_EQ(v["impact"][0], 1.0);
}

// The kernel shares p_p and the positive-span test across orderings: each value must be the
// very bits of resolving that ordering alone (resolve_impact computing everything itself).
TEST(ImpactTaskKernel, SharedPlasticGivesTheBitsOfSeparateResolutions) {
  using P = OrderingPolicy;
  for (const Case& k : cases()) {
    if (k.what == "cradle capped") continue;
    const std::vector<P> singles = k.kernel->single_orderings();
    for (std::size_t t = 0; t < k.params.size(); ++t) {
      auto v = evaluate(*k.kernel, k.params[t], nullptr, static_cast<std::int64_t>(t));
      const ImpactProblem problem = k.what.rfind("billiards", 0) == 0
                                        ? BilliardsFamily().make_problem(k.params[t])
                                        : CradleFamily().make_problem(k.params[t]);
      for (P o : singles) {
        ImpactWorkspace ws;
        ResolveOptions options;
        options.policy = o;
        options.compare_argmin_argmax = false;
        options.seed = 7;
        options.task = t;
        const ImpactResolution r = resolve_impact(problem, options, ws);
        const std::string name(ordering_policy_name(o));
        if (r.outcome_count > 0 && r.status != ResolveStatus::kCapHit) {
          EXPECT_TRUE(same_bits(v["after_" + name][0], ws.outcomes.items[0].energy)) << k.what << " " << name;
        } else {
          EXPECT_TRUE(std::isnan(v["after_" + name][0])) << k.what << " " << name;
        }
        if (r.plastic.converged) {
          EXPECT_TRUE(same_bits(v["after_plastic"][0], r.plastic.energy)) << k.what << " " << name;
        }
      }
    }
  }
}

}  // namespace
}  // namespace simpact
