// Tests of the sweep output file (include/simpact/io/sweep_file.hpp) on one rank; the same
// writer at 1, 2 and 4 ranks is tested by sweep_file_mpi_writer (tests/io/CMakeLists.txt).
#include "simpact/io/sweep_file.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "hdf5_attributes.hpp"  // private to io/ (not installed)
#include "simpact/study/mpi_startup.hpp"

#if __has_include(<simpact/version.hpp>)
#include <simpact/version.hpp>

#include "../support/temp_dir.hpp"
constexpr int kExpectedSchemaVersion = simpact::kSchemaVersion;
#else
constexpr int kExpectedSchemaVersion = 1;
#endif

namespace simpact {
namespace {

// MPI for the whole test program (singleton MPI_Init: no mpirun needed).
class MpiEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) init_mpi_funneled();  // as the program starts it (no fabric probing)
  }
  void TearDown() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
};
[[maybe_unused]] ::testing::Environment* const kMpi = ::testing::AddGlobalTestEnvironment(new MpiEnvironment);

std::string temp_path(const std::string& name) {
  return simpact::testing::process_dir() + "simpact_sweep_file_" + name + ".h5";
}

// theta (3) x phi (4) = 12 grid points, 3 maps in two groups, 2 sample columns.
SweepFileLayout small_layout() {
  SweepFileLayout layout;
  layout.axes = {{"theta", "rad", "impact angle", {0.0, 0.5, 1.0}},
                 {"phi", "1", "mass ratio", {0.25, 0.5, 0.75, 1.0}}};
  layout.maps = {{"", "xi", "1", "xi"},
                 {"energy", "after_mean", "J", "energy after impact, mean"},
                 {"energy", "loss_max", "1", "relative loss, max"}};
  layout.samples = {{"x", "m", "sampled x", false}, {"status", "1", "status code", true}};
  layout.task_count = 10;
  layout.chunk_count = 5;
  layout.config_text = "model: chain\nseed: 7\n";
  layout.config_hash = "abc123";
  layout.root_string_attributes = {{"model", "chain"}, {"orderings", "all"}};
  return layout;
}

// Doubles whose bit patterns a lossy path would change.
std::vector<double> tricky_values(std::size_t n) {
  const double specials[] = {-0.0,
                             std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::max(),
                             1.0 / 3.0,
                             std::nextafter(1.0, 2.0)};
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    values[i] = i < std::size(specials) ? specials[i] : std::sin(static_cast<double>(i)) * 1e-7;
  }
  return values;
}

// Compares bit patterns, not values: -0.0, NaN payloads and subnormals must survive.
bool bit_identical(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(),  // NOLINT(bugprone-suspicious-memory-comparison)
                     a.size() * sizeof(double)) == 0;
}

ProvenanceRow row(const std::string& start, std::int64_t tasks_done) {
  ProvenanceRow r;
  r.version = "0.1.0";
  r.git_revision = "0123456789ab";
  r.build_flags = "GNU 12 Release -O3";
  r.hosts = "node1,node2";
  r.slurm_job_id = "";  // not under Slurm: empty, must survive
  r.start_time = start;
  r.end_time = "2024-01-01T01:00:00Z";
  r.command = "simpact run c.yaml -o out.h5 --resume";
  r.ranks = 4;
  r.threads = 2;
  r.seed = std::numeric_limits<std::uint64_t>::max();
  r.tasks_done = tasks_done;
  return r;
}

TEST(SweepFile, MapsAndSamplesRoundTripBitIdentical) {
  const std::string path = temp_path("round_trip");
  const std::vector<double> xi = tricky_values(12);
  const std::vector<double> x = tricky_values(10);
  const std::vector<std::int64_t> status = {0, -1, 2, std::numeric_limits<std::int64_t>::max(), 4, 5,
                                            6, 7,  8, std::numeric_limits<std::int64_t>::min()};
  {
    SweepFile file = SweepFile::create(path, MPI_COMM_SELF, small_layout());
    EXPECT_EQ(file.map_count(), 3u);
    EXPECT_EQ(file.sample_column_count(), 2u);
    EXPECT_EQ(file.point_count(), 12);
    EXPECT_EQ(file.task_count(), 10);
    EXPECT_EQ(file.chunk_count(), 5);
    // Ranges that start and end inside grid rows (rows are 4 points long).
    file.write_map(0, 0, xi.data(), 5);
    file.write_map(0, 5, xi.data() + 5, 0);
    file.write_map(0, 5, xi.data() + 5, 7);
    file.write_map(1, 3, xi.data() + 3, 6);  // points 0-2 and 9-11 stay NaN
    file.write_samples(0, 0, x.data(), 10);
    file.write_samples(1, 0, status.data(), 3);
    file.write_samples(1, 3, status.data() + 3, 7);
    file.close();
  }
  EXPECT_TRUE(bit_identical(read_dataset_f64(path, "/xi"), xi));
  const std::vector<double> partial = read_dataset_f64(path, "energy/after_mean");
  ASSERT_EQ(partial.size(), 12u);
  for (std::size_t i = 0; i < 12; ++i) {
    if (i >= 3 && i < 9) {
      EXPECT_TRUE(bit_identical({partial[i]}, {xi[i]})) << i;
    } else {
      EXPECT_TRUE(std::isnan(partial[i])) << i;  // fill value of unwritten points
    }
  }
  for (double v : read_dataset_f64(path, "/energy/loss_max")) EXPECT_TRUE(std::isnan(v));
  EXPECT_TRUE(bit_identical(read_dataset_f64(path, "/samples/x"), x));
  EXPECT_EQ(read_dataset_i64(path, "/samples/status"), status);
  EXPECT_EQ(read_dataset_i64(path, "/samples/task"),
            (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(read_dataset_f64(path, "/grid/phi"), (std::vector<double>{0.25, 0.5, 0.75, 1.0}));
  EXPECT_EQ(read_dataset_f64(path, "/energy/theta"), (std::vector<double>{0.0, 0.5, 1.0}));
  EXPECT_EQ(read_dataset_f64(path, "/theta"), (std::vector<double>{0.0, 0.5, 1.0}));
}

TEST(SweepFile, AttributesConfigAndCompleteFlag) {
  const std::string path = temp_path("attributes");
  SweepFile file = SweepFile::create(path, MPI_COMM_SELF, small_layout());
  file.flush();
  EXPECT_FALSE(sweep_file_is_complete(path));
  file.set_complete(true);
  file.close();
  EXPECT_TRUE(sweep_file_is_complete(path));
  EXPECT_EQ(sweep_file_config_hash(path), "abc123");

  const h5::File h5file = h5::File::open(path, false);
  const hid_t root = h5file.id();
  EXPECT_EQ(h5::read_scalar_attribute<std::int32_t>(root, "schema_version"), kExpectedSchemaVersion);
  EXPECT_EQ(h5::read_scalar_attribute<std::uint8_t>(root, "complete"), 1);
  EXPECT_EQ(h5::read_scalar_attribute<std::int64_t>(root, "task_count"), 10);
  EXPECT_EQ(h5::read_scalar_attribute<std::int64_t>(root, "chunk_count"), 5);
  EXPECT_EQ(h5::read_string_attribute(root, "config_hash"), "abc123");
  EXPECT_EQ(h5::read_string_attribute(root, "model"), "chain");
  EXPECT_EQ(h5::read_string_attribute(root, "orderings"), "all");
  EXPECT_EQ(h5::read_string_array_attribute(root, "map_datasets"),
            (std::vector<std::string>{"/xi", "/energy/after_mean", "/energy/loss_max"}));

  const h5::Dataset config = h5::Dataset::open(root, "config");
  EXPECT_EQ(h5::read_string_attribute(config.id(), "sha256"), "abc123");
  const h5::Datatype text = h5::Datatype::utf8_string();
  char* yaml = nullptr;
  config.read(text.id(), &yaml);
  ASSERT_NE(yaml, nullptr);
  EXPECT_EQ(std::string(yaml), "model: chain\nseed: 7\n");
  H5free_memory(yaml);

  const h5::Dataset theta = h5::Dataset::open(root, "grid/theta");
  EXPECT_EQ(h5::read_string_attribute(theta.id(), "units"), "rad");
  EXPECT_EQ(h5::read_string_attribute(theta.id(), "long_name"), "impact angle");
  const h5::Dataset loss = h5::Dataset::open(root, "energy/loss_max");
  EXPECT_EQ(h5::read_string_attribute(loss.id(), "units"), "1");
  EXPECT_EQ(h5::read_string_attribute(loss.id(), "long_name"), "relative loss, max");
  EXPECT_TRUE(std::isnan(h5::read_scalar_attribute<double>(loss.id(), "_FillValue")));
}

TEST(SweepFile, DimensionScalesAttachedInEveryMapGroup) {
  const std::string path = temp_path("scales");
  SweepFile::create(path, MPI_COMM_SELF, small_layout()).close();
  const h5::File file = h5::File::open(path, false);
  const hid_t root = file.id();
  const std::vector<std::string> axes = {"theta", "phi"};
  for (const std::string& axis : axes) {
    EXPECT_TRUE(h5::Dataset::open(root, "grid/" + axis).is_scale()) << axis;
  }
  const std::vector<std::pair<std::string, std::string>> maps = {
      {"", "xi"}, {"energy/", "after_mean"}, {"energy/", "loss_max"}};
  for (const auto& [group, name] : maps) {
    const h5::Dataset map = h5::Dataset::open(root, group + name);
    ASSERT_EQ(map.space().dims(), (std::vector<hsize_t>{3, 4})) << name;
    for (unsigned d = 0; d < axes.size(); ++d) {
      const h5::Dataset scale = h5::Dataset::open(root, group + axes[d]);
      EXPECT_TRUE(scale.is_scale());
      EXPECT_TRUE(map.is_attached(scale, d)) << group << name << " dim " << d;
      EXPECT_FALSE(map.is_attached(scale, 1 - d)) << group << name << " dim " << d;
      EXPECT_EQ(h5::read_string_attribute(scale.id(), "units"), d == 0 ? "rad" : "1");
    }
  }
  const h5::Dataset task = h5::Dataset::open(root, "samples/task");
  EXPECT_TRUE(h5::Dataset::open(root, "samples/x").is_attached(task, 0));
  EXPECT_TRUE(h5::Dataset::open(root, "samples/status").is_attached(task, 0));
  EXPECT_TRUE(h5::Dataset::open(root, "provenance").is_attached(h5::Dataset::open(root, "run"), 0));
  EXPECT_TRUE(
      h5::Dataset::open(root, "progress/done").is_attached(h5::Dataset::open(root, "progress/chunk"), 0));
}

TEST(SweepFile, ProvenanceIsReplacedWholesale) {
  const std::string path = temp_path("provenance");
  SweepFile file = SweepFile::create(path, MPI_COMM_SELF, small_layout());
  file.flush();
  EXPECT_TRUE(read_provenance(path).empty());
  const std::vector<ProvenanceRow> one = {row("2024-01-01T00:00:00Z", 3)};
  file.write_provenance(one);
  file.flush();
  EXPECT_EQ(read_provenance(path), one);
  const std::vector<ProvenanceRow> two = {row("2024-01-01T00:00:00Z", 3), row("2024-01-02T00:00:00Z", 10)};
  file.write_provenance(two);
  file.close();
  EXPECT_EQ(read_provenance(path), two);
  EXPECT_EQ(read_dataset_i64(path, "run"), (std::vector<std::int64_t>{0, 1}));
}

TEST(SweepFile, ProgressBitmapAndReopen) {
  const std::string path = temp_path("progress");
  {
    SweepFile file = SweepFile::create(path, MPI_COMM_SELF, small_layout());
    const std::uint8_t done[] = {1, 1};
    file.write_progress(1, done, 2);
    file.close();
  }
  EXPECT_EQ(read_dataset_f64(path, "progress/done"), (std::vector<double>{0, 1, 1, 0, 0}));
  {
    // Resume: the map order comes back from the file.
    SweepFile file = SweepFile::open(path, MPI_COMM_SELF);
    EXPECT_EQ(file.map_count(), 3u);
    EXPECT_EQ(file.point_count(), 12);
    const std::uint8_t done[] = {1, 1, 1};
    file.write_progress(3, done, 2);
    file.write_progress(0, done, 1);
    const std::vector<double> values(12, 2.5);
    file.write_map(2, 0, values.data(), 12);
    file.set_complete(true);
  }  // the destructor closes
  EXPECT_EQ(read_dataset_f64(path, "progress/done"), (std::vector<double>{1, 1, 1, 1, 1}));
  EXPECT_EQ(read_dataset_f64(path, "energy/loss_max"), std::vector<double>(12, 2.5));
  EXPECT_TRUE(sweep_file_is_complete(path));
}

TEST(SweepFile, UncompressedAndSampleFreeLayoutsWork) {
  const std::string path = temp_path("plain");
  SweepFileLayout layout = small_layout();
  layout.compression = 0;
  layout.samples.clear();
  layout.chunk_count = 0;
  SweepFile file = SweepFile::create(path, MPI_COMM_SELF, layout);
  const std::vector<double> xi = tricky_values(12);
  file.write_map(0, 0, xi.data(), 12);
  file.write_progress(0, nullptr, 0);
  file.close();
  EXPECT_TRUE(bit_identical(read_dataset_f64(path, "xi"), xi));
  EXPECT_TRUE(read_dataset_f64(path, "progress/done").empty());
  EXPECT_THROW(read_dataset_f64(path, "samples/task"), IoError);
}

TEST(SweepFile, BadCallsThrowIoError) {
  const std::string path = temp_path("errors");
  SweepFile file = SweepFile::create(path, MPI_COMM_SELF, small_layout());
  const std::vector<double> values(13, 1.0);
  const std::vector<std::int64_t> ints(13, 1);
  EXPECT_THROW(file.write_map(0, 0, values.data(), 13), IoError);  // past the grid
  EXPECT_THROW(file.write_map(0, -1, values.data(), 1), IoError);
  EXPECT_THROW(file.write_map(3, 0, values.data(), 1), IoError);      // no such map
  EXPECT_THROW(file.write_samples(1, 0, values.data(), 1), IoError);  // int64 column
  EXPECT_THROW(file.write_samples(0, 0, ints.data(), 1), IoError);    // float64 column
  const std::uint8_t ones[] = {1, 1};
  EXPECT_THROW(file.write_progress(4, ones, 2), IoError);  // past the bitmap
  file.write_map(0, 0, values.data(), 12);                 // still usable after the errors
  file.close();
  EXPECT_THROW(file.write_map(0, 0, values.data(), 1), IoError);  // closed
  EXPECT_EQ(read_dataset_f64(path, "xi"), std::vector<double>(12, 1.0));

  SweepFileLayout duplicate = small_layout();
  duplicate.axes.push_back(duplicate.axes.front());
  EXPECT_THROW(SweepFile::create(temp_path("bad_layout"), MPI_COMM_SELF, duplicate), IoError);
  SweepFileLayout reserved = small_layout();
  reserved.maps.push_back({"", "provenance", "", ""});
  EXPECT_THROW(SweepFile::create(temp_path("bad_layout"), MPI_COMM_SELF, reserved), IoError);
}

TEST(SweepFile, ReadHelpersOnMissingFiles) {
  const std::string path = temp_path("does_not_exist");
  std::remove(path.c_str());
  EXPECT_FALSE(sweep_file_is_complete(path));
  try {
    sweep_file_config_hash(path);
    ADD_FAILURE() << "no exception";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_dataset_f64(path, "xi"), IoError);
  EXPECT_THROW(SweepFile::open(path, MPI_COMM_SELF), IoError);
  EXPECT_THROW(SweepFile::create(path + ".d/sub/x.h5", MPI_COMM_SELF, small_layout()), IoError);
}

}  // namespace
}  // namespace simpact
