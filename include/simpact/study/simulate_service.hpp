// The whole `simpact simulate`: parse the JSON request (io), build the time-stepping model
// (integrate), run it, serialize the result. Bad input throws InputError naming the field; a
// Newton failure, an unresolvable impact or a state that leaves the doubles throws NewtonError /
// ImpactError / NonFiniteStateError (runtime failures).
#pragma once

#include <string>

#include "simpact/io/simulate_json.hpp"

namespace simpact {

struct SimulateRun {
  SimulateRequest request;
  SimulateReport report;
};

// Parse, build, run: the request and the plain report (for the JSON or HDF5 writers of io).
SimulateRun run_simulation(const std::string& json_text, const std::string& base_dir = "");

// Build and run a parsed request (parse_simulate_request, with the limits the caller chose).
// Throws InputError for what the parser cannot see (an unknown model or parameter, q0 of the
// wrong size or penetrating), and NewtonError, ImpactError or NonFiniteStateError at run time.
SimulateReport run_simulation(const SimulateRequest& request);

std::string simulate_json(const std::string& json_text, int indent = -1, const std::string& base_dir = "");

}  // namespace simpact
