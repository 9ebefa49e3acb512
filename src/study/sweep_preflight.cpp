#include "simpact/study/sweep_preflight.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "simpact/core/input_error.hpp"
#include "simpact/sweep/parameter_space.hpp"
#include "simpact/sweep/sampling.hpp"

namespace simpact {

namespace {

// The values a distribution can draw that bound its support: (value, which one).
std::vector<std::pair<double, std::string>> support_extremes(const Distribution& d) {
  std::vector<std::pair<double, std::string>> out;
  if (d.kind == DistributionKind::kChoice) {
    for (std::size_t i = 0; i < d.values.size(); ++i)
      out.push_back({d.values[i], fmt::format("values[{}]", i)});
    return out;
  }
  // quantile clamps u into (0, 1): these are the smallest and largest draws the sampler makes.
  out.push_back({d.quantile(0.0), "its lowest draw"});
  out.push_back({d.quantile(1.0), "its highest draw"});
  return out;
}

}  // namespace

std::string preflight(const SweepConfig& config, const TaskKernel& kernel, std::int64_t& inadmissible) {
  const ParameterSpace space(config);
  ParameterSet params;
  constexpr std::int64_t kMaxChecked = 2'000'000;
  const bool record = config.on_task_error == TaskErrorMode::kRecord;
  inadmissible = 0;
  std::int64_t admissible = -1;  // the first grid point whose first replica passes
  for (std::int64_t g = 0; g < std::min(space.grid_points(), kMaxChecked); ++g) {
    try {
      space.parameters_of(space.task_of(g, 0), params);
      kernel.check_parameters(params);
      if (admissible < 0) admissible = g;
    } catch (const InputError& e) {
      if (!record) return fmt::format("grid point {} ({}): {}", g, params.describe(), e.what());
      ++inadmissible;
    }
  }
  if (!config.monte_carlo || record || admissible < 0) return "";
  // Supports, not one sample: each parameter at each extreme, the others as drawn for replica 0.
  for (const RandomParameter& p : config.monte_carlo->parameters)
    for (const auto& [value, which] : support_extremes(p.distribution)) {
      space.parameters_of(space.task_of(admissible, 0), params);
      params.set(p.name, value);
      try {
        kernel.check_parameters(params);
      } catch (const InputError& e) {
        return fmt::format("monte_carlo.params.{}: {:g} ({}) at grid point {} ({}): {}", p.name, value, which,
                           admissible, params.describe(), e.what());
      }
    }
  return "";
}

}  // namespace simpact
