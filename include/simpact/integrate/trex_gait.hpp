// Fig. 8 of Seghete & Murphey: the same dropped TREX run twice, resolving every simultaneous
// impact with `argmin` in one copy and `argmax` in the other, and the indeterminacy
//   ξ(t) = ‖p₁(t) − p₂(t)‖_g / ‖p₁(t)‖_g      (metric of M(q₁(t))).
// The stances it starts from are models/trex_stance.hpp.
#pragma once

#include <vector>

#include "simpact/integrate/simulation.hpp"
#include "simpact/models/trex_model.hpp"

namespace simpact {

// <Dφ_R, Dφ_T>_g / (‖Dφ_R‖_g ‖Dφ_T‖_g) at q.
double trex_normalized_product(const TrexDesign& design, const DofVector& q);
// φ_R (with φ_L − φ_R kept) so that foot_R and the tail tip are at the same height. Throws
// std::runtime_error when Newton fails.
DofVector trex_double_touchdown(const TrexDesign& design, DofVector stance);
// (φ_R, φ_T) (φ_L − φ_R kept) so that both touch together and the normals are g-orthogonal.
DofVector trex_orthogonal_touchdown(const TrexDesign& design, DofVector stance);

struct TrexPairRun {
  std::vector<double> t;   // s, after every step
  std::vector<double> xi;  // ξ(t)
  std::vector<double>
      energy_balance;  // copy 1: (E − E₀ − W_forces − W_contacts − W_friction − ΔE_impacts)/E₀
  double touchdown = 0.0;                // time of the first impact [s]
  std::vector<ImpactRecord> impacts[2];  // argmin, argmax
  double force_work[2] = {0.0, 0.0}, friction_work[2] = {0.0, 0.0}, impact_energy_change[2] = {0.0, 0.0};
};
// force_split: NewtonOptions::force_split of both copies.
TrexPairRun run_trex_pair(const DynamicSystem& system, double dt, long steps, double restitution = 1.0,
                          double force_split = 0.5);

}  // namespace simpact
