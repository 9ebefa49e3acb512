#include "simpact/models/billiards_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "simpact/core/input_error.hpp"
#include "simpact/core/magnitude_range.hpp"

namespace simpact {

namespace {
constexpr double kPi = 3.141592653589793;
// Every range is finite: the largest value is the core's computable magnitude.
constexpr double kMax = kMaxMagnitude;
}  // namespace

BilliardsModel::BilliardsModel() {
  parameters_ = {
      {"theta", "rad", "angle between the contact normals at the cue ball", std::nan(""), 0.0, kPi, false},
      {"r_a", "m", "radius of target ball a", 1.0, 1e-300, kMax, false},
      {"r_b", "m", "radius of target ball b", 1.0, 1e-300, kMax, false},
      {"r_c", "m", "radius of the cue ball c", 1.0, 1e-300, kMax, false},
      {"m_a", "kg", "mass of ball a (0: density x volume)", 0.0, 0.0, kMax, false},
      {"m_b", "kg", "mass of ball b (0: density x volume)", 0.0, 0.0, kMax, false},
      {"m_c", "kg", "mass of the cue ball (0: density x volume)", 0.0, 0.0, kMax, false},
      {"density", "kg m-3", "density used for masses not given", 1.0, 1e-300, kMax, false},
      {"psi", "rad", "cue direction relative to the bisector of theta", 0.0, -kPi / 2, kPi / 2, false},
      {"speed", "m s-1", "speed of the cue ball", 1.0, 0.0, kMax, false},
      restitution_parameter(),
  };
  if (parameters_.size() != kParameterCount) throw std::logic_error("BilliardsModel: parameter count");
}

namespace {
// cos θ_min by the law of cosines (clamped to [−1, 1]).
double min_theta_cosine(double r_a, double r_b, double r_c) {
  const double a = r_a + r_c, b = r_b + r_c, c = r_a + r_b;
  return std::clamp((a * a + b * b - c * c) / (2.0 * a * b), -1.0, 1.0);
}
}  // namespace

double BilliardsModel::min_theta(double r_a, double r_b, double r_c) {
  return std::acos(min_theta_cosine(r_a, r_b, r_c));
}

// M (diagonal), the two normals and p⁻ of parameter values v (parameters_ order, checked), in
// fixed-capacity storage: building a task's problem allocates nothing.
struct BilliardsModel::Geometry {
  DofVector masses;  // the diagonal of M
  NormalMatrix normals;
  DofVector momentum;
  double restitution;
};

BilliardsModel::Geometry BilliardsModel::geometry(const double* v) {
  const double theta = v[0], r_a = v[1], r_b = v[2], r_c = v[3], density = v[7], psi = v[8], speed = v[9];
  const double half = 0.5 * theta;
  const double cos_half = std::cos(half), sin_half = std::sin(half);
  // θ ≥ θ_min, decided without acos where cos θ = 2cos²(θ/2) − 1 (a few ulps) lies below cos θ_min
  // by far more than rounding: then θ > θ_min and the exact test below would pass too.
  const double cos_min = min_theta_cosine(r_a, r_b, r_c);
  if (!(2.0 * cos_half * cos_half - 1.0 < cos_min - 1e-6)) {
    const double theta_min = std::acos(cos_min);
    if (theta < theta_min * (1.0 - 1e-12))
      throw InputError("theta", fmt::format("{} is below the smallest admissible angle {} (balls a and b "
                                            "would overlap)",
                                            theta, theta_min));
  }
  auto mass_of = [&](double given, double r) {
    return given > 0.0 ? given : density * 4.0 / 3.0 * kPi * r * r * r;
  };
  const double m_a = mass_of(v[4], r_a), m_b = mass_of(v[5], r_b), m_c = mass_of(v[6], r_c);

  Geometry g;
  g.masses.resize(6);
  g.masses << m_a, m_a, m_b, m_b, m_c, m_c;
  const double na_x = cos_half, na_y = sin_half;   // unit vector c → a
  const double nb_x = cos_half, nb_y = -sin_half;  // unit vector c → b
  g.normals.setZero(2, 6);
  g.normals.row(0) << na_x, na_y, 0.0, 0.0, -na_x, -na_y;
  g.normals.row(1) << 0.0, 0.0, nb_x, nb_y, -nb_x, -nb_y;
  g.momentum.setZero(6);
  g.momentum[4] = m_c * speed * std::cos(psi);
  g.momentum[5] = m_c * speed * std::sin(psi);
  g.restitution = v[kParameterCount - 1];
  return g;
}

ImpactProblem BilliardsModel::make_problem(const ParameterSet& params) const {
  double v[kParameterCount];
  for (std::size_t i = 0; i < kParameterCount; ++i) v[i] = read_parameter(params, parameters_[i]);
  const Geometry g = geometry(v);
  DofMatrix mass = DofMatrix::Zero(6, 6);
  mass.diagonal() = g.masses;
  return ImpactProblem(KineticMetric(mass), g.normals, g.momentum, g.restitution);
}

ImpactProblem BilliardsModel::build(const ParameterSet& params, ParameterBinding& binding,
                                    ImpactSystem& system) const {
  double v[kParameterCount];
  binding.read(params, parameters_, v);
  const Geometry g = geometry(v);
  system.assign_diagonal(g.masses, g.normals);
  return ImpactProblem(system, g.momentum, g.restitution);
}

}  // namespace simpact
