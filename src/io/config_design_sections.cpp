// The design: and sensitivity: sections of a sweep config, parsed in design_config.cpp through
// the ConfigReader interface: this adapter gives it the loader's checked readers.
#include "config_reader.hpp"
#include "sweep_config_parser.hpp"

namespace simpact::detail {

class ReaderAccess final : public config_io::ConfigReader {
 public:
  explicit ReaderAccess(ConfigParser& p) : p_(p) {}
  void error(const std::string& path, const std::string& message) override { p_.error(path, message); }
  config_io::Entries keys(const YAML::Node& map, const std::string& path, const Names& allowed) override {
    return {p_.keys(map, path, allowed).entries};
  }
  config_io::Entries entries(const YAML::Node& map, const std::string& path) override {
    return {p_.entries(map, path).entries};
  }
  bool is_section(const YAML::Node& node, const std::string& path, const std::string& what) override {
    return p_.is_section(node, path, what);
  }
  std::optional<double> number(const YAML::Node& node, const std::string& path) override {
    return p_.number(node, path);
  }
  std::optional<std::int64_t> integer(const YAML::Node& node, const std::string& path, std::int64_t min,
                                      std::int64_t max, const std::string& message) override {
    return p_.integer(node, path, min, max, message);
  }
  std::optional<std::uint64_t> seed(const YAML::Node& node, const std::string& path) override {
    return p_.seed(node, path);
  }
  std::optional<std::string> text(const YAML::Node& node, const std::string& path) override {
    return p_.text(node, path);
  }
  std::optional<std::size_t> keyword(const YAML::Node& node, const std::string& path, const Names& allowed,
                                     const std::string& what) override {
    return p_.keyword(node, path, allowed, what);
  }
  std::optional<std::vector<double>> number_list(const YAML::Node& node, const std::string& path) override {
    return p_.number_list(node, path);
  }
  const ParameterInfo* lookup(const std::string& name, const std::string& path) override {
    return p_.lookup(name, path);
  }
  void claim(const std::string& name, const std::string& path, const std::string& section) override {
    p_.claim(name, path, section);
  }
  bool in_range(double value, const ParameterInfo* info, const std::string& path) override {
    return p_.in_range(value, info, path);
  }
  std::optional<RandomParameter> random_parameter(const std::string& name, const YAML::Node& node,
                                                  const std::string& path,
                                                  const ParameterInfo* info) override {
    return p_.parse_random(name, node, path, info);
  }
  std::int64_t grid_points() const override { return p_.grid_points_saturated(); }
  std::string resolve_path(const std::string& path) const override {
    return (!p_.base_dir_.empty() && !path.empty() && path.front() != '/') ? p_.base_dir_ + "/" + path : path;
  }

 private:
  ConfigParser& p_;
};

void ConfigParser::parse_design(const YAML::Node* design, const YAML::Node* sensitivity) {
  ReaderAccess access(*this);
  config_io::parse_design_sections(design, sensitivity, access, config_);
}

}  // namespace simpact::detail
