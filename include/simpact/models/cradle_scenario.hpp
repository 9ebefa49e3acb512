// Newton's cradle (Fig. 2a generalized), written once for impacts and time stepping: n balls on
// a line (a BallSet on one axis, q = x_1 … x_n), ball i with mass m_i and radius r_i; contacts
// between neighbours, φ_i = x_{i+1} − x_i − r_i − r_{i+1}, so u_i = e_{i+1} − e_i and M = diag(m).
// Balls 2..n touch in a row from x_2 = 0; ball 1 is `gap` to the left of ball 2 (0: touching, the
// impact's configuration) and comes in at `speed`; v2..vn give the others' velocities (default 0).
// Radii set positions only: for touching balls on a line they do not change the impact map.
#pragma once

#include <string>
#include <vector>

#include "simpact/models/ball_set.hpp"
#include "simpact/models/dynamic_models.hpp"
#include "simpact/models/mechanism_family.hpp"

namespace simpact {

// n ≤ 9 (n − 1 ≤ kMaxContacts contacts) is resolved on the fixed path, larger cradles on the
// dynamic one, up to this many balls.
inline constexpr int kMaxCradleBalls = 64;

// Sets `balls` (a BallSet of n balls on one axis with neighbour contacts), q and v: masses,
// radii and velocities per ball, ball 1 `gap` from ball 2.
void assign_cradle(const std::vector<double>& masses, const std::vector<double>& radii,
                   const std::vector<double>& velocities, double gap, BallSet& balls, DynVector& q,
                   DynVector& v);
std::unique_ptr<BallSet> make_cradle_balls(int n);

class CradleFamily final : public MechanismFamily {
 public:
  CradleFamily();
  std::string name() const override { return "cradle"; }
  const std::vector<ParameterInfo>& parameters() const override { return parameters_; }
  int max_dof() const override { return kMaxCradleBalls; }
  std::string size_parameter() const override { return "n"; }
  void impact_at(const ParameterSet& params, FamilyScratch& scratch, ImpactTerms& terms, PreImpact& pre,
                 double* values) const override;

 private:
  const ParameterInfo& parameter(const std::string& name) const;
  std::vector<ParameterInfo> parameters_;
};

// The time-stepping cradle: n equal balls (mass, radius), ball 1 `gap` away at `speed`.
DynamicSystem make_cradle(int balls, double mass, double radius, double gap, double speed);

}  // namespace simpact
