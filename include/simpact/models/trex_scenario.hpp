// `trex` for sweeps: the TREX robot (TrexGeometry) falling flat onto the floor so that one foot and
// the tail tip touch at once (Sec. VII-B). Parameters: the design (r1, r2, l_u, l_l), the posture
// (phi_L, gamma_L, phi_R, gamma_R, phi_T and a starting guess for the body angle theta), which foot
// touches (`foot`: 0 left, 1 right) and the falling `speed`. The robot is placed by solving the two
// gap equations for (y, θ) — minimum-norm Newton from the given θ (y starts where the tail tip
// touches) — so θ in the results is the guess, not necessarily the angle used; a placement that
// does not converge, or one with the other foot at or below the floor, is inadmissible (InputError:
// a failed task with `on_task_error: record`). Then M(q), the two normals Dφ_foot, Dφ_tail and
// p⁻ = M(q) v with v = (0, −speed, 0, …): the whole robot translating down, both contacts
// approaching at `speed`. The kernel's normalized_cosine is the normalized <u,v>_g of Table I.
// Defaults: Table I's "Initial" row.
#pragma once

#include "simpact/models/mechanism_family.hpp"
#include "simpact/models/trex_geometry.hpp"

namespace simpact {

class TrexFamily final : public MechanismFamily {
 public:
  TrexFamily();
  std::string name() const override { return "trex"; }
  const std::vector<ParameterInfo>& parameters() const override { return parameters_; }
  int max_dof() const override { return kTrexDof; }
  void impact_at(const ParameterSet& params, FamilyScratch& scratch, ImpactTerms& terms, PreImpact& pre,
                 double* values) const override;
  // The placed configuration of `params` (throws InputError like make_problem).
  DofVector placed_configuration(const ParameterSet& params) const;

 private:
  std::vector<ParameterInfo> parameters_;
};

}  // namespace simpact
