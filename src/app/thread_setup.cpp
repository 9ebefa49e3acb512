#include "thread_setup.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <vector>

namespace simpact::app {

namespace {

constexpr int kMaxCpus = 1024;

std::vector<unsigned char> affinity_mask() {
  std::vector<unsigned char> mask(kMaxCpus, 0);
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < std::min(kMaxCpus, CPU_SETSIZE); ++c)
      mask[static_cast<std::size_t>(c)] = CPU_ISSET(c, &set) ? 1 : 0;
  } else {
    const unsigned n = std::max(1U, std::thread::hardware_concurrency());
    for (unsigned c = 0; c < std::min<unsigned>(n, kMaxCpus); ++c) mask[c] = 1;
  }
  return mask;
}

}  // namespace

int setup_threads(MPI_Comm comm, int requested) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_ranks = 1, node_rank = 0, world_rank = 0;
  MPI_Comm_size(node, &node_ranks);
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_rank(comm, &world_rank);
  const std::vector<unsigned char> mine = affinity_mask();
  std::vector<unsigned char> all(static_cast<std::size_t>(kMaxCpus) * static_cast<std::size_t>(node_ranks));
  MPI_Allgather(mine.data(), kMaxCpus, MPI_UNSIGNED_CHAR, all.data(), kMaxCpus, MPI_UNSIGNED_CHAR, node);

  int my_cores = 0, sharing = 0;  // sharing: ranks on this node whose mask overlaps mine (me included)
  std::vector<unsigned char> node_cores(kMaxCpus, 0);
  for (int c = 0; c < kMaxCpus; ++c) my_cores += mine[static_cast<std::size_t>(c)];
  for (int r = 0; r < node_ranks; ++r) {
    bool overlap = false;
    for (int c = 0; c < kMaxCpus; ++c) {
      const unsigned char bit = all[static_cast<std::size_t>(r) * kMaxCpus + static_cast<std::size_t>(c)];
      node_cores[static_cast<std::size_t>(c)] |= bit;
      overlap = overlap || (bit && mine[static_cast<std::size_t>(c)]);
    }
    sharing += overlap ? 1 : 0;
  }
  int cores = 0;
  for (unsigned char b : node_cores) cores += b;

  const char* env = std::getenv("OMP_NUM_THREADS");
  int threads = 0;
  if (requested > 0) {
    threads = requested;
    omp_set_num_threads(threads);
  } else if (env != nullptr && *env != '\0') {
    threads = omp_get_max_threads();  // the OpenMP runtime has parsed it
  } else {
    threads = std::max(1, my_cores / std::max(1, sharing));
    omp_set_num_threads(threads);
  }
  int node_threads = 0;
  MPI_Allreduce(&threads, &node_threads, 1, MPI_INT, MPI_SUM, node);
  int oversubscribed = node_threads > cores ? 1 : 0;
  int any = 0;
  MPI_Allreduce(&oversubscribed, &any, 1, MPI_INT, MPI_MAX, comm);
  if (any != 0 && world_rank == 0)
    spdlog::warn(
        "{} rank(s) x {} thread(s) on a node with {} usable core(s): oversubscribed, expect slow "
        "progress ({})",
        node_ranks, threads, cores,
        threads > 1 ? "lower --threads or OMP_NUM_THREADS"
                    : fmt::format("use at most {} rank(s) per node", cores));
  MPI_Comm_free(&node);
  return threads;
}

}  // namespace simpact::app
