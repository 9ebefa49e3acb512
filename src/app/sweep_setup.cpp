#include "sweep_setup.hpp"

#include "simpact/models/model_catalog.hpp"

namespace simpact::app {

namespace {
bool catalog(const std::string& model, std::vector<ParameterInfo>& parameters) {
  for (const auto& name : model_names())
    if (name == model) {
      parameters = make_model(name)->parameters();
      return true;
    }
  return false;
}
}  // namespace

SweepConfig load_config(const std::string& path) {
  return load_sweep_config(path, model_names(), catalog);
}

SweepConfig parse_config_text(const std::string& text) {
  return parse_sweep_config(text, model_names(), catalog);
}

ImpactStudyOptions study_options(const SweepConfig& config) {
  ImpactStudyOptions o;
  o.orderings = config.orderings;
  o.minimality = config.minimality;
  o.limits = config.limits;
  o.seed = config.seed;
  o.momenta = config.output.momenta;
  return o;
}

}  // namespace simpact::app
