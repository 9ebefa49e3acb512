#include "simpact/models/model_catalog.hpp"

#include "simpact/core/input_error.hpp"
#include "simpact/models/billiards_model.hpp"
#include "simpact/models/cradle_model.hpp"
#include "simpact/models/trex_impact_model.hpp"

namespace simpact {

std::vector<std::string> model_names() {
  return {"billiards", "cradle", "trex"};
}

std::unique_ptr<ImpactModel> make_model(const std::string& name) {
  if (name == "billiards") return std::make_unique<BilliardsModel>();
  if (name == "cradle") return std::make_unique<CradleModel>();
  if (name == "trex") return std::make_unique<TrexImpactModel>();
  throw InputError("model", "unknown model '" + name + "' (allowed: billiards, cradle, trex)");
}

}  // namespace simpact
