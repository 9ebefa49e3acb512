// The whole `simpact simulate`: parse the JSON request (io), build the time-stepping model
// (integrate), run it, serialize the result. Bad input throws InputError naming the field; a
// Newton failure or an unresolvable impact throws NewtonError / ImpactError (runtime failures).
#pragma once

#include <string>

#include "simpact/io/simulate_json.hpp"

namespace simpact {

struct SimulateRun {
  SimulateRequest request;
  SimulateReport report;
};

// Parse, build, run: the request and the plain report (for the JSON or HDF5 writers of io).
SimulateRun run_simulation(const std::string& json_text);

std::string simulate_json(const std::string& json_text, int indent = -1);

}  // namespace simpact
