// Sobol' sensitivity indices from a Saltelli design (sweep/sensitivity_design.hpp), with the
// estimators SALib uses, so results can be cross-checked row for row:
//   first order   S_j  = mean(f(B)·(f(AB_j) − f(A))) / V            (Saltelli et al. 2010)
//   total         ST_j = ½ mean((f(A) − f(AB_j))²) / V               (Jansen 1999)
//   second order  S_jk = mean(f(BA_j)·f(AB_k) − f(A)·f(B)) / V − S_j − S_k  (Saltelli 2002)
// V = the population variance of the f(A) and f(B) values together. y is standardized first
// (indices do not depend on it; it keeps the sums well scaled).
// Confidence: half-widths z_{(1+c)/2} · sd of B bootstrap replicates (resampling the base rows
// with replacement, ddof = 1), as SALib's `*_conf`. Every sum runs in a fixed order and the
// resampling is a counter-based stream keyed by (seed, stream, replicate): results are a pure
// function of the inputs, bit for bit.
#pragma once

#include <cstdint>
#include <vector>

namespace simpact {

struct BootstrapOptions {
  std::int64_t resamples = 1000;  // 0: no intervals (NaN)
  std::uint64_t seed = 0;
  double confidence = 0.95;
};

struct SobolIndices {
  std::vector<double> first, total, first_conf, total_conf;  // [parameter]
  std::vector<double> second, second_conf;  // [j * D + k], j < k; NaN elsewhere (empty without)
  std::int64_t nonfinite = 0;               // base samples with a non-finite f: all indices NaN
};

// y: N · rows values in SALib's row order per base sample — A, AB_1..AB_D, [BA_1..BA_D,] B —
// rows = D + 2, or 2D + 2 with second order. `stream` separates the bootstrap streams of
// independent analyses (e.g. grid point and output) under one seed.
SobolIndices sobol_indices(const double* y, std::int64_t base_samples, std::size_t dimension,
                           bool second_order, const BootstrapOptions& bootstrap, std::uint64_t stream);

}  // namespace simpact
