// The time-stepping models (chain, tree8: PlanarLinkage; cradle, billiards, ball: BallSet, the
// billiards and cradle ones built by their scenarios, models/billiards_scenario.hpp and
// cradle_scenario.hpp, with the impacts; numbers in SI units):
//   chain     planar N-link pendulum: q = relative joint angles about z (all zero: every link
//             hanging along −y, positive counterclockwise), link_length, a point mass at each
//             link's end, gravity g along −y, V = Σ m g y (y = 0 at the pivot), optional joint
//             damping (N·m·s/rad); no contacts (integrator verification).
//   tree8     planar floating body (x, y, θ; 10 kg, I_zz = 1 kg m²) with two legs (hip 0.2 m below
//             the body origin, thigh 0.5 m ending in 1 kg, knee, shank 0.5 m ending in 0.5 kg) and
//             a tail (root 0.3 m behind the body origin, 1 m, 2 kg at its tip); passive joints;
//             q = x, y, θ, hip_L, knee_L, hip_R, knee_R, tail (zero angles: legs along the body's −y,
//             tail along its −x); no contacts.
//   cradle    n balls on a line (x_i), ball 2..n touching in a row from x_2 = 0, ball 1 `gap` m
//             to the left moving right at `speed`; contacts between neighbours.
//   billiards cue ball c at (−distance, 0) moving along +x at `speed` towards balls a, b placed so
//             that both contacts close together when c reaches the origin (θ = angle a–c–b, the
//             x axis its bisector); `offset` moves b away along its line of centres, so c reaches
//             b later. q = [x_a, y_a, x_b, y_b, x_c, y_c] (the order of the `billiards` impact model).
//   ball      a ball (q = [y], centre height) above the floor y = 0 under gravity.
// Each model also gives a default initial state (q0, v0) from its parameters. The names and
// parameters are the time-stepping view of the scenario registry (models/scenario_registry.hpp):
// cradle, billiards and trex share their common parameters (n, speed, theta, the TREX design and
// stance) with the impact models of the same name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "simpact/core/parameter_info.hpp"
#include "simpact/core/parameter_set.hpp"
#include "simpact/models/planar_linkage.hpp"

namespace simpact {

// A built scenario: its mechanism and default initial state.
struct DynamicSystem {
  std::unique_ptr<Mechanism> model;
  DynVector q0;  // default initial configuration (nq)
  DynVector v0;  // default initial velocity (nv)
};

const std::vector<std::string>& dynamic_model_names();
// Throws InputError("model", ...) for an unknown name.
const std::vector<ParameterInfo>& dynamic_model_parameters(const std::string& name);
// Throws InputError(parameter name, ...) for a missing, out-of-range or unknown parameter, or one
// that makes the initial state inadmissible (overlapping balls).
DynamicSystem make_dynamic_system(const std::string& name, const ParameterSet& params);

// Direct builders (tests, benchmarks).
DynamicSystem make_chain(int links, double link_length = 1.0, double mass = 1.0, double gravity = 9.81,
                         double damping = 0.0);
DynamicSystem make_tree8(double gravity = 9.81);
DynamicSystem make_ball(double mass, double radius, double height, double speed, double gravity);

}  // namespace simpact
