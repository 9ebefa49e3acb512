#include "simpact/integrate/trex_gait.hpp"

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <cmath>
#include <stdexcept>

namespace simpact {

TrexPairRun run_trex_pair(const DynamicSystem& system, double dt, long steps, double restitution,
                          double force_split) {
  const Mechanism& model = *system.model;
  SimulationOptions options;
  options.dt = dt;
  options.restitution = restitution;
  options.monitor_energy = false;
  options.newton.force_split = force_split;
  const DofVector p0 = model.mass_matrix(system.q0) * system.v0;
  options.policy = OrderingPolicy::kArgmin;
  Simulator first(model, options);
  options.policy = OrderingPolicy::kArgmax;
  Simulator second(model, options);
  first.reset(system.q0, p0);
  second.reset(system.q0, p0);
  const double e0 = first.energy();
  TrexPairRun run;
  run.touchdown = NAN;
  for (long k = 0; k < steps; ++k) {
    first.advance();
    second.advance();
    if (std::isnan(run.touchdown) && !first.impacts().empty()) run.touchdown = first.impacts().front().t;
    const Eigen::LLT<DofMatrix> m(model.mass_matrix(first.q()));
    const DofVector dp = first.p() - second.p();
    const double norm = std::sqrt(first.p().dot(m.solve(first.p())));
    run.t.push_back(first.t());
    run.xi.push_back(norm > 0.0 ? std::sqrt(dp.dot(m.solve(dp))) / norm : 0.0);
    run.energy_balance.push_back((first.energy() - e0 - first.force_work() - first.contact_work() -
                                  first.friction_work() - first.impact_energy_change()) /
                                 e0);
  }
  run.impacts[0] = first.impacts();
  run.impacts[1] = second.impacts();
  run.force_work[0] = first.force_work();
  run.force_work[1] = second.force_work();
  run.friction_work[0] = first.friction_work();
  run.friction_work[1] = second.friction_work();
  run.impact_energy_change[0] = first.impact_energy_change();
  run.impact_energy_change[1] = second.impact_energy_change();
  return run;
}

}  // namespace simpact
