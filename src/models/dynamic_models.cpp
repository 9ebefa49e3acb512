#include "simpact/models/dynamic_models.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "simpact/core/input_error.hpp"
#include "simpact/models/ball_set.hpp"
#include "simpact/models/mechanism_family.hpp"
#include "simpact/models/scenario_registry.hpp"

namespace simpact {

namespace {

using Rows2 = PlanarLinkage::Rows2;

// B for a point mass whose x and y are coordinates ix, iy (−1: fixed at 0).
Rows2 translation(int n, int ix, int iy) {
  Rows2 b = Rows2::Zero(2, n);
  if (ix >= 0) b(0, ix) = 1.0;
  if (iy >= 0) b(1, iy) = 1.0;
  return b;
}

// The time-stepping view of every scenario of the registry that has one, by name (sorted).
const std::map<std::string, std::vector<ParameterInfo>>& catalog() {
  static const std::map<std::string, std::vector<ParameterInfo>> models = [] {
    std::map<std::string, std::vector<ParameterInfo>> out;
    for (const Scenario& s : scenarios())
      if (s.has(Capability::kTimeStepping)) out[s.name] = s.parameters_for(Capability::kTimeStepping);
    return out;
  }();
  return models;
}

}  // namespace

const std::vector<std::string>& dynamic_model_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, params] : catalog()) out.push_back(name);
    return out;
  }();
  return names;
}

const std::vector<ParameterInfo>& dynamic_model_parameters(const std::string& name) {
  const auto it = catalog().find(name);
  if (it == catalog().end()) {
    std::string allowed;
    for (const auto& n : dynamic_model_names()) allowed += (allowed.empty() ? "" : ", ") + n;
    throw InputError("model", fmt::format("unknown time-stepping model '{}' (allowed: {})", name, allowed));
  }
  return it->second;
}

DynamicSystem make_dynamic_system(const std::string& name, const ParameterSet& params) {
  const auto& infos = dynamic_model_parameters(name);
  for (const auto& [key, value] : params.entries()) {
    bool known = false;
    for (const auto& info : infos) known = known || info.name == key;
    if (!known) {
      std::string allowed;
      for (const auto& info : infos) allowed += (allowed.empty() ? "" : ", ") + info.name;
      throw InputError(key, fmt::format("unknown parameter of {} (allowed: {})", name, allowed));
    }
  }
  std::map<std::string, double> v;
  for (const auto& info : infos) v[info.name] = read_parameter(params, info);
  return find_scenario(name)->time_stepping(v);
}

DynamicSystem make_chain(int links, double link_length, double mass, double gravity, double damping) {
  const int n = links;
  auto model = std::make_unique<PlanarLinkage>("chain", n, gravity);
  std::vector<int> terms;
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) {
    DofVector a = DofVector::Zero(n);
    a.head(i + 1).setOnes();  // absolute angle of link i = q_0 + … + q_i
    terms.push_back(model->add_term(a, 0.0, PlanarLinkage::Vec2(0.0, -link_length)));
    model->add_mass(mass, Rows2::Zero(2, n), terms);
    names.push_back(fmt::format("joint{}", i + 1));
  }
  if (damping > 0.0) model->set_damping(DofVector::Constant(n, damping));
  model->set_coordinate_names(names);
  return DynamicSystem{std::move(model), DofVector::Zero(n), DofVector::Zero(n)};
}

DynamicSystem make_tree8(double gravity) {
  constexpr int n = 8;
  enum { kX, kY, kTheta, kHipL, kKneeL, kHipR, kKneeR, kTail };
  auto model = std::make_unique<PlanarLinkage>("tree8", n, gravity);
  auto angle = [](std::initializer_list<int> coords) {
    DofVector a = DofVector::Zero(n);
    for (int c : coords) a[c] = 1.0;
    return a;
  };
  using V2 = PlanarLinkage::Vec2;
  const Rows2 body = translation(n, kX, kY);
  const int hip = model->add_term(angle({kTheta}), 0.0, V2(0.0, -0.2));
  const int tail_root = model->add_term(angle({kTheta}), 0.0, V2(-0.3, 0.0));
  const int thigh_l = model->add_term(angle({kTheta, kHipL}), 0.0, V2(0.0, -0.5));
  const int shank_l = model->add_term(angle({kTheta, kHipL, kKneeL}), 0.0, V2(0.0, -0.5));
  const int thigh_r = model->add_term(angle({kTheta, kHipR}), 0.0, V2(0.0, -0.5));
  const int shank_r = model->add_term(angle({kTheta, kHipR, kKneeR}), 0.0, V2(0.0, -0.5));
  const int tail = model->add_term(angle({kTheta, kTail}), 0.0, V2(-1.0, 0.0));
  model->add_mass(10.0, body, {});
  model->add_mass(1.0, body, {hip, thigh_l});
  model->add_mass(0.5, body, {hip, thigh_l, shank_l});
  model->add_mass(1.0, body, {hip, thigh_r});
  model->add_mass(0.5, body, {hip, thigh_r, shank_r});
  model->add_mass(2.0, body, {tail_root, tail});
  DofMatrix inertia = DofMatrix::Zero(n, n);
  inertia(kTheta, kTheta) = 1.0;
  model->set_rotational_inertia(inertia);
  model->set_coordinate_names({"x", "y", "theta", "hip_L", "knee_L", "hip_R", "knee_R", "tail"});
  return DynamicSystem{std::move(model), DofVector::Zero(n), DofVector::Zero(n)};
}

DynamicSystem make_ball(double mass, double radius, double height, double speed, double gravity) {
  auto ball = std::make_unique<BallSet>("ball", 1, 1, gravity);
  ball->set_ball(0, mass, radius);
  ball->add_floor_contact(0, 0.0);
  ball->set_coordinate_names({"y"});
  DynVector q0(1), v0(1);
  q0[0] = height;
  v0[0] = speed;
  return DynamicSystem{std::move(ball), q0, v0};
}

}  // namespace simpact
