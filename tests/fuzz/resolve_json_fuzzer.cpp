// libFuzzer harness for the JSON front end of `simpact resolve` and `simpact check`
// (tests/fuzz/README.md): the text goes through resolve_json and check_json whole — parse,
// validate, resolve with the request's own limits, serialize. InputError (a malformed or
// inadmissible request, named by field) is expected; anything else is a bug.
//
// At most one of the two resolves: a request with momentum_after/velocity_after is rejected by
// resolve_json's key check, one without it by check_json before resolving. The limits a request
// may set (max_nodes up to 1e12) allow inputs that take seconds legitimately: libFuzzer's
// -timeout reports those, and the README says how to tell them from a hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/study/impact_service.hpp"

// NOLINTNEXTLINE(readability-identifier-naming): the name libFuzzer calls
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const std::string out = simpact::resolve_json(text);
    simpact::fuzz::require(!out.empty() && out.front() == '{', "resolve_json returns a JSON object");
  } catch (const simpact::InputError&) {
  }
  try {
    const std::string out = simpact::check_json(text);
    simpact::fuzz::require(!out.empty() && out.front() == '{', "check_json returns a JSON object");
  } catch (const simpact::InputError&) {
  }
  return 0;
}
