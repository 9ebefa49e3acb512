// Invariants over random systems (fixed seed): d = 3..8, 2..4 contacts, M = AᵀA + dI, Gaussian
// normals, p⁻ violating at least one contact. Every quantity is recomputed here from M, N, p⁻
// with an independent factorization; the plastic outcome is compared with a brute-force
// projection onto every face of the feasible cone and with sampled feasible points.
#include <gtest/gtest.h>

#include <Eigen/SVD>
#include <cmath>
#include <limits>
#include <random>

#include "simpact/core/impact_resolution.hpp"
#include "simpact/core/reset_map.hpp"

namespace simpact {
namespace {

using RowMatrix = ImpactProblem::RowMajorMatrix;

struct RandomSystem {
  Eigen::MatrixXd m;
  RowMatrix normals;
  Eigen::VectorXd p;
};

// An independent view of one system: <a,b>_g through its own Cholesky factor.
struct Reference {
  explicit Reference(const RandomSystem& s) : llt(s.m), normals(s.normals) {}
  double inner(const Eigen::VectorXd& a, const Eigen::VectorXd& b) const { return a.dot(llt.solve(b)); }
  double norm(const Eigen::VectorXd& a) const { return std::sqrt(std::max(0.0, inner(a, a))); }
  Eigen::VectorXd rates(const Eigen::VectorXd& p) const { return normals * llt.solve(p); }
  Eigen::LLT<Eigen::MatrixXd> llt;
  Eigen::MatrixXd normals;
};

RandomSystem draw_system(std::mt19937_64& gen) {
  std::normal_distribution<double> normal;
  const int d = std::uniform_int_distribution<int>(3, 8)(gen);
  const int k = std::uniform_int_distribution<int>(2, 4)(gen);
  RandomSystem s;
  Eigen::MatrixXd a(d, d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) a(i, j) = normal(gen);
  s.m = a.transpose() * a + d * Eigen::MatrixXd::Identity(d, d);
  s.normals.resize(k, d);
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < d; ++j) s.normals(i, j) = normal(gen);
  s.p.resize(d);
  for (int i = 0; i < d; ++i) s.p[i] = normal(gen);
  const Eigen::VectorXd rates = s.normals * s.m.llt().solve(s.p);
  if (rates.minCoeff() >= 0.0) s.p = -s.p;  // all rates ≥ 0 ⇒ −p⁻ violates every contact
  return s;
}

// Brute-force g-projection of p⁻ onto {p : <p,u_i>_g ≥ 0} (see plastic_impact_test.cpp).
Eigen::VectorXd brute_force_projection(const RandomSystem& s) {
  const int k = static_cast<int>(s.normals.rows());
  const Eigen::MatrixXd l = s.m.llt().matrixL();
  const Eigen::VectorXd y0 = l.triangularView<Eigen::Lower>().solve(s.p);
  const Eigen::MatrixXd w = l.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd(s.normals.transpose()));
  double best = std::numeric_limits<double>::infinity();
  Eigen::VectorXd best_y = y0;
  for (int mask = 0; mask < (1 << k); ++mask) {
    Eigen::MatrixXd ws(w.rows(), __builtin_popcount(mask));
    for (int i = 0, c = 0; i < k; ++i)
      if (mask & (1 << i)) ws.col(c++) = w.col(i);
    Eigen::VectorXd y = y0;
    if (ws.cols() > 0) {
      const Eigen::JacobiSVD<Eigen::MatrixXd> svd(ws, Eigen::ComputeThinU);
      for (int c = 0; c < svd.singularValues().size(); ++c)
        if (svd.singularValues()[c] > 1e-10 * svd.singularValues()[0])
          y -= svd.matrixU().col(c) * svd.matrixU().col(c).dot(y0);
    }
    bool feasible = true;
    for (int i = 0; i < k; ++i)
      if (w.col(i).dot(y) < -1e-11 * y0.norm() * w.col(i).norm()) feasible = false;
    if (feasible && (y - y0).norm() < best) best = (y - y0).norm(), best_y = y;
  }
  return l * best_y;
}

constexpr OrderingPolicy kSinglePolicies[] = {OrderingPolicy::kArgmin, OrderingPolicy::kArgmax,
                                              OrderingPolicy::kIndex, OrderingPolicy::kReverse,
                                              OrderingPolicy::kRandom};

class PropertyChecker {
 public:
  PropertyChecker(const RandomSystem& s, int trial) : s_(s), ref_(s), trial_(trial) {}

  // Energy and feasibility of an elastic end momentum, recomputed from scratch.
  void expect_elastic(const Eigen::VectorXd& p, const char* what) const {
    const double e0 = 0.5 * ref_.inner(s_.p, s_.p);
    EXPECT_NEAR(0.5 * ref_.inner(p, p), e0, 1e-12 * e0) << what << " trial " << trial_;
    expect_feasible(p, what);
  }
  void expect_feasible(const Eigen::VectorXd& p, const char* what) const {
    const Eigen::VectorXd rates = ref_.rates(p);
    const double p0 = ref_.norm(s_.p);
    for (int i = 0; i < rates.size(); ++i) {
      const double u = ref_.norm(s_.normals.row(i).transpose());
      EXPECT_GE(rates[i], -2e-10 * p0 * u) << what << " contact " << i << " trial " << trial_;
    }
  }
  const Reference& ref() const { return ref_; }

 private:
  const RandomSystem& s_;
  Reference ref_;
  int trial_;
};

TEST(Property, RandomSystemsSatisfyEveryInvariant) {
  std::mt19937_64 gen(20240611);
  std::normal_distribution<double> normal;
  ImpactWorkspace ws, ws_single;
  int checked = 0, skipped = 0, multi_outcome = 0, all_active = 0, partly_active = 0, restitution_checks = 0;
  for (int trial = 0; trial < 320; ++trial) {
    const RandomSystem s = draw_system(gen);
    const int d = static_cast<int>(s.p.size()), k = static_cast<int>(s.normals.rows());
    const PropertyChecker check(s, trial);
    const Reference& ref = check.ref();
    const ImpactProblem problem(KineticMetric(s.m), s.normals, s.p, 1.0);
    ASSERT_FALSE(problem.feasible(problem.initial_rates())) << "trial " << trial;

    // Γ² = I for every normal (eq. 8).
    for (int i = 0; i < k; ++i) {
      const DofMatrix gamma = reset_map_matrix(problem.metric(), DofVector(s.normals.row(i).transpose()));
      EXPECT_LE((gamma * gamma - DofMatrix::Identity(d, d)).cwiseAbs().maxCoeff(), 1e-12)
          << "trial " << trial;
    }

    ResolveOptions all_options;
    const ImpactResolution all = resolve_impact(problem, all_options, ws);
    if (all.status == ResolveStatus::kCapHit || all.status == ResolveStatus::kNoElasticOutcome) {
      // Independent check of the status: the normals positively span their span exactly when
      // the plastic projection of every momentum has no component in span{u_i}; test it on
      // random momenta with the brute-force projection.
      bool spanning = true;
      for (int probe = 0; probe < 4 && spanning; ++probe) {
        RandomSystem q = s;
        for (int i = 0; i < d; ++i) q.p[i] = normal(gen);
        const Eigen::VectorXd proj = brute_force_projection(q);
        const Eigen::VectorXd rates = ref.rates(proj);
        // p_p with no component in span{u_i} has all rates 0.
        spanning =
            rates.cwiseAbs().maxCoeff() <= 1e-9 * ref.norm(q.p) * ref.norm(s.normals.row(0).transpose()) * 10;
      }
      std::printf(
          "[ info ] trial %d skipped: status %s (caps: depth %d node %d outcome %d step %d; %ld nodes, %d "
          "outcomes), d=%d k=%d, positively spanning (brute force): %s\n",
          trial, resolve_status_name(all.status), all.depth_cap_hit, all.node_cap_hit, all.outcome_cap_hit,
          all.step_cap_hit, all.nodes, all.outcome_count, d, k, spanning ? "yes" : "no");
      EXPECT_EQ(all.status == ResolveStatus::kNoElasticOutcome, spanning) << "trial " << trial;
      ++skipped;
      continue;
    }
    ASSERT_EQ(all.status, ResolveStatus::kOk) << "trial " << trial;
    ASSERT_GE(all.outcome_count, 1);
    EXPECT_EQ(all.unique, all.outcome_count == 1);
    if (all.outcome_count > 1) ++multi_outcome;
    const double p0 = ref.norm(s.p);

    // Every elastic outcome conserves energy and is feasible; outcomes are distinct; ξ is the
    // diameter of the set.
    std::vector<Eigen::VectorXd> outcomes;
    for (int j = 0; j < all.outcome_count; ++j) {
      const Eigen::VectorXd pj = problem.momentum_from_impulses(ws.outcomes.items[j].impulses);
      check.expect_elastic(pj, "policy all");
      EXPECT_NEAR(ws.outcomes.items[j].energy, 0.5 * p0 * p0, 1e-12 * p0 * p0);
      EXPECT_EQ(ws.outcomes.items[j].alpha, 1.0);
      outcomes.push_back(pj);
    }
    double diameter = 0.0;
    for (std::size_t a = 0; a < outcomes.size(); ++a)
      for (std::size_t b = a + 1; b < outcomes.size(); ++b) {
        const double dist = ref.norm(outcomes[a] - outcomes[b]);
        EXPECT_GT(dist, kOutcomeMergeTolerance * p0) << "trial " << trial;
        diameter = std::max(diameter, dist);
      }
    EXPECT_NEAR(all.xi, diameter / p0, 1e-12) << "trial " << trial;
    EXPECT_LE(all.xi_argmin_argmax, all.xi + 1e-12);

    // Each single policy ends on one of the enumerated outcomes (it is one branch of the tree).
    for (const OrderingPolicy policy : kSinglePolicies) {
      ResolveOptions options;
      options.policy = policy;
      options.seed = 99;
      options.task = static_cast<std::uint64_t>(trial);
      const ImpactResolution one = resolve_impact(problem, options, ws_single);
      ASSERT_EQ(one.outcome_count, 1);
      const Eigen::VectorXd p1 = problem.momentum_from_impulses(ws_single.outcomes.items[0].impulses);
      check.expect_elastic(p1, ordering_policy_name(policy).data());
      double nearest = std::numeric_limits<double>::infinity();
      for (const auto& o : outcomes) nearest = std::min(nearest, ref.norm(p1 - o));
      EXPECT_LE(nearest, 1e-9 * p0) << ordering_policy_name(policy) << " trial " << trial;
    }

    // Plastic: complementarity, the projection itself (brute force and sampling).
    ASSERT_TRUE(all.plastic_computed);
    const PlasticOutcome& pl = all.plastic;
    EXPECT_TRUE(pl.converged);
    EXPECT_LE(pl.complementarity_residual, 1e-10);
    const Eigen::VectorXd pp = problem.momentum_from_impulses(pl.impulses);
    for (int i = 0; i < k; ++i) EXPECT_GE(pl.impulses[i], 0.0) << "trial " << trial;
    check.expect_feasible(pp, "plastic");
    const Eigen::VectorXd pp_rates = ref.rates(pp);
    for (int i = 0; i < k; ++i)
      EXPECT_LE(std::abs(pl.impulses[i] * pp_rates[i]), 1e-10 * p0 * p0) << "λ_i c_i, trial " << trial;
    EXPECT_LE(ref.norm(pp - brute_force_projection(s)), 1e-9 * p0) << "trial " << trial;
    const double plastic_distance = ref.norm(pp - s.p);
    for (int sample = 0; sample < 200; ++sample) {
      const double radius = (sample % 3 == 0 ? 1e-3 : sample % 3 == 1 ? 1e-1 : 1.0) * p0;
      Eigen::VectorXd q(d);
      for (int i = 0; i < d; ++i) q[i] = normal(gen);
      q = pp + radius * q / std::sqrt(static_cast<double>(d));
      if (ref.rates(q).minCoeff() < 0.0) continue;
      EXPECT_GE(ref.norm(q - s.p), plastic_distance - 1e-12 * p0) << "trial " << trial;
    }
    const bool every_contact_active = pl.impulses.minCoeff() > 0.0;
    (every_contact_active ? all_active : partly_active)++;

    // Restitution: eq. (16) recovers R from the energies for every outcome, α = R when every
    // contact stays active, the blend is feasible, and the elastic parts are the R = 1 outcomes.
    const double e_before = 0.5 * p0 * p0;
    const double e_plastic = 0.5 * ref.inner(pp, pp);
    for (const double r : {0.2, 0.5, 0.9}) {
      const ImpactProblem inelastic(KineticMetric(s.m), s.normals, s.p, r);
      for (const OrderingPolicy policy : {OrderingPolicy::kAll, OrderingPolicy::kArgmin}) {
        ResolveOptions options;
        options.policy = policy;
        const ImpactResolution res = resolve_impact(inelastic, options, ws_single);
        ASSERT_EQ(res.status, ResolveStatus::kOk);
        if (policy == OrderingPolicy::kAll) {
          EXPECT_EQ(res.outcome_count, all.outcome_count);
        }
        for (int j = 0; j < res.outcome_count; ++j) {
          const Outcome& o = ws_single.outcomes.items[j];
          const Eigen::VectorXd pe = inelastic.momentum_from_impulses(o.elastic_impulses);
          double nearest = std::numeric_limits<double>::infinity();
          for (const auto& e : outcomes) nearest = std::min(nearest, ref.norm(pe - e));
          EXPECT_LE(nearest, 1e-9 * p0) << "trial " << trial;
          const Eigen::VectorXd p_after = inelastic.momentum_from_impulses(o.impulses);
          const double e_after = 0.5 * ref.inner(p_after, p_after);
          EXPECT_NEAR(o.energy, e_after, 1e-12 * e_before);
          check.expect_feasible(p_after, "inelastic");
          EXPECT_LE(e_after, e_before * (1 + 1e-12));
          EXPECT_GE(e_after, e_plastic * (1 - 1e-12));
          const double e_p = e_before - e_plastic;  // energy a plastic impact loses
          if (e_p > 0.0) {
            // δR ≈ δ(ΔE)/(2R E_p): rounding in the energies (~1e-16 E) is amplified by E/E_p, so
            // the 1e-10 target applies where E_p ≥ 1e-4 E and a scaled one below that.
            const double recovered = std::sqrt(1.0 - (e_before - e_after) / e_p);
            const double tol = std::max(1e-10, 1e-14 * e_before / e_p);
            EXPECT_NEAR(recovered, r, tol) << "trial " << trial << " R " << r << " E_p/E " << e_p / e_before;
            if (e_p >= 1e-4 * e_before) ++restitution_checks;
          }
          if (every_contact_active) {
            EXPECT_NEAR(o.alpha, r, 1e-10) << "trial " << trial;
          }
          EXPECT_GE(o.alpha, 0.0);
          EXPECT_LE(o.alpha, 1.0);
        }
      }
    }
    ++checked;
  }
  std::printf(
      "[ info ] %d systems checked, %d skipped (cap or no elastic outcome); %d with several outcomes; "
      "plastic all-active %d, partly active %d; %d restitution checks at 1e-10\n",
      checked, skipped, multi_outcome, all_active, partly_active, restitution_checks);
  EXPECT_GE(checked, 200);
  EXPECT_GT(multi_outcome, 20);  // the random systems are not all trivially unique
  EXPECT_GT(all_active, 10);
  EXPECT_GT(partly_active, 10);
  EXPECT_GT(restitution_checks, 1000);
}

}  // namespace
}  // namespace simpact
