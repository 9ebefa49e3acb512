// The whole `simpact simulate`: parse the JSON request (io), build the time-stepping model
// (integrate), run it, serialize the result. Bad input throws InputError naming the field; a
// Newton failure or an unresolvable impact throws NewtonError / ImpactError (runtime failures).
#pragma once

#include <string>

namespace simpact {

std::string simulate_json(const std::string& json_text, int indent = -1);

}  // namespace simpact
