// Shared by the fuzz harnesses: an invariant that must hold for every input. A failure aborts,
// which libFuzzer (and the replay runner) report as a crash with the input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace simpact::fuzz {

inline void require(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
  std::abort();
}

}  // namespace simpact::fuzz
