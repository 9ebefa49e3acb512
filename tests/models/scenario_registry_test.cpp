// The one registry of built-in scenarios: each registered once, one schema whose impact view is
// exactly what the impact model reads and whose time-stepping view is exactly what
// dynamic_model_parameters (config validation, simulate) gives; parameters shared by both
// constructors are one entry; constraints a constructor adds beyond the ranges name their field.
#include "simpact/models/scenario_registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "simpact/core/input_error.hpp"
#include "simpact/models/dynamic_models.hpp"
#include "simpact/models/model_catalog.hpp"
#include "simpact/models/mujoco_mechanism.hpp"
#include "simpact/models/test_functions.hpp"

namespace simpact {
namespace {

bool same(const ParameterInfo& a, const ParameterInfo& b) {
  const bool defaults =
      (std::isnan(a.default_value) && std::isnan(b.default_value)) || a.default_value == b.default_value;
  return a.name == b.name && a.units == b.units && a.long_name == b.long_name && defaults && a.min == b.min &&
         a.max == b.max && a.integer == b.integer;
}

std::vector<std::string> names_of(const std::vector<ParameterInfo>& infos) {
  std::vector<std::string> out;
  for (const auto& p : infos) out.push_back(p.name);
  return out;
}

TEST(ScenarioRegistry, EveryScenarioOnceWithItsCapabilities) {
  std::vector<std::string> names;
  for (const Scenario& s : scenarios()) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"billiards", "cradle", "trex", "ball", "chain", "tree8"}));
  EXPECT_EQ(model_names(), scenario_names(Capability::kImpact));
  std::vector<std::string> stepping = scenario_names(Capability::kTimeStepping);
  std::sort(stepping.begin(), stepping.end());
  EXPECT_EQ(dynamic_model_names(), stepping);
  EXPECT_EQ(stepping.size(), 6u);
  EXPECT_EQ(find_scenario("snooker"), nullptr);
  for (const Scenario& s : scenarios()) {
    std::set<std::string> unique;
    for (const ScenarioParameter& p : s.parameters) {
      EXPECT_TRUE(unique.insert(p.info.name).second) << s.name << "." << p.info.name << " twice";
      EXPECT_TRUE(p.impact || p.time_stepping) << s.name << "." << p.info.name << " read by no one";
      EXPECT_FALSE(p.info.units.empty()) << s.name << "." << p.info.name;
      EXPECT_FALSE(p.info.long_name.empty()) << s.name << "." << p.info.name;
    }
  }
}

TEST(ScenarioRegistry, ViewsAreWhatTheConstructorsRead) {
  for (const Scenario& s : scenarios()) {
    SCOPED_TRACE(s.name);
    if (s.has(Capability::kImpact)) {
      const auto view = s.parameters_for(Capability::kImpact);
      const std::unique_ptr<MechanismFamily> impact = make_model(s.name);
      const auto& model = impact->parameters();
      ASSERT_EQ(view.size(), model.size());
      for (std::size_t i = 0; i < view.size(); ++i) EXPECT_TRUE(same(view[i], model[i])) << view[i].name;
    }
    const auto view = s.parameters_for(Capability::kTimeStepping);
    const auto& stepping = dynamic_model_parameters(s.name);
    ASSERT_EQ(view.size(), stepping.size());
    for (std::size_t i = 0; i < view.size(); ++i) EXPECT_TRUE(same(view[i], stepping[i])) << view[i].name;
  }
}

TEST(ScenarioRegistry, SharedParametersAreOneEntry) {
  const auto shared = [](const std::string& scenario) {
    std::vector<std::string> out;
    for (const ScenarioParameter& p : find_scenario(scenario)->parameters)
      if (p.impact && p.time_stepping) out.push_back(p.info.name);
    return out;
  };
  EXPECT_EQ(shared("cradle"), (std::vector<std::string>{"n", "speed"}));
  EXPECT_EQ(shared("billiards"), (std::vector<std::string>{"theta", "speed"}));
  EXPECT_EQ(shared("trex"), (std::vector<std::string>{"r1", "r2", "l_u", "l_l", "theta", "phi_L", "gamma_L",
                                                      "phi_R", "gamma_R", "phi_T"}));
  // The time-stepping TREX reads the same design and stance defaults as the impact model.
  const auto stepping = names_of(dynamic_model_parameters("trex"));
  EXPECT_EQ(stepping.front(), "r1");
  EXPECT_NE(std::find(stepping.begin(), stepping.end(), "gait"), stepping.end());
  EXPECT_EQ(std::find(stepping.begin(), stepping.end(), "foot"), stepping.end());  // impact only
}

TEST(ScenarioRegistry, ConstructorConstraintsNameTheirField) {
  const auto field_of = [](const std::string& scenario, const ParameterSet& params) {
    try {
      make_dynamic_system(scenario, params);
    } catch (const InputError& e) {
      return e.field();
    }
    return std::string("accepted");
  };
  ParameterSet cradle;
  cradle.set("n", 10);  // allowed by the impact cradle (n <= 64), not by time stepping
  EXPECT_EQ(field_of("cradle", cradle), "n");
  cradle.set("n", 9);
  EXPECT_EQ(field_of("cradle", cradle), "accepted");
  ParameterSet billiards;
  billiards.set("theta", 1.0);  // below pi/3: a and b overlap
  EXPECT_EQ(field_of("billiards", billiards), "theta");
  billiards.set("theta", 2.0);
  EXPECT_EQ(field_of("billiards", billiards), "accepted");
  EXPECT_EQ(field_of("billiards", ParameterSet{}), "theta");  // required, as for the impact model
}

// Issue 39: every parameter a config, request or grid can set has a finite range (the time-stepping
// speed had lost its own: speed 1e200 ran to inf/NaN energies with status ok), and a value beyond
// either end is refused naming the parameter.
void expect_finite_and_enforced(const ParameterInfo& p, const std::string& where) {
  SCOPED_TRACE(where + "." + p.name);
  ASSERT_TRUE(std::isfinite(p.min) && std::isfinite(p.max)) << "[" << p.min << ", " << p.max << "]";
  ASSERT_LE(p.min, p.max);
  const auto field_of = [&p](double value) {
    try {
      check_parameter_fully(p, true, value);
    } catch (const InputError& e) {
      return e.field();
    }
    return std::string("accepted");
  };
  const double above = p.max > 0 ? 10.0 * p.max : p.max + 1.0, below = p.min < 0 ? 10.0 * p.min : p.min - 1.0;
  EXPECT_EQ(field_of(above), p.name) << above;
  EXPECT_EQ(field_of(below), p.name) << below;
  EXPECT_EQ(field_of(p.max), "accepted");
  EXPECT_EQ(field_of(p.min), "accepted");
}

TEST(ScenarioRegistry, EveryParameterHasAFiniteEnforcedRange) {
  int checked = 0;
  for (const Scenario& s : scenarios())
    for (const Capability c : {Capability::kImpact, Capability::kTimeStepping}) {
      if (!s.has(c)) continue;
      const std::string where = s.name + (c == Capability::kImpact ? " (impact)" : " (time stepping)");
      for (const ParameterInfo& p : s.parameters_for(c)) expect_finite_and_enforced(p, where), ++checked;
      if (c == Capability::kImpact) {
        const std::unique_ptr<MechanismFamily> model = make_model(s.name);
        for (const ParameterInfo& p : model->parameters()) expect_finite_and_enforced(p, where);
      } else {
        for (const ParameterInfo& p : dynamic_model_parameters(s.name)) expect_finite_and_enforced(p, where);
      }
    }
  for (const std::string& name : test_function_names()) {
    const std::unique_ptr<TestFunction> function = make_test_function(name);
    for (const ParameterInfo& p : function->parameters()) expect_finite_and_enforced(p, name), ++checked;
  }
  const MujocoMechanism mechanism(MechanismSpec{
      std::string(SIMPACT_SOURCE_DIR) + "/examples/mechanisms/biped.xml", {}, {}, 1e-9, "model"});
  for (const ParameterInfo& p : mechanism.parameters()) expect_finite_and_enforced(p, "biped.xml"), ++checked;
  EXPECT_GT(checked, 300);
}

TEST(ScenarioRegistry, TimeSteppingSpeedsAreBounded) {
  // The regression: the time-stepping cradle and billiards read the impact model's speed, whose
  // range was [-inf, inf]; time stepping takes [0, 1e6] m/s, the impact model keeps its own.
  for (const char* name : {"cradle", "billiards"}) {
    SCOPED_TRACE(name);
    ParameterSet params;
    if (std::string(name) == "billiards") params.set("theta", 2.0);
    params.set("speed", 1e200);
    try {
      make_dynamic_system(name, params);
      ADD_FAILURE() << "speed 1e200 accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "speed");
    }
    params.set("speed", 1e6);
    EXPECT_NO_THROW(make_dynamic_system(name, params));
    for (const ParameterInfo& p : dynamic_model_parameters(name))
      if (p.name == "speed") {
        EXPECT_EQ(p.max, 1e6);
      }
    const std::unique_ptr<MechanismFamily> model = make_model(name);
    for (const ParameterInfo& p : model->parameters())
      if (p.name == "speed") {
        EXPECT_GT(p.max, 1e6);
      }
  }
}

}  // namespace
}  // namespace simpact
