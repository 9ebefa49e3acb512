#include "simpact/models/parameter_binding.hpp"

#include "simpact/models/mechanism_family.hpp"

namespace simpact {

bool ParameterBinding::matches(const ParameterSet& params) const {
  const auto& entries = params.entries();
  if (entries.size() != layout_.size()) return false;
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].first != layout_[i]) return false;
  return true;
}

void ParameterBinding::bind(const ParameterSet& params, const std::vector<ParameterInfo>& infos) {
  const auto& entries = params.entries();
  layout_.clear();
  for (const auto& entry : entries) layout_.push_back(entry.first);
  position_.assign(infos.size(), -1);
  for (std::size_t i = 0; i < infos.size(); ++i)
    for (std::size_t j = 0; j < entries.size(); ++j)
      if (entries[j].first == infos[i].name) {
        position_[i] = static_cast<int>(j);
        break;
      }
}

void ParameterBinding::read(const ParameterSet& params, const std::vector<ParameterInfo>& infos,
                            double* values) {
  // A stamped set in the layout bound last has the same names: no name to compare.
  const bool same_layout = params.layout() != 0 && params.layout() == layout_id_;
  if (position_.size() != infos.size() || (!same_layout && !matches(params))) bind(params, infos);
  layout_id_ = params.layout();
  const auto& entries = params.entries();
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const int at = position_[i];
    values[i] =
        check_parameter(infos[i], at >= 0, at >= 0 ? entries[static_cast<std::size_t>(at)].second : 0.0);
  }
}

}  // namespace simpact
