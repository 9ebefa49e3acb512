// Small RAII wrappers over the HDF5 C API (io-internal: the rest of simpact never sees hid_t).
// Every hid_t is owned by exactly one move-only object and closed by its destructor; every
// failure throws simpact::IoError with a one-line message naming the file and object.
//
// The wrappers turn off HDF5's automatic error-stack printing: the innermost HDF5 message is
// put into the IoError instead.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "simpact/io/io_error.hpp"

namespace simpact::h5 {

// Turns off HDF5's automatic printing of its error stack (idempotent, cheap).
void silence_error_printing();

// The most specific message on HDF5's error stack of this thread, "" if the stack is empty.
std::string last_error_message();

// "FILE:/path/in/file" of an open object, for error messages; "?" if unknown.
std::string describe(hid_t object);

// Throws IoError("`what` (HDF5: `hdf5_message`)").
[[noreturn]] void throw_error(const std::string& what, const std::string& hdf5_message);

// Throws IoError(what() + the innermost HDF5 message). `what` is a callable so that the
// message is built after the HDF5 error stack is read: every HDF5 call (describe() included)
// clears that stack.
template <class Message>
[[noreturn]] void fail(Message&& what) {
  const std::string hdf5_message = last_error_message();
  throw_error(what(), hdf5_message);
}
// Returns `id` if valid, else fail(what).
template <class Message>
hid_t check_id(hid_t id, Message&& what) {
  if (id < 0) fail(std::forward<Message>(what));
  return id;
}
// Fails if `status` < 0 (herr_t and htri_t alike); returns status > 0.
template <class Message>
bool check_status(herr_t status, Message&& what) {
  if (status < 0) fail(std::forward<Message>(what));
  return status > 0;
}

// Owns one hid_t; Close is the matching H5?close. Move-only.
template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }

  hid_t id() const { return id_; }
  bool valid() const { return id_ >= 0; }

  // Closes now, ignoring errors (for destructors and cleanup paths).
  void reset() noexcept {
    if (id_ >= 0) Close(id_);
    id_ = H5I_INVALID_HID;
  }
  // Closes now and throws if HDF5 reports an error (for files: the final flush failed).
  void close() {
    if (id_ < 0) return;
    const std::string what = "cannot close " + describe(id_);
    const herr_t status = Close(id_);
    id_ = H5I_INVALID_HID;
    check_status(status, [&] { return what; });
  }
  // Gives up ownership without closing (used when the library is already shut down).
  hid_t release() noexcept { return std::exchange(id_, H5I_INVALID_HID); }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

class PropertyList : public Handle<H5Pclose> {
 public:
  using Handle::Handle;
  static PropertyList create(hid_t property_class);
  // File access through MPI-IO on `comm` (collective opens and closes).
  static PropertyList mpio_file_access(MPI_Comm comm);
  // File access through the POSIX driver, with file locking where the file system has it
  // (what File::create/open use when given H5P_DEFAULT).
  static PropertyList serial_file_access();
  // Dataset transfer with collective MPI-IO (required for filtered datasets in parallel).
  static PropertyList collective_transfer();
  // A serial transfer whose type-conversion buffer holds `bytes`: HDF5 zeroes its default 1 MiB
  // buffer on every converting write (variable-length strings), ~0.8 ms for a one-row column.
  static PropertyList conversion_transfer(std::size_t bytes);
  // Dataset creation: chunked with the given chunk shape; shuffle + gzip(level) if level > 0.
  static PropertyList chunked(const std::vector<hsize_t>& chunk, int gzip_level);
  // Link creation that also creates missing intermediate groups.
  static PropertyList intermediate_groups();

  void set_fill_value(hid_t type, const void* value);
  void set_early_allocation();
};

class Datatype : public Handle<H5Tclose> {
 public:
  using Handle::Handle;
  static Datatype copy(hid_t type);
  // Variable-length UTF-8 string (memory representation: const char*).
  static Datatype utf8_string();
  static Datatype compound(std::size_t size);
  void insert(const std::string& name, std::size_t offset, hid_t member_type);
  // Removes padding between compound members (for the on-disk type).
  void pack();
  H5T_class_t type_class() const;
};

class Dataspace : public Handle<H5Sclose> {
 public:
  using Handle::Handle;
  static Dataspace scalar();
  static Dataspace simple(const std::vector<hsize_t>& dims);
  static Dataspace simple(const std::vector<hsize_t>& dims, const std::vector<hsize_t>& max_dims);

  int rank() const;
  std::vector<hsize_t> dims() const;
  hsize_t element_count() const;

  void select_none();
  void select_all();
  // Selects the block [start, start + count); `add` ORs it with the current selection.
  void select_hyperslab(const std::vector<hsize_t>& start, const std::vector<hsize_t>& count,
                        bool add = false);
  // Selects the elements first .. first+count-1 in C (row-major) order, as a union of at most
  // 2*rank-1 blocks, so ranks can write contiguous runs of a flattened N-d array.
  void select_linear_range(hsize_t first, hsize_t count);
};

class Attribute : public Handle<H5Aclose> {
 public:
  using Handle::Handle;
};

class Group : public Handle<H5Gclose> {
 public:
  using Handle::Handle;
  // Creates `name` under `location` (a file or group), with missing parents.
  static Group create(hid_t location, const std::string& name);
  static Group open(hid_t location, const std::string& name);
};

// True if the link `path` (relative to `location`, intermediate links included) exists.
bool link_exists(hid_t location, const std::string& path);

class Dataset : public Handle<H5Dclose> {
 public:
  using Handle::Handle;
  static Dataset create(hid_t location, const std::string& name, hid_t type, const Dataspace& space,
                        hid_t create_plist = H5P_DEFAULT);
  static Dataset open(hid_t location, const std::string& name);

  Dataspace space() const;
  Datatype type() const;
  void set_extent(const std::vector<hsize_t>& dims);

  // H5S_ALL for both spaces: the whole dataset.
  void write(hid_t mem_type, const void* buffer, hid_t mem_space = H5S_ALL, hid_t file_space = H5S_ALL,
             hid_t transfer = H5P_DEFAULT);
  void read(hid_t mem_type, void* buffer, hid_t mem_space = H5S_ALL, hid_t file_space = H5S_ALL,
            hid_t transfer = H5P_DEFAULT) const;

  // Dimension scales (HDF5 high-level H5DS API).
  void make_scale(const std::string& dimension_name);
  bool is_scale() const;
  void attach_scale(const Dataset& scale, unsigned dim);
  bool is_attached(const Dataset& scale, unsigned dim) const;
};

// H5Fclose, remembering a failure (see shutdown_unsafe).
herr_t close_file(hid_t file);

// True once HDF5 failed to flush or close a file (a full disk, a file size limit). HDF5 1.10 then
// cannot shut down: a failed flush leaves the file's metadata cache unable to flush again ("slist
// already enabled"), a failed H5Fclose frees the file but keeps its id, and the library's own
// shutdown (at MPI_Finalize or exit) closes that id again and crashes. The program ends without it.
bool shutdown_unsafe();

class File : public Handle<close_file> {
 public:
  using Handle::Handle;
  // Creates (truncating) `path`; `access` from PropertyList::mpio_file_access for parallel,
  // H5P_DEFAULT for PropertyList::serial_file_access().
  static File create(const std::string& path, hid_t access = H5P_DEFAULT);
  static File open(const std::string& path, bool writable, hid_t access = H5P_DEFAULT);
  void flush();
  // The MPI_File under a file opened with the MPI-IO driver.
  MPI_File mpi_handle() const;
};

}  // namespace simpact::h5
