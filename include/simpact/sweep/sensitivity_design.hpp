// Sensitivity-analysis designs: the list of parameter points a sweep evaluates at every grid
// point, in place of Monte Carlo replicas (replica r of grid point g is design point r).
//
//   points   an explicit list (a CSV/.npy/.h5 file made by SALib, OpenTURNS, scipy.qmc, ...)
//   zip      axes that vary together: point i takes value i of every list
//   saltelli Saltelli's scheme on the Sobol' *sequence*: base sample i of the 2D-dimensional
//            sequence gives rows A_i (dims 0..D-1) and B_i (dims D..2D-1); the design is, per i,
//            in SALib's row order: A, AB_1..AB_D, [BA_1..BA_D,] B — N·(D+2) rows (N·(2D+2)
//            with second order), where AB_j is A with column j taken from B.
//   morris   r trajectories of D+1 points on a p-level grid, one coordinate moved by ±Δ per
//            step, Δ = p / (2(p−1)) (Morris 1991; trajectory layout as SALib's).
//   radial   radial one-at-a-time (Campolongo et al. 2011): per base i, A_i then A_i with
//            column j from B_i, j = 1..D — N·(D+1) rows.
// Names: `sobol` is the low-discrepancy sequence; the Sobol' *indices* are S1/ST (analysis/).
//
// A design is immutable and every point is a pure function of (spec, index): results never
// depend on ranks, threads or restarts.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "simpact/sweep/sampling.hpp"

namespace simpact {

enum class DesignKind { kPoints, kZip, kSaltelli, kMorris, kRadial };
inline constexpr std::array<std::string_view, 5> kDesignKindNames = {"points", "zip", "saltelli", "morris",
                                                                     "radial"};

struct DesignSpec {
  DesignKind kind = DesignKind::kPoints;
  // The design's parameters, in column order. points/zip: name, units, long_name only;
  // saltelli/morris/radial: each maps a unit-cube coordinate through its distribution.
  std::vector<RandomParameter> parameters;
  // points/zip: the values, row-major [point][parameter]; `source` names where they came from.
  std::vector<double> values;
  std::string source;
  // saltelli / radial: base samples N; morris: trajectories r.
  std::int64_t base_samples = 0;
  bool second_order = false;  // saltelli: also the BA_j rows (for S2)
  bool scramble = false;      // saltelli/radial: seeded Owen (nested uniform) scrambling
  std::int64_t skip = 1;      // saltelli/radial, unscrambled: first Sobol' point index used
  std::uint64_t seed = 0;     // scrambling; morris trajectories
  std::int64_t levels = 4;    // morris: p (even)
};

// Rows of the design a spec describes (= replicas per grid point), without building it.
std::int64_t design_size(const DesignSpec& spec);

// `sensitivity:` of a config: which outputs `simpact analyze` (and `run` at its end) analyses.
struct SensitivitySpec {
  bool enabled = false;              // the config has a sensitivity section
  std::vector<std::string> outputs;  // result columns, "name" or "group/name"; empty = all scalars
  std::int64_t bootstrap = 1000;     // resamples for the confidence intervals (0: none)
  std::uint64_t seed = 0;            // seeds the bootstrap
  double confidence = 0.95;          // level of the intervals
  bool at_end = true;                // `run` analyses when the sweep completes
};

// What a row of a sensitivity design is, for the estimators.
struct SensitivityDesignRow {
  std::int64_t base = 0;  // saltelli/radial: base sample i; morris: trajectory
  // saltelli: 0 = A, 1..D = AB_j (j = role−1), D+1..2D = BA_j (second order), last = B.
  // morris: step 0..D (0 = the trajectory's start). radial: 0 = A, 1..D = A with column j from B.
  std::int64_t role = 0;
};

class SensitivityDesign {
 public:
  explicit SensitivityDesign(DesignSpec spec);
  const DesignSpec& spec() const { return spec_; }
  std::size_t dimension() const { return spec_.parameters.size(); }
  std::int64_t size() const { return size_; }  // rows (= replicas per grid point)
  std::int64_t rows_per_base() const { return rows_per_base_; }

  // The parameter values of row `index` (0 <= index < size()), values[0..dimension()).
  void point(std::int64_t index, double* values) const;
  // saltelli/morris/radial: the unit-cube coordinates the values come from.
  void unit_point(std::int64_t index, double* u) const;
  SensitivityDesignRow row(std::int64_t index) const {
    return {index / rows_per_base_, index % rows_per_base_};
  }

  // morris: the coordinate moved into row `index` (step ≥ 1), and its signed step (+Δ or −Δ)
  // in unit-cube coordinates.
  std::size_t morris_moved(std::int64_t index) const;
  double morris_step(std::int64_t index) const;
  double morris_delta() const;

 private:
  void morris_trajectory(std::int64_t trajectory, std::vector<double>& start, std::vector<std::size_t>& order,
                         std::vector<double>& sign) const;
  DesignSpec spec_;
  std::int64_t size_ = 0;
  std::int64_t rows_per_base_ = 1;
  SobolSequence sobol_;
};

// Seeded Owen (nested uniform) scrambling of a 53-bit fixed-point coordinate x ∈ [0, 1): bit k
// (from the top) is flipped by a hash of (seed, dimension, k, the k bits above it), so each
// node of the binary tree of intervals gets its own random flip. Scrambled (0,m,s)-nets stay
// (0,m,s)-nets; every point is uniform on [0, 1).
double owen_scramble(double x, std::uint64_t seed, std::uint64_t dimension);

}  // namespace simpact
