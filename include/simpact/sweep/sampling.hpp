// Monte Carlo draws for a sweep: distributions (by inverse CDF) and the three ways of choosing
// the unit-cube points they map (random, Latin hypercube, scrambled Sobol).
//
// Every draw of task k is a pure function of (seed, k, config) (DESIGN §3): a task never reads
// state left by another task, so results do not depend on ranks, threads, chunking or restarts.
// Task k is replica r = k mod R of grid point g = k div R (R = samples per point).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace simpact {

enum class SamplingMethod { kRandom, kLatinHypercube, kSobol };
inline constexpr std::array<std::string_view, 3> kSamplingMethodNames = {"random", "lhs", "sobol"};

enum class DistributionKind { kUniform, kNormal, kLogNormal, kTruncatedNormal, kChoice };
inline constexpr std::array<std::string_view, 5> kDistributionNames = {"uniform", "normal", "lognormal",
                                                                       "truncated_normal", "choice"};

struct Distribution {
  DistributionKind kind = DistributionKind::kUniform;
  // uniform: low, high; normal and truncated_normal: mean, std; lognormal: mu, sigma of log(x).
  double a = 0.0, b = 1.0;
  // truncated_normal: the truncation interval (infinite = untruncated side).
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
  // choice: the values, and their relative weights (empty = equally likely).
  std::vector<double> values, weights;

  // The inverse CDF at u in (0, 1); u is clamped into (0, 1) so 0 and 1 give finite values.
  double quantile(double u) const;
};

// What a truncated normal's quantile needs besides u: the standardized bounds and Φ, Q = 1 − Φ
// there. MonteCarloSampler computes them once per parameter instead of once per draw.
struct NormalTruncation {
  double alpha = 0.0, beta = 0.0;  // (low − mean) / std, (high − mean) / std
  double cdf_alpha = 0.0, cdf_beta = 0.0, tail_alpha = 0.0, tail_beta = 0.0;
  static NormalTruncation of(const Distribution& d);
};

struct RandomParameter {
  std::string name, units, long_name;
  Distribution distribution;
};

struct MonteCarloSpec {
  std::int64_t samples_per_point = 1;  // R: replicas of every grid point
  std::uint64_t seed = 0;
  SamplingMethod method = SamplingMethod::kRandom;
  std::vector<RandomParameter> parameters;  // in config order: draw j is parameter j
};

// Φ⁻¹(u), the standard normal quantile, accurate in both tails (via erfc⁻¹).
double normal_quantile(double u);

// A pseudo-random permutation of [0, n) selected by `key`, evaluated at one index in O(1)
// expected time: a 4-round Feistel network on the smallest even number of bits covering n,
// cycle-walked back into [0, n) (the domain is < 4n, so < 4 rounds of walking on average).
// Used by Latin hypercube sampling so a task finds its stratum without seeing the other tasks.
std::uint64_t permute_index(std::uint64_t index, std::uint64_t n, std::uint64_t key);
inline constexpr std::uint64_t kFeistelRounds = 4;

// permute_index for one n, faster: each round's function is mix64(key ^ mix64((round << 56) ^
// right)), and its inner, key-independent half is read from a table of kFeistelRounds · 2^half
// entries made once (for n <= 2^(2 kMaxHalf); larger n compute it). Same values, bit for bit.
class FeistelRoundTable {
 public:
  static constexpr int kMaxHalf = 10;  // at most 4 · 1024 entries (32 KiB)
  explicit FeistelRoundTable(std::uint64_t n);
  // permute_index(index, n, key) for the n given to the constructor.
  std::uint64_t permute(std::uint64_t index, std::uint64_t n, std::uint64_t key) const;

  // The same, with each round's output for this key, mix64(key ^ input) & mask, memoized in
  // memo[round << half | right] (memo_size() entries, kUnmemoized until first computed; one memo
  // per key). LHS draws of one grid point share a key per parameter, so a thread drawing many
  // replicas of a point computes each round output once instead of ~8 times per draw.
  static constexpr std::uint16_t kUnmemoized = 0xffff;  // outputs have at most kMaxHalf bits
  std::size_t memo_size() const { return inputs_.size(); }
  std::uint64_t permute(std::uint64_t index, std::uint64_t n, std::uint64_t key, std::uint16_t* memo) const;

 private:
  int half_ = 0;
  std::vector<std::uint64_t> inputs_;  // [round << half | right]
};

// The Sobol sequence in Gray-code order (Antonov–Saleev), with the Joe–Kuo direction numbers of
// boost::random::sobol (new-joe-kuo-6.21201, up to 3667 dimensions). Point n is the XOR of the
// direction numbers v_k over the set bits k of gray(n) = n ^ (n >> 1): O(dimension · log n) per
// point, any n, no state. boost's engine has the same cost per seek but must be copied per task
// (it is stateful); here the direction numbers are read once from a boost engine and shared.
// Point 0 is the origin; boost's engine starts at point 1.
class SobolSequence {
 public:
  static constexpr std::size_t kMaxDimension = 3667;
  explicit SobolSequence(std::size_t dimension);
  std::size_t dimension() const { return dimension_; }
  // Writes point `index` to x[0..dimension), each in [0, 1) with 53 bits.
  void point(std::uint64_t index, double* x) const;

 private:
  std::size_t dimension_;
  std::vector<std::uint64_t> directions_;  // [bit * dimension_ + dim], 64-bit fixed point
};

// Maps tasks to their Monte Carlo draws (immutable; safe to share between threads).
//   random: u_j = uniform j of CounterRng(seed, kSampling, task).
//   lhs:    u_j = (π_{g,j}(r) + U_j) / R, π_{g,j} = permute_index(·, R, key_{g,j}), U_j as above:
//           the R replicas of grid point g fall one in each of R strata, per parameter.
//   sobol:  u_j = frac(x_{r,j} + s_{g,j}): Sobol point r with a Cranley–Patterson shift
//           s_{g,j}, so each grid point gets an independent randomized QMC set and unbiased
//           means. The origin (r = 0) is kept: shifted, it is an ordinary point (u = s), and
//           dropping it would break the balance of the first 2^m points (one per interval of
//           width 2^-m in every coordinate; Owen, "On dropping the first Sobol' point", 2022).
// key_{g,j} and s_{g,j} come from CounterRng(mix(seed), kPermutation, g): per grid point, and
// (through mix) not colliding with any other use of kPermutation keyed by task number.
class MonteCarloSampler {
 public:
  explicit MonteCarloSampler(MonteCarloSpec spec);
  const MonteCarloSpec& spec() const { return spec_; }
  std::size_t dimension() const { return spec_.parameters.size(); }

  // Writes the unit-cube point of `task` (= grid_point * R + replica) to u[0..dimension()),
  // each in (0, 1). Returns the number of uniforms drawn from the task's kSampling stream.
  std::uint64_t unit_point(std::int64_t task, std::int64_t grid_point, std::int64_t replica, double* u) const;
  // As unit_point, then mapped through each parameter's quantile(): values[j] is parameter j.
  std::uint64_t draw(std::int64_t task, std::int64_t grid_point, std::int64_t replica, double* values) const;

 private:
  MonteCarloSpec spec_;
  std::uint64_t point_seed_;                   // seeds the per-grid-point stream (keys and shifts)
  SobolSequence sobol_;                        // dimension 0 unless method is sobol
  FeistelRoundTable feistel_;                  // LHS strata permutations (empty unless method is lhs)
  std::vector<NormalTruncation> truncations_;  // per parameter (used by truncated normals)
  // 1/strata when the LHS stratum count is a power of two (then x/strata == x·(1/strata) exactly,
  // a multiplication instead of a division per coordinate), else 0.
  double inverse_power_of_two_strata_ = 0.0;
};

}  // namespace simpact
