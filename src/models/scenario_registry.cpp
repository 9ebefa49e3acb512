#include "simpact/models/scenario_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "simpact/core/input_error.hpp"
#include "simpact/models/billiards_scenario.hpp"
#include "simpact/models/cradle_scenario.hpp"
#include "simpact/models/trex_model.hpp"
#include "simpact/models/trex_scenario.hpp"

namespace simpact {

namespace {

constexpr double kPi = 3.14159265358979323846;
// The time-stepping cradle's capacity: n − 1 contacts on the fixed-size path (kMaxContacts = 8).
constexpr int kMaxTimeSteppingBalls = 9;
// The time-stepping scenarios' speeds [m/s], as their lengths (<= 1e6 m) and masses (<= 1e9 kg):
// kinetic energies and the integrator's steps stay finite.
constexpr double kMaxTimeSteppingSpeed = 1e6;

// A shared parameter the time-stepping builder reads in a narrower range than the impact model.
struct TimeSteppingRange {
  std::string name;
  double min, max;
};

// The schema of a scenario: the impact model's parameters (in its order), then the parameters
// only the time-stepping builder reads. `shared` names the impact parameters it reads too, and
// `narrower` the shared ones it takes in a narrower range.
std::vector<ScenarioParameter> schema(const std::vector<ParameterInfo>& impact,
                                      const std::vector<std::string>& shared,
                                      const std::vector<ParameterInfo>& time_stepping_only,
                                      const std::vector<TimeSteppingRange>& narrower = {}) {
  std::vector<ScenarioParameter> out;
  for (const ParameterInfo& p : impact)
    out.push_back({p, true, std::find(shared.begin(), shared.end(), p.name) != shared.end()});
  for (const TimeSteppingRange& r : narrower) {
    const auto it = std::find_if(out.begin(), out.end(), [&r](const ScenarioParameter& s) {
      return s.info.name == r.name && s.time_stepping;
    });
    if (it == out.end() || r.min < it->info.min || r.max > it->info.max || r.min > r.max)
      throw std::logic_error("scenario registry: '" + r.name +
                             "': no shared parameter or not a narrower range");
    it->time_stepping_min = r.min;
    it->time_stepping_max = r.max;
  }
  for (const ParameterInfo& p : time_stepping_only) {
    if (std::any_of(out.begin(), out.end(),
                    [&p](const ScenarioParameter& s) { return s.info.name == p.name; }))
      throw std::logic_error("scenario registry: '" + p.name + "' declared twice");
    out.push_back({p, false, true});
  }
  for (const std::string& name : shared)
    if (std::none_of(out.begin(), out.end(),
                     [&name](const ScenarioParameter& s) { return s.info.name == name; }))
      throw std::logic_error("scenario registry: shared parameter '" + name + "' is not an impact parameter");
  return out;
}

std::vector<ScenarioParameter> time_stepping_schema(const std::vector<ParameterInfo>& parameters) {
  std::vector<ScenarioParameter> out;
  for (const ParameterInfo& p : parameters) out.push_back({p, false, true});
  return out;
}

Scenario billiards() {
  Scenario s;
  s.name = "billiards";
  s.summary = "cue ball c breaking onto balls a and b (Fig. 5): theta = angle a-c-b";
  s.impact = [] { return std::make_unique<BilliardsFamily>(); };
  s.parameters = schema(
      BilliardsFamily().parameters(), {"theta", "speed"},
      {{"mass", "kg", "mass of every ball (time stepping)", 1.0, 1e-9, 1e9, false},
       {"radius", "m", "radius of every ball (time stepping)", 0.05, 1e-6, 1e6, false},
       {"distance", "m", "initial distance of the cue ball from its contact position", 0.01, 0.0, 1e6, false},
       {"offset", "m", "extra gap of ball b along its line of centres (delays its contact)", 0.0, 0.0, 1e6,
        false}},
      {{"speed", 0.0, kMaxTimeSteppingSpeed}});
  s.time_stepping = [](const std::map<std::string, double>& v) {
    if (v.at("theta") < kPi / 3.0)
      throw InputError("theta", fmt::format("{} is below pi/3: balls a and b overlap", v.at("theta")));
    return make_billiards(v.at("theta"), v.at("mass"), v.at("radius"), v.at("speed"), v.at("distance"),
                          v.at("offset"));
  };
  s.impact_note =
      "theta must also be at least the smallest admissible angle, where balls a and b touch (pi/3 for "
      "equal radii; larger cue ball -> smaller angle).";
  s.time_stepping_note =
      "time stepping: balls of equal mass and radius (mass, radius), theta >= pi/3; the cue ball starts "
      "distance before contact at speed along the bisector (psi = 0).";
  return s;
}

Scenario cradle() {
  Scenario s;
  s.name = "cradle";
  s.summary = "Newton's cradle: n balls in a row, ball 1 moving into ball 2";
  s.impact = [] { return std::make_unique<CradleFamily>(); };
  s.parameters = schema(CradleFamily().parameters(), {"n", "speed"},
                        {{"mass", "kg", "mass of every ball (time stepping)", 1.0, 1e-9, 1e9, false},
                         {"radius", "m", "radius of every ball (time stepping)", 0.05, 1e-6, 1e6, false},
                         {"gap", "m", "initial gap between ball 1 and ball 2", 0.1, 0.0, 1e6, false}},
                        {{"speed", 0.0, kMaxTimeSteppingSpeed}});
  s.time_stepping = [](const std::map<std::string, double>& v) {
    if (v.at("n") > kMaxTimeSteppingBalls)
      throw InputError("n", fmt::format("{} balls: time stepping takes at most {} (n - 1 contacts)",
                                        v.at("n"), kMaxTimeSteppingBalls));
    return make_cradle(static_cast<int>(v.at("n")), v.at("mass"), v.at("radius"), v.at("gap"), v.at("speed"));
  };
  s.impact_note = "balls n+1.. must not be given (m7 with n = 3 is an error).";
  s.time_stepping_note =
      "time stepping: n <= 9 balls of equal mass and radius (mass, radius), balls 2..n touching, ball 1 gap "
      "away at speed.";
  return s;
}

Scenario trex() {
  Scenario s;
  s.name = "trex";
  s.summary = "TREX, the tailed biped of Sec. VII-B (docs/trex.md)";
  s.impact = [] { return std::make_unique<TrexFamily>(); };
  s.parameters = schema(TrexFamily().parameters(),
                        {"r1", "r2", "l_u", "l_l", "theta", "phi_L", "gamma_L", "phi_R", "gamma_R", "phi_T"},
                        trex_drive_parameters());
  s.time_stepping = make_trex_from_parameters;
  s.impact_note =
      "r2 must be below r1; y and theta are solved so the chosen foot and the tail tip touch the floor (a "
      "posture that cannot be placed, or puts the other foot on the floor, is inadmissible: on_task_error: "
      "record). See docs/trex.md.";
  s.time_stepping_note =
      "time stepping: the robot at rest in the stance, drop above the floor; simulate: force_split 1 (or "
      "\"newton\": {\"force_split\": 1}) for the stiff hip damping; gait 1/2 builds Fig. 8's stances. See "
      "docs/trex.md.";
  return s;
}

Scenario ball() {
  Scenario s;
  s.name = "ball";
  s.summary = "a ball falling onto the floor y = 0";
  s.parameters = time_stepping_schema(
      {{"mass", "kg", "mass of the ball", 1.0, 1e-9, 1e9, false},
       {"radius", "m", "radius of the ball", 0.1, 1e-6, 1e6, false},
       {"height", "m", "initial height of the ball's centre above the floor y = 0", 1.0, -1e6, 1e6, false},
       {"speed", "m s-1", "initial upward speed", 0.0, -kMaxTimeSteppingSpeed, kMaxTimeSteppingSpeed, false},
       {"g", "m s-2", "gravity along -y", 9.81, 0.0, 1e6, false}});
  s.time_stepping = [](const std::map<std::string, double>& v) {
    if (v.at("height") < v.at("radius"))
      throw InputError("height", fmt::format("{} puts the ball below the floor (radius {})", v.at("height"),
                                             v.at("radius")));
    return make_ball(v.at("mass"), v.at("radius"), v.at("height"), v.at("speed"), v.at("g"));
  };
  return s;
}

Scenario chain() {
  Scenario s;
  s.name = "chain";
  s.summary = "planar N-link pendulum (integrator verification, no contacts)";
  s.parameters = time_stepping_schema(
      {{"n", "1", "number of links", 2.0, 1.0, 16.0, true},
       {"link_length", "m", "length of every link", 1.0, 1e-6, 1e6, false},
       {"mass", "kg", "point mass at the end of every link", 1.0, 1e-9, 1e9, false},
       {"g", "m s-2", "gravity along -y", 9.81, 0.0, 1e6, false},
       {"damping", "N m s rad-1", "viscous damping of every joint", 0.0, 0.0, 1e9, false}});
  s.time_stepping = [](const std::map<std::string, double>& v) {
    return make_chain(static_cast<int>(v.at("n")), v.at("link_length"), v.at("mass"), v.at("g"),
                      v.at("damping"));
  };
  return s;
}

Scenario tree8() {
  Scenario s;
  s.name = "tree8";
  s.summary = "planar floating body with two legs and a tail (8 coordinates, no contacts)";
  s.parameters = time_stepping_schema({{"g", "m s-2", "gravity along -y", 9.81, 0.0, 1e6, false}});
  s.time_stepping = [](const std::map<std::string, double>& v) { return make_tree8(v.at("g")); };
  return s;
}

}  // namespace

ParameterInfo ScenarioParameter::info_for(Capability c) const {
  ParameterInfo out = info;
  if (c == Capability::kTimeStepping && !std::isnan(time_stepping_min)) {
    out.min = time_stepping_min;
    out.max = time_stepping_max;
  }
  return out;
}

std::vector<ParameterInfo> Scenario::parameters_for(Capability c) const {
  std::vector<ParameterInfo> out;
  for (const ScenarioParameter& p : parameters)
    if (p.used_by(c)) out.push_back(p.info_for(c));
  return out;
}

const std::vector<Scenario>& scenarios() {
  static const std::vector<Scenario> all = [] {
    std::vector<Scenario> s;
    s.push_back(billiards());
    s.push_back(cradle());
    s.push_back(trex());
    s.push_back(ball());
    s.push_back(chain());
    s.push_back(tree8());
    return s;
  }();
  return all;
}

const Scenario* find_scenario(const std::string& name) {
  for (const Scenario& s : scenarios())
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<std::string> scenario_names(Capability c) {
  std::vector<std::string> out;
  for (const Scenario& s : scenarios())
    if (s.has(c)) out.push_back(s.name);
  return out;
}

}  // namespace simpact
