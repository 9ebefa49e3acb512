// The `trex` time-stepping model (Seghete & Murphey Sec. VII-B): the bodies and floor contacts of
// models/trex_geometry.hpp as a PlanarLinkage (body centres of mass as point masses, sphere and
// rod inertias in M₀, the feet and the tail tip as massless contact points), with linear joint
// laws (SI units, docs/trex.md):
//   knees    torsional spring + dash pot about the stance's knee angle,
//   body     torsional spring + dash pot on φ_T about the stance's tail angle,
//   hips     PD drive τ = −K_p(φ − r(t)) − K_v(φ̇ − ṙ(t)), r = stance angle until drive_start,
//            then turning counterclockwise at hip_rate (both legs, so they keep their phase).
// Resting contacts get Coulomb friction μ (maximum dissipation, MidpointIntegrator); impacts are
// the frictionless propagative reset.
#pragma once

#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "simpact/models/dynamic_models.hpp"
#include "simpact/models/trex_geometry.hpp"

namespace simpact {

struct TrexDrive {
  double knee_stiffness = 20.0;                                  // N m rad-1
  double knee_damping = 0.2;                                     // N m s rad-1
  double body_stiffness = 20.0;                                  // N m rad-1
  double body_damping = 0.2;                                     // N m s rad-1
  double hip_kp = 1e5;                                           // N m rad-1 (the paper's K_p)
  double hip_kv = 1e4;                                           // N m s rad-1 (the paper's K_v)
  double hip_rate = 6.283185307179586;                           // rad s-1 after drive_start
  double drive_start = std::numeric_limits<double>::infinity();  // s; make_trex: the touchdown time
  double gravity = 9.81;                                         // m s-2
  double friction = 0.5;  // Coulomb μ at resting contacts (feet, tail tip)
};

// The linkage of a design with the joint laws' rest angles taken from `stance`.
std::unique_ptr<PlanarLinkage> make_trex_linkage(const TrexDesign& design, const DofVector& stance,
                                                 const TrexDrive& drive);
// The robot at rest in `stance` (x, θ and the joint angles; y is ignored), raised so that its
// lowest contact point is `drop` above the floor. An infinite drive_start becomes the free-fall
// time √(2·drop/g): the held stance falls without turning, so that is when it touches down.
DynamicSystem make_trex(const TrexDesign& design, const DofVector& stance, double drop, TrexDrive drive);

// The `trex` scenario's time-stepping parameters beyond the design and the stance (which it
// shares with the impact model: models/scenario_registry.hpp), and its builder from every
// time-stepping parameter's value.
const std::vector<ParameterInfo>& trex_drive_parameters();
DynamicSystem make_trex_from_parameters(const std::map<std::string, double>& v);

}  // namespace simpact
