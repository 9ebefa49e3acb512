#include "simpact/io/sweep_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <set>

#include "failure_deadline.hpp"  // private to io/ (not installed)
#include "hdf5_attributes.hpp"
#include "sweep_file_parts.hpp"

namespace simpact {

// ---- SweepFile ---------------------------------------------------------------------------------

struct SweepFile::Impl {
  std::string path;
  MPI_Comm comm = MPI_COMM_NULL;  // our duplicate: keeps our messages apart from the caller's
  int rank = 0;
  int size = 1;

  h5::File file;
  MPI_File mpi_file = MPI_FILE_NULL;  // under `file` in parallel: its I/O errors end the job
  h5::PropertyList transfer;          // collective MPI-IO in parallel, default otherwise
  std::vector<h5::Dataset> maps, samples;
  std::vector<bool> sample_is_integer;
  std::vector<std::int64_t> sample_length;  // values per task (arrays: > 1)
  h5::Dataset done;
  std::int64_t point_count = 0, task_count = 0, chunk_count = 0, sample_rows = 0;
  // The first agreed failure of a collective step: the file may hold a half-written state that
  // HDF5 cannot close in step on every rank, so its close runs under a FailureDeadline.
  std::string failure;

  Impl(std::string file_path, MPI_Comm user_comm) : path(std::move(file_path)) {
    MPI_Comm_dup(user_comm, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
  }

  bool parallel() const { return size > 1; }

  // Collective: every rank learns whether any rank failed and throws the lowest failing
  // rank's message (a CollectiveIoError), so no rank is left waiting in a collective call. A rank
  // that failed waits under a FailureDeadline: its peers may be stuck inside the failed HDF5 call.
  void agree(const std::string& local_error) {
    if (!parallel()) {
      if (!local_error.empty()) throw CollectiveIoError(local_error);
      return;
    }
    std::string message = local_error;
    {
      std::unique_ptr<h5::FailureDeadline> deadline;
      if (!local_error.empty()) deadline = std::make_unique<h5::FailureDeadline>(local_error, true);
      int failed = local_error.empty() ? size : rank;
      MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MIN, comm);
      if (failed == size) return;
      int length = static_cast<int>(message.size());
      MPI_Bcast(&length, 1, MPI_INT, failed, comm);
      message.resize(static_cast<std::size_t>(length));
      MPI_Bcast(message.data(), length, MPI_CHAR, failed, comm);
    }
    throw CollectiveIoError(message);
  }

  // Runs fn (a collective HDF5 step) and agrees on its outcome; a failure is remembered.
  template <class Fn>
  void collective(Fn&& fn) {
    std::string error;
    try {
      fn();
    } catch (const std::exception& e) {
      error = e.what();
      if (error.empty()) error = "unknown error in " + path;
    }
    agree_and_remember(error);
  }

  // agree(), remembering a failure: the file is then closed as a failed one.
  void agree_and_remember(const std::string& local_error) {
    try {
      agree(local_error);
    } catch (const CollectiveIoError& e) {
      if (failure.empty()) failure = e.what();
      throw;
    }
  }

  // Runs fn on rank 0 only and agrees on the outcome.
  template <class Fn>
  void on_rank0(Fn&& fn) {
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
  // dataset the writers need. A serial writer may hand over the file it just created.
  void open_file(h5::File created = {}) {
    std::string error;
    try {
      if (created.valid()) {
        file = std::move(created);
        transfer = h5::PropertyList::create(H5P_DATASET_XFER);
      } else if (parallel()) {
        const h5::PropertyList access = h5::PropertyList::mpio_file_access(comm);
        file = h5::File::open(path, true, access.id());
        mpi_file = file.mpi_handle();
        h5::end_job_on_io_error(mpi_file, path);  // from here no I/O error can strand a rank
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
        std::int64_t length = 1;  // the product of the trailing dimensions ([task, record, coordinate])
        for (std::size_t d = 1; d < dims.size(); ++d) length *= static_cast<std::int64_t>(dims[d]);
        sample_length.push_back(length);
      }
      sample_rows =
          samples.empty() ? task_count : static_cast<std::int64_t>(samples.front().space().dims().at(0));
      done = h5::Dataset::open(root, "progress/done");
    } catch (const std::exception& e) {
      error = e.what();
    }
    agree_and_remember(error);  // the ranks that opened it must not flush it alone
  }

  // Collective: closes every dataset, then the file. A healthy file is flushed first, where a
  // failure is still agreed: the close itself then has (almost) nothing left to write. A file
  // that already failed is closed under a FailureDeadline (HDF5 may leave ranks in different
  // internal collectives of H5Fclose); rank 0 prints the agreed failure if it passes.
  void close_file() {
    if (!file.valid()) return;
    if (failure.empty()) collective([&] { file.flush(); });
    maps.clear();
    samples.clear();
    done.reset();
    transfer.reset();
    if (!failure.empty()) {
      const std::unique_ptr<h5::FailureDeadline> deadline =
          parallel() ? std::make_unique<h5::FailureDeadline>(failure, rank == 0) : nullptr;
      file.reset();
      forget_mpi_file();
      return;
    }
    try {
      collective([&] { file.close(); });
    } catch (...) {
      forget_mpi_file();
      throw;
    }
    forget_mpi_file();
  }

  void forget_mpi_file() {
    if (mpi_file == MPI_FILE_NULL) return;
    h5::forget_io_file(mpi_file);
    mpi_file = MPI_FILE_NULL;
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
    collective([&] {  // a full disk may fail the write on one rank only
      h5::Dataspace file_space = dataset->space();
      file_space.select_linear_range(static_cast<hsize_t>(first), static_cast<hsize_t>(count));
      h5::Dataspace mem_space = h5::Dataspace::simple({std::max<hsize_t>(1, count)});
      if (count == 0) mem_space.select_none();  // still takes part in the collective write
      static const double kDummy = 0;
      dataset->write(mem_type, values != nullptr ? values : &kDummy, mem_space.id(), file_space.id(),
                     transfer.id());
    });
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
    impl_->forget_mpi_file();
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
    detail::validate(layout);
  } catch (const std::exception& e) {
    error = e.what();
  }
  self.agree(error);
  // A serial writer goes on with the file it created; parallel writers reopen it collectively.
  h5::File created;
  self.on_rank0([&] {
    created = detail::build_structure(path, layout);
    if (self.parallel()) created.close();
  });
  self.open_file(std::move(created));
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

void SweepFile::write_samples(std::size_t column, std::int64_t first_row, const double* values,
                              std::int64_t count) {
  impl_->require_open();
  const std::string what = "float64 sample column " + std::to_string(column);
  const bool ok = column < impl_->samples.size() && !impl_->sample_is_integer[column];
  // A per-task array of L values is row-major [row, element]: rows first_row.. are one linear range.
  const std::int64_t length = ok ? impl_->sample_length[column] : 1;
  impl_->write_range(ok ? "" : impl_->path + ": no " + what, ok ? &impl_->samples[column] : nullptr,
                     H5T_NATIVE_DOUBLE, first_row * length, values, count * length,
                     impl_->sample_rows * length, what);
}

void SweepFile::write_samples(std::size_t column, std::int64_t first_row, const std::int64_t* values,
                              std::int64_t count) {
  impl_->require_open();
  const std::string what = "int64 sample column " + std::to_string(column);
  const bool ok = column < impl_->samples.size() && impl_->sample_is_integer[column];
  impl_->write_range(ok ? "" : impl_->path + ": no " + what, ok ? &impl_->samples[column] : nullptr,
                     H5T_NATIVE_INT64, first_row, values, count, impl_->sample_rows, what);
}

void SweepFile::write_progress(std::int64_t first_chunk, const std::uint8_t* done, std::int64_t count) {
  impl_->require_open();
  impl_->write_range("", &impl_->done, H5T_NATIVE_UINT8, first_chunk, done, count, impl_->chunk_count,
                     "progress");
}

void SweepFile::write_provenance(const std::vector<ProvenanceRow>& rows) {
  impl_->require_open();
  impl_->serial_section([&](hid_t file) { detail::write_provenance_rows(file, rows); });
}

void SweepFile::set_complete(bool complete) {
  impl_->require_open();
  impl_->collective(
      [&] { h5::write_scalar_attribute<std::uint8_t>(impl_->file.id(), "complete", complete ? 1 : 0); });
}

void SweepFile::flush() {
  impl_->require_open();
  impl_->collective([&] { impl_->file.flush(); });
}

void SweepFile::close() {
  if (!impl_) return;
  std::string error;
  bool agreed = false;  // thrown on every rank alike: the caller may end without agreeing again
  try {
    impl_->close_file();
  } catch (const CollectiveIoError& e) {
    error = e.what();
    agreed = true;
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (impl_->comm != MPI_COMM_NULL) MPI_Comm_free(&impl_->comm);
  if (agreed) throw CollectiveIoError(error);
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

std::int64_t SweepFile::sample_rows() const {
  return impl_->sample_rows;
}
std::int64_t SweepFile::chunk_count() const {
  return impl_->chunk_count;
}

void set_collective_io_failure_note(const std::string& note) {
  h5::set_io_failure_note(note);
}

void set_collective_io_failure_cleanup(const std::string& staged) {
  h5::set_io_failure_cleanup(staged);
}

bool hdf5_shutdown_unsafe() {
  return h5::shutdown_unsafe();
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

std::string sweep_file_shard(const std::string& path) {
  const h5::File file = h5::File::open(path, false);
  return h5::has_attribute(file.id(), "shard") ? h5::read_string_attribute(file.id(), "shard") : "";
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

}  // namespace simpact
