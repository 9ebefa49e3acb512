// Billiards break (Sec. VII-A, Fig. 4): cue ball c and target balls a and b in the plane, a
// BallSet with q = [x_a, y_a, x_b, y_b, x_c, y_c], written once for impacts and time stepping.
// θ is the angle a–c–b; the bisector of θ is the x axis; the cue moves at `speed` along the
// bisector rotated by `psi`. Normals (DESIGN errata: the paper prints their negatives):
// Dφ_a = [n_a, 0, −n_a], n_a the unit vector from c to a. Masses are ∝ volume,
// m = density·(4/3)πr³, unless m_a/m_b/m_c are given (> 0). For equal masses the normalized
// cosine is ½cos θ; the smallest admissible θ (a and b touching) is π/3 for equal radii.
#pragma once

#include <string>
#include <vector>

#include "simpact/models/ball_set.hpp"
#include "simpact/models/dynamic_models.hpp"
#include "simpact/models/mechanism_family.hpp"

namespace simpact {

// One billiards break: the balls, the angle and the cue's motion. `distance` backs the cue ball
// off along its velocity and `offset` moves b away along its line of centres (time stepping's
// approach); both 0: every ball touching, the impact's configuration.
struct BilliardsBreak {
  double theta = 0.0;
  double r_a = 1.0, r_b = 1.0, r_c = 1.0;
  double m_a = 1.0, m_b = 1.0, m_c = 1.0;
  double psi = 0.0, speed = 1.0;
  double distance = 0.0, offset = 0.0;
};

// Sets `balls` (a BallSet of 3 balls on 2 axes with contacts c–a and c–b, rebuilt in place), the
// configuration q and the velocity v of the break.
void assign_billiards(const BilliardsBreak& b, BallSet& balls, DynVector& q, DynVector& v);
// A new BallSet for the billiards break.
std::unique_ptr<BallSet> make_billiards_balls();

class BilliardsFamily final : public MechanismFamily {
 public:
  BilliardsFamily();
  std::string name() const override { return "billiards"; }
  const std::vector<ParameterInfo>& parameters() const override { return parameters_; }
  int max_dof() const override { return 6; }
  void impact_at(const ParameterSet& params, FamilyScratch& scratch, ImpactTerms& terms, PreImpact& pre,
                 double* values) const override;
  // θ_min: a and b touching, by the law of cosines.
  static double min_theta(double r_a, double r_b, double r_c);

 private:
  static constexpr std::size_t kParameterCount = 11;  // theta … speed, restitution (last)
  std::vector<ParameterInfo> parameters_;
};

// The time-stepping break: equal balls (mass, radius), the cue `distance` before contact moving
// along the bisector at `speed`; b `offset` further away.
DynamicSystem make_billiards(double theta, double mass, double radius, double speed, double distance,
                             double offset);

}  // namespace simpact
