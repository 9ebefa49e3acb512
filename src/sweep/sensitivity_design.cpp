#include "simpact/sweep/sensitivity_design.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "simpact/core/counter_rng.hpp"

namespace simpact {
namespace {

// Keys the Morris trajectories apart from every other use of the same seed.
constexpr std::uint64_t kMorrisSalt = 0x6d6f72726973ULL;  // "morris"

std::int64_t rows_per_base(const DesignSpec& spec) {
  const auto d = static_cast<std::int64_t>(spec.parameters.size());
  switch (spec.kind) {
    case DesignKind::kSaltelli:
      return spec.second_order ? 2 * d + 2 : d + 2;
    case DesignKind::kMorris:
    case DesignKind::kRadial:
      return d + 1;
    case DesignKind::kPoints:
    case DesignKind::kZip:
      break;
  }
  return 1;
}

bool uses_sobol(DesignKind kind) {
  return kind == DesignKind::kSaltelli || kind == DesignKind::kRadial;
}

}  // namespace

std::int64_t design_size(const DesignSpec& spec) {
  if (spec.kind == DesignKind::kPoints || spec.kind == DesignKind::kZip)
    return spec.parameters.empty() ? 0
                                   : static_cast<std::int64_t>(spec.values.size() / spec.parameters.size());
  return spec.base_samples * rows_per_base(spec);
}

double owen_scramble(double x, std::uint64_t seed, std::uint64_t dimension) {
  constexpr int kBits = 53;
  const auto bits = static_cast<std::uint64_t>(x * 0x1.0p53);  // exact: x has 53 bits
  const std::uint64_t key = mix64(seed ^ mix64(dimension + 0x5eed0ULL));
  std::uint64_t out = bits;
  for (int level = 0; level < kBits; ++level) {
    // The `level` bits above bit `level` (from the top) name the node of the interval tree.
    const std::uint64_t prefix = level == 0 ? 0 : bits >> (kBits - level);
    const std::uint64_t flip = mix64(key ^ mix64((static_cast<std::uint64_t>(level) << 56) ^ prefix)) >> 63;
    out ^= flip << (kBits - 1 - level);
  }
  return static_cast<double>(out) * 0x1.0p-53;
}

SensitivityDesign::SensitivityDesign(DesignSpec spec)
    : spec_(std::move(spec)),
      rows_per_base_(simpact::rows_per_base(spec_)),
      sobol_(uses_sobol(spec_.kind) ? 2 * spec_.parameters.size() : 0) {
  const auto d = static_cast<std::int64_t>(dimension());
  if (d == 0) throw std::invalid_argument("SensitivityDesign: no parameters");
  if (spec_.kind == DesignKind::kPoints || spec_.kind == DesignKind::kZip) {
    if (spec_.values.empty() || spec_.values.size() % static_cast<std::size_t>(d) != 0)
      throw std::invalid_argument("SensitivityDesign: the point table is empty or ragged");
    size_ = static_cast<std::int64_t>(spec_.values.size()) / d;
  } else {
    if (spec_.base_samples < 1)
      throw std::invalid_argument("SensitivityDesign: base_samples must be positive");
    if (spec_.kind == DesignKind::kMorris && (spec_.levels < 2 || spec_.levels % 2 != 0))
      throw std::invalid_argument("SensitivityDesign: Morris levels must be even and >= 2");
    size_ = spec_.base_samples * rows_per_base_;
  }
}

void SensitivityDesign::unit_point(std::int64_t index, double* u) const {
  const std::size_t d = dimension();
  const SensitivityDesignRow r = row(index);
  switch (spec_.kind) {
    case DesignKind::kPoints:
    case DesignKind::kZip:
      throw std::logic_error("SensitivityDesign: explicit points have no unit-cube coordinates");
    case DesignKind::kSaltelli:
    case DesignKind::kRadial: {
      // Base sample i: one point of the 2D-dimensional sequence; A = its first D coordinates,
      // B = the next D. Unscrambled, SALib-style, the first `skip` points are skipped (the
      // origin would put every A and B row on the domain's corner); scrambled, none are.
      std::array<double, 64> small{};
      std::vector<double> large;
      double* x = small.data();
      if (2 * d > small.size()) {
        large.resize(2 * d);
        x = large.data();
      }
      const auto n = static_cast<std::uint64_t>(r.base + (spec_.scramble ? 0 : spec_.skip));
      sobol_.point(n, x);
      if (spec_.scramble)
        for (std::size_t k = 0; k < 2 * d; ++k) x[k] = owen_scramble(x[k], spec_.seed, k);
      const double* a = x;
      const double* b = x + d;
      const auto role = static_cast<std::size_t>(r.role);
      if (spec_.kind == DesignKind::kRadial) {
        for (std::size_t j = 0; j < d; ++j) u[j] = (role >= 1 && j == role - 1) ? b[j] : a[j];
      } else if (role == 0) {
        std::copy_n(a, d, u);
      } else if (role <= d) {  // AB_j: A with column j from B
        for (std::size_t j = 0; j < d; ++j) u[j] = j == role - 1 ? b[j] : a[j];
      } else if (role <= 2 * d && spec_.second_order) {  // BA_j: B with column j from A
        for (std::size_t j = 0; j < d; ++j) u[j] = j == role - d - 1 ? a[j] : b[j];
      } else {
        std::copy_n(b, d, u);
      }
      return;
    }
    case DesignKind::kMorris: {
      std::vector<double> start, sign;
      std::vector<std::size_t> order;
      morris_trajectory(r.base, start, order, sign);
      const double delta = morris_delta();
      std::copy_n(start.begin(), d, u);
      for (std::int64_t s = 0; s < r.role; ++s) {
        const std::size_t j = order[static_cast<std::size_t>(s)];
        u[j] += sign[j] * delta;
      }
      for (std::size_t j = 0; j < d; ++j) u[j] = std::clamp(u[j], 0.0, 1.0);  // rounding only
      return;
    }
  }
}

void SensitivityDesign::point(std::int64_t index, double* values) const {
  if (index < 0 || index >= size_)
    throw std::out_of_range("SensitivityDesign: row " + std::to_string(index) + " is outside [0, " +
                            std::to_string(size_) + ")");
  const std::size_t d = dimension();
  if (spec_.kind == DesignKind::kPoints || spec_.kind == DesignKind::kZip) {
    std::copy_n(spec_.values.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(index) * d), d,
                values);
    return;
  }
  unit_point(index, values);
  for (std::size_t j = 0; j < d; ++j) values[j] = spec_.parameters[j].distribution.quantile(values[j]);
}

double SensitivityDesign::morris_delta() const {
  const auto p = static_cast<double>(spec_.levels);
  return p / (2.0 * (p - 1.0));
}

// Trajectory t: base levels x*_j ∈ {0, 1/(p−1), …, 1−Δ}, directions s_j = ±1 and the order in
// which the coordinates move, all drawn from CounterRng(seed, kPermutation, t); the start is
// x*_j (s_j = +1) or x*_j + Δ (s_j = −1), so every point stays on the p-level grid in [0, 1].
void SensitivityDesign::morris_trajectory(std::int64_t trajectory, std::vector<double>& start,
                                          std::vector<std::size_t>& order, std::vector<double>& sign) const {
  const std::size_t d = dimension();
  CounterRng rng(mix64(spec_.seed ^ kMorrisSalt), RandomStream::kPermutation,
                 static_cast<std::uint64_t>(trajectory));
  const auto half = static_cast<std::uint64_t>(spec_.levels / 2);
  const double step = 1.0 / static_cast<double>(spec_.levels - 1);
  const double delta = morris_delta();
  start.resize(d);
  sign.resize(d);
  order.resize(d);
  for (std::size_t j = 0; j < d; ++j) {
    const double base = static_cast<double>(rng.below(half)) * step;
    sign[j] = (rng.next_u64() >> 63) != 0 ? 1.0 : -1.0;
    start[j] = sign[j] > 0 ? base : base + delta;
    order[j] = j;
  }
  for (std::size_t j = d; j-- > 1;) std::swap(order[j], order[static_cast<std::size_t>(rng.below(j + 1))]);
}

std::size_t SensitivityDesign::morris_moved(std::int64_t index) const {
  const SensitivityDesignRow r = row(index);
  if (spec_.kind != DesignKind::kMorris || r.role < 1)
    throw std::logic_error("morris_moved: not a Morris step");
  std::vector<double> start, sign;
  std::vector<std::size_t> order;
  morris_trajectory(r.base, start, order, sign);
  return order[static_cast<std::size_t>(r.role - 1)];
}

double SensitivityDesign::morris_step(std::int64_t index) const {
  const SensitivityDesignRow r = row(index);
  if (spec_.kind != DesignKind::kMorris || r.role < 1)
    throw std::logic_error("morris_step: not a Morris step");
  std::vector<double> start, sign;
  std::vector<std::size_t> order;
  morris_trajectory(r.base, start, order, sign);
  return sign[order[static_cast<std::size_t>(r.role - 1)]] * morris_delta();
}

}  // namespace simpact
