#include "simpact/models/trex_stance.hpp"

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <cmath>
#include <stdexcept>

namespace simpact {

double trex_normalized_product(const TrexDesign& design, const DofVector& q) {
  const TrexGeometry g(design);
  NormalMatrix jac;
  g.gap_jacobian(q, jac);
  const Eigen::LLT<DofMatrix> m(g.mass_matrix(q));
  const DofVector u = jac.row(kTrexFootR).transpose(), v = jac.row(kTrexTailTip).transpose();
  const DofVector mu = m.solve(u), mv = m.solve(v);
  return u.dot(mv) / std::sqrt(u.dot(mu) * v.dot(mv));
}

namespace {
double height_difference(const TrexGeometry& g, const DofVector& q) {
  ContactVector phi;
  g.gaps(q, phi);
  return phi[kTrexFootR] - phi[kTrexTailTip];
}
void set_right_hip(DofVector& q, double phi_r) {
  const double phase = q[kTrexHipL] - q[kTrexHipR];
  q[kTrexHipR] = phi_r;
  q[kTrexHipL] = phi_r + phase;
}
}  // namespace

DofVector trex_double_touchdown(const TrexDesign& design, DofVector q) {
  const TrexGeometry g(design);
  const double eps = 1e-7;
  for (int it = 0; it < 50; ++it) {
    const double f = height_difference(g, q);
    if (std::abs(f) < 1e-14) return q;
    DofVector qp = q, qm = q;
    set_right_hip(qp, q[kTrexHipR] + eps);
    set_right_hip(qm, q[kTrexHipR] - eps);
    const double df = (height_difference(g, qp) - height_difference(g, qm)) / (2 * eps);
    set_right_hip(q, q[kTrexHipR] - f / df);
  }
  throw std::runtime_error("trex_double_touchdown: Newton on phi_R did not converge");
}

DofVector trex_orthogonal_touchdown(const TrexDesign& design, DofVector q) {
  const TrexGeometry g(design);
  auto residual = [&](const DofVector& x) {
    return Eigen::Vector2d(height_difference(g, x), trex_normalized_product(design, x));
  };
  auto moved = [&](const DofVector& x, double d_hip, double d_tail) {
    DofVector y = x;
    set_right_hip(y, x[kTrexHipR] + d_hip);
    y[kTrexTail] += d_tail;
    return y;
  };
  const double eps = 1e-7;
  for (int it = 0; it < 50; ++it) {
    const Eigen::Vector2d r = residual(q);
    if (std::abs(r[0]) < 1e-14 && std::abs(r[1]) < 1e-13) return q;
    Eigen::Matrix2d jac;
    jac.col(0) = (residual(moved(q, eps, 0)) - residual(moved(q, -eps, 0))) / (2 * eps);
    jac.col(1) = (residual(moved(q, 0, eps)) - residual(moved(q, 0, -eps))) / (2 * eps);
    const Eigen::Vector2d step = jac.partialPivLu().solve(r);
    q = moved(q, -step[0], -step[1]);
  }
  throw std::runtime_error("trex_orthogonal_touchdown: Newton on (phi_R, phi_T) did not converge");
}

}  // namespace simpact
