// The model catalog, the parameter descriptions every model publishes, ParameterSet and
// read_parameter's validation.
#include "simpact/models/model_catalog.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "simpact/core/input_error.hpp"

namespace simpact {
namespace {

TEST(ModelCatalog, NamesAndConstruction) {
  const std::vector<std::string> names = model_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "billiards"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "cradle"), names.end());
  for (const std::string& name : names) {
    const std::unique_ptr<MechanismFamily> model = make_model(name);
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(model->name(), name);
  }
  try {
    make_model("snooker");
    ADD_FAILURE() << "unknown model accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "model");
    const std::string what = e.what();
    EXPECT_NE(what.find("snooker"), std::string::npos);
    for (const std::string& name : names)
      EXPECT_NE(what.find(name), std::string::npos) << "allowed values listed";
  }
}

TEST(ModelCatalog, ParameterDescriptionsAreComplete) {
  for (const std::string& name : model_names()) {
    const std::unique_ptr<MechanismFamily> model = make_model(name);
    std::set<std::string> seen;
    bool has_restitution = false;
    for (const ParameterInfo& p : model->parameters()) {
      EXPECT_TRUE(seen.insert(p.name).second) << name << ": duplicate " << p.name;
      EXPECT_FALSE(p.units.empty()) << name << "." << p.name;
      EXPECT_FALSE(p.long_name.empty()) << name << "." << p.name;
      EXPECT_LE(p.min, p.max) << name << "." << p.name;
      if (!std::isnan(p.default_value)) {
        EXPECT_GE(p.default_value, p.min) << name << "." << p.name;
        EXPECT_LE(p.default_value, p.max) << name << "." << p.name;
      }
      if (p.name == "restitution") {
        has_restitution = true;
        EXPECT_EQ(p.min, 0.0);
        EXPECT_EQ(p.max, 1.0);
        EXPECT_EQ(p.default_value, 1.0);
      }
    }
    EXPECT_TRUE(has_restitution) << name;
    // Every required parameter set to a valid value (its range midpoint or 2.0 for theta) builds.
    ParameterSet params;
    for (const ParameterInfo& p : model->parameters())
      if (std::isnan(p.default_value)) params.set(p.name, p.name == "theta" ? 2.0 : 0.5 * (p.min + p.max));
    EXPECT_NO_THROW(model->make_problem(params)) << name;
  }
}

TEST(ParameterSet, SetGetRequireDescribe) {
  ParameterSet params;
  EXPECT_FALSE(params.has("theta"));
  EXPECT_EQ(params.get("theta", 7.0), 7.0);
  params.set("theta", 1.5);
  params.set("r_a", 2.0);
  params.set("theta", 1.25);  // overwrite keeps the order
  EXPECT_TRUE(params.has("theta"));
  EXPECT_EQ(params.get("theta", 0.0), 1.25);
  EXPECT_EQ(params.require("r_a"), 2.0);
  ASSERT_EQ(params.entries().size(), 2u);
  EXPECT_EQ(params.entries()[0].first, "theta");
  EXPECT_EQ(params.describe(), "theta=1.25, r_a=2");
  try {
    params.require("speed");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "speed");
  }
  // describe() round-trips doubles exactly (17 significant digits).
  ParameterSet exact;
  exact.set("x", 0.1);
  EXPECT_EQ(std::stod(exact.describe().substr(2)), 0.1);
}

TEST(ReadParameter, RangeIntegralityAndDefaults) {
  ParameterInfo info{"n", "1", "number of balls", 3.0, 2.0, 9.0, true};
  ParameterSet params;
  EXPECT_EQ(read_parameter(params, info), 3.0);  // default
  params.set("n", 5);
  EXPECT_EQ(read_parameter(params, info), 5.0);
  const auto field_of = [&](double value) -> std::string {
    ParameterSet p;
    p.set("n", value);
    try {
      read_parameter(p, info);
    } catch (const InputError& e) {
      return e.field();
    }
    return "";
  };
  EXPECT_EQ(field_of(1.0), "n");
  EXPECT_EQ(field_of(10.0), "n");
  EXPECT_EQ(field_of(2.5), "n");
  EXPECT_EQ(field_of(std::numeric_limits<double>::infinity()), "n");
  EXPECT_EQ(field_of(std::numeric_limits<double>::quiet_NaN()), "n");
  EXPECT_EQ(field_of(9.0), "");
  ParameterInfo required{"theta", "rad", "angle", std::numeric_limits<double>::quiet_NaN(), 0.0, 3.2, false};
  try {
    read_parameter(ParameterSet{}, required);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "theta");
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos);
  }
}

}  // namespace
}  // namespace simpact
