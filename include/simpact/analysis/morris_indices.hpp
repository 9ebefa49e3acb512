// Elementary-effect screening (Morris 1991; μ* from Campolongo et al. 2007) from a Morris or a
// radial one-at-a-time design (sweep/sensitivity_design.hpp). For base b and parameter j:
//   morris  EE = (f(x_s) − f(x_{s−1})) / Δ_s, x_s the step of the trajectory that moved j
//   radial  EE = (f(A with x_j from B) − f(A)) / (b_j − a_j)
// (steps in unit-cube coordinates, as SALib). μ = mean EE, μ* = mean |EE|, σ = sd (ddof = 1);
// μ*_conf: bootstrap half-width of μ* (as SALib's mu_star_conf). Sums in a fixed order.
#pragma once

#include <cstdint>
#include <vector>

#include "simpact/analysis/sobol_indices.hpp"

namespace simpact {

struct MorrisIndices {
  std::vector<double> mu, mu_star, sigma, mu_star_conf;  // [parameter]
  std::int64_t nonfinite = 0;  // elementary effects skipped: f not finite, or a zero step (radial)
};

// y: bases · (D + 1) values, row 0 of each base its start (A). moved[b·D + s] is the parameter
// changed in row s + 1 of base b and step[b·D + s] its unit-cube step (≠ 0). radial: every row
// differs from row 0; else (morris) from the row before.
MorrisIndices morris_indices(const double* y, std::int64_t bases, std::size_t dimension,
                             const std::vector<std::size_t>& moved, const std::vector<double>& step,
                             bool radial, const BootstrapOptions& bootstrap, std::uint64_t stream);

}  // namespace simpact
