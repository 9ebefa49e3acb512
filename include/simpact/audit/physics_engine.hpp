// A physics engine under audit (issue 25): MuJoCo, Bullet or ODE stepping a mechanism from its
// impact state through the impact at a fixed step rate. The engine only builds and steps its own
// world; stopping, reading back and judging the outcome against the propagative model is
// engine_audit's, the same for every engine.
#pragma once

#include <Eigen/Core>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "simpact/models/mujoco_mechanism.hpp"

namespace simpact {

// One engine setting besides the step rate, with its default (the engine's own unless stated)
// and the values it may take (docs/audit.md lists them): a value outside is refused when the
// audit is set up, so that no setting reaches an engine unchecked (an int cast of 1e12
// iterations, an ERP of 50).
struct EngineOption {
  enum class Kind { kReal, kInteger, kSwitch };  // kSwitch: 0 or 1
  std::string name;
  double default_value;
  double min, max;  // allowed, both included
  Kind kind;
  std::string description;
};

// The allowed values in words: "an integer in [1, 10000]", "0 or 1", "a number in [0, 1]".
std::string allowed_values(const EngineOption& option);

// How one engine run is set up: the step rate and engine options (names from options()).
struct EngineSettings {
  double rate_hz = 600.0;                 // steps per second [Hz]
  std::map<std::string, double> options;  // unset options take their defaults
  // The value of `name` (its default unless set). Throws std::invalid_argument for a value
  // outside the option's range (check_engine_settings refuses those first, naming the field).
  double option(const std::string& name, const std::vector<EngineOption>& known) const;
};

// The restitution R of the impact as the engine was told it: engine-specific numbers, stored
// beside the results ("store the mapping used").
struct RestitutionMapping {
  std::vector<std::string> names;  // e.g. {"solref_stiffness", "solref_damping"}
  std::vector<double> values;
  std::vector<std::string> units;
};

// One engine world at an impact state, advanced one step at a time.
class EngineScene {
 public:
  virtual ~EngineScene() = default;
  // Throws EngineFailure when the engine reports a failed step.
  virtual void step() = 0;
  // Generalized velocities in the mechanism's qvel coordinates (nv).
  virtual void read_qvel(Eigen::VectorXd& qvel) const = 0;
};

struct EngineFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class PhysicsEngine {
 public:
  virtual ~PhysicsEngine() = default;
  virtual const char* name() const = 0;
  virtual const std::vector<EngineOption>& options() const = 0;
  // Solver iterations one step may take at most (1 for a direct solver): a run's work is its
  // steps times this, bounded by kMaxRunWork (engine_run.hpp).
  virtual double iterations_per_step(const EngineSettings& settings) const = 0;
  virtual RestitutionMapping restitution_mapping(double restitution,
                                                 const EngineSettings& settings) const = 0;
  // The world at `state` (placed: every contact of the impact closed), stepping at settings.rate_hz.
  // Throws InputError naming the element of the mechanism the adapter cannot express.
  virtual std::unique_ptr<EngineScene> build(const MujocoMechanism& mechanism, const MechanismState& state,
                                             MujocoMechanism::Workspace& workspace,
                                             const EngineSettings& settings) const = 0;
  // Throws the InputError build() would for `state`, without building the world (no engine
  // objects, no copy of the model): what `run`'s preflight checks at every grid point.
  virtual void check_expressible(const MujocoMechanism& mechanism, const MechanismState& state,
                                 MujocoMechanism::Workspace& workspace) const = 0;
};

// Checks settings against the engine: rate finite and > 0, every option known and within its
// range (an integer where it counts). Throws InputError naming `field` and the allowed values
// (e.g. "audit.engines[1].options.iterations: 1e+12 is not an integer in [1, 10000]").
void check_engine_settings(const PhysicsEngine& engine, const EngineSettings& settings,
                           const std::string& field);

}  // namespace simpact
