// Billiards break (Sec. VII-A, Fig. 4): cue ball c touching target balls a and b in the plane,
// q = [x_a, y_a, x_b, y_b, x_c, y_c]. θ is the angle a–c–b; the bisector of θ is the x axis;
// the cue moves at `speed` along the bisector rotated by `psi`. Normals (DESIGN errata: the
// paper prints their negatives): Dφ_a = [n_a, 0, −n_a], n_a the unit vector from c to a.
// Masses are ∝ volume, m = density·(4/3)πr³, unless m_a/m_b/m_c are given (> 0).
// For equal masses the normalized cosine is ½cos θ; the smallest admissible θ (a and b touching)
// is π/3 for equal radii.
#pragma once

#include "simpact/models/impact_model.hpp"

namespace simpact {

class BilliardsModel final : public ImpactModel {
 public:
  BilliardsModel();
  std::string name() const override { return "billiards"; }
  const std::vector<ParameterInfo>& parameters() const override { return parameters_; }
  int max_dof() const override { return 6; }
  ImpactProblem make_problem(const ParameterSet& params) const override;
  ImpactProblem build(const ParameterSet& params, ParameterBinding& binding,
                      ImpactSystem& system) const override;
  // θ_min: a and b touching, by the law of cosines.
  static double min_theta(double r_a, double r_b, double r_c);

 private:
  static constexpr std::size_t kParameterCount = 11;  // theta … speed, restitution (last)
  struct Geometry;
  static Geometry geometry(const double* values);
  std::vector<ParameterInfo> parameters_;
};

}  // namespace simpact
