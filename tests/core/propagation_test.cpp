// Propagative elastic resolution, eq. (14): Newton's cradle (Example 1, eq. 15), equal-mass
// chains, the ordering policies, the enumeration of every branch and its caps.
#include "simpact/core/propagation.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "simpact/core/reset_map.hpp"

namespace simpact {
namespace {

// Chain of n balls on a line, u_i = e_{i+1} − e_i, M = diag(masses).
ImpactProblem chain(const std::vector<double>& masses, const std::vector<double>& momentum,
                    double restitution = 1.0) {
  const int n = static_cast<int>(masses.size());
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) m(i, i) = masses[i];
  ImpactProblem::RowMajorMatrix normals = ImpactProblem::RowMajorMatrix::Zero(n - 1, n);
  for (int i = 0; i + 1 < n; ++i) normals(i, i) = -1.0, normals(i, i + 1) = 1.0;
  return ImpactProblem(KineticMetric(m), normals, Eigen::Map<const Eigen::VectorXd>(momentum.data(), n),
                       restitution);
}

DofVector dof(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

std::vector<int> contacts_of(const ContactSequence& s) {
  return std::vector<int>(s.contacts.begin(), s.contacts.begin() + s.stored());
}

constexpr OrderingPolicy kSinglePolicies[] = {OrderingPolicy::kArgmin, OrderingPolicy::kArgmax,
                                              OrderingPolicy::kIndex, OrderingPolicy::kReverse,
                                              OrderingPolicy::kRandom};

TEST(Propagation, CradleViolatingBothContactsEndsReversedForEveryOrder) {
  // p⁻ = [1, 0, −1]: <p,u>_g = <p,v>_g = −1. Eq. (15): p⁺ = p⁻ · antidiag = [−1, 0, 1].
  const ImpactProblem problem = chain({1, 1, 1}, {1, 0, -1});
  const DofVector expected = dof({-1, 0, 1});
  for (const OrderingPolicy policy : kSinglePolicies) {
    CounterRng rng(7, RandomStream::kOrdering, 3);
    const Propagation out = propagate(problem, policy, ResolveLimits{}, &rng);
    EXPECT_LE((problem.momentum_from_impulses(out.impulses) - expected).norm(), 1e-15)
        << ordering_policy_name(policy);
    EXPECT_EQ(out.sequence.length, 3) << ordering_policy_name(policy);
    EXPECT_FALSE(out.step_cap_hit);
    EXPECT_TRUE(problem.feasible(out.rates));
  }
  OutcomeSet set;
  EnumerationStack stack;
  enumerate_outcomes(problem, ResolveLimits{}, set, stack);
  ASSERT_EQ(set.size, 1);
  EXPECT_LE((problem.momentum_from_impulses(set.items[0].elastic_impulses) - expected).norm(), 1e-15);
  // Exactly the two alternating sequences {u,v,u} and {v,u,v} (Lemma 1).
  EXPECT_EQ(set.items[0].sequence_count, 2);
  ASSERT_EQ(set.items[0].stored_sequences, 2);
  std::set<std::vector<int>> sequences = {contacts_of(set.items[0].sequences[0]),
                                          contacts_of(set.items[0].sequences[1])};
  EXPECT_EQ(sequences, (std::set<std::vector<int>>{{0, 1, 0}, {1, 0, 1}}));
  EXPECT_EQ(set.items[0].shortest, 3);
  EXPECT_EQ(set.nodes, 6);  // two branches of three reflections
  EXPECT_FALSE(set.depth_cap_hit || set.node_cap_hit || set.outcome_cap_hit);
}

TEST(Propagation, CradleFromRestEndsWithTheLastBallMoving) {
  // p⁻ = [1, 0, 0]: only contact u violated. Checking every closed contact (DESIGN §1) continues
  // past [0, 1, 0] — where the paper's set S would stop with B moving into C — to [0, 0, 1].
  const ImpactProblem problem = chain({1, 1, 1}, {1, 0, 0});
  for (const OrderingPolicy policy : kSinglePolicies) {
    CounterRng rng(1, RandomStream::kOrdering, 0);
    const Propagation out = propagate(problem, policy, ResolveLimits{}, &rng);
    const DofVector p = problem.momentum_from_impulses(out.impulses);
    EXPECT_LE((p - dof({0, 0, 1})).norm(), 1e-15) << ordering_policy_name(policy);
    EXPECT_EQ(p[1], 0.0);
    EXPECT_GE(out.rates[1], 0.0);  // B does not move into C
    EXPECT_EQ(contacts_of(out.sequence), (std::vector<int>{0, 1}));
  }
}

TEST(Propagation, EqualMassChainsTransferAllMomentumToTheLastBall) {
  for (int n = 3; n <= 9; ++n) {
    std::vector<double> p(n, 0.0);
    p[0] = 1.0;
    const ImpactProblem problem = chain(std::vector<double>(n, 1.0), p);
    DofVector expected = DofVector::Zero(n);
    expected[n - 1] = 1.0;
    for (const OrderingPolicy policy : kSinglePolicies) {
      const Propagation out = propagate(problem, policy, ResolveLimits{}, nullptr);
      EXPECT_LE((problem.momentum_from_impulses(out.impulses) - expected).norm(), 1e-14) << "n = " << n;
      EXPECT_EQ(out.sequence.length, n - 1);  // the pulse passes each contact once
    }
    OutcomeSet set;
    EnumerationStack stack;
    enumerate_outcomes(problem, ResolveLimits{}, set, stack);
    ASSERT_EQ(set.size, 1) << "n = " << n;
    EXPECT_LE((problem.momentum_from_impulses(set.items[0].elastic_impulses) - expected).norm(), 1e-14);
  }
}

TEST(Propagation, ChoiceOfViolatedContactFollowsThePolicy) {
  // Four independent contacts in R^4, M = diag(1, 4, 1, 1), u_i = e_i, p⁻ = [−1, −16, 1, −2]:
  // rates −1, −4, +1, −2 and norms 1, 1/2, 1, 1, so the normalized rates are −1, −8, +1, −2.
  Eigen::MatrixXd m = Eigen::MatrixXd::Identity(4, 4);
  m(1, 1) = 4.0;
  ImpactProblem::RowMajorMatrix normals = ImpactProblem::RowMajorMatrix::Identity(4, 4);
  Eigen::VectorXd p(4);
  p << -1.0, -16.0, 1.0, -2.0;
  const ImpactProblem problem(KineticMetric(m), normals, p, 1.0);
  const ContactVector rates = problem.initial_rates();
  EXPECT_NEAR(rates[1], -4.0, 1e-15);
  EXPECT_EQ(choose_violated_contact(problem, rates, OrderingPolicy::kArgmin, nullptr), 1);
  EXPECT_EQ(choose_violated_contact(problem, rates, OrderingPolicy::kArgmax, nullptr), 0);
  EXPECT_EQ(choose_violated_contact(problem, rates, OrderingPolicy::kIndex, nullptr), 0);
  EXPECT_EQ(choose_violated_contact(problem, rates, OrderingPolicy::kReverse, nullptr), 3);
  // Random: always a violated contact, every violated contact reachable, reproducible per task.
  std::set<int> seen;
  for (std::uint64_t task = 0; task < 200; ++task) {
    CounterRng rng(99, RandomStream::kOrdering, task);
    const int i = choose_violated_contact(problem, rates, OrderingPolicy::kRandom, &rng);
    EXPECT_NE(i, 2);
    seen.insert(i);
    CounterRng again(99, RandomStream::kOrdering, task);
    EXPECT_EQ(choose_violated_contact(problem, rates, OrderingPolicy::kRandom, &again), i);
  }
  EXPECT_EQ(seen, (std::set<int>{0, 1, 3}));
  // Nothing violated: −1 for every policy.
  const ContactVector feasible = rates.cwiseAbs();
  for (const OrderingPolicy policy : kSinglePolicies) {
    CounterRng rng(1, RandomStream::kOrdering, 1);
    EXPECT_EQ(choose_violated_contact(problem, feasible, policy, &rng), -1);
  }
}

TEST(Propagation, ArgminAndArgmaxBreakTiesDifferently) {
  // Cradle p⁻ = [1, 0, −1]: both normalized rates are −1/√2 exactly.
  const ImpactProblem problem = chain({1, 1, 1}, {1, 0, -1});
  const ContactVector rates = problem.initial_rates();
  EXPECT_EQ(choose_violated_contact(problem, rates, OrderingPolicy::kArgmin, nullptr), 0);
  EXPECT_EQ(choose_violated_contact(problem, rates, OrderingPolicy::kArgmax, nullptr), 1);
}

TEST(Propagation, ViolationUsesTheRelativeTolerance) {
  // A rate of −1e-12 ||p⁻||_g ||u||_g is within kFeasibilityTolerance: not an impact.
  Eigen::VectorXd p(2);
  p << 1.0, -1e-12;
  ImpactProblem::RowMajorMatrix normals(1, 2);
  normals << 0.0, 1.0;
  const ImpactProblem grazing(KineticMetric(Eigen::MatrixXd::Identity(2, 2)), normals, p, 1.0);
  EXPECT_TRUE(grazing.feasible(grazing.initial_rates()));
  EXPECT_EQ(propagate(grazing, OrderingPolicy::kArgmin, ResolveLimits{}, nullptr).sequence.length, 0);
  p[1] = -1e-9;
  const ImpactProblem hit(KineticMetric(Eigen::MatrixXd::Identity(2, 2)), normals, p, 1.0);
  EXPECT_FALSE(hit.feasible(hit.initial_rates()));
  EXPECT_EQ(propagate(hit, OrderingPolicy::kArgmin, ResolveLimits{}, nullptr).sequence.length, 1);
}

TEST(Propagation, StepCapIsReported) {
  const ImpactProblem problem = chain({1, 1, 1}, {1, 0, -1});
  ResolveLimits limits;
  limits.max_steps = 2;
  const Propagation out = propagate(problem, OrderingPolicy::kIndex, limits, nullptr);
  EXPECT_TRUE(out.step_cap_hit);
  EXPECT_EQ(out.sequence.length, 2);
  EXPECT_FALSE(problem.feasible(out.rates));
}

TEST(Propagation, EnumerationCapsAreReported) {
  const ImpactProblem problem = chain({1, 1, 1}, {1, 0, -1});
  OutcomeSet set;
  EnumerationStack stack;
  ResolveLimits depth;
  depth.max_depth = 2;
  enumerate_outcomes(problem, depth, set, stack);
  EXPECT_TRUE(set.depth_cap_hit);
  EXPECT_EQ(set.size, 0);  // no branch reached feasibility within two reflections
  ResolveLimits nodes;
  nodes.max_nodes = 4;
  enumerate_outcomes(problem, nodes, set, stack);
  EXPECT_FALSE(set.depth_cap_hit);  // cleared by the new enumeration
  EXPECT_TRUE(set.node_cap_hit);
  EXPECT_EQ(set.nodes, 4);
  EXPECT_EQ(set.size, 1);  // the first branch completed after three nodes
}

TEST(Propagation, OutcomeSetMergesWithinToleranceAndCapsItsSize) {
  const ImpactProblem problem = chain({1, 1, 1}, {1, 0, -1});
  OutcomeSet set;
  set.clear();
  ContactSequence seq;
  seq.push(0);
  ContactVector a(2);
  a << 1.0, 1.0;
  set.add(problem, a, seq);
  ContactVector near = a;
  near[0] += 1e-12;  // g-distance ~1e-12 < 1e-9 ||p⁻||_g: same outcome
  seq.push(1);
  set.add(problem, near, seq);
  ASSERT_EQ(set.size, 1);
  EXPECT_EQ(set.items[0].sequence_count, 2);
  EXPECT_EQ(set.items[0].shortest, 1);
  EXPECT_EQ(set.items[0].stored_sequences, 2);
  for (int j = 0; j < kMaxSequencesPerOutcome + 3; ++j) set.add(problem, a, seq);
  EXPECT_EQ(set.items[0].stored_sequences, kMaxSequencesPerOutcome);
  EXPECT_EQ(set.items[0].sequence_count, 2 + kMaxSequencesPerOutcome + 3);
  // The outcome limit is a user limit (grows past the initial storage up to it).
  set.capacity_limit = 100;
  for (int j = 1; j <= 100 + 5; ++j) {
    ContactVector far(2);
    far << 1.0 + 0.01 * j, 1.0;
    set.add(problem, far, seq);
  }
  EXPECT_EQ(set.size, 100);
  EXPECT_TRUE(set.outcome_cap_hit);
}

TEST(Propagation, FeasibleMomentumHasTheEmptySequence) {
  const ImpactProblem problem = chain({1, 2, 3}, {0, 0.5, 1});
  OutcomeSet set;
  EnumerationStack stack;
  enumerate_outcomes(problem, ResolveLimits{}, set, stack);
  ASSERT_EQ(set.size, 1);
  EXPECT_EQ(set.items[0].shortest, 0);
  EXPECT_EQ(set.items[0].elastic_impulses, ContactVector::Zero(2));
  EXPECT_EQ(set.nodes, 0);
}

TEST(Propagation, ContactSequenceStoresAPrefixAndCountsTheRest) {
  ContactSequence s;
  for (int i = 0; i < kMaxStoredSequenceLength + 5; ++i) s.push(i % 3);
  EXPECT_TRUE(s.truncated());
  EXPECT_EQ(s.length, kMaxStoredSequenceLength + 5);
  EXPECT_EQ(s.stored(), kMaxStoredSequenceLength);
  EXPECT_EQ(s.contacts[kMaxStoredSequenceLength - 1], (kMaxStoredSequenceLength - 1) % 3);
  for (int i = 0; i < 5; ++i) s.pop();
  EXPECT_FALSE(s.truncated());
  EXPECT_EQ(s.stored(), kMaxStoredSequenceLength);
}

// Two-contact unequal-mass chain (masses 1, 3, 1): the two branches give two distinct outcomes,
// each elastic and feasible, and the single policies land on the branch they start with.
TEST(Propagation, UnequalMassesGiveOrderDependentOutcomes) {
  const ImpactProblem problem = chain({1, 3, 1}, {1, 0, -1});
  OutcomeSet set;
  EnumerationStack stack;
  enumerate_outcomes(problem, ResolveLimits{}, set, stack);
  ASSERT_EQ(set.size, 2);
  const Propagation first_u = propagate(problem, OrderingPolicy::kIndex, ResolveLimits{}, nullptr);
  const Propagation first_v = propagate(problem, OrderingPolicy::kReverse, ResolveLimits{}, nullptr);
  EXPECT_EQ(first_u.sequence.contacts[0], 0);
  EXPECT_EQ(first_v.sequence.contacts[0], 1);
  // By symmetry (mirror the chain) the outcomes are mirror images with opposite sign.
  const DofVector pu = problem.momentum_from_impulses(first_u.impulses);
  const DofVector pv = problem.momentum_from_impulses(first_v.impulses);
  EXPECT_GT((pu - pv).norm(), 1e-3);
  EXPECT_LE((pu + pv.reverse()).norm(), 1e-14);
  for (const auto* out : {&first_u, &first_v}) {
    EXPECT_TRUE(problem.feasible(out->rates));
    EXPECT_NEAR(problem.energy_from_impulses(out->impulses), problem.energy_before(), 1e-14);
  }
}

}  // namespace
}  // namespace simpact
