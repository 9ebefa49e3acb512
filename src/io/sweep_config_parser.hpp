// The YAML sweep-config reader's internals, shared by its files (io/ only; not installed):
// the key lists of each section, the path and message helpers, and ConfigParser, which reads
// one document section by section and collects every error (one line each).
#pragma once

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "name_list.hpp"
#include "simpact/io/sweep_config_yaml.hpp"

namespace simpact::detail {

using Names = std::vector<std::string>;

constexpr double kInf = std::numeric_limits<double>::infinity();
// Task indices are int64; keep a margin so index arithmetic (g * R + r) never overflows.
constexpr std::int64_t kMaxTasks = std::int64_t{1} << 62;
// One axis is materialized in memory (and in the file as a coordinate): cap its length.
constexpr std::int64_t kMaxAxisPoints = 100'000'000;
// The grid's maps hold at least 64 bytes a grid point (a count per status, /xi): beyond 2^40
// points (64 TiB of maps) a grid is refused from its declared sizes, before any axis exists.
constexpr std::int64_t kMaxGridPoints = std::int64_t{1} << 40;

inline const Names kTopKeys = {"model",      "params",      "grid",          "monte_carlo", "orderings",
                               "minimality", "seed",        "on_task_error", "limits",      "output",
                               "design",     "sensitivity", "simulate",      "audit"};
inline const Names kAxisKeys = {"start", "stop", "num", "spacing", "values", "units", "long_name"};
inline const Names kMonteCarloKeys = {"samples_per_point", "samples", "seed", "method", "params"};
// The keys of `limits:`, from the core's list of user-settable caps.
inline Names resolve_limit_names() {
  Names names;
  for (const auto& field : kResolveLimitFields) names.emplace_back(field.name);
  return names;
}
inline const Names kLimitKeys = resolve_limit_names();
inline const Names kSimulateKeys = {"model", "steps", "t_end", "dt", "restitution", "simultaneity_tolerance",
                                    "record"};
// The integrator's sweepable settings a `simulate:` section may also fix (config_simulate.cpp).
inline const Names kSimulateParameterKeys = {"dt", "restitution", "simultaneity_tolerance", "force_split"};
inline const Names kAuditKeys = {"engines", "time_limit", "rest_tolerance", "end_steps", "inside_tolerance"};
inline const Names kAuditEngineKeys = {"engine", "label", "rates", "options"};
inline const Names kOutputKeys = {"samples", "momenta", "chunk_size", "compression"};
inline const Names kRandomCommonKeys = {"dist", "units", "long_name"};
// The keys each distribution takes, indexed by DistributionKind.
inline const std::vector<Names> kDistributionKeys = {
    {"low", "high"}, {"mean", "std"}, {"mu", "sigma"}, {"mean", "std", "low", "high"}, {"values", "weights"}};
inline const Names kRandomKeys = {"dist", "units", "long_name", "low",    "high",   "mean",
                                  "std",  "mu",    "sigma",     "values", "weights"};

template <std::size_t N>
inline Names to_names(const std::array<std::string_view, N>& names) {
  return Names(names.begin(), names.end());
}

inline std::string child(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}
inline std::string element(const std::string& path, std::size_t index) {
  return fmt::format("{}[{}]", path, index);
}

inline std::string number_text(double v) {
  return fmt::format("{:g}", v);
}

// "[0, inf] of 'm_c' (kg)": the range phrase of every out-of-range message.
inline std::string range_text(const ParameterInfo& info) {
  std::string out = fmt::format("[{}, {}] of '{}'", number_text(info.min), number_text(info.max), info.name);
  if (!info.units.empty() && info.units != "1") out += fmt::format(" ({})", info.units);
  return out;
}

inline bool contains(const Names& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A mapping's entries in document order, first occurrence of each key.
struct MapView {
  std::vector<std::pair<std::string, YAML::Node>> entries;
  const YAML::Node* get(std::string_view key) const {
    for (const auto& [name, node] : entries)
      if (name == key) return &node;
    return nullptr;
  }
};

class ConfigParser {
  friend class ReaderAccess;  // design/sensitivity sections (config_design_sections.cpp)

 public:
  ConfigParser(const Names& known_models, const ModelCatalog& catalog, const DynamicCatalog& dynamic)
      : known_models_(known_models), catalog_(catalog), dynamic_(dynamic) {}

  SweepConfig parse(const std::string& text);
  void set_mechanisms(const MechanismCatalog& mechanisms, const std::string& base_dir) {
    mechanisms_ = mechanisms;
    base_dir_ = base_dir;
  }

 private:
  void error(const std::string& path, const std::string& message);

  // The product of the axis sizes read so far, saturated at INT64_MAX: unlike
  // SweepConfig::grid_points(), safe before check_required has bounded it.
  std::int64_t grid_points_saturated() const;

  // ---- generic readers ---------------------------------------------------------------------

  // Entries of a mapping whose keys are fixed names: unknown and repeated keys are errors.
  MapView keys(const YAML::Node& map, const std::string& path, const Names& allowed);

  // Entries of a mapping whose keys are user names (parameters): repeated keys are errors.
  MapView entries(const YAML::Node& map, const std::string& path);

  // A section that must be a mapping; null (the key with nothing after it) counts as empty.
  bool is_section(const YAML::Node& node, const std::string& path, const std::string& what);

  std::optional<double> number(const YAML::Node& node, const std::string& path);

  // Integers are plain literals, or expressions with an integral value ("1e6").
  std::optional<std::int64_t> integer(const YAML::Node& node, const std::string& path, std::int64_t min,
                                      std::int64_t max, const std::string& message);

  std::optional<std::uint64_t> seed(const YAML::Node& node, const std::string& path);

  std::optional<std::string> text(const YAML::Node& node, const std::string& path);

  // A name from a closed list: returns its index.
  std::optional<std::size_t> keyword(const YAML::Node& node, const std::string& path, const Names& allowed,
                                     const std::string& what);

  // The optional `units` and `long_name` of an axis or a random parameter (overriding the model's).
  void read_labels(const MapView& view, const std::string& path, std::string& units, std::string& long_name);

  // A non-empty list of numbers; element errors name path[i].
  std::optional<std::vector<double>> number_list(const YAML::Node& node, const std::string& path);

  // ---- model parameters --------------------------------------------------------------------

  // The model's description of `name`; nullptr (with an error) if the model has no such
  // parameter, nullptr (silently) if the model itself is unknown.
  const ParameterInfo* lookup(const std::string& name, const std::string& path);

  // A parameter is fixed, a grid axis or random: exactly one of these.
  void claim(const std::string& name, const std::string& path, const std::string& section);

  bool in_range(double v, const ParameterInfo* info, const std::string& path);

  // ---- sections ----------------------------------------------------------------------------

  void parse_model(const YAML::Node* node);
  // `model: {file: ..., contacts: [[a, b], ...], place: [...], gap_tolerance: ...}`.
  void parse_mechanism_model(const YAML::Node& node);

  // simulate: (config_simulate.cpp): the dynamic model, its parameters' catalog, run length,
  // record, and dt/restitution/simultaneity_tolerance when fixed there. Replaces parse_model.
  void parse_simulate(const YAML::Node& node, const YAML::Node* model);
  // After the options: a time-stepped sweep takes single orderings only (default argmin, argmax)
  // and refuses the settings it would ignore (minimality, limits, output.momenta).
  void check_simulate(const MapView& top);
  // Refuses the impact-sweep settings an audit does not read (orderings, minimality, limits).
  void check_audit(const MapView& top);
  // audit: (config_audit.cpp): engines, rates and settings; needs model: {file: ...}.
  void parse_audit(const YAML::Node& node);

  void parse_params(const YAML::Node* node);

  void parse_grid(const YAML::Node* node);

  std::optional<GridAxis> parse_axis(const std::string& name, const YAML::Node& node, const std::string& path,
                                     const ParameterInfo* info);

  std::optional<GridAxis> fill_values(GridAxis& axis, const YAML::Node& node, const std::string& path,
                                      const ParameterInfo* info);

  void parse_monte_carlo(const YAML::Node* node);

  std::optional<RandomParameter> parse_random(const std::string& name, const YAML::Node& node,
                                              const std::string& path, const ParameterInfo* info);

  void parse_orderings(const YAML::Node* node);

  void parse_options(const MapView& top);

  void check_required();

  // design: and sensitivity: (config_design_sections.cpp, through io/config_reader.hpp).
  void parse_design(const YAML::Node* design, const YAML::Node* sensitivity);

  const Names& known_models_;
  const ModelCatalog& catalog_;
  const DynamicCatalog& dynamic_;
  MechanismCatalog mechanisms_;
  std::string base_dir_;
  bool design_failed_ = false;  // design: reported an error (check_required stays quiet then)
  bool have_catalog_ = false;
  std::vector<ParameterInfo> parameters_;
  std::map<std::string, std::string> section_of_;  // parameter -> where it was given
  std::set<std::string> suggested_;                // parameters offered as "did you mean"
  Names errors_;
  SweepConfig config_;
};

}  // namespace simpact::detail
