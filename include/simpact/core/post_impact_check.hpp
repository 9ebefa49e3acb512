// `simpact check`, the paper's "validation tool for existing simulation methods": how another
// simulator's post-impact momentum p_after compares with the propagative model — energy error,
// feasibility on every closed contact, the impulses it implies and their complementarity, and its
// g-distance to the nearest propagative outcome and to the plastic outcome.
#pragma once

#include <vector>

#include "simpact/core/impact_problem.hpp"
#include "simpact/core/impact_resolution.hpp"

namespace simpact {

// Relative tolerance for the check's violation flags (feasibility, negative impulses).
inline constexpr double kDefaultCheckTolerance = 1e-9;
// A post-impact state within this relative g-distance of a propagative outcome is consistent.
inline constexpr double kConsistencyTolerance = 1e-6;

// How p_after compares with the propagative model. "Relative" quantities are divided by
// ||p⁻||_g (or ||p_after||_g when p⁻ = 0); contact indices are those of the given normals.
struct PostImpactCheck {
  struct Violation {
    int contact;  // given normal index
    double rate;  // <p_after,u_i>_g / (||p⁻||_g ||u_i||_g), < −tolerance
  };
  double energy_before = 0.0, energy_after = 0.0;  // [J]
  double relative_energy_error = 0.0;              // (E_after − E_before)/E_before; NaN if E_before = 0
  std::vector<Violation> feasibility_violations;
  double max_feasibility_violation = 0.0;    // max(0, −normalized rate) over closed contacts
  std::vector<double> implied_impulses;      // λ with Nᵀλ ≈ p_after − p⁻ (g-least squares)
  double impulse_residual = 0.0;             // ||p_after − p⁻ − λᵀN||_g, relative
  double complementarity_residual = 0.0;     // max |λ_i <p_after,u_i>_g| / ||p⁻||²_g
  bool negative_impulses = false;            // some λ_i ||u_i||_g < −tolerance ||p⁻||_g
  double distance_to_nearest_outcome = 0.0;  // relative; NaN when there is no outcome
  int nearest_outcome = -1;
  double distance_to_plastic = 0.0;                // relative; NaN when p_p was not computed
  bool consistent_with_propagative_model = false;  // distance_to_nearest_outcome ≤ kConsistencyTolerance
};

PostImpactCheck check_post_impact_state(const ImpactProblem& problem, const DofVector& momentum_after,
                                        double tolerance, const ImpactResolution& resolution,
                                        const ImpactWorkspace& workspace);

}  // namespace simpact
