// The HDF5 output file of a sweep (layout: DESIGN.md §4; names are a contract).
//
//   /grid/<axis>            1-D float64 axis values, dimension scales (units, long_name)
//   /<axis>, /<G>/<axis>    copies of the axes in every group holding maps, so that netCDF
//                           readers (xarray + h5netcdf) see the dimensions from the map's group
//   /<G>/<map>              grid-shaped float64 maps (shape = axis sizes, C order), NaN = not
//                           written; axes attached as dimension scales
//   /samples/<column>       optional per-task tables (float64 or int64), scale /samples/task
//   /config                 the YAML text (variable-length string), attribute sha256
//   /provenance             one compound row per run/resume, scale /run
//   /progress/done          uint8 chunk bitmap (1 = finished), scale /progress/chunk
//   root attributes         schema_version, complete, config_hash, task_count, chunk_count,
//                           map_datasets / sample_datasets (paths in index order), and the
//                           caller's string attributes (model, orderings, ...)
//
// Writing is collective over an MPI communicator (parallel HDF5 through MPI-IO when it has more
// than one rank, the plain POSIX driver otherwise). Parallel HDF5 cannot write variable-length
// data, so the structure, /config and /provenance are written by rank 0 alone while the file
// is closed on the other ranks; grid data is written collectively.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "simpact/core/array_dimension.hpp"
#include "simpact/io/io_error.hpp"

namespace simpact {

struct AxisSpec {
  std::string name, units, long_name;
  std::vector<double> values;  // at least one
  std::string parameter = {};  // the parameter's name when the stored name differs (attribute)
};

// The name a grid axis is stored under: the parameter's, unless xarray would shadow it by an
// attribute of its own (`da.dt` is the datetime accessor): "dt" -> "time_step", else name + "_".
std::string stored_axis_name(const std::string& parameter);

// A grid-shaped float64 map /<group>/<name> (group "" = root), e.g. "energy", "after_mean".
struct MapSpec {
  std::string group;
  std::string name;
  std::string units, long_name;
  // CF extras, written when not empty: cell_methods ("replica: mean"), comment, and for flags
  // flag_values (same type as the data, float64) with space-separated flag_meanings.
  std::string cell_methods = {}, comment = {};
  std::vector<double> flag_values = {};
  std::string flag_meanings = {};
};

// A 1-D per-task column /samples/<name>: int64 if `integer`, else float64.
struct SampleColumnSpec {
  std::string name, units, long_name;
  bool integer = false;
  // Values per task: 1 = a 1-D column [task]; L > 1 = a small per-task array, a 2-D dataset
  // [task, element] (float64 only) whose second dimension is the scale <name>_element.
  std::int64_t length = 1;
  std::vector<std::int64_t> flag_values = {};  // integer columns: CF flag_values / flag_meanings
  std::string flag_meanings = {};
  // Named trailing dimensions (extents multiplying to length) instead of <name>_element: the
  // dataset is [task, dimensions...], each dimension a scale /samples/<dimension.name> shared by
  // the columns naming it. units "" (mixed per element): no units attribute, the comment says why.
  std::vector<ArrayDimension> dimensions = {};
  std::string comment = {};
};

// One row of /provenance: one per run or resume.
struct ProvenanceRow {
  std::string version, git_revision, build_flags, hosts, slurm_job_id, start_time, end_time, command;
  std::int64_t ranks = 0, threads = 0;
  std::uint64_t seed = 0;
  std::int64_t tasks_done = 0;

  bool operator==(const ProvenanceRow& other) const;
};

struct SweepFileLayout {
  std::vector<AxisSpec> axes;  // grid axes, slowest first; map shape = axis sizes (C order)
  std::vector<MapSpec> maps;
  std::vector<SampleColumnSpec> samples;  // empty: no /samples group
  std::int64_t task_count = 0, chunk_count = 0;
  // The tasks /samples holds, as [first, first + count) ranges in row order (the /samples/task
  // scale holds their indices). Empty: one row per task, 0 .. task_count-1. A shard file holds
  // only its own chunks' tasks, so that merging N shards reads each task once, not N times.
  std::vector<std::pair<std::int64_t, std::int64_t>> sample_task_ranges;
  std::string config_text, config_hash;  // /config and its sha256 attribute
  std::vector<std::pair<std::string, std::string>> root_string_attributes;
  std::vector<std::pair<std::string, std::int64_t>> root_integer_attributes;
  // Fixed parameters (config `params`): scalar variables /parameters/<name> (one value each).
  std::vector<AxisSpec> fixed_parameters;
  int compression = 4;  // gzip level 0..9 (0 = none); shuffle + gzip on chunked datasets
};

// A sweep output file open for writing. Collective over `comm`: every rank calls every method
// the same number of times, in the same order, with the same layout and attribute values
// (data arguments differ; a rank may write count 0). Call from one thread per rank (HDF5 is
// not thread-safe). Move-only.
class SweepFile {
 public:
  // Creates (truncates) `path` with the full structure: axes, maps filled with NaN, /config,
  // an empty /provenance, /progress/done all zeros, complete = 0.
  static SweepFile create(const std::string& path, MPI_Comm comm, const SweepFileLayout& layout);
  // Opens an existing sweep file read-write (to resume or finish it).
  static SweepFile open(const std::string& path, MPI_Comm comm);

  SweepFile(SweepFile&&) noexcept;
  SweepFile& operator=(SweepFile&&) noexcept;
  SweepFile(const SweepFile&) = delete;
  SweepFile& operator=(const SweepFile&) = delete;
  ~SweepFile();  // closes; never throws

  // Writes grid points first_point .. first_point+count-1 (flattened, C order) of map
  // `map_index` (index into SweepFileLayout::maps).
  void write_map(std::size_t map_index, std::int64_t first_point, const double* values, std::int64_t count);
  // Writes rows first_row .. first_row+count-1 of sample column `column` (row = task unless the
  // layout named sample_task_ranges); the overload must match the column's type.
  void write_samples(std::size_t column, std::int64_t first_row, const double* values, std::int64_t count);
  void write_samples(std::size_t column, std::int64_t first_row, const std::int64_t* values,
                     std::int64_t count);
  void write_progress(std::int64_t first_chunk, const std::uint8_t* done, std::int64_t count);
  // Replaces the whole /provenance table (all runs so far, oldest first).
  void write_provenance(const std::vector<ProvenanceRow>& rows);
  void set_complete(bool complete);
  void flush();
  void close();

  const std::string& path() const;
  std::size_t map_count() const;
  std::size_t sample_column_count() const;
  std::int64_t point_count() const;  // product of the axis sizes
  std::int64_t task_count() const;
  std::int64_t sample_rows() const;  // rows of /samples: task_count() unless sample_task_ranges
  std::int64_t chunk_count() const;

 private:
  struct Impl;
  explicit SweepFile(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// ---- failures no agreement can reach --------------------------------------------------------

// An I/O error inside a collective write of a SweepFile under MPI cannot be agreed on afterwards
// (HDF5 leaves the ranks in different internal collectives): the failing rank prints
// "simpact: error: rank R: writing FILE failed: ERROR; ...; NOTE" and ends the job (MPI_Abort,
// exit status 1). `note` (process-wide) says where the finished work is kept.
void set_collective_io_failure_note(const std::string& note);
// The file such a failing rank removes before the job ends: a staging file no one else needs
// ("" = none; process-wide).
void set_collective_io_failure_cleanup(const std::string& staged);

// True once HDF5 failed to flush or close a file (a full disk): HDF5 1.10 can then no longer shut
// down (its shutdown, at MPI_Finalize or exit, crashes on that file), so the program must end
// without it (std::_Exit after flushing its output).
bool hdf5_shutdown_unsafe();

// ---- read helpers: serial, any rank; for files not open in a SweepFile (they read only what
// was flushed, and a writer's file lock may refuse them) ----------------------------------------

// False if the file is missing, unreadable or not marked complete.
bool sweep_file_is_complete(const std::string& path);
// The root attribute config_hash. Throws IoError.
std::string sweep_file_config_hash(const std::string& path);
// The root attribute shard ("i/N" of a --shard run's file), "" for the whole sweep. Throws IoError.
std::string sweep_file_shard(const std::string& path);
// A whole numeric dataset, flattened in C order, converted to double / int64. Throws IoError.
std::vector<double> read_dataset_f64(const std::string& path, const std::string& dataset);
std::vector<std::int64_t> read_dataset_i64(const std::string& path, const std::string& dataset);
// The /provenance rows (to append one on resume). Throws IoError.
std::vector<ProvenanceRow> read_provenance(const std::string& path);

}  // namespace simpact
