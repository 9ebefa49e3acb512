// Time stepping allocates nothing per step without impacts (fixed-maximum-size Eigen storage, the
// Newton factorization kept in the Simulator's MidpointWorkspace). Counted at the malloc level — Eigen's dynamic matrices call malloc
// directly, and libstdc++'s operator new goes through malloc too — by interposing the malloc
// family in this executable (forwarding to glibc's __libc_* entry points) and counting only
// while a flag is set, so the other tests in this executable are unaffected.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "simpact/integrate/dynamic_models.hpp"
#include "simpact/integrate/simulation.hpp"

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* ptr, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void __libc_free(void* ptr);
}

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
inline void note_allocation() {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

extern "C" {
void* malloc(std::size_t size) {
  note_allocation();
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
  note_allocation();
  return __libc_calloc(count, size);
}
void* realloc(void* ptr, std::size_t size) {
  note_allocation();
  return __libc_realloc(ptr, size);
}
void free(void* ptr) {
  __libc_free(ptr);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  note_allocation();
  return __libc_memalign(alignment, size);
}
void* memalign(std::size_t alignment, std::size_t size) {
  note_allocation();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  note_allocation();
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
}

namespace simpact {
namespace {

template <typename Fn>
long count_allocations(Fn&& fn) {
  g_allocations.store(0);
  g_counting.store(true);
  fn();
  g_counting.store(false);
  return g_allocations.load();
}

TEST(IntegrateAllocation, StepsWithoutImpactsAllocateNothing) {
  for (int which = 0; which < 3; ++which) {
    const DynamicSystem s = which == 0 ? make_chain(8) : which == 1 ? make_tree8() : make_chain(3, 1.0, 1.0, 9.81, 0.2);
    const int n = s.model->dof();
    SimulationOptions o;
    o.dt = 1e-3;  // energy monitoring on (the default)
    Simulator sim(*s.model, o);
    sim.reset(DofVector::Constant(n, 0.3), DofVector::Zero(n));
    for (int k = 0; k < 100; ++k) sim.advance();
    EXPECT_EQ(count_allocations([&] {
                for (int k = 0; k < 2000; ++k) sim.advance();
              }),
              0)
        << s.model->name();
    EXPECT_GT(sim.jacobian_factorizations(), 0);
  }
}

}  // namespace
}  // namespace simpact
