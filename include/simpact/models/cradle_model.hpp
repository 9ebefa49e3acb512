// Newton's cradle (Fig. 2a generalized): n balls on a line touching in a row, ball i with mass
// m_i and radius r_i; φ_i = x_{i+1} − x_i − r_i − r_{i+1}, so u_i = e_{i+1} − e_i and
// M = diag(m). Ball 1 comes in at `speed`; v2..vn give the others' velocities (default 0).
// Radii set positions only: for touching balls on a line they do not change the impact map.
#pragma once

#include "simpact/models/impact_model.hpp"

namespace simpact {

// n ≤ 9 (n − 1 ≤ kMaxContacts contacts) is built on the fixed path, larger cradles on the
// dynamic one (needs_dynamic_sizes), up to this many balls.
inline constexpr int kMaxCradleBalls = 64;

class CradleModel final : public ImpactModel {
 public:
  CradleModel();
  std::string name() const override { return "cradle"; }
  const std::vector<ParameterInfo>& parameters() const override { return parameters_; }
  int max_dof() const override { return kMaxCradleBalls; }
  // Throws InputError("n", ...) for a cradle beyond the fixed path: see make_dynamic_problem.
  ImpactProblem make_problem(const ParameterSet& params) const override;
  bool needs_dynamic_sizes(const ParameterSet& params) const override;
  DynamicImpactProblem make_dynamic_problem(const ParameterSet& params) const override;

 private:
  const ParameterInfo& parameter(const std::string& name) const;
  template <typename S>
  BasicImpactProblem<S> build_sized(const ParameterSet& params) const;
  std::vector<ParameterInfo> parameters_;
};

}  // namespace simpact
