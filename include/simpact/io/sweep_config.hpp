// A sweep as the user describes it in YAML (docs/config.md): the model, fixed parameters, grid
// axes, Monte Carlo distributions, ordering policies and run options. parse_sweep_config checks
// everything it can before any work starts and reports *all* problems, one line each, naming
// the key path ("grid.theta.num: must be a positive integer").
#pragma once

#include "simpact/core/propagation.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "simpact/core/ordering_policy.hpp"
#include "simpact/models/parameter_info.hpp"
#include "simpact/models/parameter_set.hpp"
#include "simpact/sweep/sampling.hpp"
#include "simpact/sweep/sensitivity_design.hpp"

namespace simpact {

struct GridAxis {
  std::string name, units, long_name;
  std::vector<double> values;  // the axis coordinates, in the order the tasks visit them
};

// Caps on one impact resolution (positive; a task that hits one reports it). The defaults are
// the core's (ResolveLimits): one source of truth.
struct ResolveLimitsConfig {
  std::int64_t max_steps = ResolveLimits{}.max_steps;
  std::int64_t max_depth = ResolveLimits{}.max_depth;
  std::int64_t max_nodes = ResolveLimits{}.max_nodes;
  std::int64_t max_outcomes = ResolveLimits{}.max_outcomes;
  std::int64_t max_definition1_checks = ResolveLimits{}.max_definition1_checks;
};

// What a task that throws does to the sweep: stop it, or record the error and go on.
enum class TaskErrorMode { kAbort, kRecord };

struct OutputOptions {
  bool samples = false;         // write the per-task tables /samples/...
  bool momenta = false;         // per-task arrays: post-impact momentum under each ordering
  std::int64_t chunk_size = 0;  // tasks per chunk; 0 = chosen by the scheduler
  int compression = 4;          // gzip level 0..9
};

struct SweepConfig {
  std::string model;
  ParameterSet fixed;                         // params: values used by every task
  std::vector<GridAxis> fixed_described;      // the same, with units/long_name (one value each)
  std::vector<GridAxis> grid;                 // slowest-varying first (C order)
  std::optional<MonteCarloSpec> monte_carlo;  // absent: one replica per grid point, no draws
  std::optional<DesignSpec> design;           // design: its rows are the replicas of every grid point
  SensitivitySpec sensitivity;                // sensitivity: what `simpact analyze` computes
  std::vector<OrderingPolicy> orderings;      // default {all, argmin, argmax}
  Minimality minimality = Minimality::kPropagation;
  std::uint64_t seed = 0;  // seeds the `random` ordering; default monte_carlo.seed, else 0
  TaskErrorMode on_task_error = TaskErrorMode::kAbort;
  ResolveLimitsConfig limits;
  OutputOptions output;
  std::string source_text;  // the YAML exactly as given
  std::string source_hash;  // sha256 hex of source_text

  std::int64_t grid_points() const;  // product of the axis sizes (1 with no grid)
  std::int64_t replicas() const;     // monte_carlo->samples_per_point, the design's rows, or 1
  std::int64_t task_count() const;   // grid_points() * replicas()
};

// Looks up a model's parameters by name; returns false if the model is unknown. Supplied by the
// caller so that io/ does not depend on models/. Every model has `restitution`; if the catalog
// leaves it out, the loader adds it (range [0, 1], default 1).
using ModelCatalog = std::function<bool(const std::string& model, std::vector<ParameterInfo>& parameters)>;

// Every problem found in a config, one line each ("key.path: message"); what() joins them
// with newlines.
struct ConfigErrors : std::runtime_error {
  explicit ConfigErrors(std::vector<std::string> error_lines);
  std::vector<std::string> lines;
};

// Parses and validates a config. `known_models` lists the model names accepted under `model`;
// `catalog` gives their parameters (an empty std::function skips parameter-name, range and
// required-parameter checks). Throws ConfigErrors listing all the errors found.
SweepConfig parse_sweep_config(const std::string& yaml_text, const std::vector<std::string>& known_models,
                               const ModelCatalog& catalog);

// Reads the file at `path` and parses it; an unreadable file gives the single error line
// "config: cannot read '<path>': <reason>".
SweepConfig load_sweep_config(const std::string& path, const std::vector<std::string>& known_models,
                              const ModelCatalog& catalog);

// Edit distance (insertions, deletions, substitutions, adjacent transpositions): the basis of
// the "did you mean" suggestions. Exposed for the command line's own suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` (case-insensitive): within edit distance 2 (and fewer edits
// than the word's length), else one that `word` is a prefix of ("chunk" → "chunk_size");
// an empty string when there is none.
std::string nearest_name(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace simpact
