// The one registry of the built-in scenarios (billiards, cradle, trex, ball, chain, tree8): each
// is registered once, with one typed parameter schema (name, units, default, range, meaning) and
// the capabilities it has — an impact family (`model: NAME`, `simpact resolve`) and/or a
// time-stepping model (`simulate: {model: NAME}`, `simpact simulate`). A parameter both
// constructors read is one entry, used by both; the others say which one reads them. The impact
// view (MechanismFamily::parameters()) and the time-stepping view (dynamic_model_parameters) are
// subsets of the schema in its order; `simpact models NAME`, config validation, resolve and
// simulate all read them from here.
//
// Constraints a constructor adds beyond a range are checked by that constructor and named in
// its note (the time-stepping cradle takes n <= 9, the time-stepping billiards theta >= pi/3).
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "simpact/core/parameter_info.hpp"
#include "simpact/models/dynamic_models.hpp"
#include "simpact/models/mechanism_family.hpp"

namespace simpact {

enum class Capability { kImpact, kTimeStepping };

struct ScenarioParameter {
  ParameterInfo info;
  bool impact = false;         // read by the impact family
  bool time_stepping = false;  // read by the time-stepping builder
  // A shared parameter's range for the time-stepping builder where it is narrower than the impact
  // model's (the cradle's speed: any velocity up to the core's magnitudes for an impact, [0, 1e6]
  // m/s for a run whose energies must stay finite); NaN: info's range.
  double time_stepping_min = std::numeric_limits<double>::quiet_NaN();
  double time_stepping_max = std::numeric_limits<double>::quiet_NaN();
  bool used_by(Capability c) const { return c == Capability::kImpact ? impact : time_stepping; }
  // info with the range capability `c` checks.
  ParameterInfo info_for(Capability c) const;
};

// The time-stepping builder: every time-stepping parameter's checked value, by name.
using TimeSteppingBuilder = std::function<DynamicSystem(const std::map<std::string, double>& values)>;

struct Scenario {
  std::string name;
  std::string summary;                                       // one line
  std::vector<ScenarioParameter> parameters;                 // the schema
  std::function<std::unique_ptr<MechanismFamily>()> impact;  // empty: no impacts
  TimeSteppingBuilder time_stepping;                         // empty: no time-stepping model
  std::string impact_note, time_stepping_note;               // constraints beyond the ranges

  bool has(Capability c) const { return c == Capability::kImpact ? bool(impact) : bool(time_stepping); }
  // The parameters `c` reads, in schema order.
  std::vector<ParameterInfo> parameters_for(Capability c) const;
};

// Every scenario, impact-capable ones first (billiards, cradle, trex), then ball, chain, tree8.
const std::vector<Scenario>& scenarios();
// nullptr for an unknown name.
const Scenario* find_scenario(const std::string& name);
// The names of the scenarios with capability `c`, in registry order.
std::vector<std::string> scenario_names(Capability c);

}  // namespace simpact
