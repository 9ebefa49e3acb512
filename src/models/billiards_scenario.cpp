#include "simpact/models/billiards_scenario.hpp"

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

BilliardsFamily::BilliardsFamily() {
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
  if (parameters_.size() != kParameterCount) throw std::logic_error("BilliardsFamily: parameter count");
}

namespace {
// cos θ_min by the law of cosines (clamped to [−1, 1]).
double min_theta_cosine(double r_a, double r_b, double r_c) {
  const double a = r_a + r_c, b = r_b + r_c, c = r_a + r_b;
  return std::clamp((a * a + b * b - c * c) / (2.0 * a * b), -1.0, 1.0);
}
}  // namespace

double BilliardsFamily::min_theta(double r_a, double r_b, double r_c) {
  return std::acos(min_theta_cosine(r_a, r_b, r_c));
}

namespace {

// The parameter values v (parameters_ order, checked) as a break at contact; θ ≥ θ_min is
// checked here (InputError "theta").
BilliardsBreak break_of(const double* v) {
  const double theta = v[0], r_a = v[1], r_b = v[2], r_c = v[3], density = v[7];
  const double cos_half = std::cos(0.5 * theta);
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
  BilliardsBreak b;
  b.theta = theta;
  b.r_a = r_a;
  b.r_b = r_b;
  b.r_c = r_c;
  b.m_a = mass_of(v[4], r_a);
  b.m_b = mass_of(v[5], r_b);
  b.m_c = mass_of(v[6], r_c);
  b.psi = v[8];
  b.speed = v[9];
  return b;
}

}  // namespace

std::unique_ptr<BallSet> make_billiards_balls() {
  auto balls = std::make_unique<BallSet>("billiards", 3, 2);
  balls->add_pair_contact(2, 0);  // c–a
  balls->add_pair_contact(2, 1);  // c–b
  balls->set_coordinate_names({"x_a", "y_a", "x_b", "y_b", "x_c", "y_c"});
  return balls;
}

void assign_billiards(const BilliardsBreak& b, BallSet& balls, DynVector& q, DynVector& v) {
  balls.set_ball(0, b.m_a, b.r_a);
  balls.set_ball(1, b.m_b, b.r_b);
  balls.set_ball(2, b.m_c, b.r_c);
  const double h = 0.5 * b.theta, cos_h = std::cos(h), sin_h = std::sin(h);
  const double cos_psi = std::cos(b.psi), sin_psi = std::sin(b.psi);
  const double d_a = b.r_a + b.r_c, d_b = b.r_b + b.r_c + b.offset;
  q.resize(6);
  v.resize(6);
  q << d_a * cos_h, d_a * sin_h, d_b * cos_h, -d_b * sin_h, -b.distance * cos_psi + 0.0,
      -b.distance * sin_psi + 0.0;  // + 0.0: never a −0 coordinate
  v << 0.0, 0.0, 0.0, 0.0, b.speed * cos_psi, b.speed * sin_psi;
}

void BilliardsFamily::impact_at(const ParameterSet& params, FamilyScratch& scratch, ImpactTerms& terms,
                                PreImpact& pre, double* /*values*/) const {
  double v[kParameterCount];
  scratch.binding.read(params, parameters_, v);
  const BilliardsBreak b = break_of(v);
  if (!scratch.mechanism) scratch.mechanism = make_billiards_balls();
  auto& balls = static_cast<BallSet&>(*scratch.mechanism);
  assign_billiards(b, balls, scratch.q, pre.velocity);
  balls.impact_terms(scratch.q, terms);
  terms.every_contact_closed = true;  // touching by construction, at any scale
  pre.momentum.resize(0);
  pre.restitution = v[kParameterCount - 1];
}

DynamicSystem make_billiards(double theta, double mass, double radius, double speed, double distance,
                             double offset) {
  BilliardsBreak b;
  b.theta = theta;
  b.r_a = b.r_b = b.r_c = radius;
  b.m_a = b.m_b = b.m_c = mass;
  b.speed = speed;
  b.distance = distance;
  b.offset = offset;
  std::unique_ptr<BallSet> balls = make_billiards_balls();
  DynVector q, v;
  assign_billiards(b, *balls, q, v);
  return DynamicSystem{std::move(balls), q, v};
}

}  // namespace simpact
