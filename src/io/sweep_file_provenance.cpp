// The /provenance table of a sweep file: one row per run, resume or merge (a compound of
// variable-length strings), repeated one variable per field under /provenance_columns.
#include <algorithm>
#include <cstddef>

#include "sweep_file_parts.hpp"

namespace simpact {

namespace {

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

}  // namespace

h5::Datatype detail::provenance_memory_type() {
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

void detail::write_provenance_rows(hid_t file, const std::vector<ProvenanceRow>& rows) {
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
  const h5::Datatype type = detail::provenance_memory_type();
  // Room for every row converted at once (a row's largest element is the compound record).
  const h5::PropertyList transfer =
      h5::PropertyList::conversion_transfer(std::max<std::size_t>(4096, 2 * n * sizeof(ProvenanceRecord)));
  table.write(type.id(), records.data(), H5S_ALL, H5S_ALL, transfer.id());
  detail::write_iota(run, n);
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
    d.write(memory_type, data, H5S_ALL, H5S_ALL, transfer.id());
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

bool ProvenanceRow::operator==(const ProvenanceRow& o) const {
  return version == o.version && git_revision == o.git_revision && build_flags == o.build_flags &&
         hosts == o.hosts && slurm_job_id == o.slurm_job_id && start_time == o.start_time &&
         end_time == o.end_time && command == o.command && ranks == o.ranks && threads == o.threads &&
         seed == o.seed && tasks_done == o.tasks_done;
}

std::vector<ProvenanceRow> read_provenance(const std::string& path) {
  const h5::File file = h5::File::open(path, false);
  const h5::Dataset table = h5::Dataset::open(file.id(), "provenance");
  std::vector<ProvenanceRecord> records(table.space().element_count());
  if (records.empty()) return {};
  const h5::Datatype type = detail::provenance_memory_type();
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
