// The fuzz harnesses' budget for time-stepped runs: one input must run in milliseconds under the
// sanitizers, so a request may ask for at most this much work. The JSON harness passes the bounds
// to parse_simulate_request (SimulateLimits), so a larger request is refused by the normal
// validation, with the normal one-line error; the config harness runs a `simulate:` task only
// when its step count and record fit the same bounds (it only builds the model otherwise).
//
// Why these numbers: under ASan + UBSan + coverage at -O1 (scripts/fuzz.sh) the seed chain16.json
// (16 links, 50 steps) runs in 42 ms, so 200 steps of the largest chain stay well under
// libFuzzer's 5 s timeout; a 300 s run (440 961 inputs) had no input slower than 1 s.
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
