// The models a sweep config can name (`model: billiards`).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "simpact/models/mechanism_family.hpp"

namespace simpact {

std::vector<std::string> model_names();
// Throws InputError("model", "unknown model 'x' (allowed: ...)").
std::unique_ptr<MechanismFamily> make_model(const std::string& name);

}  // namespace simpact
