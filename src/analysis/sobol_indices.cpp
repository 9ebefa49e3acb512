#include "simpact/analysis/sobol_indices.hpp"

#include <cmath>
#include <limits>

#include "simpact/core/counter_rng.hpp"
#include "simpact/sweep/sampling.hpp"

namespace simpact {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Layout {
  const double* y;
  std::size_t d, rows;
  bool second;
  double a(std::int64_t i) const { return y[static_cast<std::size_t>(i) * rows]; }
  double b(std::int64_t i) const { return y[static_cast<std::size_t>(i) * rows + rows - 1]; }
  double ab(std::int64_t i, std::size_t j) const { return y[static_cast<std::size_t>(i) * rows + 1 + j]; }
  double ba(std::int64_t i, std::size_t j) const { return y[static_cast<std::size_t>(i) * rows + 1 + d + j]; }
};

// The indices over the base samples `idx` (repeats allowed: a bootstrap replicate), values
// standardized by (mean, scale).
void estimate(const Layout& l, const std::vector<std::int64_t>& idx, double mean, double scale,
              std::vector<double>& first, std::vector<double>& total, std::vector<double>* second) {
  const auto n = static_cast<double>(idx.size());
  const std::size_t d = l.d;
  auto z = [&](double v) { return (v - mean) / scale; };
  // V: population variance of the A and B values together.
  double m = 0.0;
  for (auto i : idx) m += z(l.a(i)) + z(l.b(i));
  m /= 2.0 * n;
  double v = 0.0;
  for (auto i : idx) {
    const double da = z(l.a(i)) - m, db = z(l.b(i)) - m;
    v += da * da + db * db;
  }
  v /= 2.0 * n;
  first.assign(d, 0.0);
  total.assign(d, 0.0);
  for (std::size_t j = 0; j < d; ++j) {
    double s1 = 0.0, st = 0.0;
    for (auto i : idx) {
      const double fa = z(l.a(i)), fb = z(l.b(i)), fab = z(l.ab(i, j));
      s1 += fb * (fab - fa);
      st += (fa - fab) * (fa - fab);
    }
    first[j] = s1 / n / v;
    total[j] = 0.5 * st / n / v;
  }
  if (second != nullptr) {
    second->assign(d * d, kNaN);
    for (std::size_t j = 0; j < d; ++j)
      for (std::size_t k = j + 1; k < d; ++k) {
        double s = 0.0;
        for (auto i : idx) s += z(l.ba(i, j)) * z(l.ab(i, k)) - z(l.a(i)) * z(l.b(i));
        (*second)[j * d + k] = s / n / v - first[j] - first[k];
      }
  }
}

// z·sd (ddof = 1) of each column of `replicates` [r][index].
std::vector<double> half_width(const std::vector<std::vector<double>>& replicates, double z) {
  const std::size_t width = replicates.front().size();
  std::vector<double> out(width, kNaN);
  const auto r = static_cast<double>(replicates.size());
  for (std::size_t k = 0; k < width; ++k) {
    if (std::isnan(replicates.front()[k])) continue;
    double m = 0.0;
    for (const auto& rep : replicates) m += rep[k];
    m /= r;
    double ss = 0.0;
    for (const auto& rep : replicates) ss += (rep[k] - m) * (rep[k] - m);
    out[k] = z * std::sqrt(ss / (r - 1.0));
  }
  return out;
}

}  // namespace

SobolIndices sobol_indices(const double* y, std::int64_t base_samples, std::size_t dimension,
                           bool second_order, const BootstrapOptions& bootstrap, std::uint64_t stream) {
  const std::size_t rows = second_order ? 2 * dimension + 2 : dimension + 2;
  const Layout l{y, dimension, rows, second_order};
  SobolIndices out;
  // Base samples with a non-finite value anywhere (a failed or capped task) are left out.
  std::vector<std::int64_t> idx;
  for (std::int64_t i = 0; i < base_samples; ++i) {
    bool finite = true;
    for (std::size_t r = 0; r < rows; ++r)
      finite = finite && std::isfinite(y[static_cast<std::size_t>(i) * rows + r]);
    if (finite)
      idx.push_back(i);
    else
      ++out.nonfinite;
  }
  const std::vector<double> nan(dimension, kNaN);
  out.first = out.total = out.first_conf = out.total_conf = nan;
  if (second_order) out.second = out.second_conf = std::vector<double>(dimension * dimension, kNaN);
  if (idx.size() < 2) return out;
  double mean = 0.0;
  for (auto i : idx)
    for (std::size_t r = 0; r < rows; ++r) mean += y[static_cast<std::size_t>(i) * rows + r];
  mean /= static_cast<double>(idx.size() * rows);
  double ss = 0.0;
  for (auto i : idx)
    for (std::size_t r = 0; r < rows; ++r) {
      const double dv = y[static_cast<std::size_t>(i) * rows + r] - mean;
      ss += dv * dv;
    }
  const double scale = std::sqrt(ss / static_cast<double>(idx.size() * rows));
  if (!(scale > 0.0)) return out;  // a constant output: the indices are undefined
  estimate(l, idx, mean, scale, out.first, out.total, second_order ? &out.second : nullptr);
  if (bootstrap.resamples < 2) return out;
  const double z = normal_quantile(0.5 + 0.5 * bootstrap.confidence);
  const auto b = static_cast<std::size_t>(bootstrap.resamples);
  std::vector<std::vector<double>> first(b), total(b), second(second_order ? b : 0);
  const std::uint64_t key = mix64(bootstrap.seed ^ mix64(stream + 0xb00757a9ULL));
  std::vector<std::int64_t> resample(idx.size());
  for (std::size_t r = 0; r < b; ++r) {
    CounterRng rng(key, RandomStream::kPermutation, r);
    for (auto& i : resample) i = idx[rng.below(idx.size())];
    estimate(l, resample, mean, scale, first[r], total[r], second_order ? &second[r] : nullptr);
  }
  out.first_conf = half_width(first, z);
  out.total_conf = half_width(total, z);
  if (second_order) out.second_conf = half_width(second, z);
  return out;
}

}  // namespace simpact
