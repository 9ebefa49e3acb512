// Scalar test functions of sensitivity analysis, with closed-form Sobol' indices: not impact
// models, but sweepable like them (`model: ishigami` in a config runs them through
// FunctionTaskKernel), so the estimators and the whole sweep → analyze pipeline can be checked
// against exact values.
//   ishigami  y = sin x1 + a sin² x2 + b x3⁴ sin x1, x_i ∈ [−π, π] (a = 7, b = 0.1 by default)
//   sobol_g   y = Π_i (|4 x_i − 2| + a_i) / (1 + a_i), x_i ∈ [0, 1], i = 1..8
//             (a = 0, 1, 4.5, 9, 99, 99, 99, 99 by default: Saltelli et al. 2010)
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "simpact/core/parameter_info.hpp"
#include "simpact/core/parameter_set.hpp"

namespace simpact {

class TestFunction {
 public:
  virtual ~TestFunction() = default;
  virtual std::string name() const = 0;
  virtual std::string title() const = 0;  // for labels: "Ishigami", "Sobol' G"
  virtual std::string description() const = 0;
  virtual const std::vector<ParameterInfo>& parameters() const = 0;
  // y at the given parameters (missing ones take their defaults; a missing required one throws
  // InputError naming it).
  virtual double evaluate(const ParameterSet& params) const = 0;
};

std::vector<std::string> test_function_names();
bool is_test_function(const std::string& name);
// Throws InputError("model", ...) for an unknown name.
std::unique_ptr<TestFunction> make_test_function(const std::string& name);

// Closed-form first-order and total Sobol' indices (uniform inputs on their ranges).
struct ExactIndices {
  std::vector<double> first, total;
};
// Ishigami: V = a²/8 + bπ⁴/5 + b²π⁸/18 + ½; V1 = ½(1 + bπ⁴/5)², V2 = a²/8, V3 = 0,
// V13 = 8b²π⁸/225: S = (V1, V2, 0)/V, ST = (V1 + V13, V2, V13)/V.
ExactIndices ishigami_indices(double a, double b);
// Sobol' G: V_i = 1/(3(1 + a_i)²), V = Π(1 + V_i) − 1: S_i = V_i/V, ST_i = V_i Π_{j≠i}(1 + V_j)/V.
ExactIndices sobol_g_indices(const std::vector<double>& a);

}  // namespace simpact
