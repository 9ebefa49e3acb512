// Every hand-derived derivative of the time-stepping models against central finite differences:
// T_q, T_v = M v, T_qq, T_qv, V_q, V_qq, Dφ, and the DEL residual's Jacobian.
#include "simpact/models/planar_linkage.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "simpact/integrate/midpoint_integrator.hpp"
#include "simpact/models/billiards_scenario.hpp"
#include "simpact/models/cradle_scenario.hpp"
#include "simpact/models/dynamic_models.hpp"

namespace simpact {
namespace {

DynVector pseudo_random(int n, double scale, int seed) {
  DynVector x(n);
  for (int i = 0; i < n; ++i) x[i] = scale * std::sin(1.7 * (i + 1) + 0.9 * seed + 0.3 * i * i);
  return x;
}

// Central differences of a vector function, column by column: d f / d x_b.
DynMatrix fd_jacobian(const std::function<DynVector(const DynVector&)>& f, const DynVector& x, int rows) {
  const double eps = 1e-6;
  DynMatrix out(rows, x.size());
  for (int b = 0; b < x.size(); ++b) {
    DynVector xp = x, xm = x;
    xp[b] += eps;
    xm[b] -= eps;
    out.col(b) = (f(xp) - f(xm)) / (2 * eps);
  }
  return out;
}

double relative_error(const DynMatrix& a, const DynMatrix& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

void check_model(const Mechanism& model, int seed) {
  const int n = model.dof();
  const DynVector q = pseudo_random(n, 0.8, seed), v = pseudo_random(n, 1.3, seed + 5);
  KineticDerivatives k;
  model.kinetic(q, v, true, k);
  // T_q and T_v against differences of T.
  auto t_of_q = [&](const DynVector& x) {
    KineticDerivatives kk;
    model.kinetic(x, v, false, kk);
    DynVector e(1);
    e[0] = kk.energy;
    return e;
  };
  auto t_of_v = [&](const DynVector& x) {
    KineticDerivatives kk;
    model.kinetic(q, x, false, kk);
    DynVector e(1);
    e[0] = kk.energy;
    return e;
  };
  EXPECT_LT(relative_error(fd_jacobian(t_of_q, q, 1).transpose(), k.t_q), 1e-8) << model.name();
  EXPECT_LT(relative_error(fd_jacobian(t_of_v, v, 1).transpose(), k.t_v), 1e-8) << model.name();
  EXPECT_LT(relative_error(k.mass * v, k.t_v), 1e-13) << model.name();
  EXPECT_LT(relative_error(k.mass, k.mass.transpose()), 1e-15) << model.name();
  // Second derivatives: T_qq = ∂T_q/∂q, T_qv = ∂T_q/∂v.
  auto tq_of_q = [&](const DynVector& x) {
    KineticDerivatives kk;
    model.kinetic(x, v, false, kk);
    return DynVector(kk.t_q);
  };
  auto tq_of_v = [&](const DynVector& x) {
    KineticDerivatives kk;
    model.kinetic(q, x, false, kk);
    return DynVector(kk.t_q);
  };
  EXPECT_LT(relative_error(fd_jacobian(tq_of_q, q, n), k.t_qq), 1e-7) << model.name();
  EXPECT_LT(relative_error(fd_jacobian(tq_of_v, v, n), k.t_qv), 1e-7) << model.name();
  EXPECT_LT(relative_error(k.t_qq, k.t_qq.transpose()), 1e-13) << model.name();
  // Potential.
  DynVector grad;
  DynMatrix hess;
  model.potential(q, grad, &hess);
  auto v_of_q = [&](const DynVector& x) {
    DynVector g, e(1);
    e[0] = model.potential(x, g, nullptr);
    return e;
  };
  auto grad_of_q = [&](const DynVector& x) {
    DynVector g;
    model.potential(x, g, nullptr);
    return g;
  };
  EXPECT_LT(relative_error(fd_jacobian(v_of_q, q, 1).transpose(), grad), 1e-8) << model.name();
  EXPECT_LT(relative_error(fd_jacobian(grad_of_q, q, n), hess), 1e-7) << model.name();
  // The DEL residual's Jacobian ∂R/∂q₂.
  const MidpointIntegrator integrator(model);
  const double h = 0.01;
  const DynVector q1 = q, p1 = pseudo_random(n, 2.0, seed + 9), q2 = q + h * v;
  DynVector r, p2;
  DynMatrix jac;
  integrator.residual(q1, p1, 0.3, h, q2, r, p2, &jac);
  auto r_of_q2 = [&](const DynVector& x) {
    DynVector rr, pp;
    integrator.residual(q1, p1, 0.3, h, x, rr, pp, nullptr);
    return rr;
  };
  EXPECT_LT(relative_error(fd_jacobian(r_of_q2, q2, n), jac), 1e-7) << model.name();
  // The fast paths (Newton's inner loop, the term-space Newton matrix) against the generic forms
  // built from kinetic() and potential() (checked above).
  DynVector tq, tv, vq, tq0, tv0, vq0;
  model.momentum_terms(q, v, tq, tv, vq);
  model.Mechanism::momentum_terms(q, v, tq0, tv0, vq0);
  EXPECT_LT(relative_error(tq, tq0), 1e-13) << model.name();
  EXPECT_LT(relative_error(tv, tv0), 1e-13) << model.name();
  EXPECT_LT(relative_error(vq, vq0), 1e-13) << model.name();
  DynMatrix fast, generic;
  double norm = 0.0, norm0 = 0.0;
  model.del_matrix(q, v, -1.0 / h, 0.5, 0.25 * h, fast, norm);
  model.Mechanism::del_matrix(q, v, -1.0 / h, 0.5, 0.25 * h, generic, norm0);
  EXPECT_LT(relative_error(fast, generic), 1e-13) << model.name();
  EXPECT_NEAR(norm, norm0, 0.1 * norm0) << model.name();
}

TEST(PlanarLinkage, ChainDerivativesMatchFiniteDifferences) {
  for (int links : {1, 2, 4, 8}) check_model(*make_chain(links, 0.7, 1.3, 9.81, 0.0).model, links);
}

TEST(PlanarLinkage, DampedChainForceJacobianInDelJacobian) {
  check_model(*make_chain(3, 1.0, 1.0, 9.81, 0.4).model, 3);
}

TEST(PlanarLinkage, Tree8DerivativesMatchFiniteDifferences) {
  check_model(*make_tree8().model, 11);
}

TEST(PlanarLinkage, BilliardsAndBallDerivatives) {
  check_model(*make_billiards(2.0, 1.0, 0.05, 1.0, 0.01, 0.0).model, 2);
  check_model(*make_ball(1.0, 0.1, 1.0, 0.0, 9.81).model, 4);
}

TEST(PlanarLinkage, GapJacobianMatchesFiniteDifferences) {
  const DynamicSystem billiards = make_billiards(2.0, 1.0, 0.05, 1.0, 0.01, 0.0);
  const Mechanism& model = *billiards.model;
  const DynVector q = billiards.q0 + pseudo_random(6, 0.01, 3);
  DynRowMatrix jac;
  model.gap_jacobian(q, jac);
  auto phi_of_q = [&](const DynVector& x) {
    DynVector phi;
    model.gaps(x, phi);
    return DynVector(phi);
  };
  EXPECT_LT(relative_error(fd_jacobian(phi_of_q, q, 2), jac), 1e-8);
}

// Closed forms: a hanging 1-link pendulum has M = m l², V = −m g l cos q; the billiards start
// state closes both contacts after `distance`.
TEST(PlanarLinkage, ClosedForms) {
  const DynamicSystem pendulum = make_chain(1, 0.7, 1.3, 9.81);
  DynVector q(1), g;
  q[0] = 0.4;
  EXPECT_NEAR(pendulum.model->mass_matrix(q)(0, 0), 1.3 * 0.49, 1e-15);
  EXPECT_NEAR(pendulum.model->potential(q, g, nullptr), -1.3 * 9.81 * 0.7 * std::cos(0.4), 1e-14);
  const DynamicSystem b = make_billiards(2.0, 1.0, 0.05, 1.0, 0.01, 0.0);
  DynVector qc = b.q0;
  qc[4] += 0.01;
  DynVector phi;
  b.model->gaps(qc, phi);
  EXPECT_NEAR(phi[0], 0.0, 1e-16);
  EXPECT_NEAR(phi[1], 0.0, 1e-16);
}

}  // namespace
}  // namespace simpact
