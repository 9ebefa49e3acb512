#include "simpact/sweep/chunk_scheduler.hpp"

#include <algorithm>
#include <chrono>

namespace simpact {

ChunkScheduler::ChunkScheduler(MPI_Comm comm, std::int64_t total) : total_(total) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const MPI_Aint bytes = rank == 0 ? static_cast<MPI_Aint>(sizeof(std::int64_t)) : 0;
  MPI_Win_allocate(bytes, sizeof(std::int64_t), MPI_INFO_NULL, comm, &counter_, &window_);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, window_);
    *counter_ = 0;
    MPI_Win_unlock(0, window_);
  }
  MPI_Barrier(comm);  // nobody claims before the counter is initialized
}

ChunkScheduler::~ChunkScheduler() {
  if (window_ != MPI_WIN_NULL) MPI_Win_free(&window_);
}

std::int64_t ChunkScheduler::next() {
  const std::int64_t one = 1;
  std::int64_t claimed = 0;
  const auto start = std::chrono::steady_clock::now();
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, window_);
  MPI_Fetch_and_op(&one, &claimed, MPI_INT64_T, 0, 0, MPI_SUM, window_);
  MPI_Win_unlock(0, window_);
  const double wait = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ++statistics_.claims;
  statistics_.wait_seconds += wait;
  statistics_.max_wait_seconds = std::max(statistics_.max_wait_seconds, wait);
  return claimed < total_ ? claimed : -1;
}

void ChunkScheduler::stop_all() {
  const std::int64_t all = total_;
  std::int64_t ignored = 0;
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, window_);
  MPI_Fetch_and_op(&all, &ignored, MPI_INT64_T, 0, 0, MPI_SUM, window_);
  MPI_Win_unlock(0, window_);
}

}  // namespace simpact
