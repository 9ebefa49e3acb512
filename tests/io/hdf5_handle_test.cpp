// Tests of the RAII wrappers over the HDF5 C API (include/simpact/io/hdf5_handle.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "../support/temp_dir.hpp"
#include "hdf5_attributes.hpp"  // private to io/ (not installed)

namespace simpact::h5 {
namespace {

std::string temp_path(const std::string& name) {
  return simpact::testing::process_dir() + "simpact_hdf5_handle_" + name + ".h5";
}

TEST(Hdf5Handle, ClosesOnDestructionAndMovesOwnership) {
  hid_t raw = H5I_INVALID_HID;
  {
    Dataspace space = Dataspace::simple({3});
    raw = space.id();
    EXPECT_GT(H5Iis_valid(raw), 0);
    Dataspace moved = std::move(space);
    EXPECT_FALSE(space.valid());  // NOLINT(bugprone-use-after-move): testing the moved-from state
    EXPECT_EQ(moved.id(), raw);
    Dataspace assigned;
    assigned = std::move(moved);
    EXPECT_EQ(assigned.id(), raw);
  }
  EXPECT_LE(H5Iis_valid(raw), 0);  // closed exactly once, by the last owner
}

TEST(Hdf5Handle, FailureThrowsOneLineIoErrorNamingThePathAndPrintsNothing) {
  const std::string path = temp_path("missing_dir") + "/nope/file.h5";
  ::testing::internal::CaptureStderr();
  try {
    File::open(path, false);
    ADD_FAILURE() << "opening a missing file did not throw";
  } catch (const IoError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");  // HDF5's stack printing is off
}

TEST(Hdf5Handle, MissingObjectErrorNamesTheObject) {
  const File file = File::create(temp_path("missing_object"));
  try {
    Dataset::open(file.id(), "no/such/dataset");
    ADD_FAILURE() << "opening a missing dataset did not throw";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("no/such/dataset"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(link_exists(file.id(), "no/such/dataset"));
  Group::create(file.id(), "a/b");
  EXPECT_TRUE(link_exists(file.id(), "a/b"));
  EXPECT_TRUE(link_exists(file.id(), "/a"));
  EXPECT_FALSE(link_exists(file.id(), "a/c"));
}

TEST(Hdf5Handle, AttributesRoundTrip) {
  const std::string path = temp_path("attributes");
  {
    File file = File::create(path);
    Dataset data = Dataset::create(file.id(), "g/data", H5T_NATIVE_DOUBLE, Dataspace::simple({2}));
    write_string_attribute(data.id(), "units", "rad");
    write_string_attribute(data.id(), "units", "deg");  // replaces
    write_string_attribute(data.id(), "empty", "");
    write_string_array_attribute(file.id(), "names", {"a", "bb", ""});
    write_string_array_attribute(file.id(), "none", {});
    write_scalar_attribute<std::int64_t>(file.id(), "big", std::int64_t{1} << 60);
    write_scalar_attribute<std::uint8_t>(file.id(), "flag", 1);
    write_scalar_attribute<std::uint8_t>(file.id(), "flag", 0);
    write_scalar_attribute(data.id(), "x", -0.125);
    data.make_scale("d");  // writes fixed-length string attributes CLASS and NAME
    file.close();
  }
  const File file = File::open(path, false);
  const Dataset data = Dataset::open(file.id(), "/g/data");
  EXPECT_EQ(read_string_attribute(data.id(), "units"), "deg");
  EXPECT_EQ(read_string_attribute(data.id(), "empty"), "");
  EXPECT_EQ(read_string_attribute(data.id(), "NAME"), "d");
  EXPECT_EQ(read_string_attribute(data.id(), "CLASS"), "DIMENSION_SCALE");
  EXPECT_EQ(read_string_array_attribute(file.id(), "names"), (std::vector<std::string>{"a", "bb", ""}));
  EXPECT_TRUE(read_string_array_attribute(file.id(), "none").empty());
  EXPECT_EQ(read_scalar_attribute<std::int64_t>(file.id(), "big"), std::int64_t{1} << 60);
  EXPECT_EQ(read_scalar_attribute<std::uint8_t>(file.id(), "flag"), 0);
  EXPECT_EQ(read_scalar_attribute<double>(data.id(), "x"), -0.125);
  EXPECT_TRUE(has_attribute(data.id(), "units"));
  EXPECT_FALSE(has_attribute(data.id(), "nope"));
  EXPECT_THROW(read_string_attribute(data.id(), "nope"), IoError);
  EXPECT_THROW(read_string_attribute(data.id(), "x"), IoError);              // not a string
  EXPECT_THROW(read_string_attribute(file.id(), "names"), IoError);          // not a single one
  EXPECT_THROW(read_scalar_attribute<double>(file.id(), "names"), IoError);  // not a number
}

TEST(Hdf5Handle, DimensionScalesAttach) {
  File file = File::create(temp_path("scales"));
  Dataset axis = Dataset::create(file.id(), "x", H5T_NATIVE_DOUBLE, Dataspace::simple({4}));
  Dataset other = Dataset::create(file.id(), "y", H5T_NATIVE_DOUBLE, Dataspace::simple({3}));
  Dataset map = Dataset::create(file.id(), "m", H5T_NATIVE_DOUBLE, Dataspace::simple({3, 4}));
  axis.make_scale("x");
  other.make_scale("y");
  EXPECT_TRUE(axis.is_scale());
  EXPECT_FALSE(map.is_scale());
  map.attach_scale(axis, 1);
  map.attach_scale(other, 0);
  EXPECT_TRUE(map.is_attached(axis, 1));
  EXPECT_TRUE(map.is_attached(other, 0));
  EXPECT_FALSE(map.is_attached(axis, 0));
}

// Every C-order element range of a 3-d array, selected as a union of hyperslabs, must cover
// exactly those elements and deliver them in order.
TEST(Hdf5Handle, LinearRangeSelectionCoversExactlyTheRangeInOrder) {
  const std::vector<hsize_t> shape = {3, 4, 5};
  const hsize_t total = 60;
  File file = File::create(temp_path("linear_range"));
  Dataset dataset = Dataset::create(file.id(), "a", H5T_NATIVE_INT64, Dataspace::simple(shape));
  for (hsize_t first = 0; first <= total; ++first) {
    for (hsize_t count = 0; first + count <= total; ++count) {
      const std::vector<std::int64_t> minus(total, -1);
      dataset.write(H5T_NATIVE_INT64, minus.data());
      std::vector<std::int64_t> values(count);
      std::iota(values.begin(), values.end(), static_cast<std::int64_t>(first));
      Dataspace file_space = dataset.space();
      file_space.select_linear_range(first, count);
      ASSERT_EQ(H5Sget_select_npoints(file_space.id()), static_cast<hssize_t>(count));
      if (count > 0) {
        const Dataspace mem_space = Dataspace::simple({count});
        dataset.write(H5T_NATIVE_INT64, values.data(), mem_space.id(), file_space.id());
      }
      std::vector<std::int64_t> back(total);
      dataset.read(H5T_NATIVE_INT64, back.data());
      for (hsize_t i = 0; i < total; ++i) {
        const bool inside = i >= first && i < first + count;
        ASSERT_EQ(back[i], inside ? static_cast<std::int64_t>(i) : -1)
            << "first " << first << " count " << count << " element " << i;
      }
    }
  }
  Dataspace space = dataset.space();
  EXPECT_THROW(space.select_linear_range(50, 11), IoError);
  EXPECT_THROW(space.select_linear_range(61, 0), IoError);
}

}  // namespace
}  // namespace simpact::h5
