// ChunkScheduler under mpirun -n 1 and -n 2 (tests/sweep/CMakeLists.txt): every index in
// [0, total) is claimed exactly once over all ranks, then every rank gets −1 (repeatedly);
// on one rank the claims come in order 0, 1, 2, …; total 0 claims nothing; a second scheduler
// on the same communicator starts again from 0; every claim is counted and timed. Exits non-zero
// (with a line) on any failure.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

#include "simpact/study/mpi_startup.hpp"
#include "simpact/sweep/chunk_scheduler.hpp"

namespace {

int failures = 0;

void check(bool ok, const char* what, long long a = 0, long long b = 0) {
  if (ok) return;
  ++failures;
  std::fprintf(stderr, "FAIL: %s (%lld, %lld)\n", what, a, b);
}

// Claims until −1; returns this rank's claims in claim order.
std::vector<std::int64_t> claim_all(MPI_Comm comm, std::int64_t total) {
  simpact::ChunkScheduler scheduler(comm, total);
  std::vector<std::int64_t> mine;
  for (std::int64_t c = scheduler.next(); c >= 0; c = scheduler.next()) mine.push_back(c);
  // Counted and timed (docs/scaling.md): every call of next(), the one that found nothing too.
  const simpact::ClaimStatistics& stats = scheduler.statistics();
  check(stats.claims == static_cast<std::int64_t>(mine.size()) + 1, "claims counted: own + the empty one",
        stats.claims, static_cast<long long>(mine.size()));
  check(stats.wait_seconds >= stats.max_wait_seconds && stats.max_wait_seconds >= 0.0 &&
            stats.wait_seconds < 60.0,
        "claim waits: 0 <= max <= total", static_cast<long long>(1e9 * stats.max_wait_seconds),
        static_cast<long long>(1e9 * stats.wait_seconds));
  for (int i = 0; i < 3; ++i) check(scheduler.next() == -1, "exhausted scheduler returns -1");
  check(scheduler.statistics().claims == static_cast<std::int64_t>(mine.size()) + 4, "every call counted",
        scheduler.statistics().claims, static_cast<long long>(mine.size()));
  return mine;
}

void run(MPI_Comm comm, std::int64_t total) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::vector<std::int64_t> mine = claim_all(comm, total);
  for (std::size_t i = 1; i < mine.size(); ++i)
    check(mine[i] > mine[i - 1], "a rank's claims increase", mine[i - 1], mine[i]);
  if (size == 1) {
    std::vector<std::int64_t> expected(static_cast<std::size_t>(total));
    std::iota(expected.begin(), expected.end(), 0);
    check(mine == expected, "one rank claims 0..total-1 in order", static_cast<long long>(mine.size()),
          total);
  }
  const int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::vector<std::int64_t> all;
  if (rank == 0) {
    std::partial_sum(counts.begin(), counts.end() - 1, offsets.begin() + 1);
    all.resize(static_cast<std::size_t>(offsets.back() + counts.back()));
  }
  MPI_Gatherv(mine.data(), count, MPI_INT64_T, all.data(), counts.data(), offsets.data(), MPI_INT64_T, 0,
              comm);
  if (rank == 0) {
    check(static_cast<std::int64_t>(all.size()) == total, "claims over all ranks = total",
          static_cast<long long>(all.size()), total);
    std::sort(all.begin(), all.end());
    for (std::size_t i = 0; i < all.size(); ++i)
      check(all[i] == static_cast<std::int64_t>(i), "every index claimed exactly once", all[i],
            static_cast<long long>(i));
  }
}

}  // namespace

int main() {
  simpact::init_mpi_funneled();  // as the program starts it (no fabric probing)
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (std::int64_t total : {0, 1, 7, 1000}) run(MPI_COMM_WORLD, total);
  run(MPI_COMM_WORLD, 1000);  // a fresh scheduler starts from 0 again
  int all_failures = 0;
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%s: chunk scheduler at %d rank(s)\n", all_failures ? "FAIL" : "ok", size);
  MPI_Finalize();
  return all_failures == 0 ? 0 : 1;
}
