// Dynamic load balancing across ranks: a shared counter on rank 0 advanced with the one-sided
// atomic MPI_Fetch_and_op, so a rank that finishes early simply claims the next chunk; no rank
// waits on a coordinator. Collective to construct and destroy. The cost model of the claims at
// scale, and how it was checked: docs/scaling.md.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace simpact {

// One rank's claims: how many, and the wall time spent inside them (lock, fetch-and-add,
// unlock on rank 0's window: the round trip plus any queueing behind other ranks' claims).
struct ClaimStatistics {
  std::int64_t claims = 0;  // calls of next(), the last one (−1: nothing left) included
  double wait_seconds = 0.0;
  double max_wait_seconds = 0.0;
};

class ChunkScheduler {
 public:
  ChunkScheduler(MPI_Comm comm, std::int64_t total);
  ~ChunkScheduler();  // frees the window: collective, so every rank must leave its loop
  ChunkScheduler(const ChunkScheduler&) = delete;
  ChunkScheduler& operator=(const ChunkScheduler&) = delete;
  // The next unclaimed index in [0, total), or −1 when all are claimed.
  std::int64_t next();
  // Claims everything left: every rank's next() returns −1 from now on (a rank that failed stops
  // the others after their chunk in hand, instead of leaving them to compute the whole sweep).
  void stop_all();
  const ClaimStatistics& statistics() const { return statistics_; }

 private:
  MPI_Win window_ = MPI_WIN_NULL;
  std::int64_t* counter_ = nullptr;
  std::int64_t total_ = 0;
  ClaimStatistics statistics_;
};

}  // namespace simpact
