// The JSON request of `simpact simulate` (include/simpact/io/simulate_json.hpp) against hostile
// input, the cases the simulate fuzzer found (tests/fuzz/corpus/simulate/crash_*): every one is a
// one-line InputError naming the field and what is allowed — a number beyond the doubles, a
// repeated key, too many recorded states, dt outside [1e-12, 1e6], a name that is empty, long or
// not printable (escaped in the message, the empty key shown as "") — and the limits a caller
// passes (SimulateLimits) refuse a larger request before it runs.
#include "simpact/io/simulate_json.hpp"

#include <gtest/gtest.h>

#include <string>

#include "simpact/core/input_error.hpp"
#include "simpact/integrate/simulation.hpp"
#include "simpact/study/simulate_service.hpp"

namespace simpact {
namespace {

// The InputError of parsing `text` (with `limits`): its field, and its message in `message`.
std::string error_field(const std::string& text, std::string* message = nullptr,
                        const SimulateLimits& limits = {}) {
  try {
    parse_simulate_request(text, limits);
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_EQ(what.rfind(e.field() + ": ", 0), 0u) << what;
    for (const char c : what)
      EXPECT_GE(static_cast<unsigned char>(c), 0x20) << "a raw control byte in: " << what;
    if (message != nullptr) *message = what;
    return e.field();
  }
  ADD_FAILURE() << "no InputError for " << text;
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(SimulateJsonErrors, NumberOverflowNamesTheField) {
  std::string m;
  EXPECT_EQ(error_field(R"({"model": "chain", "dt": 1e999, "steps": 10})", &m), "dt");
  EXPECT_TRUE(contains(m, "1e999") && contains(m, "beyond the range of a double")) << m;
  EXPECT_EQ(error_field(R"({"model": "chain", "params": {"n": -1e999}, "dt": 0.01, "steps": 1})"),
            "params.n");
  EXPECT_EQ(error_field(R"({"model": "chain", "q0": [0, 1e400], "dt": 0.01, "steps": 1})"), "q0[1]");
  EXPECT_EQ(error_field(R"({"model": "chain", "dt": 0.01, "steps": 1, "newton": {"tolerance": 1e309}})"),
            "newton.tolerance");
  EXPECT_EQ(error_field(R"({"model": "chain", "dt": 0.01, "steps": 5, "record": {"steps": [[1], 2e999]}})"),
            "record.steps[1]");
  EXPECT_EQ(error_field("1e999"), "input");
}

TEST(SimulateJsonErrors, DuplicateKeysNameTheField) {
  std::string m;
  EXPECT_EQ(error_field(R"({"model": "chain", "dt": 0.01, "dt": 100, "steps": 10})", &m), "dt");
  EXPECT_TRUE(contains(m, "duplicate key")) << m;
  EXPECT_EQ(error_field(R"({"model": "chain", "params": {"n": 2, "n": 16}, "dt": 0.01, "steps": 1})"),
            "params.n");
  EXPECT_EQ(error_field(R"({"model": "chain", "dt": 0.01, "steps": 1, "newton": {"max_iterations": 2,
                            "max_iterations": 3}})"),
            "newton.max_iterations");
}

TEST(SimulateJsonErrors, RecordedStatesAreCapped) {
  std::string m;
  // Every step of 10^9 would be 10^9 states in memory: refused, naming the cap.
  EXPECT_EQ(error_field(R"({"model": "chain", "dt": 1e-6, "steps": 1000000000, "record": {"every": 1}})", &m),
            "record.every");
  EXPECT_TRUE(contains(m, "1000000001 states") && contains(m, "at most 100000 recorded states")) << m;
  // 10^5 states exactly (every 10^4 of 10^9 steps, the final one included): allowed.
  EXPECT_EQ(parse_simulate_request(
                R"({"model": "chain", "dt": 1e-6, "steps": 999990000, "record": {"every": 10000}})")
                .record_steps.size(),
            100000u);
  EXPECT_EQ(error_field(R"({"model": "chain", "dt": 1e-6, "steps": 1000000000, "record": {"every": 10000}})"),
            "record.every");
  std::string entries = "[0";
  for (int i = 0; i < 100000; ++i) entries += ",1";
  entries += "]";
  EXPECT_EQ(
      error_field(R"({"model": "chain", "dt": 0.01, "steps": 1, "record": {"steps": )" + entries + "}}", &m),
      "record.steps");
  EXPECT_TRUE(contains(m, "100001 entries") && contains(m, "at most 100000")) << m;
}

// Issue 39: a run of no step, and record.steps out of order or repeated (silently reordered, or
// recorded twice), are refused naming the field.
TEST(SimulateJsonErrors, StepsAndRecordedStepsAreARun) {
  std::string m;
  EXPECT_EQ(error_field(R"({"model": "chain", "dt": 0.01, "steps": 0})"), "steps");
  EXPECT_EQ(error_field(R"({"model": "chain", "dt": 0.01, "t_end": 0})"), "t_end");
  EXPECT_EQ(error_field(R"({"model": "chain", "dt": 0.01, "steps": 9, "record": {"steps": [1, 5, 3]}})", &m),
            "record.steps[2]");
  EXPECT_TRUE(contains(m, "increasing order")) << m;
  EXPECT_EQ(error_field(R"({"model": "chain", "dt": 0.01, "steps": 9, "record": {"steps": [4, 4]}})"),
            "record.steps[1]");
  EXPECT_EQ(
      parse_simulate_request(R"({"model": "chain", "dt": 0.01, "steps": 9, "record": {"steps": [0, 4, 9]}})")
          .record_steps,
      (std::vector<long>{0, 4, 9}));
}

TEST(SimulateJsonErrors, DtLiesInItsRange) {
  std::string m;
  for (const char* dt : {"1e-300", "9.9e-13", "0", "-1", "1.0000001e6", "1e300"}) {
    EXPECT_EQ(error_field(std::string(R"({"model": "chain", "steps": 1, "dt": )") + dt + "}", &m), "dt")
        << dt;
    EXPECT_TRUE(contains(m, "is outside [1e-12, 1e6] s")) << m;
  }
  EXPECT_EQ(parse_simulate_request(R"({"model": "chain", "steps": 1, "dt": 1e-12})").dt, 1e-12);
  EXPECT_EQ(parse_simulate_request(R"({"model": "chain", "steps": 1, "dt": 1e6})").dt, 1e6);
}

TEST(SimulateJsonErrors, NamesArePrintableAndEscaped) {
  std::string m;
  EXPECT_EQ(error_field(R"({"model": "cha\u0000in\n\u001b[31m", "dt": 0.01, "steps": 1})", &m), "model");
  EXPECT_TRUE(contains(m, R"('cha\x00in\x0a\x1b[31m')") && contains(m, "1-64 printable ASCII characters"))
      << m;
  EXPECT_EQ(error_field(R"({"model": "", "dt": 0.01, "steps": 1})", &m), "model");
  EXPECT_TRUE(contains(m, R"("" is not a model name)")) << m;
  EXPECT_EQ(error_field(R"({"model": ")" + std::string(65, 'c') + R"(", "dt": 0.01, "steps": 1})"), "model");
  EXPECT_EQ(parse_simulate_request(R"({"model": ")" + std::string(64, 'c') + R"(", "dt": 0.01, "steps": 1})")
                .model.size(),
            64u);
  // Keys: the empty key is named "", control characters are escaped.
  EXPECT_EQ(error_field(R"({"": 1, "model": "chain", "dt": 0.01, "steps": 1})", &m), R"("")");
  EXPECT_TRUE(contains(m, "unknown field (allowed: _comment, model")) << m;
  EXPECT_EQ(error_field(R"({"model": "chain", "params": {"": 1}, "dt": 0.01, "steps": 1})", &m),
            R"(params."")");
  EXPECT_TRUE(contains(m, "is not a parameter name (names are 1-64 printable ASCII characters)")) << m;
  EXPECT_EQ(error_field(R"({"model": "chain", "params": {"n\r\nx": 1}, "dt": 0.01, "steps": 1})"),
            R"(params.n\x0d\x0ax)");
  EXPECT_EQ(error_field(R"({"st\u0001eps": 1, "model": "chain", "dt": 0.01, "steps": 1})"), R"(st\x01eps)");
  EXPECT_EQ(error_field(R"({"model": "chain", "dt": 0.01, "steps": 1, "ordering": "arg\nmin"})", &m),
            "ordering");
  EXPECT_TRUE(contains(m, R"('arg\x0amin' is not a single ordering)")) << m;
  EXPECT_EQ(error_field(R"({"model": "chain", "dt": 0.01, "steps": 1, "newton": {"": 1}})"), R"(newton."")");
}

TEST(SimulateJsonErrors, LimitsRefuseLargerRequestsBeforeRunning) {
  SimulateLimits budget;
  budget.max_steps = 200;
  budget.max_records = 64;
  std::string m;
  EXPECT_EQ(error_field(R"({"model": "chain", "dt": 0.01, "steps": 201})", &m, budget), "steps");
  EXPECT_TRUE(contains(m, "[1, 200]")) << m;
  EXPECT_EQ(error_field(R"({"model": "chain", "dt": 0.01, "t_end": 2.01})", &m, budget), "t_end");
  EXPECT_EQ(
      error_field(R"({"model": "chain", "dt": 0.01, "steps": 200, "record": {"every": 3}})", &m, budget),
      "record.every");
  EXPECT_TRUE(contains(m, "67 states") && contains(m, "at most 64")) << m;
  const SimulateRequest r = parse_simulate_request(R"({"model": "chain", "dt": 0.01, "t_end": 2})", budget);
  EXPECT_EQ(r.steps, 200);
}

// The parsed request runs through the service (the overload the fuzz harness uses) exactly as the
// text does: the same report.
TEST(SimulateService, RequestOverloadMatchesTheText) {
  const std::string text = R"({"model": "cradle", "dt": 0.001, "steps": 200, "record": {"steps": [0, 200]}})";
  const SimulateRun run = run_simulation(text);
  const SimulateReport report = run_simulation(parse_simulate_request(text));
  EXPECT_EQ(simulation_to_json(run.request, run.report), simulation_to_json(run.request, report));
  ASSERT_EQ(report.records.size(), 2u);
  EXPECT_NEAR(report.records[1].p[2], 1.0, 1e-9);  // the cradle ends at [0, 0, v]
}

// An initial momentum beyond the doubles (p0 = M v0 = 1e9 · 1e300) is stopped before the first step.
TEST(SimulateService, NonFiniteInitialStateIsARuntimeError) {
  const std::string text =
      R"({"model": "cradle", "params": {"mass": 1e9}, "v0": [1e300, 0, 0], "dt": 0.01, "steps": 2})";
  try {
    run_simulation(text);
    ADD_FAILURE() << "no NonFiniteStateError";
  } catch (const NonFiniteStateError& e) {
    EXPECT_EQ(e.step(), 0);
    EXPECT_TRUE(contains(e.what(), "step 0 (t = 0 s): the state is not finite")) << e.what();
  }
}

}  // namespace
}  // namespace simpact
