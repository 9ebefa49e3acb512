#include "simpact/io/sweep_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <set>

#include "hdf5_handle.hpp"  // private to io/ (not installed)

#if __has_include(<simpact/version.hpp>)
#include <simpact/version.hpp>
#define SIMPACT_IO_SCHEMA_VERSION ::simpact::kSchemaVersion
#else
#define SIMPACT_IO_SCHEMA_VERSION 1
#endif

namespace simpact {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Elements per chunk of maps and sample columns: 512 KiB of float64, small enough for ranks to
// own different chunks of one map, big enough for gzip.
constexpr hsize_t kChunkElements = hsize_t{1} << 16;
constexpr hsize_t kProvenanceChunkRows = 16;
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
  h5::PropertyList create = has_zero_extent(shape)
                                ? h5::PropertyList::create(H5P_DATASET_CREATE)
                                : h5::PropertyList::chunked(chunk_shape(shape), compression);
  if (fill != nullptr) create.set_fill_value(type, fill);
  create.set_early_allocation();
  return h5::Dataset::create(location, name, type, h5::Dataspace::simple(shape), create.id());
}

void write_units(hid_t object, const std::string& units, const std::string& long_name) {
  h5::write_string_attribute(object, "units", units);
  h5::write_string_attribute(object, "long_name", long_name);
}

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

// ---- /provenance compound type ---------------------------------------------------------------

// Memory image of one ProvenanceRow (strings as const char* for HDF5's variable-length type).
struct ProvenanceRecord {
  const char* version;
  const char* git_revision;
  const char* build_flags;
  const char* hosts;
  const char* slurm_job_id;
  const char* start_time;
  const char* end_time;
  const char* command;
  std::int64_t ranks;
  std::int64_t threads;
  std::uint64_t seed;
  std::int64_t tasks_done;
};

h5::Datatype provenance_memory_type() {
  h5::Datatype type = h5::Datatype::compound(sizeof(ProvenanceRecord));
  const h5::Datatype text = h5::Datatype::utf8_string();
  type.insert("version", offsetof(ProvenanceRecord, version), text.id());
  type.insert("git_revision", offsetof(ProvenanceRecord, git_revision), text.id());
  type.insert("build_flags", offsetof(ProvenanceRecord, build_flags), text.id());
  type.insert("hosts", offsetof(ProvenanceRecord, hosts), text.id());
  type.insert("slurm_job_id", offsetof(ProvenanceRecord, slurm_job_id), text.id());
  type.insert("start_time", offsetof(ProvenanceRecord, start_time), text.id());
  type.insert("end_time", offsetof(ProvenanceRecord, end_time), text.id());
  type.insert("command", offsetof(ProvenanceRecord, command), text.id());
  type.insert("ranks", offsetof(ProvenanceRecord, ranks), H5T_NATIVE_INT64);
  type.insert("threads", offsetof(ProvenanceRecord, threads), H5T_NATIVE_INT64);
  type.insert("seed", offsetof(ProvenanceRecord, seed), H5T_NATIVE_UINT64);
  type.insert("tasks_done", offsetof(ProvenanceRecord, tasks_done), H5T_NATIVE_INT64);
  return type;
}

void write_provenance_rows(hid_t file, const std::vector<ProvenanceRow>& rows) {
  std::vector<ProvenanceRecord> records;
  records.reserve(rows.size());
  for (const ProvenanceRow& row : rows) {
    records.push_back({row.version.c_str(), row.git_revision.c_str(), row.build_flags.c_str(),
                       row.hosts.c_str(), row.slurm_job_id.c_str(), row.start_time.c_str(),
                       row.end_time.c_str(), row.command.c_str(), row.ranks, row.threads, row.seed,
                       row.tasks_done});
  }
  const hsize_t n = rows.size();
  h5::Dataset table = h5::Dataset::open(file, "provenance");
  table.set_extent({n});
  h5::Dataset run = h5::Dataset::open(file, "run");
  run.set_extent({n});
  if (n == 0) return;
  const h5::Datatype type = provenance_memory_type();
  table.write(type.id(), records.data());
  write_iota(run, n);
  // The same rows one column per variable (dimension `run`): netCDF-C cannot read the compound
  // table of variable-length strings, so xarray's netCDF4 engine would drop /provenance.
  const h5::Datatype text = h5::Datatype::utf8_string();
  auto column = [&](const std::string& name, hid_t file_type, hid_t memory_type, const void* data,
                    const std::string& long_name) {
    const std::string path = "provenance_columns/" + name;
    if (H5Lexists(file, "provenance_columns", H5P_DEFAULT) > 0 &&
        H5Lexists(file, path.c_str(), H5P_DEFAULT) > 0)
      H5Ldelete(file, path.c_str(), H5P_DEFAULT);
    h5::Dataset d = h5::Dataset::create(file, path, file_type, h5::Dataspace::simple({n}));
    d.write(memory_type, data);
    h5::write_string_attribute(d.id(), "long_name", long_name);
    d.attach_scale(run, 0);
  };
  auto strings = [&](const std::string& name, auto member, const std::string& long_name) {
    std::vector<const char*> values;
    for (const ProvenanceRecord& r : records) values.push_back(r.*member);
    column(name, text.id(), text.id(), values.data(), long_name);
  };
  auto integers = [&](const std::string& name, auto member, const std::string& long_name) {
    std::vector<std::int64_t> values;
    for (const ProvenanceRecord& r : records) values.push_back(static_cast<std::int64_t>(r.*member));
    column(name, H5T_NATIVE_INT64, H5T_NATIVE_INT64, values.data(), long_name);
  };
  strings("version", &ProvenanceRecord::version, "simpact version");
  strings("git_revision", &ProvenanceRecord::git_revision, "git revision of the build");
  strings("build_flags", &ProvenanceRecord::build_flags, "compiler and build flags");
  strings("hosts", &ProvenanceRecord::hosts, "hosts that ran the ranks");
  strings("slurm_job_id", &ProvenanceRecord::slurm_job_id, "Slurm job id (empty outside Slurm)");
  strings("start_time", &ProvenanceRecord::start_time, "start of the run (ISO 8601)");
  strings("end_time", &ProvenanceRecord::end_time, "end of the run (ISO 8601; empty: killed)");
  strings("command", &ProvenanceRecord::command, "command line");
  integers("ranks", &ProvenanceRecord::ranks, "MPI ranks");
  integers("threads", &ProvenanceRecord::threads, "OpenMP threads per rank");
  integers("seed", &ProvenanceRecord::seed, "seed (as int64)");
  integers("tasks_done", &ProvenanceRecord::tasks_done, "tasks computed by this run");
}

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
  if (layout.task_count < 0 || layout.chunk_count < 0) {
    throw IoError("sweep file layout: negative task or chunk count");
  }
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
    const hsize_t n = static_cast<hsize_t>(layout.task_count);
    const h5::Dataset task =
        create_index_scale(root, "samples/task", "task", n, false, layout.compression, "task index");
    for (const SampleColumnSpec& column : layout.samples) {
      const std::string name = "samples/" + column.name;
      std::vector<hsize_t> dims = {n};
      if (column.length > 1) dims.push_back(static_cast<hsize_t>(column.length));
      h5::Dataset dataset =
          column.integer
              ? create_grid_dataset(root, name, H5T_NATIVE_INT64, dims, layout.compression, nullptr)
              : create_grid_dataset(root, name, H5T_NATIVE_DOUBLE, dims, layout.compression, &kNaN);
      write_units(dataset.id(), column.units, column.long_name);
      if (!column.integer) h5::write_scalar_attribute(dataset.id(), "_FillValue", kNaN);
      if (!column.flag_values.empty()) {
        write_vector_attribute(dataset.id(), "flag_values", column.flag_values);
        h5::write_string_attribute(dataset.id(), "flag_meanings", column.flag_meanings);
      }
      dataset.attach_scale(task, 0);
      if (column.length > 1) {  // every dimension labelled, or xarray refuses the group
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
    config.write(text.id(), &data);
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

  h5::write_scalar_attribute<std::int32_t>(root, "schema_version", SIMPACT_IO_SCHEMA_VERSION);
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

// Builds a new file through the serial driver (rank 0 only).
void build_structure(const std::string& path, const SweepFileLayout& layout) {
  h5::File file = h5::File::create(path);
  write_structure(file.id(), layout);
  file.close();  // after every object of write_structure is closed
}

}  // namespace

bool ProvenanceRow::operator==(const ProvenanceRow& o) const {
  return version == o.version && git_revision == o.git_revision && build_flags == o.build_flags &&
         hosts == o.hosts && slurm_job_id == o.slurm_job_id && start_time == o.start_time &&
         end_time == o.end_time && command == o.command && ranks == o.ranks && threads == o.threads &&
         seed == o.seed && tasks_done == o.tasks_done;
}

// ---- SweepFile ---------------------------------------------------------------------------------

struct SweepFile::Impl {
  std::string path;
  MPI_Comm comm = MPI_COMM_NULL;  // our duplicate: keeps our messages apart from the caller's
  int rank = 0;
  int size = 1;

  h5::File file;
  h5::PropertyList transfer;  // collective MPI-IO in parallel, default otherwise
  std::vector<h5::Dataset> maps, samples;
  std::vector<bool> sample_is_integer;
  std::vector<std::int64_t> sample_length;  // values per task (2-D arrays: > 1)
  h5::Dataset done;
  std::int64_t point_count = 0, task_count = 0, chunk_count = 0;

  Impl(std::string file_path, MPI_Comm user_comm) : path(std::move(file_path)) {
    MPI_Comm_dup(user_comm, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
  }

  bool parallel() const { return size > 1; }

  // Collective: every rank learns whether any rank failed and throws the lowest failing
  // rank's message, so no rank is left waiting in a collective call.
  void agree(const std::string& local_error) const {
    if (!parallel()) {
      if (!local_error.empty()) throw IoError(local_error);
      return;
    }
    int failed = local_error.empty() ? size : rank;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MIN, comm);
    if (failed == size) return;
    std::string message = local_error;
    int length = static_cast<int>(message.size());
    MPI_Bcast(&length, 1, MPI_INT, failed, comm);
    message.resize(static_cast<std::size_t>(length));
    MPI_Bcast(message.data(), length, MPI_CHAR, failed, comm);
    throw IoError(message);
  }

  // Runs fn on rank 0 only and agrees on the outcome.
  template <class Fn>
  void on_rank0(Fn&& fn) const {
    std::string error;
    if (rank == 0) {
      try {
        fn();
      } catch (const std::exception& e) {
        error = e.what();
        if (error.empty()) error = "unknown error in " + path;
      }
    }
    agree(error);
  }

  // Collective: opens the file read-write with the driver for this communicator, and every
  // dataset the writers need.
  void open_file() {
    std::string error;
    try {
      if (parallel()) {
        const h5::PropertyList access = h5::PropertyList::mpio_file_access(comm);
        file = h5::File::open(path, true, access.id());
        transfer = h5::PropertyList::collective_transfer();
      } else {
        file = h5::File::open(path, true);
        transfer = h5::PropertyList::create(H5P_DATASET_XFER);
      }
      const hid_t root = file.id();
      if (!h5::has_attribute(root, "map_datasets") || !h5::has_attribute(root, "task_count")) {
        throw IoError(path + " is not a simpact sweep file (no map_datasets/task_count)");
      }
      task_count = h5::read_scalar_attribute<std::int64_t>(root, "task_count");
      chunk_count = h5::read_scalar_attribute<std::int64_t>(root, "chunk_count");
      point_count = 1;
      for (const std::string& axis : h5::read_string_array_attribute(root, "grid_axes")) {
        point_count *=
            static_cast<std::int64_t>(h5::Dataset::open(root, "grid/" + axis).space().element_count());
      }
      maps.clear();
      for (const std::string& name : h5::read_string_array_attribute(root, "map_datasets")) {
        maps.push_back(h5::Dataset::open(root, name));
      }
      samples.clear();
      sample_is_integer.clear();
      sample_length.clear();
      for (const std::string& name : h5::read_string_array_attribute(root, "sample_datasets")) {
        samples.push_back(h5::Dataset::open(root, name));
        sample_is_integer.push_back(samples.back().type().type_class() == H5T_INTEGER);
        const auto dims = samples.back().space().dims();
        sample_length.push_back(dims.size() > 1 ? static_cast<std::int64_t>(dims[1]) : 1);
      }
      done = h5::Dataset::open(root, "progress/done");
    } catch (const std::exception& e) {
      error = e.what();
    }
    agree(error);
  }

  // Collective: closes every dataset, then the file (the close writes the metadata).
  void close_file() {
    maps.clear();
    samples.clear();
    done.reset();
    transfer.reset();
    file.close();
  }

  // Runs fn(file) with the file open through the serial driver on rank 0 only: parallel HDF5
  // cannot write variable-length data. In parallel the file is closed and reopened around it.
  template <class Fn>
  void serial_section(Fn&& fn) {
    if (!parallel()) {
      fn(file.id());
      return;
    }
    close_file();
    try {
      on_rank0([&] {
        h5::File serial = h5::File::open(path, true);
        fn(serial.id());
        serial.close();
      });
    } catch (const IoError&) {
      open_file();  // stay usable after a failed section
      throw;
    }
    open_file();
  }

  void require_open() const {
    if (!file.valid()) throw IoError(path + ": sweep file is closed");
  }

  // Collective write of elements [first, first+count) of a dataset with `total` elements;
  // `error` non-empty: a bad call (on any rank), thrown on every rank.
  void write_range(std::string error, h5::Dataset* dataset, hid_t mem_type, std::int64_t first,
                   const void* values, std::int64_t count, std::int64_t total, const std::string& what) {
    if (!error.empty()) {
      // already known bad
    } else if (first < 0 || count < 0 || first > total || count > total - first) {
      error = path + ": " + what + " range [" + std::to_string(first) + ", " + std::to_string(first + count) +
              ") outside [0, " + std::to_string(total) + ")";
    } else if (count > 0 && values == nullptr) {
      error = path + ": " + what + ": null data";
    }
    agree(error);
    h5::Dataspace file_space = dataset->space();
    file_space.select_linear_range(static_cast<hsize_t>(first), static_cast<hsize_t>(count));
    h5::Dataspace mem_space = h5::Dataspace::simple({std::max<hsize_t>(1, count)});
    if (count == 0) mem_space.select_none();  // still takes part in the collective write
    static const double kDummy = 0;
    dataset->write(mem_type, values != nullptr ? values : &kDummy, mem_space.id(), file_space.id(),
                   transfer.id());
  }
};

SweepFile::SweepFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SweepFile::SweepFile(SweepFile&&) noexcept = default;
SweepFile& SweepFile::operator=(SweepFile&& other) noexcept {
  if (this != &other) {
    try {
      if (impl_) close();
    } catch (...) {
    }
    impl_ = std::move(other.impl_);
  }
  return *this;
}

SweepFile::~SweepFile() {
  if (!impl_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) {
    // MPI (and with it parallel HDF5) is shut down: nothing can be closed any more.
    for (h5::Dataset& d : impl_->maps) d.release();
    for (h5::Dataset& d : impl_->samples) d.release();
    impl_->done.release();
    impl_->transfer.release();
    impl_->file.release();
    return;
  }
  try {
    close();
  } catch (...) {
    // a destructor never throws; close() explicitly to see errors
  }
}

SweepFile SweepFile::create(const std::string& path, MPI_Comm comm, const SweepFileLayout& layout) {
  auto impl = std::make_unique<Impl>(path, comm);
  SweepFile file(std::move(impl));
  Impl& self = *file.impl_;
  std::string error;
  try {
    validate(layout);
  } catch (const std::exception& e) {
    error = e.what();
  }
  self.agree(error);
  self.on_rank0([&] { build_structure(path, layout); });
  self.open_file();
  return file;
}

SweepFile SweepFile::open(const std::string& path, MPI_Comm comm) {
  SweepFile file(std::make_unique<Impl>(path, comm));
  file.impl_->open_file();
  return file;
}

void SweepFile::write_map(std::size_t map_index, std::int64_t first_point, const double* values,
                          std::int64_t count) {
  impl_->require_open();
  const std::string what = "map " + std::to_string(map_index);
  const bool ok = map_index < impl_->maps.size();
  impl_->write_range(ok ? "" : impl_->path + ": no " + what, ok ? &impl_->maps[map_index] : nullptr,
                     H5T_NATIVE_DOUBLE, first_point, values, count, impl_->point_count, what);
}

void SweepFile::write_samples(std::size_t column, std::int64_t first_task, const double* values,
                              std::int64_t count) {
  impl_->require_open();
  const std::string what = "float64 sample column " + std::to_string(column);
  const bool ok = column < impl_->samples.size() && !impl_->sample_is_integer[column];
  // A per-task array of L values is row-major [task, element]: rows first_task.. are one linear range.
  const std::int64_t length = ok ? impl_->sample_length[column] : 1;
  impl_->write_range(ok ? "" : impl_->path + ": no " + what, ok ? &impl_->samples[column] : nullptr,
                     H5T_NATIVE_DOUBLE, first_task * length, values, count * length,
                     impl_->task_count * length, what);
}

void SweepFile::write_samples(std::size_t column, std::int64_t first_task, const std::int64_t* values,
                              std::int64_t count) {
  impl_->require_open();
  const std::string what = "int64 sample column " + std::to_string(column);
  const bool ok = column < impl_->samples.size() && impl_->sample_is_integer[column];
  impl_->write_range(ok ? "" : impl_->path + ": no " + what, ok ? &impl_->samples[column] : nullptr,
                     H5T_NATIVE_INT64, first_task, values, count, impl_->task_count, what);
}

void SweepFile::write_progress(std::int64_t first_chunk, const std::uint8_t* done, std::int64_t count) {
  impl_->require_open();
  impl_->write_range("", &impl_->done, H5T_NATIVE_UINT8, first_chunk, done, count, impl_->chunk_count,
                     "progress");
}

void SweepFile::write_provenance(const std::vector<ProvenanceRow>& rows) {
  impl_->require_open();
  impl_->serial_section([&](hid_t file) { write_provenance_rows(file, rows); });
}

void SweepFile::set_complete(bool complete) {
  impl_->require_open();
  h5::write_scalar_attribute<std::uint8_t>(impl_->file.id(), "complete", complete ? 1 : 0);
}

void SweepFile::flush() {
  impl_->require_open();
  impl_->file.flush();
}

void SweepFile::close() {
  if (!impl_) return;
  std::string error;
  try {
    impl_->close_file();
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (impl_->comm != MPI_COMM_NULL) MPI_Comm_free(&impl_->comm);
  if (!error.empty()) throw IoError(error);
}

const std::string& SweepFile::path() const {
  return impl_->path;
}
std::size_t SweepFile::map_count() const {
  return impl_->maps.size();
}
std::size_t SweepFile::sample_column_count() const {
  return impl_->samples.size();
}
std::int64_t SweepFile::point_count() const {
  return impl_->point_count;
}
std::int64_t SweepFile::task_count() const {
  return impl_->task_count;
}
std::int64_t SweepFile::chunk_count() const {
  return impl_->chunk_count;
}

// ---- read helpers ------------------------------------------------------------------------------

bool sweep_file_is_complete(const std::string& path) {
  try {
    const h5::File file = h5::File::open(path, false);
    return h5::read_scalar_attribute<std::uint8_t>(file.id(), "complete") != 0;
  } catch (const std::exception&) {
    return false;
  }
}

std::string sweep_file_config_hash(const std::string& path) {
  const h5::File file = h5::File::open(path, false);
  return h5::read_string_attribute(file.id(), "config_hash");
}

namespace {
template <class T>
std::vector<T> read_whole(const std::string& path, const std::string& name) {
  const h5::File file = h5::File::open(path, false);
  const h5::Dataset dataset = h5::Dataset::open(file.id(), name);
  std::vector<T> values(dataset.space().element_count());
  if (!values.empty()) dataset.read(h5::native_type<T>(), values.data());
  return values;
}
}  // namespace

std::vector<double> read_dataset_f64(const std::string& path, const std::string& dataset) {
  return read_whole<double>(path, dataset);
}

std::vector<std::int64_t> read_dataset_i64(const std::string& path, const std::string& dataset) {
  return read_whole<std::int64_t>(path, dataset);
}

std::vector<ProvenanceRow> read_provenance(const std::string& path) {
  const h5::File file = h5::File::open(path, false);
  const h5::Dataset table = h5::Dataset::open(file.id(), "provenance");
  std::vector<ProvenanceRecord> records(table.space().element_count());
  if (records.empty()) return {};
  const h5::Datatype type = provenance_memory_type();
  table.read(type.id(), records.data());
  auto take = [](const char* s) {
    std::string value = s != nullptr ? s : "";
    H5free_memory(const_cast<char*>(s));  // HDF5 allocated it during the read
    return value;
  };
  std::vector<ProvenanceRow> rows;
  rows.reserve(records.size());
  for (const ProvenanceRecord& r : records) {
    ProvenanceRow row;
    row.version = take(r.version);
    row.git_revision = take(r.git_revision);
    row.build_flags = take(r.build_flags);
    row.hosts = take(r.hosts);
    row.slurm_job_id = take(r.slurm_job_id);
    row.start_time = take(r.start_time);
    row.end_time = take(r.end_time);
    row.command = take(r.command);
    row.ranks = r.ranks;
    row.threads = r.threads;
    row.seed = r.seed;
    row.tasks_done = r.tasks_done;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace simpact
