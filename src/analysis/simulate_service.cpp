#include "simpact/analysis/simulate_service.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>

#include "simpact/core/input_error.hpp"
#include "simpact/integrate/dynamic_models.hpp"
#include "simpact/io/simulate_json.hpp"

namespace simpact {

namespace {
DofVector to_dof(const std::vector<double>& x, int n, const char* field) {
  if (static_cast<int>(x.size()) != n)
    throw InputError(field, fmt::format("has {} values; the model has {} coordinates", x.size(), n));
  DofVector v(n);
  for (int i = 0; i < n; ++i) v[i] = x[static_cast<std::size_t>(i)];
  return v;
}
}  // namespace

std::string simulate_json(const std::string& json_text, int indent) {
  const SimulateRequest request = parse_simulate_request(json_text);
  DynamicSystem system;
  try {
    system = make_dynamic_system(request.model, request.params);
  } catch (const InputError& e) {
    if (e.field() == "model") throw;
    throw InputError("params." + e.field(), std::string(e.what()).substr(e.field().size() + 2));
  }
  const DynamicModel& model = *system.model;
  const int n = model.dof();
  const DofVector q0 = request.q0.empty() ? system.q0 : to_dof(request.q0, n, "q0");
  DofVector p0;
  if (!request.p0.empty())
    p0 = to_dof(request.p0, n, "p0");
  else
    p0 = model.mass_matrix(q0) * (request.v0.empty() ? system.v0 : to_dof(request.v0, n, "v0"));
  if (model.contacts() > 0) {
    ContactVector phi;
    model.gaps(q0, phi);
    for (int i = 0; i < model.contacts(); ++i)
      if (phi[i] < -request.options.gap_tolerance)
        throw InputError("q0", fmt::format("contact {} penetrates by {:.3g} m at the initial configuration", i, -phi[i]));
  }
  const SimulationResult result = simulate(model, q0, p0, request.options);
  std::vector<std::string> coordinates;
  for (int i = 0; i < n; ++i) coordinates.push_back(model.coordinate_name(i));
  return simulation_to_json(request, coordinates, result, indent);
}

}  // namespace simpact
