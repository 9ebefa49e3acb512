// TREX from a file: examples/mechanisms/trex.xml (written by examples/mechanisms/trex_mjcf.py at
// Table I's optimized design row) reproduces the built-in TrexGeometry's M(q), gaps and contact
// normals, and the `trex` impact model's outcomes, ξ and energies, to 1e-9 at the Table I row's
// placed posture and at Fig. 8's orthogonal touchdown (docs/trex.md "TREX from a file").
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "../support/resolution_summary.hpp"
#include "simpact/core/impact_resolution.hpp"
#include "simpact/models/mujoco_mechanism.hpp"
#include "simpact/models/trex_scenario.hpp"
#include "simpact/models/trex_stance.hpp"

namespace simpact {
namespace {

std::string trex_file() {
  const char* root = std::getenv("SIMPACT_SOURCE_DIR");
  return std::string(root ? root : SIMPACT_SOURCE_DIR) + "/examples/mechanisms/trex.xml";
}

MechanismSpec trex_spec(std::vector<std::pair<std::string, std::string>> contacts) {
  MechanismSpec spec;
  spec.file = trex_file();
  spec.contacts = std::move(contacts);
  return spec;
}

// The file's qpos order is the built-in's q order.
Eigen::VectorXd as_qpos(const DofVector& q) {
  return Eigen::VectorXd(q);
}

DofVector fig8_optimized_stance() {
  const TrexTableRow row = trex_table1_optimized();
  return trex_orthogonal_touchdown(row.design, row.q);
}

ParameterSet builtin_params(const TrexDesign& design, const DofVector& q) {
  ParameterSet p;
  p.set("r1", design.r1);
  p.set("r2", design.r2);
  p.set("l_u", design.l_u);
  p.set("l_l", design.l_l);
  const auto names = TrexGeometry::coordinate_names();
  for (int i = kTrexTheta; i < kTrexDof; ++i) p.set(names[static_cast<std::size_t>(i)], q[i]);
  p.set("foot", 1.0);
  p.set("speed", 1.0);
  return p;
}

using Summary = test_support::ResolutionSummary;
using test_support::summarize;

TEST(TrexMjcf, MassMatrixGapsAndNormalsMatchBuiltin) {
  const TrexTableRow row = trex_table1_optimized();
  const TrexGeometry geometry(row.design);
  const MujocoMechanism mechanism(
      trex_spec({{"floor", "foot_L"}, {"floor", "foot_R"}, {"floor", "tail_tip"}}));
  ASSERT_EQ(mechanism.nq(), kTrexDof);
  ASSERT_EQ(mechanism.nv(), kTrexDof);
  auto ws = mechanism.make_workspace();
  const MechanismState state = mechanism.state_from(ParameterSet{});
  DofVector placed = fig8_optimized_stance();
  placed[kTrexY] = 0.0;
  ContactVector phi0;
  geometry.gaps(placed, phi0);
  placed[kTrexY] = -phi0[kTrexTailTip];  // Fig. 8's optimized gait at its double touchdown
  DofVector moved = row.q;               // Table I's printed row, off the floor
  moved[kTrexX] = 0.3;
  double worst_m = 0, worst_phi = 0, worst_u = 0;
  for (const DofVector& q : {row.q, placed, moved}) {
    MechanismEvaluation e;
    mechanism.evaluate(state, as_qpos(q), *ws, e);
    const DofMatrix m = geometry.mass_matrix(q);
    ContactVector phi;
    NormalMatrix normals;
    geometry.gaps(q, phi);
    geometry.gap_jacobian(q, normals);
    const double m_scale = m.cwiseAbs().maxCoeff();
    const double dm = (e.mass - Eigen::MatrixXd(m)).cwiseAbs().maxCoeff() / m_scale;
    const double dphi = (e.gaps - Eigen::VectorXd(phi)).cwiseAbs().maxCoeff();
    const double du = (e.normals - Eigen::MatrixXd(normals)).cwiseAbs().maxCoeff();
    EXPECT_LT(dm, 1e-12);
    EXPECT_LT(dphi, 1e-12);  // m
    EXPECT_LT(du, 1e-12);
    worst_m = std::max(worst_m, dm);
    worst_phi = std::max(worst_phi, dphi);
    worst_u = std::max(worst_u, du);
  }
  RecordProperty("max_relative_mass_difference", fmt::format("{:.3g}", worst_m));
  RecordProperty("max_gap_difference_m", fmt::format("{:.3g}", worst_phi));
  RecordProperty("max_normal_difference", fmt::format("{:.3g}", worst_u));
  // The placed stance touches with the right foot and the tail tip, the left foot in the air.
  MechanismEvaluation e;
  mechanism.evaluate(state, as_qpos(placed), *ws, e);
  EXPECT_LT(std::abs(e.gaps[1]), 1e-15);
  EXPECT_LT(std::abs(e.gaps[2]), 1e-15);
  EXPECT_GT(e.gaps[0], 0.05);
}

TEST(TrexMjcf, ImpactOutcomesAndXiMatchBuiltin) {
  const TrexTableRow row = trex_table1_optimized();
  const TrexFamily builtin;
  const MujocoMechanism mechanism(trex_spec({{"floor", "foot_R"}, {"floor", "tail_tip"}}));
  auto ws = mechanism.make_workspace();
  int nonzero_xi = 0;
  double worst_xi = 0, worst_p = 0;
  // Table I's optimized row and Fig. 8's orthogonal touchdown, each placed on the floor by the
  // built-in (y, θ) solve and falling at 1 m/s; restitutions 1, 0.7, 0.
  for (const DofVector& posture : {row.q, fig8_optimized_stance()})
    for (double r : {1.0, 0.7, 0.0}) {
      ParameterSet params = builtin_params(row.design, posture);
      params.set("restitution", r);
      const DofVector q = builtin.placed_configuration(params);
      const ImpactProblem a = builtin.make_problem(params);
      MechanismState state = mechanism.state_from(ParameterSet{});
      state.qpos = as_qpos(q);
      state.qvel = Eigen::VectorXd::Zero(kTrexDof);
      state.qvel[kTrexY] = -1.0;
      state.restitution = r;
      mechanism.check_state(state, "qpos", "qvel");
      const ImpactProblem b = mechanism.make_problem(state, *ws);
      ASSERT_EQ(a.contacts(), 2);
      ASSERT_EQ(b.contacts(), 2);
      const Summary sa = summarize(a), sb = summarize(b);
      SCOPED_TRACE("theta=" + std::to_string(q[kTrexTheta]) + " R=" + std::to_string(r));
      ASSERT_EQ(sa.status, sb.status);
      ASSERT_EQ(sa.outcomes.size(), sb.outcomes.size());
      const double scale = std::sqrt(2 * sa.energy_before);
      for (std::size_t j = 0; j < sa.outcomes.size(); ++j) {
        for (int i = 0; i < kTrexDof; ++i)
          EXPECT_NEAR(sa.outcomes[j][static_cast<std::size_t>(i)],
                      sb.outcomes[j][static_cast<std::size_t>(i)], 1e-9 * scale);
        EXPECT_NEAR(sa.energies[j], sb.energies[j], 1e-9 * sa.energy_before);
      }
      EXPECT_NEAR(sa.xi, sb.xi, 1e-9);
      worst_xi = std::max(worst_xi, std::abs(sa.xi - sb.xi));
      for (std::size_t j = 0; j < sa.outcomes.size(); ++j)
        for (std::size_t i = 0; i < sa.outcomes[j].size(); ++i)
          worst_p = std::max(worst_p, std::abs(sa.outcomes[j][i] - sb.outcomes[j][i]) / scale);
      EXPECT_NEAR(sa.energy_before, sb.energy_before, 1e-12 * sa.energy_before);
      nonzero_xi += sa.xi > 1e-6;
    }
  RecordProperty("max_xi_difference", fmt::format("{:.3g}", worst_xi));
  RecordProperty("max_relative_outcome_difference", fmt::format("{:.3g}", worst_p));
  // The printed row is not orthogonal (ξ > 0 at R > 0); the designed touchdown is (ξ ≈ 0).
  EXPECT_EQ(nonzero_xi, 2);
}

}  // namespace
}  // namespace simpact
