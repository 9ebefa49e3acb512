#include "simpact/io/sweep_file_reader.hpp"

#include <fmt/format.h>

#include <map>

#include "hdf5_attributes.hpp"  // private to io/ (not installed)
#include "simpact/io/io_error.hpp"

namespace simpact {

struct SweepFileReader::Impl {
  std::string path;
  h5::File file;
  // Every dataset read stays open: a merge reads each column a task chunk at a time, and HDF5
  // keeps a dataset's last decompressed storage chunk (512 KiB, 64 task chunks or more) only
  // while the dataset is open. Reopening per read decompressed each storage chunk once per
  // task chunk per column (a 1 M-task billiards_mc merge: 25 s, mostly inflate).
  mutable std::map<std::string, h5::Dataset> open_datasets;

  const h5::Dataset& dataset(const std::string& name) const {
    auto it = open_datasets.find(name);
    if (it == open_datasets.end()) it = open_datasets.emplace(name, h5::Dataset::open(file.id(), name)).first;
    return it->second;
  }

  void read_slab(const std::string& name, std::int64_t first, std::int64_t count, hid_t type,
                 void* out) const {
    if (count <= 0) return;
    const h5::Dataset& d = dataset(name);
    h5::Dataspace file_space = d.space();
    // N-d datasets (per-task arrays) are read as their row-major flattening.
    if (first < 0 || static_cast<hsize_t>(first + count) > file_space.element_count())
      throw IoError(fmt::format("{}:/{}: cannot read elements {}..{}", path, name, first, first + count - 1));
    file_space.select_linear_range(static_cast<hsize_t>(first), static_cast<hsize_t>(count));
    const h5::Dataspace memory = h5::Dataspace::simple({static_cast<hsize_t>(count)});
    d.read(type, out, memory.id(), file_space.id());
  }
};

SweepFileReader::SweepFileReader(const std::string& path) : impl_(std::make_unique<Impl>()) {
  h5::silence_error_printing();
  impl_->path = path;
  impl_->file = h5::File::open(path, false);
}

SweepFileReader::~SweepFileReader() = default;
SweepFileReader::SweepFileReader(SweepFileReader&&) noexcept = default;
SweepFileReader& SweepFileReader::operator=(SweepFileReader&&) noexcept = default;

const std::string& SweepFileReader::path() const {
  return impl_->path;
}

bool SweepFileReader::has(const std::string& object) const {
  return h5::link_exists(impl_->file.id(), object);
}

bool SweepFileReader::has_attribute(const std::string& name) const {
  return h5::has_attribute(impl_->file.id(), name);
}

std::string SweepFileReader::string_attribute(const std::string& name) const {
  return h5::read_string_attribute(impl_->file.id(), name);
}

std::int64_t SweepFileReader::integer_attribute(const std::string& name) const {
  return h5::read_scalar_attribute<std::int64_t>(impl_->file.id(), name);
}

std::vector<std::string> SweepFileReader::string_array_attribute(const std::string& name) const {
  return h5::read_string_array_attribute(impl_->file.id(), name);
}

std::string SweepFileReader::object_string_attribute(const std::string& object,
                                                     const std::string& name) const {
  const hid_t id = H5Oopen(impl_->file.id(), object.c_str(), H5P_DEFAULT);
  if (id < 0) throw IoError(fmt::format("{}:/{}: no such object", impl_->path, object));
  std::string value;
  try {
    if (h5::has_attribute(id, name)) value = h5::read_string_attribute(id, name);
  } catch (...) {
    H5Oclose(id);
    throw;
  }
  H5Oclose(id);
  return value;
}

std::string SweepFileReader::string_dataset(const std::string& name) const {
  const h5::Dataset d = h5::Dataset::open(impl_->file.id(), name);
  const h5::Datatype type = h5::Datatype::utf8_string();
  char* text = nullptr;
  d.read(type.id(), &text);
  std::string out = text ? text : "";
  const h5::Dataspace space = h5::Dataspace::scalar();
  H5Dvlen_reclaim(type.id(), space.id(), H5P_DEFAULT, &text);
  return out;
}

std::vector<std::int64_t> SweepFileReader::shape(const std::string& dataset) const {
  const auto dims = impl_->dataset(dataset).space().dims();
  return {dims.begin(), dims.end()};
}

void SweepFileReader::read(const std::string& dataset, std::int64_t first, std::int64_t count,
                           double* out) const {
  impl_->read_slab(dataset, first, count, H5T_NATIVE_DOUBLE, out);
}
void SweepFileReader::read(const std::string& dataset, std::int64_t first, std::int64_t count,
                           std::int64_t* out) const {
  impl_->read_slab(dataset, first, count, H5T_NATIVE_INT64, out);
}
void SweepFileReader::read(const std::string& dataset, std::int64_t first, std::int64_t count,
                           std::uint8_t* out) const {
  impl_->read_slab(dataset, first, count, H5T_NATIVE_UINT8, out);
}

}  // namespace simpact
