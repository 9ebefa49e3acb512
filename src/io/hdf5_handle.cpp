#include "hdf5_handle.hpp"  // private to io/ (not installed)

#include <hdf5_hl.h>

#include <functional>

namespace simpact::h5 {

void silence_error_printing() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

std::string last_error_message() {
  std::string message;
  // Walking upward starts at the most specific error (e.g. "unable to open file: ... errno").
  auto take_first = [](unsigned n, const H5E_error2_t* error, void* data) -> herr_t {
    if (n == 0 && error->desc != nullptr) *static_cast<std::string*>(data) = error->desc;
    return 0;
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, take_first, &message);
  for (char& c : message) {
    if (c == '\n' || c == '\r') c = ' ';  // messages stay on one line
  }
  return message;
}

std::string describe(hid_t object) {
  std::string file = "?";
  if (const ssize_t n = H5Fget_name(object, nullptr, 0); n > 0) {
    file.assign(static_cast<std::size_t>(n) + 1, '\0');
    H5Fget_name(object, file.data(), file.size());
    file.resize(static_cast<std::size_t>(n));
  }
  std::string path = "/";
  if (H5Iget_type(object) != H5I_FILE) {
    if (const ssize_t n = H5Iget_name(object, nullptr, 0); n > 0) {
      path.assign(static_cast<std::size_t>(n) + 1, '\0');
      H5Iget_name(object, path.data(), path.size());
      path.resize(static_cast<std::size_t>(n));
    }
  }
  return file + ":" + path;
}

void throw_error(const std::string& what, const std::string& hdf5_message) {
  if (hdf5_message.empty()) throw IoError(what);
  throw IoError(what + " (HDF5: " + hdf5_message + ")");
}

// ---- property lists ------------------------------------------------------------------------

PropertyList PropertyList::create(hid_t property_class) {
  return PropertyList(
      check_id(H5Pcreate(property_class), [] { return std::string("cannot create property list"); }));
}

PropertyList PropertyList::mpio_file_access(MPI_Comm comm) {
  PropertyList list = create(H5P_FILE_ACCESS);
  check_status(H5Pset_fapl_mpio(list.id(), comm, MPI_INFO_NULL),
               [] { return std::string("cannot select the MPI-IO file driver"); });
  return list;
}

PropertyList PropertyList::collective_transfer() {
  PropertyList list = create(H5P_DATASET_XFER);
  check_status(H5Pset_dxpl_mpio(list.id(), H5FD_MPIO_COLLECTIVE),
               [] { return std::string("cannot select collective MPI-IO transfers"); });
  return list;
}

PropertyList PropertyList::conversion_transfer(std::size_t bytes) {
  PropertyList list = create(H5P_DATASET_XFER);
  check_status(H5Pset_buffer(list.id(), bytes, nullptr, nullptr),
               [] { return std::string("cannot set the type-conversion buffer"); });
  return list;
}

PropertyList PropertyList::chunked(const std::vector<hsize_t>& chunk, int gzip_level) {
  PropertyList list = create(H5P_DATASET_CREATE);
  const auto what = [] { return std::string("cannot set chunking/compression"); };
  check_status(H5Pset_chunk(list.id(), static_cast<int>(chunk.size()), chunk.data()), what);
  if (gzip_level > 0) {
    check_status(H5Pset_shuffle(list.id()), what);
    check_status(H5Pset_deflate(list.id(), static_cast<unsigned>(gzip_level)), what);
  }
  return list;
}

PropertyList PropertyList::intermediate_groups() {
  PropertyList list = create(H5P_LINK_CREATE);
  check_status(H5Pset_create_intermediate_group(list.id(), 1),
               [] { return std::string("cannot set intermediate group creation"); });
  return list;
}

void PropertyList::set_fill_value(hid_t type, const void* value) {
  check_status(H5Pset_fill_value(id(), type, value), [] { return std::string("cannot set fill value"); });
}

void PropertyList::set_early_allocation() {
  check_status(H5Pset_alloc_time(id(), H5D_ALLOC_TIME_EARLY),
               [] { return std::string("cannot set allocation time"); });
}

// ---- datatypes -----------------------------------------------------------------------------

Datatype Datatype::copy(hid_t type) {
  return Datatype(check_id(H5Tcopy(type), [] { return std::string("cannot copy datatype"); }));
}

Datatype Datatype::utf8_string() {
  Datatype type = copy(H5T_C_S1);
  const auto what = [] { return std::string("cannot make variable-length string type"); };
  check_status(H5Tset_size(type.id(), H5T_VARIABLE), what);
  check_status(H5Tset_cset(type.id(), H5T_CSET_UTF8), what);
  return type;
}

Datatype Datatype::compound(std::size_t size) {
  return Datatype(
      check_id(H5Tcreate(H5T_COMPOUND, size), [] { return std::string("cannot create compound type"); }));
}

void Datatype::insert(const std::string& name, std::size_t offset, hid_t member_type) {
  check_status(H5Tinsert(id(), name.c_str(), offset, member_type),
               [&] { return "cannot insert compound member '" + name + "'"; });
}

void Datatype::pack() {
  check_status(H5Tpack(id()), [] { return std::string("cannot pack compound type"); });
}

H5T_class_t Datatype::type_class() const {
  return H5Tget_class(id());
}

// ---- dataspaces ----------------------------------------------------------------------------

Dataspace Dataspace::scalar() {
  return Dataspace(check_id(H5Screate(H5S_SCALAR), [] { return std::string("cannot create dataspace"); }));
}

Dataspace Dataspace::simple(const std::vector<hsize_t>& dims) {
  return Dataspace(check_id(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                            [] { return std::string("cannot create dataspace"); }));
}

Dataspace Dataspace::simple(const std::vector<hsize_t>& dims, const std::vector<hsize_t>& max_dims) {
  return Dataspace(check_id(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), max_dims.data()),
                            [] { return std::string("cannot create dataspace"); }));
}

int Dataspace::rank() const {
  const int rank = H5Sget_simple_extent_ndims(id());
  check_status(rank, [] { return std::string("cannot query dataspace rank"); });
  return rank;
}

std::vector<hsize_t> Dataspace::dims() const {
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank()));
  check_status(H5Sget_simple_extent_dims(id(), dims.data(), nullptr),
               [] { return std::string("cannot query dataspace extent"); });
  return dims;
}

hsize_t Dataspace::element_count() const {
  const hssize_t n = H5Sget_simple_extent_npoints(id());
  if (n < 0) fail([] { return std::string("cannot query dataspace size"); });
  return static_cast<hsize_t>(n);
}

void Dataspace::select_none() {
  check_status(H5Sselect_none(id()), [] { return std::string("cannot clear selection"); });
}

void Dataspace::select_all() {
  check_status(H5Sselect_all(id()), [] { return std::string("cannot select all"); });
}

void Dataspace::select_hyperslab(const std::vector<hsize_t>& start, const std::vector<hsize_t>& count,
                                 bool add) {
  check_status(H5Sselect_hyperslab(id(), add ? H5S_SELECT_OR : H5S_SELECT_SET, start.data(), nullptr,
                                   count.data(), nullptr),
               [] { return std::string("cannot select hyperslab"); });
}

void Dataspace::select_linear_range(hsize_t first, hsize_t count) {
  const std::vector<hsize_t> shape = dims();
  const hsize_t total = element_count();
  if (first > total || count > total - first) {
    throw IoError("element range [" + std::to_string(first) + ", " + std::to_string(first + count) +
                  ") outside a dataspace of " + std::to_string(total) + " elements");
  }
  select_none();
  if (count == 0) return;
  if (shape.empty()) {  // scalar: the one element
    select_all();
    return;
  }
  const std::size_t n = shape.size();
  std::vector<hsize_t> inner(n, 1);  // elements in one index step of dim d
  for (std::size_t d = n - 1; d > 0; --d) inner[d - 1] = inner[d] * shape[d];

  std::vector<hsize_t> start(n, 0), block(n, 1);
  bool any = false;
  auto emit = [&] {
    select_hyperslab(start, block, any);
    any = true;
  };
  // Selects [lo, hi) of the sub-array at dims d..n-1 (outer indices already in start[0..d-1]):
  // a partial head row, a block of full rows, a partial tail row.
  std::function<void(std::size_t, hsize_t, hsize_t)> add = [&](std::size_t d, hsize_t lo, hsize_t hi) {
    if (lo >= hi) return;
    if (d == n - 1) {
      start[d] = lo;
      block[d] = hi - lo;
      emit();
      return;
    }
    hsize_t row_lo = lo / inner[d];
    const hsize_t row_hi = hi / inner[d];
    const hsize_t off_lo = lo % inner[d], off_hi = hi % inner[d];
    if (row_lo == row_hi) {
      start[d] = row_lo;
      block[d] = 1;
      add(d + 1, off_lo, off_hi);
      return;
    }
    if (off_lo != 0) {
      start[d] = row_lo;
      block[d] = 1;
      add(d + 1, off_lo, inner[d]);
      ++row_lo;
    }
    if (row_hi > row_lo) {
      start[d] = row_lo;
      block[d] = row_hi - row_lo;
      for (std::size_t e = d + 1; e < n; ++e) {
        start[e] = 0;
        block[e] = shape[e];
      }
      emit();
    }
    if (off_hi != 0) {
      start[d] = row_hi;
      block[d] = 1;
      add(d + 1, 0, off_hi);
    }
  };
  add(0, first, first + count);
}

// ---- groups and datasets -------------------------------------------------------------------

Group Group::create(hid_t location, const std::string& name) {
  silence_error_printing();
  const PropertyList links = PropertyList::intermediate_groups();
  return Group(check_id(H5Gcreate2(location, name.c_str(), links.id(), H5P_DEFAULT, H5P_DEFAULT),
                        [&] { return "cannot create group '" + name + "' in " + describe(location); }));
}

Group Group::open(hid_t location, const std::string& name) {
  silence_error_printing();
  return Group(check_id(H5Gopen2(location, name.c_str(), H5P_DEFAULT),
                        [&] { return "cannot open group '" + name + "' in " + describe(location); }));
}

bool link_exists(hid_t location, const std::string& path) {
  // H5Lexists fails (rather than answering false) when an intermediate link is missing.
  std::size_t pos = 0;
  while (pos <= path.size()) {
    std::size_t next = path.find('/', pos);
    if (next == std::string::npos) next = path.size();
    if (next > pos) {
      const std::string prefix = path.substr(0, next);
      if (H5Lexists(location, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    }
    pos = next + 1;
  }
  return true;
}

Dataset Dataset::create(hid_t location, const std::string& name, hid_t type, const Dataspace& space,
                        hid_t create_plist) {
  silence_error_printing();
  const PropertyList links = PropertyList::intermediate_groups();
  return Dataset(
      check_id(H5Dcreate2(location, name.c_str(), type, space.id(), links.id(), create_plist, H5P_DEFAULT),
               [&] { return "cannot create dataset '" + name + "' in " + describe(location); }));
}

Dataset Dataset::open(hid_t location, const std::string& name) {
  silence_error_printing();
  return Dataset(check_id(H5Dopen2(location, name.c_str(), H5P_DEFAULT),
                          [&] { return "cannot open dataset '" + name + "' in " + describe(location); }));
}

Dataspace Dataset::space() const {
  return Dataspace(check_id(H5Dget_space(id()), [&] { return "cannot get dataspace of " + describe(id()); }));
}

Datatype Dataset::type() const {
  return Datatype(check_id(H5Dget_type(id()), [&] { return "cannot get datatype of " + describe(id()); }));
}

void Dataset::set_extent(const std::vector<hsize_t>& dims) {
  check_status(H5Dset_extent(id(), dims.data()), [&] { return "cannot resize " + describe(id()); });
}

void Dataset::write(hid_t mem_type, const void* buffer, hid_t mem_space, hid_t file_space, hid_t transfer) {
  check_status(H5Dwrite(id(), mem_type, mem_space, file_space, transfer, buffer),
               [&] { return "cannot write " + describe(id()); });
}

void Dataset::read(hid_t mem_type, void* buffer, hid_t mem_space, hid_t file_space, hid_t transfer) const {
  check_status(H5Dread(id(), mem_type, mem_space, file_space, transfer, buffer),
               [&] { return "cannot read " + describe(id()); });
}

void Dataset::make_scale(const std::string& dimension_name) {
  check_status(H5DSset_scale(id(), dimension_name.c_str()),
               [&] { return "cannot make " + describe(id()) + " a dimension scale"; });
}

bool Dataset::is_scale() const {
  return check_status(H5DSis_scale(id()),
                      [&] { return "cannot query whether " + describe(id()) + " is a scale"; });
}

void Dataset::attach_scale(const Dataset& scale, unsigned dim) {
  check_status(H5DSattach_scale(id(), scale.id(), dim), [&] {
    return "cannot attach scale " + describe(scale.id()) + " to dimension " + std::to_string(dim) + " of " +
           describe(id());
  });
}

bool Dataset::is_attached(const Dataset& scale, unsigned dim) const {
  return check_status(H5DSis_attached(id(), scale.id(), dim),
                      [&] { return "cannot query scale " + describe(scale.id()) + " on " + describe(id()); });
}

// ---- files ---------------------------------------------------------------------------------

PropertyList PropertyList::serial_file_access() {
  PropertyList list = create(H5P_FILE_ACCESS);
#if H5_VERSION_GE(1, 10, 7)
  // Lock the file, but go on where the file system has no flock() (some Lustre/NFS mounts).
  check_status(H5Pset_file_locking(list.id(), true, true),
               [] { return std::string("cannot set file locking"); });
#endif
  return list;
}

namespace {
bool g_shutdown_unsafe = false;
}  // namespace

herr_t close_file(hid_t file) {
  const herr_t status = H5Fclose(file);
  if (status < 0) g_shutdown_unsafe = true;
  return status;
}

bool shutdown_unsafe() {
  return g_shutdown_unsafe;
}

File File::create(const std::string& path, hid_t access) {
  silence_error_printing();
  const PropertyList serial = access == H5P_DEFAULT ? PropertyList::serial_file_access() : PropertyList();
  if (access == H5P_DEFAULT) access = serial.id();
  return File(check_id(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access),
                       [&] { return "cannot create HDF5 file '" + path + "'"; }));
}

File File::open(const std::string& path, bool writable, hid_t access) {
  silence_error_printing();
  const PropertyList serial = access == H5P_DEFAULT ? PropertyList::serial_file_access() : PropertyList();
  if (access == H5P_DEFAULT) access = serial.id();
  return File(check_id(H5Fopen(path.c_str(), writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, access),
                       [&] { return "cannot open HDF5 file '" + path + "'"; }));
}

void File::flush() {
  const herr_t status = H5Fflush(id(), H5F_SCOPE_GLOBAL);
  if (status < 0) g_shutdown_unsafe = true;
  check_status(status, [&] { return "cannot flush " + describe(id()); });
}

MPI_File File::mpi_handle() const {
  void* handle = nullptr;
  check_status(H5Fget_vfd_handle(id(), H5P_DEFAULT, &handle),
               [&] { return "cannot get the MPI-IO handle of " + describe(id()); });
  if (handle == nullptr) throw IoError("no MPI-IO handle for " + describe(id()));
  return *static_cast<MPI_File*>(handle);
}

}  // namespace simpact::h5
