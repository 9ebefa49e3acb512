#include "simpact/models/test_functions.hpp"

#include <cmath>
#include <limits>

#include "simpact/core/input_error.hpp"
#include "simpact/core/magnitude_range.hpp"

namespace simpact {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Every range is finite: the coefficients up to the core's computable magnitude.
constexpr double kMax = kMaxMagnitude;
constexpr int kSobolGDimension = 8;
constexpr double kSobolGDefaults[kSobolGDimension] = {0, 1, 4.5, 9, 99, 99, 99, 99};

class Ishigami final : public TestFunction {
 public:
  Ishigami() {
    for (int i = 1; i <= 3; ++i)
      parameters_.push_back(
          {"x" + std::to_string(i), "1", "Ishigami input x" + std::to_string(i), kNaN, -kPi, kPi});
    parameters_.push_back({"a", "1", "Ishigami coefficient a (of sin² x2)", 7.0, -kMax, kMax});
    parameters_.push_back({"b", "1", "Ishigami coefficient b (of x3⁴ sin x1)", 0.1, -kMax, kMax});
  }
  std::string name() const override { return "ishigami"; }
  std::string title() const override { return "Ishigami"; }
  std::string description() const override {
    return "test function y = sin x1 + a sin^2 x2 + b x3^4 sin x1 (sensitivity analysis; not an impact)";
  }
  const std::vector<ParameterInfo>& parameters() const override { return parameters_; }
  double evaluate(const ParameterSet& p) const override {
    const double x1 = p.require("x1"), x2 = p.require("x2"), x3 = p.require("x3");
    const double a = p.get("a", 7.0), b = p.get("b", 0.1);
    const double s2 = std::sin(x2);
    return std::sin(x1) * (1.0 + b * x3 * x3 * x3 * x3) + a * s2 * s2;
  }

 private:
  std::vector<ParameterInfo> parameters_;
};

class SobolG final : public TestFunction {
 public:
  SobolG() {
    for (int i = 1; i <= kSobolGDimension; ++i)
      parameters_.push_back(
          {"x" + std::to_string(i), "1", "Sobol' G input x" + std::to_string(i), kNaN, 0.0, 1.0});
    for (int i = 1; i <= kSobolGDimension; ++i)
      parameters_.push_back({"a" + std::to_string(i), "1",
                             "Sobol' G coefficient a" + std::to_string(i) + " (larger: less important)",
                             kSobolGDefaults[i - 1], 0.0, kMax});
  }
  std::string name() const override { return "sobol_g"; }
  std::string title() const override { return "Sobol' G"; }
  std::string description() const override {
    return "test function y = prod_i (|4 x_i - 2| + a_i)/(1 + a_i), i = 1..8 (sensitivity analysis; not an "
           "impact)";
  }
  const std::vector<ParameterInfo>& parameters() const override { return parameters_; }
  double evaluate(const ParameterSet& p) const override {
    double y = 1.0;
    for (int i = 1; i <= kSobolGDimension; ++i) {
      const std::string k = std::to_string(i);
      const double x = p.require("x" + k), a = p.get("a" + k, kSobolGDefaults[i - 1]);
      y *= (std::fabs(4.0 * x - 2.0) + a) / (1.0 + a);
    }
    return y;
  }

 private:
  std::vector<ParameterInfo> parameters_;
};

}  // namespace

std::vector<std::string> test_function_names() {
  return {"ishigami", "sobol_g"};
}

bool is_test_function(const std::string& name) {
  return name == "ishigami" || name == "sobol_g";
}

std::unique_ptr<TestFunction> make_test_function(const std::string& name) {
  if (name == "ishigami") return std::make_unique<Ishigami>();
  if (name == "sobol_g") return std::make_unique<SobolG>();
  throw InputError("model", "unknown test function '" + name + "' (allowed: ishigami, sobol_g)");
}

ExactIndices ishigami_indices(double a, double b) {
  const double pi4 = std::pow(kPi, 4), pi8 = std::pow(kPi, 8);
  const double v1 = 0.5 * (1.0 + b * pi4 / 5.0) * (1.0 + b * pi4 / 5.0);
  const double v2 = a * a / 8.0;
  const double v13 = 8.0 * b * b * pi8 / 225.0;
  const double v = a * a / 8.0 + b * pi4 / 5.0 + b * b * pi8 / 18.0 + 0.5;
  return {{v1 / v, v2 / v, 0.0}, {(v1 + v13) / v, v2 / v, v13 / v}};
}

ExactIndices sobol_g_indices(const std::vector<double>& a) {
  std::vector<double> vi;
  double prod = 1.0;
  for (double ai : a) {
    vi.push_back(1.0 / (3.0 * (1.0 + ai) * (1.0 + ai)));
    prod *= 1.0 + vi.back();
  }
  const double v = prod - 1.0;
  ExactIndices out;
  for (double x : vi) {
    out.first.push_back(x / v);
    out.total.push_back(x * (prod / (1.0 + x)) / v);
  }
  return out;
}

}  // namespace simpact
