// io-internal: the checked readers of the YAML config loader (src/io/sweep_config.cpp), offered
// to the loaders of other sections (src/io/design_config.cpp) so that every section reports
// problems the same way: one line per problem, naming the key path, all of them collected.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "simpact/io/sweep_config_yaml.hpp"

namespace simpact::config_io {

using Names = std::vector<std::string>;

// A mapping's entries in document order, first occurrence of each key.
struct Entries {
  std::vector<std::pair<std::string, YAML::Node>> entries;
  const YAML::Node* get(const std::string& key) const {
    for (const auto& [name, node] : entries)
      if (name == key) return &node;
    return nullptr;
  }
};

class ConfigReader {
 public:
  virtual ~ConfigReader() = default;
  virtual void error(const std::string& path, const std::string& message) = 0;
  // A mapping with fixed keys (unknown/repeated keys reported) / with user keys (repeats reported).
  virtual Entries keys(const YAML::Node& map, const std::string& path, const Names& allowed) = 0;
  virtual Entries entries(const YAML::Node& map, const std::string& path) = 0;
  virtual bool is_section(const YAML::Node& node, const std::string& path, const std::string& what) = 0;
  virtual std::optional<double> number(const YAML::Node& node, const std::string& path) = 0;
  virtual std::optional<std::int64_t> integer(const YAML::Node& node, const std::string& path,
                                              std::int64_t min, std::int64_t max,
                                              const std::string& message) = 0;
  virtual std::optional<std::uint64_t> seed(const YAML::Node& node, const std::string& path) = 0;
  virtual std::optional<std::string> text(const YAML::Node& node, const std::string& path) = 0;
  virtual std::optional<std::size_t> keyword(const YAML::Node& node, const std::string& path,
                                             const Names& allowed, const std::string& what) = 0;
  virtual std::optional<std::vector<double>> number_list(const YAML::Node& node, const std::string& path) = 0;
  // The model's parameter `name` (nullptr, reported, when it has none; nullptr silently when
  // the model is unknown); claim: the parameter is given here, and nowhere else.
  virtual const ParameterInfo* lookup(const std::string& name, const std::string& path) = 0;
  virtual void claim(const std::string& name, const std::string& path, const std::string& section) = 0;
  virtual bool in_range(double value, const ParameterInfo* info, const std::string& path) = 0;
  // A distribution entry, as under monte_carlo.params.
  virtual std::optional<RandomParameter> random_parameter(const std::string& name, const YAML::Node& node,
                                                          const std::string& path,
                                                          const ParameterInfo* info) = 0;
  virtual std::int64_t grid_points() const = 0;  // saturated at INT64_MAX
  // A path given in the config, resolved from the config file's folder (absolute: unchanged;
  // a config from text, with no folder: unchanged, i.e. from the working directory).
  virtual std::string resolve_path(const std::string& path) const = 0;
};

// design: and sensitivity: (docs/config.md). Fills config.design / config.sensitivity;
// reports through `reader`. Called by the loader after the grid and Monte Carlo sections.
void parse_design_sections(const YAML::Node* design, const YAML::Node* sensitivity, ConfigReader& reader,
                           SweepConfig& config);

}  // namespace simpact::config_io
