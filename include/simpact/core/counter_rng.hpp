// Counter-based random numbers (Random123 Philox4x32-10): every draw is a pure function of
// (seed, stream, task, draw index), so results never depend on ranks, threads or restarts.
#pragma once

#include <Random123/philox.h>

#include <cmath>
#include <cstdint>

namespace simpact {

// splitmix64's finalizer: a bijective 64-bit mix, used to derive independent keys from a seed
// (Owen scrambling, Morris trajectories, bootstrap streams, LHS permutations).
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Named streams keep unrelated uses of randomness independent for the same (seed, task).
enum class RandomStream : std::uint32_t { kSampling = 1, kOrdering = 2, kPermutation = 3 };

class CounterRng {
 public:
  CounterRng(std::uint64_t seed, RandomStream stream, std::uint64_t task)
      : key_{{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}},
        task_(task),
        stream_(static_cast<std::uint32_t>(stream)) {}

  // Uniform 64-bit integer; the n-th call returns Philox(key=seed, ctr=(stream, task, n)).
  std::uint64_t next_u64() {
    if (lane_ == 4) refill();
    const std::uint64_t lo = block_.v[lane_++];
    if (lane_ == 4) refill();
    const std::uint64_t hi = block_.v[lane_++];
    return (hi << 32) | lo;
  }
  // Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Uniform double in (0, 1): safe for log() and inverse CDFs.
  double uniform_open() { return (static_cast<double>(next_u64() >> 12) + 0.5) * 0x1.0p-52; }
  // Uniform integer in [0, n), n > 0 (Lemire's nearly divisionless method is overkill here).
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : next_u64() % n; }
  // Standard normal by Box–Muller (uses two uniforms per draw: simple and deterministic).
  double normal() {
    const double u1 = uniform_open();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  std::uint64_t draws() const { return counter_; }

 private:
  using Philox = r123::Philox4x32;
  void refill() {
    Philox::ctr_type ctr = {{static_cast<std::uint32_t>(counter_), static_cast<std::uint32_t>(counter_ >> 32),
                             static_cast<std::uint32_t>(task_),
                             stream_ ^ static_cast<std::uint32_t>(task_ >> 32) << 8}};
    block_ = Philox()(ctr, key_);
    ++counter_;
    lane_ = 0;
  }
  Philox::key_type key_;
  std::uint64_t task_;
  std::uint32_t stream_;
  std::uint64_t counter_ = 0;
  Philox::ctr_type block_{};
  int lane_ = 4;
};

}  // namespace simpact
