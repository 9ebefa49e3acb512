// A family of mechanisms indexed by named scalar parameters: a built-in scenario (billiards,
// cradle, trex) or a mechanism file. Each parameter set names one mechanism and its state just
// before an impact; the family builds them and reads the mechanism's impact terms there, and
// impact_problem_at (the one adapter) makes the impact problem. Families know nothing of sweeps,
// MPI or files.
#pragma once

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "simpact/core/impact_problem.hpp"
#include "simpact/core/parameter_info.hpp"
#include "simpact/core/parameter_set.hpp"
#include "simpact/models/impact_problem_at.hpp"
#include "simpact/models/mechanism.hpp"
#include "simpact/models/parameter_binding.hpp"

namespace simpact {

// What one thread reuses across a family's tasks: where each parameter sits in the tasks'
// ParameterSet, and the family's mechanism and configuration, rebuilt in place (a billiards task
// allocates nothing).
struct FamilyScratch {
  ParameterBinding binding;
  std::unique_ptr<Mechanism> mechanism;
  DynVector q;
};

class MechanismFamily {
 public:
  virtual ~MechanismFamily() = default;
  virtual std::string name() const = 0;
  // Every parameter the family reads (restitution included), with units and allowed ranges.
  virtual const std::vector<ParameterInfo>& parameters() const = 0;
  // The largest velocity dimension nv any parameter set can give (sizes per-task arrays).
  virtual int max_dof() const = 0;

  // Values a family finds per task on the way to its impact, reported beside the results (a
  // mechanism file's placed coordinates and its contacts' smallest gap). Default: none.
  struct TaskValue {
    std::string group, name, units, long_name;
  };
  virtual std::vector<TaskValue> task_values() const { return {}; }
  // The parameter that sizes the mechanism (the cradle's "n"), named when make_problem refuses a
  // system beyond the fixed path; "model" where none does.
  virtual std::string size_parameter() const { return "model"; }

  // The mechanism and state `params` name, as the impact sees them: the mechanism's impact terms
  // at its configuration (into `terms`) and the pre-impact state (into `pre`). `values`:
  // task_values().size() doubles to fill, or nullptr. Throws InputError naming the parameter.
  virtual void impact_at(const ParameterSet& params, FamilyScratch& scratch, ImpactTerms& terms,
                         PreImpact& pre, double* values) const = 0;

  // The impact of `params` through impact_at and impact_problem_at (owning its system): on the
  // fixed path (make_problem: InputError naming the family when it does not fit) or the dynamic one.
  bool needs_dynamic_sizes(const ParameterSet& params) const;
  ImpactProblem make_problem(const ParameterSet& params) const;
  DynamicImpactProblem make_dynamic_problem(const ParameterSet& params) const;
};

// The restitution parameter every family shares: R of eq. (16), 1 = elastic, 0 = plastic.
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
