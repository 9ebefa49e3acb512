// A sweep as the user describes it (docs/config.md): the model, fixed parameters, grid axes,
// Monte Carlo distributions, ordering policies and run options. Plain data: io/ reads it from
// YAML, the sweep engine and the study layer consume it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "simpact/core/ordering_policy.hpp"
#include "simpact/core/parameter_set.hpp"
#include "simpact/core/propagation.hpp"
#include "simpact/sweep/sampling.hpp"
#include "simpact/sweep/sensitivity_design.hpp"

namespace simpact {

struct GridAxis {
  std::string name, units, long_name;
  std::vector<double> values;  // the axis coordinates, in the order the tasks visit them
};

// What a task that throws does to the sweep: stop it, or record the error and go on.
enum class TaskErrorMode { kAbort, kRecord };

struct OutputOptions {
  // Write the per-task tables /samples/...; default: only with a user-supplied design (design.file,
  // design.zip), whose per-row outputs are the result (the maps hold their mean over the rows).
  bool samples = false;
  bool samples_given = false;   // output.samples is in the config
  bool momenta = false;         // per-task arrays: post-impact momentum under each ordering
  std::int64_t chunk_size = 0;  // tasks per chunk; 0 = chosen by the scheduler
  int compression = 4;          // gzip level 0..9
};

// `simulate:` (docs/config.md "Time-stepped sweeps"): the tasks are time-stepped runs of a
// dynamic model (integrate/) under each ordering, not single impacts. dt, restitution and
// simultaneity_tolerance are parameters like the model's (fixed, grid axes or random).
struct SimulateSpec {
  std::int64_t steps = 0;  // > 0: steps of dt per run
  double t_end = 0.0;      // used when steps == 0: ceil(t_end/dt) steps per run [s]
  int record = 0;          // > 0: record + 1 states per task and ordering as per-task arrays
};

// `model: {file: robot.xml, contacts: [[a, b], ...], place: [...]}` (docs/mechanisms.md): a
// mechanism read from an MJCF/URDF file; the path as resolved from the config's folder.
struct MechanismFileSpec {
  std::string file;
  std::vector<std::pair<std::string, std::string>> contacts;
  std::vector<std::string> place;
  double gap_tolerance = 1e-9;    // core's kGapTolerance, relative to the mechanism's length scale
  std::string witnesses = "all";  // "all" | "deepest" (MechanismSpec::witnesses)
};

// `audit:` (docs/audit.md): each task also runs listed engines through the same impact and checks
// their post-impact state against the propagative model. Names are checked where the engines are
// known (audit/); here they are plain data.
struct AuditEngineSpec {
  std::string engine;                                   // "mujoco", "bullet", "ode"
  std::string label;                                    // map group prefix; default the engine name
  std::vector<double> rates;                            // step rates [Hz], one map group each
  std::vector<std::pair<std::string, double>> options;  // engine settings, by name
};
struct AuditSpec {
  std::vector<AuditEngineSpec> engines;
  double time_limit = 2.0;         // simulated seconds per run
  double rest_tolerance = 1e-9;    // relative per-step velocity change counted as none
  int end_steps = 3;               // steps a contact's normal velocity stays unchanged to end
  double inside_tolerance = 1e-3;  // g-distance (relative) within which a state is "inside"
};

// A file the study reads, bound to its results by content: --resume and merge refuse a change
// and name the file (docs/reliability.md "Inputs bound to results").
struct InputFile {
  std::string role;    // config, design_file, mechanism_file, include, mesh, texture, hfield, skin
  std::string path;    // as read
  std::string sha256;  // of its bytes, hex
};

struct SweepConfig {
  std::string model;                           // with simulate: the dynamic model's name; with a
                                               // mechanism file: its path as given
  std::optional<MechanismFileSpec> mechanism;  // set: model names a mechanism file
  ParameterSet fixed;                          // params: values used by every task
  std::vector<GridAxis> fixed_described;       // the same, with units/long_name (one value each)
  std::vector<GridAxis> grid;                  // slowest-varying first (C order)
  std::optional<MonteCarloSpec> monte_carlo;   // absent: one replica per grid point, no draws
  std::optional<DesignSpec> design;            // design: its rows are the replicas of every grid point
  SensitivitySpec sensitivity;                 // sensitivity: what `simpact analyze` computes
  std::vector<OrderingPolicy> orderings;       // default kDefaultSweepOrderings
  Minimality minimality = Minimality::kPropagation;
  std::uint64_t seed = 0;  // seeds the `random` ordering; default monte_carlo.seed, else 0
  TaskErrorMode on_task_error = TaskErrorMode::kAbort;
  ResolveLimits limits;  // caps of each resolution (core defaults; YAML `limits:`)
  OutputOptions output;
  std::optional<SimulateSpec> simulate;  // present: a time-stepped sweep of `model`
  std::optional<AuditSpec> audit;        // present: engines audited at every task (needs a mechanism file)
  std::string source_text;               // the YAML exactly as given
  std::string source_hash;               // sha256 hex of source_text, folding in every input file's
  std::vector<InputFile> inputs;         // what the results depend on: the config, a design file,
                                         // a mechanism file and what it includes (in that order)
  // The folder relative paths in the config (design.file, model.file) are resolved from: the
  // config file's (absolute); "" for a config given as text. Stored in the result
  // (root attribute config_folder) so that analyze and merge resolve them the same way.
  std::string base_dir;

  std::int64_t grid_points() const;  // product of the axis sizes (1 with no grid)
  std::int64_t replicas() const;     // monte_carlo->samples_per_point, the design's rows, or 1
  std::int64_t task_count() const;   // grid_points() * replicas()
};

}  // namespace simpact
