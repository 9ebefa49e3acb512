// A batch loop for callers outside the OpenMP layers (the Python module's Mechanism: place and
// the mass matrix, gaps and normals of B states): items 0..batch−1 on `threads` OpenMP threads
// (≤ 0: OpenMP's default), dynamically scheduled. body(item, thread) gets a thread index in
// 0..threads−1, for per-thread workspaces; every item runs even after one failed, and the first
// failing item by index is rethrown after the loop (an InputError as BatchInputError naming the
// item), so what is reported does not depend on the thread count or timing.
#pragma once

#include <functional>

namespace simpact {

void for_each_batch_item(long batch, int threads, const std::function<void(long item, int thread)>& body);

}  // namespace simpact
