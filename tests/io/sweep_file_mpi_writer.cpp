// Writes a sweep file from every rank of MPI_COMM_WORLD, each rank a distinct uneven slab and
// one rank nothing per call, then checks the result on rank 0. ctest runs it at 1, 2 and 4
// ranks and compares the files (tests/io/CMakeLists.txt):
//   mpirun -n 4 sweep_file_mpi_writer out.h5
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "simpact/io/sweep_file.hpp"
#include "simpact/study/mpi_startup.hpp"

namespace {

using simpact::SweepFile;

constexpr std::int64_t kRows = 300, kColumns = 500;  // 150000 points: several HDF5 chunks
constexpr std::int64_t kPoints = kRows * kColumns;
constexpr std::int64_t kTasks = 1000;
constexpr std::int64_t kChunks = 9;

double map_value(std::size_t map, std::int64_t point) {
  return std::sin(0.001 * static_cast<double>(point) + static_cast<double>(map)) * 1e3 +
         static_cast<double>(point);
}
double sample_x(std::int64_t task) {
  return 0.5 * static_cast<double>(task) - 3.0;
}
std::int64_t sample_k(std::int64_t task) {
  return task * task - 7;
}

simpact::SweepFileLayout layout() {
  simpact::SweepFileLayout l;
  simpact::AxisSpec a{"alpha", "rad", "first angle", {}};
  simpact::AxisSpec b{"beta", "1", "mass ratio", {}};
  for (std::int64_t i = 0; i < kRows; ++i) a.values.push_back(0.01 * static_cast<double>(i));
  for (std::int64_t j = 0; j < kColumns; ++j) b.values.push_back(1.0 + static_cast<double>(j));
  l.axes = {a, b};
  l.maps = {{"", "xi", "1", "coefficient of restitution"},
            {"energy", "after_mean", "J", "energy after, mean"},
            {"stats/deep", "m", "1", "a map in a nested group"}};
  l.samples = {{"x", "m", "sampled x", false}, {"k", "1", "an integer column", true}};
  l.task_count = kTasks;
  l.chunk_count = kChunks;
  l.config_text = "# test config\nsweep: {alpha: [0, 3]}\n";
  l.config_hash = "0f1e2d3c4b5a";
  l.root_string_attributes = {{"model", "test"}, {"sampling", "grid"}};
  return l;
}

// This rank's part [first, first+count) of [begin, end): the ranks other than `idle` share it
// with weights 1, 2, 3, ... (idle writes nothing, unless it is the only rank).
std::pair<std::int64_t, std::int64_t> slab(std::int64_t begin, std::int64_t end, int rank, int size,
                                           int idle) {
  if (size > 1 && rank == idle) return {begin, 0};
  std::vector<int> workers;
  for (int r = 0; r < size; ++r) {
    if (size == 1 || r != idle) workers.push_back(r);
  }
  const std::int64_t n = static_cast<std::int64_t>(workers.size());
  const std::int64_t total_weight = n * (n + 1) / 2;
  std::int64_t weight_before = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    const std::int64_t first = begin + (end - begin) * weight_before / total_weight;
    weight_before += j + 1;
    const std::int64_t last = begin + (end - begin) * weight_before / total_weight;
    if (workers[static_cast<std::size_t>(j)] == rank) return {first, last - first};
  }
  return {begin, 0};
}

simpact::ProvenanceRow provenance(int ranks, const std::string& start, std::int64_t done) {
  simpact::ProvenanceRow r;
  r.version = "0.1.0";
  r.git_revision = "deadbeef0123";
  r.build_flags = "test";
  r.hosts = "localhost";
  r.slurm_job_id = "";
  r.start_time = start;
  r.end_time = "2024-05-01T00:00:10Z";
  r.command = "sweep_file_mpi_writer";
  r.ranks = ranks;
  r.threads = 1;
  r.seed = 42;
  r.tasks_done = done;
  return r;
}

void write_maps(SweepFile& file, std::int64_t begin, std::int64_t end, int round, int rank, int size) {
  for (std::size_t m = 0; m < file.map_count(); ++m) {
    const auto [first, count] =
        slab(begin, end, rank, size, static_cast<int>((m + static_cast<std::size_t>(round)) % 4));
    std::vector<double> values(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) values[static_cast<std::size_t>(i)] = map_value(m, first + i);
    file.write_map(m, first, values.data(), count);
  }
}

// Bit patterns, not values: a lossy path could change -0.0 or NaN payloads.
bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;  // NOLINT(bugprone-suspicious-memory-comparison)
}

int check(const std::string& path) {
  int errors = 0;
  auto expect = [&](bool ok, const std::string& what) {
    if (!ok) {
      std::fprintf(stderr, "sweep_file_mpi_writer: %s: %s\n", path.c_str(), what.c_str());
      ++errors;
    }
  };
  const char* names[] = {"/xi", "/energy/after_mean", "/stats/deep/m"};
  for (std::size_t m = 0; m < 3; ++m) {
    const std::vector<double> values = simpact::read_dataset_f64(path, names[m]);
    bool same = values.size() == static_cast<std::size_t>(kPoints);
    for (std::int64_t i = 0; same && i < kPoints; ++i) {
      const double expected = map_value(m, i);
      same = same_bits(values[static_cast<std::size_t>(i)], expected);
    }
    expect(same, std::string("map ") + names[m] + " differs");
  }
  const std::vector<double> x = simpact::read_dataset_f64(path, "/samples/x");
  const std::vector<std::int64_t> k = simpact::read_dataset_i64(path, "/samples/k");
  bool same = x.size() == kTasks && k.size() == kTasks;
  for (std::int64_t t = 0; same && t < kTasks; ++t) {
    same = x[static_cast<std::size_t>(t)] == sample_x(t) && k[static_cast<std::size_t>(t)] == sample_k(t);
  }
  expect(same, "samples differ");
  expect(simpact::read_dataset_f64(path, "/progress/done") == std::vector<double>(kChunks, 1.0),
         "progress not all done");
  expect(simpact::read_provenance(path).size() == 2, "provenance rows != 2");
  expect(simpact::sweep_file_is_complete(path), "not complete");
  return errors;
}

int run(const std::string& path) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  {
    SweepFile file = SweepFile::create(path, MPI_COMM_WORLD, layout());
    write_maps(file, 0, kPoints / 3, 0, rank, size);
    for (std::size_t c = 0; c < 2; ++c) {
      const auto [first, count] = slab(0, kTasks, rank, size, static_cast<int>(c + 1) % 4);
      std::vector<double> x;
      std::vector<std::int64_t> k;
      for (std::int64_t t = first; t < first + count; ++t) {
        x.push_back(sample_x(t));
        k.push_back(sample_k(t));
      }
      if (c == 0) file.write_samples(0, first, x.data(), count);
      if (c == 1) file.write_samples(1, first, k.data(), count);
    }
    // A provenance write in the middle: parallel files close and reopen around it.
    file.write_provenance({provenance(size, "2024-05-01T00:00:00Z", 0)});
    const auto [first, count] = slab(0, 5, rank, size, 3);
    const std::vector<std::uint8_t> done(static_cast<std::size_t>(count), 1);
    file.write_progress(first, done.data(), count);
    file.flush();
    file.close();
  }
  {
    // Resume: reopen and finish.
    SweepFile file = SweepFile::open(path, MPI_COMM_WORLD);
    write_maps(file, kPoints / 3, kPoints, 1, rank, size);
    const auto [first, count] = slab(5, kChunks, rank, size, 0);
    const std::vector<std::uint8_t> done(static_cast<std::size_t>(count), 1);
    file.write_progress(first, done.data(), count);
    // A bad call on one rank only must throw on every rank (no rank left in a collective).
    bool threw = false;
    try {
      const double value = 1.0;
      file.write_map(0, rank == size - 1 ? kPoints : 0, &value, rank == size - 1 ? 1 : 0);
    } catch (const simpact::IoError&) {
      threw = true;
    }
    if (!threw) throw simpact::IoError("a bad write_map on the last rank did not throw everywhere");
    file.write_provenance(
        {provenance(size, "2024-05-01T00:00:00Z", 0), provenance(size, "2024-05-01T00:00:05Z", kTasks)});
    file.set_complete(true);
    file.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int errors = rank == 0 ? check(path) : 0;
  MPI_Bcast(&errors, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0 && errors == 0) std::printf("sweep_file_mpi_writer: %d ranks: %s ok\n", size, path.c_str());
  return errors == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  simpact::init_mpi_funneled();  // as the program starts it (no fabric probing)
  int status = 2;
  if (argc != 2) {
    std::fprintf(stderr, "usage: sweep_file_mpi_writer OUT.h5\n");
  } else {
    try {
      status = run(argv[1]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "sweep_file_mpi_writer: %s\n", e.what());
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  MPI_Finalize();
  return status;
}
