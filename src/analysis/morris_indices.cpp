#include "simpact/analysis/morris_indices.hpp"

#include <cmath>
#include <limits>

#include "simpact/core/counter_rng.hpp"
#include "simpact/sweep/sampling.hpp"

namespace simpact {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

MorrisIndices morris_indices(const double* y, std::int64_t bases, std::size_t dimension,
                             const std::vector<std::size_t>& moved, const std::vector<double>& step,
                             bool radial, const BootstrapOptions& bootstrap, std::uint64_t stream) {
  const std::size_t d = dimension, rows = d + 1;
  // Elementary effects per parameter, in base order.
  std::vector<std::vector<double>> ee(d);
  MorrisIndices out;
  for (std::int64_t b = 0; b < bases; ++b) {
    const double* yb = y + static_cast<std::size_t>(b) * rows;
    for (std::size_t s = 0; s < d; ++s) {
      const double before = radial ? yb[0] : yb[s], after = yb[s + 1];
      const std::size_t k = static_cast<std::size_t>(b) * d + s;
      if (!std::isfinite(before) || !std::isfinite(after) || step[k] == 0.0) {
        ++out.nonfinite;
        continue;
      }
      ee[moved[k]].push_back((after - before) / step[k]);
    }
  }
  out.mu = out.mu_star = out.sigma = out.mu_star_conf = std::vector<double>(d, kNaN);
  const double z = normal_quantile(0.5 + 0.5 * bootstrap.confidence);
  const std::uint64_t key = mix64(bootstrap.seed ^ mix64(stream + 0x3077155ULL));
  for (std::size_t j = 0; j < d; ++j) {
    const auto& e = ee[j];
    if (e.empty()) continue;
    const auto n = static_cast<double>(e.size());
    double mu = 0.0, mu_star = 0.0;
    for (double v : e) {
      mu += v;
      mu_star += std::fabs(v);
    }
    mu /= n;
    mu_star /= n;
    out.mu[j] = mu;
    out.mu_star[j] = mu_star;
    if (e.size() > 1) {
      double ss = 0.0;
      for (double v : e) ss += (v - mu) * (v - mu);
      out.sigma[j] = std::sqrt(ss / (n - 1.0));
    }
    if (bootstrap.resamples >= 2 && e.size() > 1) {
      std::vector<double> reps(static_cast<std::size_t>(bootstrap.resamples));
      for (std::size_t r = 0; r < reps.size(); ++r) {
        CounterRng rng(key ^ mix64(j + 1), RandomStream::kPermutation, r);
        double s = 0.0;
        for (std::size_t i = 0; i < e.size(); ++i) s += std::fabs(e[rng.below(e.size())]);
        reps[r] = s / n;
      }
      double m = 0.0;
      for (double v : reps) m += v;
      m /= static_cast<double>(reps.size());
      double ss = 0.0;
      for (double v : reps) ss += (v - m) * (v - m);
      out.mu_star_conf[j] = z * std::sqrt(ss / static_cast<double>(reps.size() - 1));
    }
  }
  return out;
}

}  // namespace simpact
