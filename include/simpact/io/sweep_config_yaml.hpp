// The YAML reader of a sweep config (docs/config.md) into a SweepConfig (sweep/sweep_config.hpp).
// parse_sweep_config checks everything it can before any work starts and reports *all*
// problems, one line each, naming the key path ("grid.theta.num: must be a positive integer").
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "simpact/core/parameter_info.hpp"
#include "simpact/sweep/sweep_config.hpp"

namespace simpact {

// Looks up a model's parameters by name; returns false if the model is unknown. Supplied by the
// caller so that io/ does not depend on models/. Every model has `restitution`; if the catalog
// leaves it out, the loader adds it (range [0, 1], default 1).
using ModelCatalog = std::function<bool(const std::string& model, std::vector<ParameterInfo>& parameters)>;

// The time-stepping models a `simulate:` section may name, and their sweepable parameters
// (the model's own, dt, restitution, simultaneity_tolerance): supplied by the caller like
// ModelCatalog, so that io/ does not depend on integrate/. Empty: `simulate:` is refused.
// `integrator`: the integrator's parameters beyond restitution (dt, simultaneity_tolerance,
// force_split), added to a mechanism file's own when `model: {file: ...}` is time-stepped.
struct DynamicCatalog {
  std::vector<std::string> models;
  ModelCatalog parameters;
  std::vector<ParameterInfo> integrator{};
};

// Loads a mechanism file (`model: {file: ...}`) and gives its parameters; throws InputError
// naming the field for a missing or invalid file, unknown geoms or coordinates. Supplied by the
// caller like ModelCatalog. Empty: mechanism files are refused.
using MechanismCatalog =
    std::function<void(const MechanismFileSpec& spec, std::vector<ParameterInfo>& parameters)>;

// Every problem found in a config, one line each ("key.path: message"); what() joins them
// with newlines.
struct ConfigErrors : std::runtime_error {
  explicit ConfigErrors(std::vector<std::string> error_lines);
  std::vector<std::string> lines;
};

// Parses and validates a config. `known_models` lists the model names accepted under `model`;
// `catalog` gives their parameters (an empty std::function skips parameter-name, range and
// required-parameter checks). Throws ConfigErrors listing all the errors found.
// base_dir: the folder a mechanism file's relative path is resolved from (empty: as given).
SweepConfig parse_sweep_config(const std::string& yaml_text, const std::vector<std::string>& known_models,
                               const ModelCatalog& catalog, const DynamicCatalog& dynamic = {},
                               const MechanismCatalog& mechanisms = {}, const std::string& base_dir = "");

// Reads the file at `path` and parses it; an unreadable file gives the single error line
// "config: cannot read '<path>': <reason>".
// Relative mechanism paths are resolved from the config's folder.
SweepConfig load_sweep_config(const std::string& path, const std::vector<std::string>& known_models,
                              const ModelCatalog& catalog, const DynamicCatalog& dynamic = {},
                              const MechanismCatalog& mechanisms = {});

// Edit distance (insertions, deletions, substitutions, adjacent transpositions): the basis of
// the "did you mean" suggestions. Exposed for the command line's own suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` (case-insensitive): within edit distance 2 (and fewer edits
// than the word's length), else one that `word` is a prefix of ("chunk" → "chunk_size");
// an empty string when there is none.
std::string nearest_name(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace simpact
