// Energy-balance diagnostic for the TREX Fig. 8 run (docs/trex.md "Energy bookkeeping"): one
// copy (argmin) of a gait, the balance residual
//   B = (E − E₀ − W_forces − W_contacts − W_friction − ΔE_impacts)/E₀
// after every step, its jump per step and what the step did (impact, resting set, friction).
// stdout: CSV per step; stderr: the largest jumps and the sum of |jumps| per kind of step.
// usage: trex_energy [DT_S [T_AFTER_S [GAIT(1 initial, 2 optimized) [MU [NAME=VALUE ...]]]]]
//   (NAME=VALUE: any other `trex` model parameter, e.g. hip_kv=100, or force_split=1 for the
//   integrator's NewtonOptions::force_split)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "simpact/core/parameter_set.hpp"
#include "simpact/integrate/simulation.hpp"
#include "simpact/integrate/trex_gait.hpp"
#include "simpact/models/dynamic_models.hpp"

int main(int argc, char** argv) {
  using namespace simpact;
  const double dt = argc > 1 ? std::atof(argv[1]) : 1e-4;
  const double after = argc > 2 ? std::atof(argv[2]) : 0.1;
  const int gait = argc > 3 ? std::atoi(argv[3]) : 2;
  const double mu = argc > 4 ? std::atof(argv[4]) : 0.5;
  if (!(dt > 0.0 && after > 0.0 && (gait == 1 || gait == 2) && mu >= 0.0)) {
    std::fprintf(stderr, "usage: trex_energy [DT_S > 0 [T_AFTER_S > 0 [GAIT 1|2 [MU >= 0]]]]\n");
    return 2;
  }
  const TrexTableRow row = trex_table1_optimized();
  ParameterSet params;
  params.set("r1", row.design.r1);
  params.set("r2", row.design.r2);
  params.set("l_u", row.design.l_u);
  params.set("l_l", row.design.l_l);
  const auto names = TrexGeometry::coordinate_names();
  for (int i = kTrexTheta; i < kTrexDof; ++i) params.set(names[static_cast<std::size_t>(i)], row.q[i]);
  params.set("gait", gait);
  params.set("mu", mu);
  double force_split = 0.5;
  for (int a = 5; a < argc; ++a) {
    const std::string arg = argv[a];
    const auto eq = arg.find('=');
    if (eq == std::string::npos) {
      std::fprintf(stderr, "trex_energy: expected NAME=VALUE, got '%s'\n", argv[a]);
      return 2;
    }
    if (arg.substr(0, eq) == "force_split")
      force_split = std::atof(arg.c_str() + eq + 1);
    else
      params.set(arg.substr(0, eq), std::atof(arg.c_str() + eq + 1));
  }
  const DynamicSystem system = make_dynamic_system("trex", params);
  const Mechanism& model = *system.model;
  SimulationOptions options;
  options.dt = dt;
  options.monitor_energy = false;
  options.newton.force_split = force_split;
  Simulator sim(model, options);
  sim.reset(system.q0, model.mass_matrix(system.q0) * system.v0);
  const double e0 = sim.energy();
  const long steps = static_cast<long>(std::ceil((std::sqrt(2.0 * 0.17 / 9.81) + after) / dt));
  auto balance = [&] {
    return (sim.energy() - e0 - sim.force_work() - sim.contact_work() - sim.friction_work() -
            sim.impact_energy_change()) /
           e0;
  };
  struct Jump {
    double size;
    long step;
    std::string kind;
  };
  std::vector<Jump> jumps;
  std::map<std::string, std::pair<double, long>> per_kind;  // sum |jump|, steps
  std::printf("step,t,balance,jump,impacts,resting_before,resting_after,kind\n");
  double b = balance(), worst = 0.0;
  for (long k = 0; k < steps; ++k) {
    const std::size_t impacts = sim.impacts().size();
    const int resting = sim.resting().count;
    const DynVector q1 = sim.q(), p1 = sim.p();
    const double t1 = sim.t(), wf1 = sim.force_work(), wc1 = sim.contact_work() + sim.friction_work();
    sim.advance();
    if (std::getenv("TREX_ENERGY_SPLIT") && resting > 0 && sim.resting().count == resting &&
        sim.impacts().size() == impacts) {
      // A plain resting step: split its energy change (the impulse J = p₂ − p₁ − h·g, g the DEL's
      // T_q − V_q + F at the midpoint) into the impulse's jump at q₁ and the DEL step after it.
      const DynVector dq = sim.q() - q1, qm = q1 + 0.5 * dq, v = dq / dt;
      KineticDerivatives kd;
      model.kinetic(qm, v, false, kd);
      DynVector vq, f;
      model.potential(qm, vq, nullptr);
      model.force(qm, v, t1 + 0.5 * dt, f, nullptr, nullptr);
      const DynVector g = kd.t_q - vq + f, j = sim.p() - p1 - dt * g;
      const double e1 = model.energy(q1, p1), e1j = model.energy(q1, p1 + j), e2 = sim.energy();
      std::fprintf(stderr,
                   "step %ld: dE %.3e  impulse jump %.3e (booked %.3e)  DEL part %.3e (F.dq %.3e, booked "
                   "%.3e)  |J| %.3e |h g| %.3e  T(v) %.3e T(p2) %.3e\n",
                   k + 1, e2 - e1, e1j - e1, sim.contact_work() + sim.friction_work() - wc1, e2 - e1j,
                   f.dot(dq), sim.force_work() - wf1, j.norm(), dt * g.norm(), 0.5 * v.dot(kd.mass * v),
                   e2 - model.energy(sim.q(), DynVector::Zero(v.size())));
    }
    const double b2 = balance(), jump = b2 - b;
    b = b2;
    worst = std::max(worst, std::abs(b2));
    const int now = sim.resting().count;
    const bool impact = sim.impacts().size() > impacts;
    const std::string kind = impact           ? "impact"
                             : now != resting ? "resting set changed"
                             : now > 0        ? "resting contacts"
                                              : "free";
    auto& [sum, count] = per_kind[kind];
    sum += std::abs(jump);
    ++count;
    jumps.push_back({jump, k + 1, kind});
    std::printf("%ld,%.9g,%.6e,%.6e,%zu,%d,%d,%s\n", k + 1, sim.t(), b2, jump, sim.impacts().size(), resting,
                now, kind.c_str());
  }
  std::sort(jumps.begin(), jumps.end(),
            [](const Jump& a, const Jump& c) { return std::abs(a.size) > std::abs(c.size); });
  std::fprintf(stderr, "gait %d, dt %g, mu %g: final balance %.3e, max |balance| %.3e; largest jumps:\n",
               gait, dt, mu, b, worst);
  for (std::size_t i = 0; i < std::min<std::size_t>(10, jumps.size()); ++i)
    std::fprintf(stderr, "  step %ld (t = %.4f s): jump %+.3e (%s)\n", jumps[i].step,
                 static_cast<double>(jumps[i].step) * dt, jumps[i].size, jumps[i].kind.c_str());
  for (const auto& [kind, v] : per_kind)
    std::fprintf(stderr, "  %-20s steps %6ld, sum |jump| %.3e\n", kind.c_str(), v.second, v.first);
  return 0;
}
