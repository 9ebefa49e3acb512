#include "simpact/models/cradle_scenario.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <limits>
#include <string>

#include "simpact/core/input_error.hpp"
#include "simpact/core/magnitude_range.hpp"

namespace simpact {

// Every range is finite: the largest value is the core's computable magnitude.
constexpr double kMax = kMaxMagnitude;

CradleFamily::CradleFamily() {
  parameters_.push_back({"n", "1", "number of balls", 3.0, 2.0, kMaxCradleBalls, true});
  parameters_.push_back({"speed", "m s-1", "velocity of ball 1 towards ball 2", 1.0, -kMax, kMax, false});
  for (int i = 1; i <= kMaxCradleBalls; ++i) {
    parameters_.push_back(
        {fmt::format("m{}", i), "kg", fmt::format("mass of ball {}", i), 1.0, 1e-300, kMax, false});
    parameters_.push_back(
        {fmt::format("r{}", i), "m", fmt::format("radius of ball {}", i), 1.0, 1e-300, kMax, false});
    if (i > 1)
      parameters_.push_back(
          {fmt::format("v{}", i), "m s-1", fmt::format("velocity of ball {}", i), 0.0, -kMax, kMax, false});
  }
  parameters_.push_back(restitution_parameter());
}

const ParameterInfo& CradleFamily::parameter(const std::string& name) const {
  for (const auto& p : parameters_)
    if (p.name == name) return p;
  throw InputError(name, "unknown parameter of model 'cradle'");
}

std::unique_ptr<BallSet> make_cradle_balls(int n) {
  auto balls = std::make_unique<BallSet>("cradle", n, 1);
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(fmt::format("x{}", i + 1));
  for (int i = 0; i + 1 < n; ++i) balls->add_pair_contact(i, i + 1);
  balls->set_coordinate_names(names);
  return balls;
}

void assign_cradle(const std::vector<double>& masses, const std::vector<double>& radii,
                   const std::vector<double>& velocities, double gap, BallSet& balls, DynVector& q,
                   DynVector& v) {
  const int n = static_cast<int>(masses.size());
  q.resize(n);
  v.resize(n);
  for (int i = 0; i < n; ++i) {
    balls.set_ball(i, masses[static_cast<std::size_t>(i)], radii[static_cast<std::size_t>(i)]);
    v[i] = velocities[static_cast<std::size_t>(i)];
  }
  if (n > 1) q[1] = 0.0;
  for (int i = 2; i < n; ++i)
    q[i] = q[i - 1] + radii[static_cast<std::size_t>(i - 1)] + radii[static_cast<std::size_t>(i)];
  q[0] = n > 1 ? -(radii[0] + radii[1]) - gap : 0.0;
}

void CradleFamily::impact_at(const ParameterSet& params, FamilyScratch& scratch, ImpactTerms& terms,
                             PreImpact& pre, double* /*values*/) const {
  auto info = [&](const std::string& name) -> const ParameterInfo& { return parameter(name); };
  const int n = static_cast<int>(read_parameter(params, info("n")));
  for (const auto& [key, value] : params.entries()) {
    // m7 with n = 3 is almost certainly a mistake in the caller's config.
    if (key.size() < 2 || (key[0] != 'm' && key[0] != 'r' && key[0] != 'v')) continue;
    long ball = 0;
    const auto [end, error] = std::from_chars(key.data() + 1, key.data() + key.size(), ball);
    if (end == key.data() + key.size() &&
        (error == std::errc::result_out_of_range || (error == std::errc() && ball > n)))
      throw InputError(key, fmt::format("names ball {} but the cradle has n = {} balls", key.substr(1), n));
  }
  std::vector<double> masses(static_cast<std::size_t>(n)), radii(masses.size()), velocities(masses.size());
  for (int i = 1; i <= n; ++i) {
    const auto k = static_cast<std::size_t>(i - 1);
    masses[k] = read_parameter(params, info(fmt::format("m{}", i)));
    radii[k] = read_parameter(params, info(fmt::format("r{}", i)));
    velocities[k] =
        i == 1 ? read_parameter(params, info("speed")) : read_parameter(params, info(fmt::format("v{}", i)));
  }
  const double restitution = read_parameter(params, info("restitution"));
  if (!scratch.mechanism || scratch.mechanism->dof() != n) scratch.mechanism = make_cradle_balls(n);
  auto& balls = static_cast<BallSet&>(*scratch.mechanism);
  assign_cradle(masses, radii, velocities, 0.0, balls, scratch.q, pre.velocity);
  balls.impact_terms(scratch.q, terms);
  // Touching by construction: every contact closed, its normal ±1 whatever the radii's scale.
  terms.every_contact_closed = true;
  pre.momentum.resize(0);
  pre.restitution = restitution;
}

DynamicSystem make_cradle(int balls, double mass, double radius, double gap, double speed) {
  const auto n = static_cast<std::size_t>(balls);
  std::vector<double> masses(n, mass), radii(n, radius), velocities(n, 0.0);
  velocities[0] = speed;
  std::unique_ptr<BallSet> set = make_cradle_balls(balls);
  DynVector q, v;
  assign_cradle(masses, radii, velocities, gap, *set, q, v);
  return DynamicSystem{std::move(set), q, v};
}

}  // namespace simpact
