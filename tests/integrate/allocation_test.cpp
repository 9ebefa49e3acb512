// Time stepping allocates nothing per step without impacts: the dynamic-size vectors of a step
// (Newton's iterates, the DEL terms, the energy monitor's factor, the forces' work) live in the
// Simulator and its MidpointWorkspace, sized at the first step, and the Newton factorization is
// kept there too. Counted at the
// malloc level — Eigen's dynamic matrices call malloc directly, and libstdc++'s operator new goes through
// malloc too — by interposing the malloc family in this executable (forwarding to glibc's __libc_* entry
// points) and counting only while a flag is set, so the other tests in this executable are unaffected.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "simpact/integrate/simulation.hpp"
#include "simpact/models/dynamic_models.hpp"
// After every other header: it defines malloc and friends (C library declarations first).
#include "../support/malloc_counter.hpp"

namespace simpact {
namespace {

using test::count_allocations;

TEST(IntegrateAllocation, StepsWithoutImpactsAllocateNothing) {
  for (int which = 0; which < 3; ++which) {
    const DynamicSystem s = which == 0   ? make_chain(8)
                            : which == 1 ? make_tree8()
                                         : make_chain(3, 1.0, 1.0, 9.81, 0.2);
    const int n = s.model->dof();
    SimulationOptions o;
    o.dt = 1e-3;  // energy monitoring on (the default)
    Simulator sim(*s.model, o);
    sim.reset(DynVector::Constant(n, 0.3), DynVector::Zero(n));
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
