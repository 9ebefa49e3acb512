// `simpact check`, the paper's "validation tool for existing simulation methods": how another
// simulator's post-impact momentum p_after compares with the propagative model — energy error
// (against p⁻ and against the model's own prediction for the given restitution), feasibility on
// every closed contact, the non-negative impulses that reproduce it (if any), their complementarity
// against the model's target rates, and its g-distance to the nearest propagative outcome and to
// the plastic outcome.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "simpact/core/impact_problem.hpp"
#include "simpact/core/impact_resolution.hpp"

namespace simpact {

// Relative tolerance for the check's violation flags (feasibility, negative impulses) when the
// input's printed precision does not call for a larger one.
inline constexpr double kDefaultCheckTolerance = 1e-9;
// The smallest default consistency tolerance: the resolution itself merges outcomes closer than
// kOutcomeMergeTolerance (1e-9), so nothing finer is meaningful.
inline constexpr double kMinConsistencyTolerance = 1e-9;
// The printed precision assumed at least: a number that shows fewer significant digits (0.5, 1)
// is taken as printed to this many (C's %g and iostream default); more shown digits count.
inline constexpr int kMinAssumedSignificantDigits = 6;
// Safety factor on the rounding bound for the default consistency tolerance.
inline constexpr double kRoundingSafetyFactor = 2.0;

// Significant decimal digits of the shortest decimal that reads back as x (0 for x = 0 or a
// non-finite x): 0.5 → 1, 0.333333 → 6, 1.0/3 → 16, 1e-7 → 1, 123.25 → 5.
int significant_digits(double x);

// How precisely a post-impact state was printed, and the default tolerances that follows.
struct PrintedPrecision {
  int digits = kMinAssumedSignificantDigits;  // D = clamp(max significant_digits, 6, 17)
  // Bound on ||δp||_g / scale for the rounding δ of each printed number to D significant digits:
  // Σ_i ½·10^(1−D)·|x_i|·||e_i||_g (momentum: ||e_i||_g = √(M⁻¹)_ii; velocity: δp = Mδv, √M_ii).
  double relative_rounding = 0.0;
  // max(kMinConsistencyTolerance, kRoundingSafetyFactor · relative_rounding)
  double consistency_tolerance = kMinConsistencyTolerance;
};

// `printed` are the numbers as given: p_after, or v_after when `velocity` (p_after = M v_after).
// The scale is the check's: ||p⁻||_g, or ||p_after||_g when p⁻ = 0.
template <typename S>
PrintedPrecision printed_precision(const BasicImpactProblem<S>& problem,
                                   const Eigen::Ref<const Eigen::VectorXd>& printed, bool velocity);

// How p_after compares with the propagative model. "Relative" quantities are divided by
// ||p⁻||_g (or ||p_after||_g when p⁻ = 0); contact indices are those of the given normals.
struct PostImpactCheck {
  struct Violation {
    int contact;  // given normal index
    double rate;  // <p_after,u_i>_g / (||p⁻||_g ||u_i||_g), < −tolerance
  };
  double energy_before = 0.0, energy_after = 0.0;  // [J]
  double relative_energy_error = 0.0;              // (E_after − E_before)/E_before; NaN if E_before = 0
  // Energy of the nearest propagative outcome (the model's prediction for this restitution) and
  // (E_after − E_predicted)/E_before: 0 for the model's answer at every R. NaN without an outcome.
  double predicted_energy_after = 0.0;  // [J]
  double relative_energy_error_vs_model = 0.0;
  std::vector<Violation> feasibility_violations;
  double max_feasibility_violation = 0.0;  // max(0, −normalized rate) over closed contacts
  // λ ≥ 0 with Nᵀλ ≈ Δp = p_after − p⁻ (NNLS in the g-norm) when one reproduces Δp within
  // tolerance (up to the part of Δp outside span{u_i}); otherwise the minimum-norm least-squares
  // λ, whose negative entries show the pulling contacts.
  std::vector<double> implied_impulses;
  double impulse_residual = 0.0;              // min_λ ||Δp − λᵀN||_g, relative (Δp outside span{u_i})
  double nonnegative_impulse_residual = 0.0;  // min_λ≥0 ||Δp − λᵀN||_g, relative
  // max_i |λ_i (<p_after,u_i>_g − <p*,u_i>_g)| / (||p⁻||_g² ) with λ the implied impulses and p*
  // the nearest propagative outcome: an impulse only where the rate is the model's. 0 for the
  // model's answer at every R; at R = 0 (p* = p_p, rate 0 where λ_p > 0) it is the plastic LCP's
  // λ·c. NaN without an outcome.
  double complementarity_residual = 0.0;
  // No λ ≥ 0 reproduces Δp: nonnegative_impulse_residual > impulse_residual + tolerance.
  bool negative_impulses = false;
  double distance_to_nearest_outcome = 0.0;  // relative; NaN when there is no outcome
  int nearest_outcome = -1;
  double distance_to_plastic = 0.0;                // relative; NaN when p_p was not computed
  bool consistent_with_propagative_model = false;  // distance_to_nearest_outcome ≤ consistency_tolerance
};

// tolerance: for the violation flags; consistency_tolerance: for the verdict (both relative).
// A template on the size policy S (fixed_size.hpp), instantiated for both paths.
template <typename S>
PostImpactCheck check_post_impact_state(const BasicImpactProblem<S>& problem,
                                        const typename S::DofVector& momentum_after, double tolerance,
                                        double consistency_tolerance,
                                        const BasicImpactResolution<S>& resolution,
                                        const BasicImpactWorkspace<S>& workspace);

}  // namespace simpact
