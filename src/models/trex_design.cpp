#include "simpact/models/trex_design.hpp"

#include <Eigen/Cholesky>

namespace simpact {

namespace {

void fill_point(const TrexGeometry& geometry, const DofVector& q, TrexContact foot, DesignPoint& out) {
  ContactVector phi;
  NormalMatrix jac;
  geometry.gaps(q, phi);
  geometry.gap_jacobian(q, jac);
  out.mass = geometry.mass_matrix(q);
  out.normal_a = jac.row(foot);
  out.normal_b = jac.row(kTrexTailTip);
  out.gap_a = phi[foot];
  out.gap_b = phi[kTrexTailTip];
}

}  // namespace

const std::vector<std::string>& trex_variable_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n(TrexGeometry::coordinate_names().begin(),
                               TrexGeometry::coordinate_names().end());
    for (const ParameterInfo& p : trex_design_parameters()) n.push_back(p.name);
    return n;
  }();
  return names;
}

int trex_variable_index(const std::string& name) {
  const auto& names = trex_variable_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return -1;
}

bool trex_variable_is_length(int index) {
  return index == kTrexX || index == kTrexY || index >= kTrexDof;
}

double trex_variable_scale(int index) {
  return trex_variable_is_length(index) ? 0.01 : 1.0;
}

Eigen::VectorXd trex_variables(const DofVector& q, const TrexDesign& design) {
  Eigen::VectorXd w(kTrexVariables);
  w.head(kTrexDof) = q.head(kTrexDof);
  w[kTrexR1] = design.r1;
  w[kTrexR2] = design.r2;
  w[kTrexThigh] = design.l_u;
  w[kTrexShank] = design.l_l;
  return w;
}

DofVector trex_configuration(const Eigen::VectorXd& w) {
  return w.head(kTrexDof);
}

TrexDesign trex_design_of(const Eigen::VectorXd& w) {
  TrexDesign d;
  d.r1 = w[kTrexR1];
  d.r2 = w[kTrexR2];
  d.l_u = w[kTrexThigh];
  d.l_l = w[kTrexShank];
  return d;
}

DesignEvaluator trex_design_evaluator(TrexContact foot, const TrexMaterial& material) {
  return [foot, material](const Eigen::VectorXd& w, DesignPoint& out) {
    const TrexGeometry geometry(trex_design_of(w), material);
    fill_point(geometry, trex_configuration(w), foot, out);
  };
}

DesignEvaluator trex_configuration_evaluator(const TrexGeometry& geometry, TrexContact foot) {
  return [&geometry, foot](const Eigen::VectorXd& w, DesignPoint& out) {
    fill_point(geometry, w.head(kTrexDof), foot, out);
  };
}

double metric_product(const DesignPoint& point) {
  const Eigen::LLT<Eigen::MatrixXd> factor(point.mass);
  return point.normal_a.dot(factor.solve(point.normal_b.transpose()).col(0));
}

}  // namespace simpact
