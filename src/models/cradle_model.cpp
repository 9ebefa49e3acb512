#include "simpact/models/cradle_model.hpp"

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

CradleModel::CradleModel() {
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

const ParameterInfo& CradleModel::parameter(const std::string& name) const {
  for (const auto& p : parameters_)
    if (p.name == name) return p;
  throw InputError(name, "unknown parameter of model 'cradle'");
}

bool CradleModel::needs_dynamic_sizes(const ParameterSet& params) const {
  const int n = static_cast<int>(read_parameter(params, parameter("n")));
  return !fits_fixed_sizes(n, n - 1);
}

ImpactProblem CradleModel::make_problem(const ParameterSet& params) const {
  if (needs_dynamic_sizes(params))
    throw InputError("n", fmt::format("a cradle of more than {} balls is built by make_dynamic_problem",
                                      kMaxContacts + 1));
  return build_sized<FixedSizes>(params);
}

DynamicImpactProblem CradleModel::make_dynamic_problem(const ParameterSet& params) const {
  return build_sized<DynamicSizes>(params);
}

template <typename S>
BasicImpactProblem<S> CradleModel::build_sized(const ParameterSet& params) const {
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
  Eigen::MatrixXd mass = Eigen::MatrixXd::Zero(n, n);
  Eigen::VectorXd momentum(n);
  for (int i = 1; i <= n; ++i) {
    const double m = read_parameter(params, info(fmt::format("m{}", i)));
    read_parameter(params, info(fmt::format("r{}", i)));  // validated; positions only
    const double v =
        i == 1 ? read_parameter(params, info("speed")) : read_parameter(params, info(fmt::format("v{}", i)));
    mass(i - 1, i - 1) = m;
    momentum[i - 1] = m * v;
  }
  using RowMajorMatrix = typename BasicImpactProblem<S>::RowMajorMatrix;
  RowMajorMatrix normals = RowMajorMatrix::Zero(n - 1, n);
  for (int i = 0; i + 1 < n; ++i) {
    normals(i, i) = -1.0;
    normals(i, i + 1) = 1.0;
  }
  return BasicImpactProblem<S>(BasicKineticMetric<S>(mass), normals, momentum,
                               read_parameter(params, info("restitution")));
}

}  // namespace simpact
