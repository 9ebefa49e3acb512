#include "simpact/sweep/sampling.hpp"

#include <algorithm>
#include <boost/math/special_functions/erf.hpp>
#include <boost/random/sobol.hpp>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "simpact/core/counter_rng.hpp"

namespace simpact {
namespace {

constexpr double kSqrt2 = 1.41421356237309504880;

// erfc⁻¹ evaluated in double: within 2 ulp of Boost's default (which promotes to long double)
// and 5× faster (11 vs 51 ns); a Monte Carlo task draws one per normal-family parameter.
using DoublePrecision = boost::math::policies::policy<boost::math::policies::promote_double<false>>;

// Standard normal CDF Φ and upper tail Q = 1 − Φ, each accurate where it is small.
double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / kSqrt2);
}
double normal_tail(double x) {
  return 0.5 * std::erfc(x / kSqrt2);
}

// Q⁻¹(q) for q in (0, 1): accurate for small q (the far upper tail).
double normal_tail_quantile(double q) {
  return kSqrt2 * boost::math::erfc_inv(2.0 * q, DoublePrecision());
}

// A truncated standard normal on [alpha, beta] at u. p = Φ(α) + u·(Φ(β) − Φ(α)) is computed from
// Φ below the median and from Q above it, so neither tail loses digits to cancellation.
double truncated_standard_normal(const NormalTruncation& t, double u) {
  const double p = t.cdf_alpha + u * (t.cdf_beta - t.cdf_alpha);
  double x;
  if (p < 0.5) {
    x = normal_quantile(p);
  } else {
    const double q = t.tail_alpha - u * (t.tail_alpha - t.tail_beta);
    x = normal_tail_quantile(q);
  }
  return std::clamp(x, t.alpha, t.beta);  // rounding may step just outside
}

// Keep u strictly inside (0, 1): the inverse CDFs diverge at the ends.
double inside_unit_interval(double u) {
  constexpr double kLowest = 0x1.0p-64;
  constexpr double kHighest = 1.0 - 0x1.0p-53;
  return std::clamp(u, kLowest, kHighest);
}

// A truncated normal's quantile at u (already inside (0, 1)).
double truncated_normal_quantile(const Distribution& d, const NormalTruncation& t, double u) {
  const double x = d.a + d.b * truncated_standard_normal(t, u);
  return std::clamp(x, d.low, d.high);
}

// std::nextafter(x, 0.0) for a finite x > 0: the representation one step down.
double below_positive(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  --bits;
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}

// The LHS permutations of one grid point: their keys, the first d draws of the point's
// (point_seed, kPermutation, grid_point) stream, and a FeistelRoundTable memo per key (memo_size
// entries each). Consecutive tasks share a grid point (a chunk holds many replicas of one point),
// so each thread keeps the last point's: pure functions of (point_seed, grid_point, memo_size),
// hence the same values whichever sampler or thread asks.
struct PointPermutations {
  std::uint64_t point_seed = 0;
  std::int64_t grid_point = -1;
  std::size_t memo_size = 0;
  std::vector<std::uint64_t> keys;   // grows to the largest d asked, then stays
  std::vector<std::uint16_t> memos;  // [j * memo_size + entry]
};

PointPermutations& point_permutations(std::uint64_t point_seed, std::int64_t grid_point, std::size_t d,
                                      std::size_t memo_size) {
  thread_local PointPermutations cache;
  if (cache.grid_point != grid_point || cache.point_seed != point_seed || cache.keys.size() < d ||
      cache.memo_size != memo_size) {
    CounterRng rng(point_seed, RandomStream::kPermutation, static_cast<std::uint64_t>(grid_point));
    cache.keys.resize(d);
    for (std::size_t j = 0; j < d; ++j) cache.keys[j] = rng.next_u64();
    cache.memos.assign(d * memo_size, FeistelRoundTable::kUnmemoized);
    cache.point_seed = point_seed;
    cache.grid_point = grid_point;
    cache.memo_size = memo_size;
  }
  return cache;
}

}  // namespace

NormalTruncation NormalTruncation::of(const Distribution& d) {
  NormalTruncation t;
  t.alpha = (d.low - d.a) / d.b;
  t.beta = (d.high - d.a) / d.b;
  t.cdf_alpha = normal_cdf(t.alpha);
  t.cdf_beta = normal_cdf(t.beta);
  t.tail_alpha = normal_tail(t.alpha);
  t.tail_beta = normal_tail(t.beta);
  return t;
}

double normal_quantile(double u) {
  return -kSqrt2 * boost::math::erfc_inv(2.0 * u, DoublePrecision());
}

double Distribution::quantile(double u) const {
  u = inside_unit_interval(u);
  switch (kind) {
    case DistributionKind::kUniform:
      return std::min(a + (b - a) * u, b);
    case DistributionKind::kNormal:
      return a + b * normal_quantile(u);
    case DistributionKind::kLogNormal:
      return std::exp(a + b * normal_quantile(u));
    case DistributionKind::kTruncatedNormal:
      return truncated_normal_quantile(*this, NormalTruncation::of(*this), u);
    case DistributionKind::kChoice: {
      if (values.empty()) return std::nan("");
      double total = 0.0;
      for (std::size_t i = 0; i < values.size(); ++i) total += weights.empty() ? 1.0 : weights[i];
      const double target = u * total;
      double cumulative = 0.0;
      for (std::size_t i = 0; i < values.size(); ++i) {
        cumulative += weights.empty() ? 1.0 : weights[i];
        if (target < cumulative) return values[i];
      }
      // Rounding left target at the total: the last value with positive weight.
      for (std::size_t i = values.size(); i-- > 0;)
        if (weights.empty() || weights[i] > 0.0) return values[i];
      return values.back();
    }
  }
  return std::nan("");
}

namespace {

// The Feistel network's half width for a domain of n > 1: half of the smallest even b with 2^b >= n.
int feistel_half(std::uint64_t n) {
  int bits = 64 - __builtin_clzll(n - 1);  // smallest b with 2^b >= n
  bits += bits & 1;                        // even, so both Feistel halves have b/2 bits
  return bits / 2;
}

// The key-independent part of round `round`'s function of the right half.
std::uint64_t round_input(std::uint64_t round, std::uint64_t right) {
  return mix64((round << 56) ^ right);
}

// permute_index with round `round`'s output for the right half `right`,
// mix64(key ^ round_input(round, right)) & mask, given by `output(round, right, mask)` (computed
// from round_input, from a table of it, or read from a memo).
template <typename RoundOutput>
std::uint64_t feistel_permute(std::uint64_t index, std::uint64_t n, int half, RoundOutput output) {
  const std::uint64_t mask = half == 32 ? 0xffffffffULL : (std::uint64_t{1} << half) - 1;
  const auto network = [half, mask, &output](std::uint64_t x) {
    std::uint64_t left = x >> half, right = x & mask;
    for (std::uint64_t round = 0; round < kFeistelRounds; ++round) {
      const std::uint64_t f = output(round, right, mask);
      const std::uint64_t next = left ^ f;
      left = right;
      right = next;
    }
    return (left << half) | right;
  };
  // Cycle walking: a bijection on [0, 2^bits) iterated until it lands in [0, n) restricts to a
  // bijection on [0, n). Terminates because index < n lies on a cycle through [0, n).
  std::uint64_t x = index;
  do x = network(x);
  while (x >= n);
  return x;
}

}  // namespace

std::uint64_t permute_index(std::uint64_t index, std::uint64_t n, std::uint64_t key) {
  if (n <= 1) return 0;
  return feistel_permute(index, n, feistel_half(n),
                         [key](std::uint64_t round, std::uint64_t right, std::uint64_t mask) {
                           return mix64(key ^ round_input(round, right)) & mask;
                         });
}

FeistelRoundTable::FeistelRoundTable(std::uint64_t n) {
  if (n <= 1 || feistel_half(n) > kMaxHalf) return;
  half_ = feistel_half(n);
  inputs_.resize(kFeistelRounds << half_);
  for (std::uint64_t round = 0; round < kFeistelRounds; ++round)
    for (std::uint64_t right = 0; right < (std::uint64_t{1} << half_); ++right)
      inputs_[(round << half_) | right] = round_input(round, right);
}

std::uint64_t FeistelRoundTable::permute(std::uint64_t index, std::uint64_t n, std::uint64_t key) const {
  if (inputs_.empty() || n <= 1 || feistel_half(n) != half_) return permute_index(index, n, key);
  const std::uint64_t* inputs = inputs_.data();
  const int half = half_;
  return feistel_permute(index, n, half,
                         [inputs, half, key](std::uint64_t round, std::uint64_t right, std::uint64_t mask) {
                           return mix64(key ^ inputs[(round << half) | right]) & mask;
                         });
}

std::uint64_t FeistelRoundTable::permute(std::uint64_t index, std::uint64_t n, std::uint64_t key,
                                         std::uint16_t* memo) const {
  if (inputs_.empty() || n <= 1 || feistel_half(n) != half_) return permute_index(index, n, key);
  const std::uint64_t* inputs = inputs_.data();
  const int half = half_;
  return feistel_permute(index, n, half,
                         [inputs, half, key, memo](std::uint64_t round, std::uint64_t right,
                                                   std::uint64_t mask) -> std::uint64_t {
                           const std::uint64_t at = (round << half) | right;
                           if (memo[at] == kUnmemoized)
                             memo[at] = static_cast<std::uint16_t>(mix64(key ^ inputs[at]) & mask);
                           return memo[at];
                         });
}

SobolSequence::SobolSequence(std::size_t dimension) : dimension_(dimension) {
  if (dimension == 0) return;
  if (dimension > kMaxDimension) throw std::invalid_argument("SobolSequence: at most 3667 dimensions");
  // Read the direction numbers v_k from boost's engine: seed(m) positions it on point m + 1, and
  // point 2^(k+1) − 1 has gray code 2^k, i.e. it *is* v_k.
  boost::random::sobol engine(dimension);
  directions_.resize(64 * dimension);
  for (int k = 0; k < 64; ++k) {
    const std::uint64_t point = k == 63 ? ~std::uint64_t{0} : (std::uint64_t{1} << (k + 1)) - 1;
    engine.seed(point - 1);
    for (std::size_t d = 0; d < dimension; ++d) directions_[k * dimension + d] = engine();
  }
}

void SobolSequence::point(std::uint64_t index, double* x) const {
  const std::uint64_t gray = index ^ (index >> 1);
  for (std::size_t d = 0; d < dimension_; ++d) {
    std::uint64_t bits = 0;
    for (std::uint64_t g = gray, k = 0; g != 0; g >>= 1, ++k)
      if (g & 1) bits ^= directions_[k * dimension_ + d];
    x[d] = static_cast<double>(bits >> 11) * 0x1.0p-53;
  }
}

MonteCarloSampler::MonteCarloSampler(MonteCarloSpec spec)
    : spec_(std::move(spec)),
      point_seed_(mix64(spec_.seed ^ 0x9e3779b97f4a7c15ULL)),
      sobol_(spec_.method == SamplingMethod::kSobol ? spec_.parameters.size() : 0),
      feistel_(spec_.method == SamplingMethod::kLatinHypercube
                   ? static_cast<std::uint64_t>(spec_.samples_per_point)
                   : 0) {
  const auto strata = static_cast<std::uint64_t>(spec_.samples_per_point);
  if (strata > 0 && (strata & (strata - 1)) == 0)
    inverse_power_of_two_strata_ = 1.0 / static_cast<double>(strata);
  for (const RandomParameter& p : spec_.parameters)
    truncations_.push_back(p.distribution.kind == DistributionKind::kTruncatedNormal
                               ? NormalTruncation::of(p.distribution)
                               : NormalTruncation{});
}

std::uint64_t MonteCarloSampler::unit_point(std::int64_t task, std::int64_t grid_point, std::int64_t replica,
                                            double* u) const {
  const std::size_t d = dimension();
  if (d == 0) return 0;
  CounterRng task_rng(spec_.seed, RandomStream::kSampling, static_cast<std::uint64_t>(task));
  switch (spec_.method) {
    case SamplingMethod::kRandom:
      for (std::size_t j = 0; j < d; ++j) u[j] = task_rng.uniform_open();
      return d;
    case SamplingMethod::kLatinHypercube: {
      // Memos for at most 2^21 entries (4 MiB) per thread; more random parameters than that
      // covers (~500 at the widest table) compute every round.
      constexpr std::size_t kMaxMemoEntries = std::size_t{1} << 21;
      const std::size_t memo_size = d * feistel_.memo_size() <= kMaxMemoEntries ? feistel_.memo_size() : 0;
      PointPermutations& point = point_permutations(point_seed_, grid_point, d, memo_size);
      const auto strata = static_cast<std::uint64_t>(spec_.samples_per_point);
      const double inverse = inverse_power_of_two_strata_;
      const auto per_stratum = [&](double x) {
        return inverse != 0.0 ? x * inverse : x / static_cast<double>(strata);
      };
      for (std::size_t j = 0; j < d; ++j) {
        const auto index = static_cast<std::uint64_t>(replica);
        const std::uint64_t stratum =
            memo_size != 0 ? feistel_.permute(index, strata, point.keys[j], &point.memos[j * memo_size])
                           : feistel_.permute(index, strata, point.keys[j]);
        const double v = per_stratum(static_cast<double>(stratum) + task_rng.uniform_open());
        // Rounding must not push v onto the next stratum's edge (or to 1).
        const double top = below_positive(per_stratum(static_cast<double>(stratum + 1)));
        u[j] = std::min(v, top);
      }
      return d;
    }
    case SamplingMethod::kSobol: {
      CounterRng point_rng(point_seed_, RandomStream::kPermutation, static_cast<std::uint64_t>(grid_point));
      sobol_.point(static_cast<std::uint64_t>(replica), u);
      for (std::size_t j = 0; j < d; ++j) {
        double v = u[j] + point_rng.uniform();
        if (v >= 1.0) v -= 1.0;
        u[j] = v > 0.0 ? v : 0x1.0p-64;  // shifted points never sit on 0 exactly
      }
      return 0;
    }
  }
  return 0;
}

std::uint64_t MonteCarloSampler::draw(std::int64_t task, std::int64_t grid_point, std::int64_t replica,
                                      double* values) const {
  const std::uint64_t used = unit_point(task, grid_point, replica, values);
  for (std::size_t j = 0; j < dimension(); ++j) {
    const Distribution& d = spec_.parameters[j].distribution;
    values[j] = d.kind == DistributionKind::kTruncatedNormal
                    ? truncated_normal_quantile(d, truncations_[j], inside_unit_interval(values[j]))
                    : d.quantile(values[j]);
  }
  return used;
}

}  // namespace simpact
