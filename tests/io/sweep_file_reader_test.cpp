// SweepFileReader (include/simpact/io/sweep_file_reader.hpp) on a file written by SweepFile:
// root attributes, object attributes, /config, shapes, and slabs of 1-D and 2-D datasets read
// back bit for bit (also alternating between datasets, as `simpact merge` does); missing
// files, objects and out-of-range slabs are IoErrors, not crashes or silent zeros.
#include "simpact/io/sweep_file_reader.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../support/temp_dir.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/sweep_file.hpp"
#include "simpact/study/mpi_startup.hpp"

namespace simpact {
namespace {

// MPI for the whole test program (singleton MPI_Init: no mpirun needed); the io suite's other
// files may have registered the same environment, so both calls check first.
class ReaderMpiEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) init_mpi_funneled();  // as the program starts it (no fabric probing)
  }
};
[[maybe_unused]] ::testing::Environment* const kReaderMpi =
    ::testing::AddGlobalTestEnvironment(new ReaderMpiEnvironment);

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// theta (2) × phi (3) = 6 grid points; maps /xi and /energy/after_mean; 7 tasks with a scalar
// column, an integer status and a 3-element per-task array; 4 chunks.
struct Written {
  std::string path;
  std::vector<double> xi, after, x, momentum;
  std::vector<std::int64_t> status;
  std::string config = "model: chain\nseed: 7\n";
};

const Written& written() {
  static const Written w = [] {
    Written w;
    w.path = simpact::testing::process_dir() + "simpact_sweep_file_reader.h5";
    SweepFileLayout layout;
    layout.axes = {{"theta", "rad", "impact angle", {0.5, 1.5}},
                   {"phi", "1", "mass ratio", {0.25, 0.5, 1.0}}};
    layout.maps = {{"", "xi", "1", "indeterminacy"}, {"energy", "after_mean", "J", "energy after, mean"}};
    layout.samples = {{"x", "m", "sampled x", false},
                      {"status", "1", "status code", true},
                      {"momentum", "kg m s-1", "post-impact momentum", false, 3}};
    layout.task_count = 7;
    layout.chunk_count = 4;
    layout.config_text = w.config;
    layout.config_hash = "feedc0de";
    layout.root_string_attributes = {{"model", "chain"}};
    layout.root_integer_attributes = {{"replicas", 3}};
    for (int i = 0; i < 6; ++i) {
      w.xi.push_back(i == 2 ? -0.0 : std::sin(i) / 3.0);
      w.after.push_back(i == 4 ? std::numeric_limits<double>::denorm_min() : 1.0 + i);
    }
    for (int t = 0; t < 7; ++t) {
      w.x.push_back(t == 5 ? std::numeric_limits<double>::quiet_NaN() : std::exp(t) * 1e-3);
      w.status.push_back(t % 5);
      for (int e = 0; e < 3; ++e) w.momentum.push_back(10.0 * t + e + 0.125);
    }
    SweepFile file = SweepFile::create(w.path, MPI_COMM_SELF, layout);
    file.write_map(0, 0, w.xi.data(), 6);
    file.write_map(1, 0, w.after.data(), 6);
    file.write_samples(0, 0, w.x.data(), 7);
    file.write_samples(1, 0, w.status.data(), 7);
    file.write_samples(2, 0, w.momentum.data(), 7);
    const std::uint8_t done[4] = {1, 0, 1, 1};
    file.write_progress(0, done, 4);
    file.set_complete(true);
    file.close();
    return w;
  }();
  return w;
}

TEST(SweepFileReader, AttributesConfigAndShapes) {
  const Written& w = written();
  const SweepFileReader r(w.path);
  EXPECT_EQ(r.path(), w.path);
  EXPECT_TRUE(r.has("xi"));
  EXPECT_TRUE(r.has("/energy/after_mean"));
  EXPECT_TRUE(r.has("samples/momentum"));
  EXPECT_FALSE(r.has("energy/before_mean"));
  EXPECT_TRUE(r.has_attribute("model"));
  EXPECT_FALSE(r.has_attribute("no_such_attribute"));
  EXPECT_EQ(r.string_attribute("model"), "chain");
  EXPECT_EQ(r.string_attribute("config_hash"), "feedc0de");
  EXPECT_EQ(r.integer_attribute("replicas"), 3);
  EXPECT_EQ(r.integer_attribute("complete"), 1);
  EXPECT_EQ(r.string_array_attribute("map_datasets"),
            (std::vector<std::string>{"/xi", "/energy/after_mean"}));
  EXPECT_EQ(r.object_string_attribute("energy/after_mean", "units"), "J");
  EXPECT_EQ(r.object_string_attribute("samples/x", "long_name"), "sampled x");
  EXPECT_EQ(r.object_string_attribute("samples/x", "no_such_attribute"), "");
  EXPECT_EQ(r.string_dataset("config"), w.config);
  EXPECT_EQ(r.shape("xi"), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(r.shape("samples/x"), (std::vector<std::int64_t>{7}));
  EXPECT_EQ(r.shape("samples/momentum"), (std::vector<std::int64_t>{7, 3}));
}

TEST(SweepFileReader, SlabsReadBackBitForBit) {
  const Written& w = written();
  const SweepFileReader r(w.path);
  std::vector<double> xi(6), x(7), momentum(21);
  r.read("xi", 0, 6, xi.data());  // a 2-D map, read as its C-order flattening
  EXPECT_TRUE(same_bits(xi, w.xi));
  // Alternate datasets and offsets (the reader caches one open dataset).
  std::vector<double> part(3);
  r.read("samples/x", 2, 3, part.data());
  EXPECT_TRUE(same_bits(part, {w.x[2], w.x[3], w.x[4]}));
  r.read("energy/after_mean", 3, 3, part.data());
  EXPECT_TRUE(same_bits(part, {w.after[3], w.after[4], w.after[5]}));
  r.read("samples/x", 0, 7, x.data());
  EXPECT_TRUE(same_bits(x, w.x));  // the NaN too
  // A per-task array across row boundaries: elements 4..8 = task 1 element 1 … task 2 element 2.
  std::vector<double> rows(5);
  r.read("samples/momentum", 4, 5, rows.data());
  EXPECT_TRUE(same_bits(rows, std::vector<double>(w.momentum.begin() + 4, w.momentum.begin() + 9)));
  std::vector<std::int64_t> status(7);
  r.read("samples/status", 0, 7, status.data());
  EXPECT_EQ(status, w.status);
  std::vector<std::int64_t> tasks(7);
  r.read("samples/task", 0, 7, tasks.data());
  EXPECT_EQ(tasks, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6}));
  std::vector<std::uint8_t> done(4);
  r.read("progress/done", 0, 4, done.data());
  EXPECT_EQ(done, (std::vector<std::uint8_t>{1, 0, 1, 1}));
  // count 0 reads nothing and touches nothing.
  double untouched = 42.0;
  r.read("samples/x", 7, 0, &untouched);
  EXPECT_EQ(untouched, 42.0);
}

TEST(SweepFileReader, ErrorsAreIoErrors) {
  const Written& w = written();
  EXPECT_THROW(SweepFileReader(simpact::testing::process_dir() + "simpact_no_such_file.h5"), IoError);
  const SweepFileReader r(w.path);
  std::vector<double> out(8);
  EXPECT_THROW(r.read("samples/x", 0, 8, out.data()), IoError);   // one past the end
  EXPECT_THROW(r.read("samples/x", -1, 2, out.data()), IoError);  // before the start
  EXPECT_THROW(r.read("samples/no_such", 0, 1, out.data()), IoError);
  EXPECT_THROW(r.string_attribute("no_such_attribute"), IoError);
  EXPECT_THROW(r.object_string_attribute("no/such/object", "units"), IoError);
  // The reader still works after the errors (its cached dataset is not left broken).
  r.read("samples/x", 6, 1, out.data());
  EXPECT_TRUE(same_bits({out[0]}, {w.x[6]}));
}

}  // namespace
}  // namespace simpact
