// The fuzz harnesses' budget for time-stepped runs: one input must run in milliseconds under the
// sanitizers, so a request may ask for at most this much work. The JSON harness passes the bounds
// to parse_simulate_request (SimulateLimits), so a larger request is refused by the normal
// validation, with the normal one-line error; the config harness runs a `simulate:` task only
// when its step count and record fit the same bounds (it only builds the model otherwise).
//
// Why these numbers: a step of the 16-link chain costs ~20 µs in Release and ~1 ms under ASan +
// UBSan + coverage at -O1, and an impact's localization up to ~200 sub-steps; 200 steps keep a
// worst-case input well under libFuzzer's 5 s timeout.
#pragma once

#include "simpact/io/simulate_json.hpp"

namespace simpact::fuzz {

inline constexpr long kMaxFuzzSteps = 200;
inline constexpr long kMaxFuzzRecords = 64;

inline SimulateLimits simulate_budget() {
  SimulateLimits limits;
  limits.max_steps = kMaxFuzzSteps;
  limits.max_records = kMaxFuzzRecords;
  return limits;
}

}  // namespace simpact::fuzz
