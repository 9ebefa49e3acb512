// A model turns a set of named scalar parameters into one impact problem (M, closed-contact
// normals, p⁻, R). Models know nothing of sweeps, MPI or files.
#pragma once

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "simpact/core/impact_problem.hpp"
#include "simpact/core/parameter_info.hpp"
#include "simpact/core/parameter_set.hpp"
#include "simpact/models/parameter_binding.hpp"

namespace simpact {

class ImpactModel {
 public:
  virtual ~ImpactModel() = default;
  virtual std::string name() const = 0;
  // Every parameter the model reads (restitution included), with units and allowed ranges.
  virtual const std::vector<ParameterInfo>& parameters() const = 0;
  // The largest configuration dimension d any parameter set can give (sizes per-task arrays).
  virtual int max_dof() const = 0;
  // Throws InputError naming the parameter when a value is missing or out of range.
  virtual ImpactProblem make_problem(const ParameterSet& params) const = 0;
  // The sweep's fast path, bit for bit the problem of make_problem(params): builds the system
  // into `system` (caller-owned, reused across tasks: no allocation) and returns the problem
  // borrowing it. `binding` (one per caller and model) caches where each parameter sits in
  // `params`. The default builds make_problem(params) and copies its system.
  virtual ImpactProblem build(const ParameterSet& params, ParameterBinding& binding,
                              ImpactSystem& system) const;
  // The size path (core/fixed_size.hpp): a model whose parameters can give a system beyond the
  // fixed capacity (d > kMaxDof or more than kMaxContacts closed contacts) says so per parameter
  // set, and builds those systems with make_dynamic_problem; make_problem keeps the fixed path.
  // The defaults: always fixed, and no dynamic path (std::logic_error).
  virtual bool needs_dynamic_sizes(const ParameterSet& params) const;
  virtual DynamicImpactProblem make_dynamic_problem(const ParameterSet& params) const;

  // Values a model finds per task on the way to its problem, reported beside the results (a
  // mechanism file's placed coordinates and its contacts' smallest gap). Default: none.
  struct TaskValue {
    std::string group, name, units, long_name;
  };
  virtual std::vector<TaskValue> task_values() const { return {}; }
  // make_problem / make_dynamic_problem that also write task_values().size() doubles to
  // `values`. Defaults (no task values): the plain calls.
  virtual ImpactProblem make_problem_reporting(const ParameterSet& params, double* values) const {
    (void)values;
    return make_problem(params);
  }
  virtual DynamicImpactProblem make_dynamic_problem_reporting(const ParameterSet& params,
                                                              double* values) const {
    (void)values;
    return make_dynamic_problem(params);
  }
};

// The restitution parameter every model shares: R of eq. (16), 1 = elastic, 0 = plastic.
ParameterInfo restitution_parameter();
// Reads a parameter with its default, checking range and integrality against `info`.
double read_parameter(const ParameterSet& params, const ParameterInfo& info);
// The same check for a value already looked up: `given` false means absent (value ignored,
// the default used). Returns the value to use.
double check_parameter_fully(const ParameterInfo& info, bool given, double value);
// check_parameter_fully with its common case inline (a sweep checks every parameter of every
// task): a finite, in-range value (given, or the default) of a real-valued parameter.
inline double check_parameter(const ParameterInfo& info, bool given, double value) {
  const double v = given ? value : info.default_value;
  if (v >= info.min && v <= info.max && !info.integer && std::isfinite(v)) return v;
  return check_parameter_fully(info, given, value);
}

}  // namespace simpact
