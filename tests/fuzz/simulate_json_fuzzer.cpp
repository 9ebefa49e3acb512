// libFuzzer harness for the JSON front end of `simpact simulate` (tests/fuzz/README.md): the text
// goes through parse_simulate_request with the fuzz budget (simulate_budget.hpp: at most 200
// steps, 64 recorded states — a larger request is refused by the normal validation), then the
// in-process service builds the model, runs the integrator and serializes the report, as the
// command does.
//
// Expected, and so ignored: InputError (a malformed request, named by field), and the run-time
// failures the command reports with exit 1 — NewtonError, ImpactError, NonFiniteStateError.
// Anything else (a crash, a sanitizer report, another exception, a broken invariant below) is a
// bug.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/integrate/midpoint_integrator.hpp"
#include "simpact/integrate/simulation.hpp"
#include "simpact/io/impact_json.hpp"  // InputErrors: several independent mistakes
#include "simpact/study/simulate_service.hpp"
#include "simulate_budget.hpp"

namespace {

using simpact::fuzz::require;

void check_report(const simpact::SimulateRequest& request, const simpact::SimulateReport& report) {
  require(report.records.size() == request.record_steps.size(), "one record per requested step");
  const std::size_t dof = report.coordinates.size();
  require(dof >= 1, "a model has at least one coordinate");
  for (const auto& r : report.records) {
    require(r.step >= 0 && r.step <= request.steps, "recorded steps in [0, steps]");
    require(r.q.size() == dof && r.p.size() == dof, "recorded q and p have dof entries");
    // The integrator stops on a non-finite state (NonFiniteStateError): no NaN reaches a record.
    for (std::size_t i = 0; i < dof; ++i)
      require(std::isfinite(r.q[i]) && std::isfinite(r.p[i]), "recorded states are finite");
  }
  for (const auto& i : report.impacts) {
    require(i.step >= 1 && i.step <= request.steps, "impacts happen in steps 1..steps");
    require(!i.contacts.empty(), "an impact closes at least one contact");
    require(i.momentum_before.size() == dof && i.momentum_after.size() == dof,
            "impact momenta have dof entries");
  }
  require(report.work.size() == report.work_sources.size(), "one work entry per source");
  require(report.newton_max >= 0, "newton max >= 0");
}

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): the name libFuzzer calls
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  simpact::SimulateRequest request;
  try {
    request = simpact::parse_simulate_request(text, simpact::fuzz::simulate_budget());
  } catch (const simpact::InputErrors& e) {  // several independent mistakes: one line each
    for (const auto& one : e.errors()) {
      const std::string what = one.what();
      require(what.find('\n') == std::string::npos, "each of several InputErrors is one line");
      require(what.rfind(one.field() + ": ", 0) == 0, "each of several InputErrors starts with its field");
    }
    return 0;
  } catch (const simpact::InputError& e) {
    const std::string what = e.what();
    require(what.find('\n') == std::string::npos, "an InputError is one line");
    require(what.rfind(e.field() + ": ", 0) == 0, "an InputError starts with its field");
    return 0;
  }
  require(request.steps >= 0 && request.steps <= simpact::fuzz::kMaxFuzzSteps, "steps within the budget");
  require(request.record_steps.size() <= static_cast<std::size_t>(simpact::fuzz::kMaxFuzzRecords),
          "recorded states within the budget");
  require(request.dt >= simpact::kMinSimulateDt && request.dt <= simpact::kMaxSimulateDt, "dt in range");
  simpact::SimulateReport report;
  try {
    report = simpact::run_simulation(request);
  } catch (const simpact::InputError& e) {
    require(std::string(e.what()).find('\n') == std::string::npos, "an InputError is one line");
    return 0;
  } catch (const simpact::NewtonError&) {
    return 0;
  } catch (const simpact::ImpactError&) {
    return 0;
  } catch (const simpact::NonFiniteStateError&) {
    return 0;
  }
  check_report(request, report);
  const std::string out = simpact::simulation_to_json(request, report);
  require(out.size() > 2 && out.front() == '{' && out[out.size() - 2] == '}', "the output is a JSON object");
  return 0;
}
