// Newton's cradle (three unit masses) through the installed core alone: p⁻ = [1,0,0] has the one
// outcome [0,0,1] (ξ = 0) and the plastic outcome [1/3,1/3,1/3].
#include <cmath>
#include <cstdio>
#include <simpact/core/impact_resolution.hpp>

int main() {
  Eigen::MatrixXd normals(2, 3);
  normals << -1, 1, 0, 0, -1, 1;  // Dφ of the gaps x_b − x_a, x_c − x_b
  const Eigen::VectorXd momentum = Eigen::Vector3d(1, 0, 0);
  const simpact::ImpactProblem problem(simpact::KineticMetric(Eigen::MatrixXd::Identity(3, 3)), normals,
                                       momentum, 1.0);
  simpact::ImpactWorkspace workspace;
  const simpact::ImpactResolution r = simpact::resolve_impact(problem, {}, workspace);
  const auto& p = workspace.outcomes.items[0].momentum;
  const auto& pp = r.plastic.momentum;
  const bool ok = r.unique && r.xi == 0.0 && std::abs(p[0]) < 1e-15 && std::abs(p[1]) < 1e-15 &&
                  std::abs(p[2] - 1) < 1e-15 && r.plastic_computed && std::abs(pp[0] - 1.0 / 3) < 1e-15 &&
                  std::abs(pp[1] - 1.0 / 3) < 1e-15 && std::abs(pp[2] - 1.0 / 3) < 1e-15;
  std::printf("core consumer: cradle outcome [%g %g %g], plastic [%g %g %g], xi %g %s\n", p[0], p[1], p[2],
              pp[0], pp[1], pp[2], r.xi, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
