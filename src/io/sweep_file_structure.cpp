// The structure of a new sweep file: groups, axes with dimension scales, empty maps and
// sample tables, config, parameters, progress, and the root attributes.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <set>
#include <simpact/version.hpp>

#include "simpact/core/input_error.hpp"
#include "simpact/io/io_error.hpp"
#include "sweep_file_parts.hpp"

namespace simpact::detail {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Elements per chunk of maps and sample columns: 512 KiB of float64, small enough for ranks to
// own different chunks of one map, big enough for gzip.
constexpr hsize_t kChunkElements = hsize_t{1} << 16;
constexpr hsize_t kProvenanceChunkRows = 16;
// Datasets smaller than this are stored contiguous and unfiltered: gzip saves a few kilobytes
// there, and each filtered dataset costs a zlib set-up per chunk (most of a small sweep's write).
constexpr hsize_t kContiguousBytes = hsize_t{1} << 16;
// Root-level names taken by the layout itself.
const std::set<std::string> kReservedRootNames = {
    "grid", "samples", "progress", "config", "provenance", "run", "parameters", "provenance_columns"};
const std::set<std::string> kReservedAttributes = {"schema_version", "complete",       "config_hash",
                                                   "task_count",     "chunk_count",    "grid_axes",
                                                   "map_datasets",   "sample_datasets"};

bool valid_link_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

std::string strip_slashes(const std::string& group) {
  const std::size_t first = group.find_first_not_of('/');
  if (first == std::string::npos) return "";
  const std::size_t last = group.find_last_not_of('/');
  return group.substr(first, last - first + 1);
}

std::string join(const std::string& group, const std::string& name) {
  return group.empty() ? name : group + "/" + name;
}

// Chunk shape of about kChunkElements elements: whole trailing dimensions first (a grid row is
// written by one rank), then a slab of the leading ones.
std::vector<hsize_t> chunk_shape(const std::vector<hsize_t>& shape) {
  std::vector<hsize_t> chunk(shape.size(), 1);
  hsize_t size = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    chunk[d] = std::max<hsize_t>(1, std::min(shape[d], kChunkElements / size));
    size *= chunk[d];
  }
  return chunk;
}

bool has_zero_extent(const std::vector<hsize_t>& shape) {
  return std::find(shape.begin(), shape.end(), hsize_t{0}) != shape.end();
}

// A fixed-shape dataset, chunked + shuffle + gzip when it has elements (HDF5 cannot chunk an
// empty extent). Storage is allocated (and filled) at creation, by rank 0 alone: a parallel
// open would otherwise do it collectively on first open.
h5::Dataset create_grid_dataset(hid_t location, const std::string& name, hid_t type,
                                const std::vector<hsize_t>& shape, int compression, const void* fill) {
  hsize_t elements = 1;
  for (const hsize_t extent : shape) elements *= extent;
  h5::PropertyList create = has_zero_extent(shape) || elements * H5Tget_size(type) < kContiguousBytes
                                ? h5::PropertyList::create(H5P_DATASET_CREATE)
                                : h5::PropertyList::chunked(chunk_shape(shape), compression);
  if (fill != nullptr) create.set_fill_value(type, fill);
  create.set_early_allocation();
  return h5::Dataset::create(location, name, type, h5::Dataspace::simple(shape), create.id());
}

void write_units(hid_t object, const std::string& units, const std::string& long_name) {
  if (!units.empty()) h5::write_string_attribute(object, "units", units);
  h5::write_string_attribute(object, "long_name", long_name);
}

h5::Dataset write_string_scale(hid_t root, const std::string& path, const std::vector<std::string>& values) {
  const h5::Datatype text = h5::Datatype::utf8_string();
  std::vector<const char*> data;
  for (const std::string& v : values) data.push_back(v.c_str());
  h5::Dataset d = h5::Dataset::create(root, path, text.id(), h5::Dataspace::simple({values.size()}));
  const h5::PropertyList transfer =
      h5::PropertyList::conversion_transfer(std::max<std::size_t>(4096, 16 * data.size()));
  if (!data.empty()) d.write(text.id(), data.data(), H5S_ALL, H5S_ALL, transfer.id());
  return d;
}

// An int64 index dimension scale 0..n-1 named `dimension` at `path`; unlimited if `growable`.
h5::Dataset create_index_scale(hid_t file, const std::string& path, const std::string& dimension, hsize_t n,
                               bool growable, int compression, const std::string& long_name) {
  h5::Dataset scale =
      growable
          ? h5::Dataset::create(file, path, H5T_NATIVE_INT64, h5::Dataspace::simple({n}, {H5S_UNLIMITED}),
                                h5::PropertyList::chunked({kProvenanceChunkRows}, 0).id())
          : create_grid_dataset(file, path, H5T_NATIVE_INT64, {n}, compression, nullptr);
  write_iota(scale, n);
  scale.make_scale(dimension);
  write_units(scale.id(), "1", long_name);
  return scale;
}

}  // namespace

// Writes 0, 1, ..., n-1 into a 1-D int64 dataset, a block at a time.
void write_iota(h5::Dataset& dataset, hsize_t n) {
  constexpr hsize_t kBlock = hsize_t{1} << 20;
  std::vector<std::int64_t> block;
  h5::Dataspace file_space = dataset.space();
  for (hsize_t first = 0; first < n; first += kBlock) {
    const hsize_t count = std::min(kBlock, n - first);
    block.resize(count);
    for (hsize_t i = 0; i < count; ++i) block[i] = static_cast<std::int64_t>(first + i);
    file_space.select_hyperslab({first}, {count});
    const h5::Dataspace mem_space = h5::Dataspace::simple({count});
    dataset.write(H5T_NATIVE_INT64, block.data(), mem_space.id(), file_space.id());
  }
}

namespace {

// The rows of /samples: one per task, or the tasks of the layout's ranges.
hsize_t sample_row_count(const SweepFileLayout& layout) {
  if (layout.sample_task_ranges.empty()) return static_cast<hsize_t>(layout.task_count);
  std::int64_t rows = 0;
  for (const auto& [first, count] : layout.sample_task_ranges) rows += count;
  return static_cast<hsize_t>(rows);
}

// Overwrites the /samples/task scale (0, 1, ... from create_index_scale) with the task indices
// of the layout's ranges, a range at a time.
void write_task_ids(h5::Dataset& scale, const SweepFileLayout& layout) {
  std::vector<std::int64_t> ids;
  h5::Dataspace file_space = scale.space();
  hsize_t row = 0;
  for (const auto& [first, count] : layout.sample_task_ranges) {
    if (count == 0) continue;
    ids.resize(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) ids[static_cast<std::size_t>(i)] = first + i;
    file_space.select_hyperslab({row}, {static_cast<hsize_t>(count)});
    const h5::Dataspace mem_space = h5::Dataspace::simple({static_cast<hsize_t>(count)});
    scale.write(H5T_NATIVE_INT64, ids.data(), mem_space.id(), file_space.id());
    row += static_cast<hsize_t>(count);
  }
}

}  // namespace

// ---- structure of a new file -------------------------------------------------------------------

void validate(const SweepFileLayout& layout) {
  std::set<std::string> axis_names;
  for (const AxisSpec& axis : layout.axes) {
    if (!valid_link_name(axis.name) || kReservedRootNames.count(axis.name) != 0) {
      throw IoError("sweep file layout: bad axis name '" + axis.name + "'");
    }
    if (!axis_names.insert(axis.name).second) {
      throw IoError("sweep file layout: duplicate axis '" + axis.name + "'");
    }
    if (axis.values.empty()) throw IoError("sweep file layout: axis '" + axis.name + "' is empty");
  }
  if (!layout.maps.empty() && layout.axes.empty()) {
    throw IoError("sweep file layout: maps need at least one grid axis");
  }
  std::set<std::string> map_paths;
  for (const MapSpec& map : layout.maps) {
    const std::string group = strip_slashes(map.group);
    const std::string top = group.substr(0, group.find('/'));
    if (!group.empty() && top != "grid" && kReservedRootNames.count(top) != 0) {
      throw IoError("sweep file layout: map group '" + map.group + "' is reserved");
    }
    if (!valid_link_name(map.name) || axis_names.count(map.name) != 0 ||
        (group.empty() && kReservedRootNames.count(map.name) != 0)) {
      throw IoError("sweep file layout: bad map name '" + join(group, map.name) + "'");
    }
    if (!map_paths.insert(join(group, map.name)).second) {
      throw IoError("sweep file layout: duplicate map '" + join(group, map.name) + "'");
    }
  }
  std::set<std::string> columns;
  for (const SampleColumnSpec& column : layout.samples) {
    if (!valid_link_name(column.name) || column.name == "task" || !columns.insert(column.name).second ||
        column.length < 1 || (column.length > 1 && column.integer)) {
      throw IoError("sweep file layout: bad or duplicate sample column '" + column.name + "'");
    }
  }
  std::map<std::string, const ArrayDimension*> dimensions;
  for (const SampleColumnSpec& column : layout.samples) {
    std::int64_t product = 1;
    for (const ArrayDimension& dim : column.dimensions) {
      product *= dim.extent;
      const auto [it, fresh] = dimensions.emplace(dim.name, &dim);
      const bool bad =
          !valid_link_name(dim.name) || columns.count(dim.name) != 0 ||
          columns.count(dim.name + "_units") != 0 || dim.extent < 1 ||
          (!dim.labels.empty() && dim.labels.size() != static_cast<std::size_t>(dim.extent)) ||
          (!dim.label_units.empty() && dim.label_units.size() != static_cast<std::size_t>(dim.extent)) ||
          (!fresh && (it->second->extent != dim.extent || it->second->labels != dim.labels));
      if (bad)
        throw IoError("sweep file layout: bad array dimension '" + dim.name + "' of '" + column.name + "'");
    }
    if (!column.dimensions.empty() && product != column.length)
      throw IoError("sweep file layout: the dimensions of '" + column.name +
                    "' do not multiply to its length");
  }
  if (layout.task_count < 0 || layout.chunk_count < 0) {
    throw IoError("sweep file layout: negative task or chunk count");
  }
  for (const auto& [first, count] : layout.sample_task_ranges)
    if (first < 0 || count < 0 || first + count > layout.task_count)
      throw IoError("sweep file layout: a /samples task range outside 0 .. task_count");
  if (layout.compression < 0 || layout.compression > 9) {
    throw IoError("sweep file layout: compression must be 0..9");
  }
  for (const auto& [name, value] : layout.root_string_attributes) {
    if (name.empty() || kReservedAttributes.count(name) != 0) {
      throw IoError("sweep file layout: root attribute '" + name + "' is reserved");
    }
  }
}

// A 1-D numeric attribute (CF flag_values), replacing one of the same name.
template <class T>
void write_vector_attribute(hid_t object, const char* name, const std::vector<T>& values) {
  const hsize_t n = values.size();
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  if (H5Aexists(object, name) > 0) H5Adelete(object, name);
  const hid_t attr = H5Acreate2(object, name, h5::native_type<T>(), space, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t status = attr < 0 ? -1 : H5Awrite(attr, h5::native_type<T>(), values.data());
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  if (status < 0) throw IoError(std::string("cannot write attribute ") + name);
}

// What the file follows of the CF conventions (root attribute `simpact_conventions`).
constexpr const char* kConventionsNote =
    "CF-1.8 variable attributes: units (UDUNITS), long_name, _FillValue = NaN for values not computed, "
    "flag_values/flag_meanings for flags and status codes, cell_methods for statistics over Monte Carlo "
    "replicas (std with ddof = 0), coordinates as netCDF-4 dimension scales copied into every group that "
    "holds maps; /provenance is also readable column by column under /provenance_columns";

// Writes the whole structure into a new, empty file.
void write_structure(const hid_t root, const SweepFileLayout& layout) {
  std::vector<hsize_t> shape;
  std::vector<std::string> axis_names;
  for (const AxisSpec& axis : layout.axes) {
    shape.push_back(axis.values.size());
    axis_names.push_back(axis.name);
  }
  // One copy of the axes per group that holds maps; netCDF readers look up dimensions in the
  // variable's own group and its parents only.
  auto write_axes = [&](const std::string& group) {
    std::vector<h5::Dataset> scales;
    for (const AxisSpec& axis : layout.axes) {
      h5::Dataset scale = h5::Dataset::create(root, join(group, axis.name), H5T_NATIVE_DOUBLE,
                                              h5::Dataspace::simple({axis.values.size()}));
      scale.write(H5T_NATIVE_DOUBLE, axis.values.data());
      scale.make_scale(axis.name);
      write_units(scale.id(), axis.units, axis.long_name);
      if (!axis.parameter.empty() && axis.parameter != axis.name)
        h5::write_string_attribute(scale.id(), "parameter", axis.parameter);
      scales.push_back(std::move(scale));
    }
    return scales;
  };
  std::vector<h5::Dataset> grid_scales = write_axes("grid");
  std::vector<std::string> groups;  // map groups in order of first appearance
  for (const MapSpec& map : layout.maps) {
    const std::string group = strip_slashes(map.group);
    if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
  }
  std::vector<std::string> map_paths(layout.maps.size());
  for (const std::string& group : groups) {
    std::vector<h5::Dataset> local = group == "grid" ? std::vector<h5::Dataset>{} : write_axes(group);
    const std::vector<h5::Dataset>& scales = group == "grid" ? grid_scales : local;
    for (std::size_t i = 0; i < layout.maps.size(); ++i) {
      const MapSpec& map = layout.maps[i];
      if (strip_slashes(map.group) != group) continue;
      map_paths[i] = "/" + join(group, map.name);
      h5::Dataset dataset = create_grid_dataset(root, join(group, map.name), H5T_NATIVE_DOUBLE, shape,
                                                layout.compression, &kNaN);
      write_units(dataset.id(), map.units, map.long_name);
      h5::write_scalar_attribute(dataset.id(), "_FillValue", kNaN);
      if (!map.cell_methods.empty())
        h5::write_string_attribute(dataset.id(), "cell_methods", map.cell_methods);
      if (!map.comment.empty()) h5::write_string_attribute(dataset.id(), "comment", map.comment);
      if (!map.flag_values.empty()) {
        write_vector_attribute(dataset.id(), "flag_values", map.flag_values);
        h5::write_string_attribute(dataset.id(), "flag_meanings", map.flag_meanings);
      }
      for (std::size_t d = 0; d < scales.size(); ++d) {
        dataset.attach_scale(scales[d], static_cast<unsigned>(d));
      }
    }
  }

  std::vector<std::string> sample_paths;
  if (!layout.samples.empty()) {
    const hsize_t n = sample_row_count(layout);
    h5::Dataset task =
        create_index_scale(root, "samples/task", "task", n, false, layout.compression, "task index");
    write_task_ids(task, layout);
    std::map<std::string, h5::Dataset> dimension_scales;  // named array dimensions, shared
    for (const SampleColumnSpec& column : layout.samples)
      for (const ArrayDimension& dim : column.dimensions) {
        if (dimension_scales.count(dim.name) != 0) continue;
        const std::string path = "samples/" + dim.name;
        h5::Dataset scale = dim.labels.empty()
                                ? create_index_scale(root, path, dim.name, static_cast<hsize_t>(dim.extent),
                                                     false, 0, dim.long_name)
                                : write_string_scale(root, path, dim.labels);
        if (!dim.labels.empty()) {
          scale.make_scale(dim.name);
          h5::write_string_attribute(scale.id(), "long_name", dim.long_name);
        }
        if (!dim.label_units.empty()) {
          h5::Dataset u = write_string_scale(root, path + "_units", dim.label_units);
          h5::write_string_attribute(u.id(), "long_name", "units (UDUNITS) of each " + dim.name);
          u.attach_scale(scale, 0);
        }
        dimension_scales.emplace(dim.name, std::move(scale));
      }
    for (const SampleColumnSpec& column : layout.samples) {
      const std::string name = "samples/" + column.name;
      std::vector<hsize_t> dims = {n};
      if (!column.dimensions.empty()) {
        for (const ArrayDimension& dim : column.dimensions) dims.push_back(static_cast<hsize_t>(dim.extent));
      } else if (column.length > 1) {
        dims.push_back(static_cast<hsize_t>(column.length));
      }
      h5::Dataset dataset =
          column.integer
              ? create_grid_dataset(root, name, H5T_NATIVE_INT64, dims, layout.compression, nullptr)
              : create_grid_dataset(root, name, H5T_NATIVE_DOUBLE, dims, layout.compression, &kNaN);
      write_units(dataset.id(), column.units, column.long_name);
      if (!column.comment.empty()) h5::write_string_attribute(dataset.id(), "comment", column.comment);
      if (!column.integer) h5::write_scalar_attribute(dataset.id(), "_FillValue", kNaN);
      if (!column.flag_values.empty()) {
        write_vector_attribute(dataset.id(), "flag_values", column.flag_values);
        h5::write_string_attribute(dataset.id(), "flag_meanings", column.flag_meanings);
      }
      dataset.attach_scale(task, 0);
      for (std::size_t d = 0; d < column.dimensions.size(); ++d)
        dataset.attach_scale(dimension_scales.at(column.dimensions[d].name), static_cast<unsigned>(d + 1));
      if (column.length > 1 &&
          column.dimensions.empty()) {  // every dimension labelled, or xarray refuses the group
        const h5::Dataset element = create_index_scale(root, name + "_element", column.name + "_element",
                                                       dims[1], false, 0, "element index of " + column.name);
        dataset.attach_scale(element, 1);
      }
      sample_paths.push_back("/" + name);
    }
  }

  {
    const h5::Datatype text = h5::Datatype::utf8_string();
    h5::Dataset config = h5::Dataset::create(root, "config", text.id(), h5::Dataspace::scalar());
    const char* data = layout.config_text.c_str();
    config.write(text.id(), &data, H5S_ALL, H5S_ALL, h5::PropertyList::conversion_transfer(4096).id());
    h5::write_string_attribute(config.id(), "sha256", layout.config_hash);
  }

  {
    h5::Datatype file_type = h5::Datatype::copy(provenance_memory_type().id());
    file_type.pack();
    h5::Dataset table =
        h5::Dataset::create(root, "provenance", file_type.id(), h5::Dataspace::simple({0}, {H5S_UNLIMITED}),
                            h5::PropertyList::chunked({kProvenanceChunkRows}, 0).id());
    // netCDF readers reject a dimension without a scale, so the row index gets one (/run).
    const h5::Dataset run =
        create_index_scale(root, "run", "run", 0, true, 0, "run or resume (row of /provenance)");
    table.attach_scale(run, 0);
  }

  {
    const hsize_t n = static_cast<hsize_t>(layout.chunk_count);
    h5::Dataset done =
        h5::Dataset::create(root, "progress/done", H5T_NATIVE_UINT8, h5::Dataspace::simple({n}));
    const std::vector<std::uint8_t> zeros(n, 0);
    if (n > 0) done.write(H5T_NATIVE_UINT8, zeros.data());
    h5::write_scalar_attribute(done.id(), "chunk_count", layout.chunk_count);
    write_units(done.id(), "1", "chunk finished (1) or not (0)");
    const h5::Dataset chunk = create_index_scale(root, "progress/chunk", "chunk", n, false, 0, "chunk index");
    done.attach_scale(chunk, 0);
  }

  h5::write_scalar_attribute<std::int32_t>(root, "schema_version", kSchemaVersion);
  h5::write_scalar_attribute<std::uint8_t>(root, "complete", 0);
  h5::write_string_attribute(root, "config_hash", layout.config_hash);
  h5::write_scalar_attribute(root, "task_count", layout.task_count);
  h5::write_scalar_attribute(root, "chunk_count", layout.chunk_count);
  h5::write_string_array_attribute(root, "grid_axes", axis_names);
  h5::write_string_array_attribute(root, "map_datasets", map_paths);
  h5::write_string_array_attribute(root, "sample_datasets", sample_paths);
  for (const auto& [name, value] : layout.root_string_attributes) {
    h5::write_string_attribute(root, name, value);
  }
  for (const auto& [name, value] : layout.root_integer_attributes) {
    h5::write_scalar_attribute(root, name, value);
  }
  h5::write_string_attribute(root, "Conventions", "CF-1.8");
  h5::write_string_attribute(root, "simpact_conventions", kConventionsNote);
  for (const AxisSpec& p : layout.fixed_parameters) {  // scalar variables, one per fixed parameter
    h5::Dataset value =
        h5::Dataset::create(root, "parameters/" + p.name, H5T_NATIVE_DOUBLE, h5::Dataspace::scalar());
    value.write(H5T_NATIVE_DOUBLE, p.values.data());
    write_units(value.id(), p.units.empty() ? "1" : p.units,
                p.long_name.empty() ? "fixed parameter " + p.name : p.long_name);
  }
}

h5::File build_structure(const std::string& path, const SweepFileLayout& layout) {
  h5::File file = h5::File::create(path);
  write_structure(file.id(), layout);
  return file;
}

}  // namespace simpact::detail

namespace simpact {

std::string stored_axis_name(const std::string& parameter) {
  if (parameter == "dt") return "time_step";
  // Attributes of xarray's DataArray and Dataset that `obj.<name>` would return instead.
  static const std::set<std::string> kShadowed = {"T",     "attrs",  "chunks",   "coords", "data",    "dims",
                                                  "dtype", "dt",     "encoding", "imag",   "indexes", "loc",
                                                  "name",  "nbytes", "ndim",     "plot",   "real",    "shape",
                                                  "size",  "sizes",  "str",      "values", "variable"};
  return kShadowed.count(parameter) != 0 ? parameter + "_" : parameter;
}

}  // namespace simpact
