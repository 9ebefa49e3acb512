// Impact design by root finding (Sec. V, VII-B): from a configuration + design where two contacts
// touch, find a nearby one where both still touch and their normals u = Dφ_a, v = Dφ_b are
// orthogonal in the kinetic metric, so the simultaneous impact has a unique outcome (Theorem 2):
//   g(z) = [φ_a(z)/ℓ, φ_b(z)/ℓ, c(z)] = 0,   c = <u,v>_g / (||u||_g ||v||_g),  <u,v>_g = u M⁻¹ vᵀ,
// z = the free entries of the model's variable vector w (configuration coordinates and design
// parameters), each within [lower, upper]. ℓ (`length_scale`) only weighs the gaps against c in the
// line search's merit |g|²; the Newton equations themselves do not depend on it.
//
// Method: minimum-norm Gauss–Newton, z ← z − α S J_S⁺ g with J_S = ∂g/∂(z/S) in the variables
// divided by their scales S (so "nearby" means small in those units) and J_S⁺ from a complete
// orthogonal decomposition (the minimum-norm step of the underdetermined system). Bounds: a step
// leaving [lower, upper] fixes the offending variables at the bound and re-solves for the others
// (active set, repeated until the step is feasible). α halves until |g|² decreases. The Jacobian
// is by central differences (step fd_step·S); the residual is exact, so the answer is exact to the
// tolerances whatever the Jacobian's error — only the convergence rate depends on it.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <string>
#include <vector>

namespace simpact {

// What the design solver needs of a model at a variable vector w.
struct DesignPoint {
  Eigen::MatrixXd mass;                   // M(q), n×n, symmetric positive definite
  Eigen::RowVectorXd normal_a, normal_b;  // u = Dφ_a(q), v = Dφ_b(q), 1×n (q: the configuration)
  double gap_a = 0.0, gap_b = 0.0;        // φ_a, φ_b [m]
};
// Fills `out` at w; throws (any std::exception) where w is outside the model's domain.
using DesignEvaluator = std::function<void(const Eigen::VectorXd& w, DesignPoint& out)>;

// <u,v>_g / (||u||_g ||v||_g): the cosine of the angle between the two contact manifolds.
double normalized_metric_cosine(const DesignPoint& point);

struct FreeVariable {
  int index = 0;  // into w
  double lower = -1e300, upper = 1e300;
  double scale = 1.0;  // the unit "nearby" is measured in (e.g. 0.01 m for lengths, 1 rad for angles)
};

struct DesignSolverOptions {
  bool orthogonality = true;        // false: only close the two gaps (placing the robot)
  double cosine_tolerance = 1e-12;  // |c − target_cosine| at convergence
  // The cosine to reach: 0 (g-orthogonal normals, Theorem 2) or −cos(π/m) (the dihedral angle
  // π/m of Theorem 3: also a unique outcome).
  double target_cosine = 0.0;
  double gap_tolerance = 1e-13;  // |φ| at convergence [m]
  double length_scale = 0.01;    // ℓ [m]
  double fd_step = 1e-6;         // central-difference step, relative to each variable's scale
  int max_iterations = 100;
  int max_halvings = 40;
};

enum class DesignStatus { kConverged, kMaxIterations, kStalled };
std::string to_string(DesignStatus status);

struct DesignResult {
  Eigen::VectorXd w;  // the final variable vector (fixed entries as given)
  double cosine = 0.0, gap_a = 0.0, gap_b = 0.0;
  int iterations = 0;  // Gauss–Newton steps taken
  DesignStatus status = DesignStatus::kStalled;
  // Indices into w of the free variables whose bounds stopped the solve: on a bound at the end (to
  // 1e-8 of the variable's scale), or, when not converged, held on it by the last step.
  std::vector<int> at_bound;
};

// Throws std::invalid_argument for a bad free list (index out of range, lower > upper, scale ≤ 0,
// a start outside its bounds) and whatever `evaluate` throws at the start point.
DesignResult solve_impact_design(const DesignEvaluator& evaluate, const Eigen::VectorXd& w0,
                                 const std::vector<FreeVariable>& free, const DesignSolverOptions& options);

}  // namespace simpact
