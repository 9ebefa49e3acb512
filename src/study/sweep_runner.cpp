#include "simpact/study/sweep_runner.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <csignal>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "simpact/sweep/running_statistics.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/io/chunk_journal.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/safe_file.hpp"
#include "simpact/io/sweep_file.hpp"
#include "simpact/io/sweep_file_reader.hpp"
#include "simpact/sweep/chunk_scheduler.hpp"
#include "simpact/sweep/parameter_space.hpp"
#include "simpact/version.hpp"

namespace simpact {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kStatNames[] = {"mean", "std", "min", "max"};
constexpr std::int64_t kSlabTasks = 1 << 16;  // tasks per collective write round (bounds memory)

struct Mpi {
  MPI_Comm comm;
  int rank = 0, size = 1;
  explicit Mpi(MPI_Comm c) : comm(c) {
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
  }
};

std::string now_iso8601() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// Rank 0 decides; every rank throws the same one-line error, so all exit non-zero together.
void agree_or_throw(const Mpi& mpi, const std::string& error, bool input_error = true) {
  simpact::agree_or_throw(mpi.comm, error, input_error);
}

std::string gather_hosts(const Mpi& mpi) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  std::vector<char> all(static_cast<std::size_t>(MPI_MAX_PROCESSOR_NAME) * mpi.size);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                mpi.comm);
  std::set<std::string> hosts;
  for (int r = 0; r < mpi.size; ++r)
    hosts.insert(std::string(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME));
  std::string out;
  for (const auto& h : hosts) out += (out.empty() ? "" : ",") + h;
  return out;
}

std::string slurm_job_id() {
  const char* job = std::getenv("SLURM_JOB_ID");
  if (!job) return "";
  std::string id = job;
  const char* array_job = std::getenv("SLURM_ARRAY_JOB_ID");
  const char* array_task = std::getenv("SLURM_ARRAY_TASK_ID");
  if (array_job && array_task) id = fmt::format("{}_{}", array_job, array_task);
  return id;
}

// This run's provenance (collective: gathers the host names); start time = now.
ProvenanceRow provenance_row(const Mpi& mpi, const SweepConfig& config, const std::string& command) {
  ProvenanceRow row;
  row.version = kVersion;
  row.git_revision = kGitRevision;
  row.build_flags = kBuildFlags;
  row.hosts = gather_hosts(mpi);
  row.slurm_job_id = slurm_job_id();
  row.start_time = now_iso8601();
  row.command = command;
  row.ranks = mpi.size;
  row.threads = omp_get_max_threads();
  row.seed = config.monte_carlo ? config.monte_carlo->seed : config.seed;
  return row;
}

// One provenance row per run or resume, kept in the journal until the file is complete.
// Tab-separated, fields escaped of tabs/newlines.
std::string escape(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n') c = ' ';
  return s;
}

void append_provenance_line(const std::string& dir, const ProvenanceRow& r) {
  const std::string path = dir + "/provenance.tsv";
  bool torn = false;  // a line cut by a kill (or garbage) must not swallow this run's row
  {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (in && in.tellg() > 0) {
      in.seekg(-1, std::ios::end);
      torn = in.get() != '\n';
    }
  }
  std::ofstream out(path, std::ios::app);
  if (torn) out << '\n';
  out << escape(r.version) << '\t' << escape(r.git_revision) << '\t' << escape(r.build_flags) << '\t'
      << escape(r.hosts) << '\t' << escape(r.slurm_job_id) << '\t' << escape(r.start_time) << '\t'
      << escape(r.end_time) << '\t' << escape(r.command) << '\t' << r.ranks << '\t' << r.threads << '\t'
      << r.seed << '\t' << r.tasks_done << '\n';
}

template <typename T>
bool parse_integer(const std::string& text, T& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// Every valid line of provenance.tsv, in order; a line that does not parse (a torn last line
// from a kill, or damage) is dropped and counted in `dropped` — it never stops a resume.
std::vector<ProvenanceRow> read_provenance_lines(const std::string& dir, std::int64_t& dropped) {
  std::vector<ProvenanceRow> rows;
  dropped = 0;
  std::string text;
  try {
    text = read_capped_input(dir + "/provenance.tsv", 16u << 20, "provenance", false);
  } catch (const std::exception&) {
    return rows;  // none yet (or unreadable): the run still adds its own row
  }
  std::stringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, '\t')) f.push_back(field);
    if (line.size() > 0 && line.back() == '\t') f.emplace_back();
    long long ranks = 0, threads = 0, tasks = 0;
    unsigned long long seed = 0;
    const bool text_ok = std::none_of(line.begin(), line.end(), [](char c) {
      return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f;
    });
    if (f.size() != 12 || !text_ok || !parse_integer(f[8], ranks) || !parse_integer(f[9], threads) ||
        !parse_integer(f[10], seed) || !parse_integer(f[11], tasks) || ranks < 1 || threads < 1 || tasks < 0) {
      ++dropped;
      continue;
    }
    ProvenanceRow r;
    r.version = f[0], r.git_revision = f[1], r.build_flags = f[2], r.hosts = f[3], r.slurm_job_id = f[4];
    r.start_time = f[5], r.end_time = f[6], r.command = f[7];
    r.ranks = ranks, r.threads = threads, r.seed = seed;
    r.tasks_done = tasks;
    rows.push_back(r);
  }
  return rows;
}

std::string column_list(const TaskKernel& kernel) {
  std::string out;
  for (const auto& c : kernel.columns())
    out += (out.empty() ? "" : ",") + c.group + "/" + c.name +
           (c.length > 1 ? fmt::format("[{}]", c.length) : "");
  return out;
}

// Where each result column sits in a task's values.
struct ColumnOffsets {
  std::vector<std::size_t> offset;   // per column
  std::vector<std::size_t> scalars;  // indices of the length-1 columns (they get grid maps)
  std::vector<std::size_t> arrays;   // indices of the per-task arrays
  explicit ColumnOffsets(const TaskKernel& kernel) {
    std::size_t at = 0;
    for (std::size_t c = 0; c < kernel.columns().size(); ++c) {
      offset.push_back(at);
      at += static_cast<std::size_t>(kernel.columns()[c].length);
      (kernel.columns()[c].length == 1 ? scalars : arrays).push_back(c);
    }
  }
};

// The file layout: grid axes; per result column one map <group>/<name> without Monte Carlo, or
// <name>_mean/_std/_min/_max/_count over the replicas of each grid point; the headline map /xi;
// optional per-task samples.
SweepFileLayout make_layout(const SweepConfig& config, const ParameterSpace& space, const TaskKernel& kernel,
                            std::int64_t chunk_count) {
  SweepFileLayout layout;
  for (const auto& axis : space.axes())
    layout.axes.push_back({axis.name, axis.units, axis.long_name, axis.values});
  if (layout.axes.empty())
    layout.axes.push_back({"point", "1", "grid point (the sweep has no grid axes)", {0.0}});
  const bool replicas = space.replicas() > 1;
  for (const auto& c : kernel.columns()) {
    if (c.length > 1) continue;  // per-task arrays are not reduced
    if (!replicas) {
      MapSpec map{c.group, c.name, c.units, c.long_name};
      if (c.group == "outcomes" && (c.name == "unique" || c.name == "impact")) {  // 0/1 flags (NaN: failed)
        map.flag_values = {0.0, 1.0};
        map.flag_meanings = c.name == "unique" ? "indeterminate unique" : "no_impact impact";
      }
      layout.maps.push_back(std::move(map));
      continue;
    }
    for (const char* stat : kStatNames) {
      MapSpec map{c.group, c.name + "_" + stat, c.units,
                  fmt::format("{} ({} over replicas)", c.long_name, stat)};
      const std::string method = std::string(stat) == "std"   ? "standard_deviation"
                                 : std::string(stat) == "min" ? "minimum"
                                 : std::string(stat) == "max" ? "maximum"
                                                              : stat;
      map.cell_methods =
          "replica: " + method + " (over the finite values of the replicas of each grid point)";
      if (std::string(stat) == "std")
        map.comment = "population standard deviation: ddof = 0 (divides by _count)";
      layout.maps.push_back(std::move(map));
    }
    MapSpec count{c.group, c.name + "_count", "1", c.long_name + " (replicas with a finite value)"};
    count.cell_methods = "replica: sum (of 1 for each finite value)";
    layout.maps.push_back(std::move(count));
  }
  // Every map holds NaN where a task's value was not computed exactly (a cap hit, a failure):
  // these counts say how many tasks of each grid point ended in each status.
  for (int k = 0; k < kTaskStatusCount; ++k) {
    MapSpec count{"status", kTaskStatusNames[k], "1",
                  fmt::format("number of tasks at this grid point with status {}", kTaskStatusNames[k])};
    count.cell_methods = "replica: sum";
    layout.maps.push_back(std::move(count));
  }
  if (kernel.headline_column() >= 0) {
    const auto& c = kernel.columns()[static_cast<std::size_t>(kernel.headline_column())];
    layout.maps.push_back({"", "xi", c.units, c.long_name + (replicas ? " (mean over replicas)" : "")});
  }
  if (config.output.samples) {
    for (const auto& axis : space.axes())
      layout.samples.push_back({axis.name, axis.units, axis.long_name, false});
    for (const auto& p : space.random_parameters())
      layout.samples.push_back({p.name, p.units, p.long_name, false});
    SampleColumnSpec status{"status", "1", kTaskStatusLegend, true};
    for (int k = 0; k < kTaskStatusCount; ++k) {
      status.flag_values.push_back(k);
      status.flag_meanings += (k ? " " : "") + std::string(kTaskStatusNames[k]);
    }
    layout.samples.push_back(std::move(status));
    layout.samples.push_back(
        {"random_counter", "1", "uniform draws consumed from the (seed, task) stream", true});
    layout.samples.push_back({"grid_point", "1", "flat C-order index of the task's grid point", true});
    layout.samples.push_back({"replica", "1", "replica of the task at its grid point (the design row with design:)", true});
    for (const auto& c : kernel.columns())
      if (c.length == 1) layout.samples.push_back({c.group + "_" + c.name, c.units, c.long_name, false});
  }
  // Per-task arrays exist only per task: stored whenever a kernel produces them.
  for (const auto& c : kernel.columns())
    if (c.length > 1)
      layout.samples.push_back({c.group + "_" + c.name, c.units, c.long_name, false, c.length});
  layout.task_count = space.task_count();
  layout.chunk_count = chunk_count;
  layout.config_text = config.source_text;
  layout.config_hash = config.source_hash;
  layout.compression = config.output.compression;
  std::string orderings;
  for (auto o : config.orderings)
    orderings += (orderings.empty() ? "" : ",") + std::string(ordering_policy_name(o));
  layout.root_string_attributes = {
      {"model", config.model},
      {"orderings", orderings},
      {"minimality", config.minimality == Minimality::kDefinition1 ? "definition1" : "propagation"},
      {"title", "simpact sweep of simultaneous impacts"}};
  layout.root_integer_attributes = {{"replicas", space.replicas()}};
  for (const auto& p : config.fixed_described)
    layout.fixed_parameters.push_back({p.name, p.units, p.long_name, p.values});
  return layout;
}

// The journal and the final file both live beside the output: refuse to start a sweep whose
// results cannot fit (the estimate is an upper bound before compression).
std::string check_free_space(const fs::path& dir, std::uintmax_t journal_bytes, const SweepConfig& config,
                             const ParameterSpace& space, const TaskKernel& kernel) {
  const double columns = static_cast<double>(values_per_task(kernel));
  const double tasks = static_cast<double>(space.task_count());
  const double journal = tasks * (16.0 + 8.0 * columns);
  double file =
      static_cast<double>(space.grid_points()) * 8.0 * (columns * (space.replicas() > 1 ? 5 : 1) + 1);
  if (config.output.samples) file += tasks * 8.0 * (columns + 4 + static_cast<double>(space.axes().size()));
  double needed = journal + file + 1024.0 * 1024.0;  // + metadata
  std::error_code ec;
  // On --resume the finished part of the journal is already on disk.
  needed -= static_cast<double>(journal_bytes);
  const fs::space_info info = fs::space(dir, ec);
  if (ec) return "";
  if (static_cast<double>(info.available) < needed)
    return fmt::format(
        "not enough free space in '{}': the sweep needs about {:.1f} MiB, {:.1f} MiB available", dir.string(),
        needed / 1048576.0, static_cast<double>(info.available) / 1048576.0);
  return "";
}

class ProgressLog {
 public:
  // `already`: tasks finished before this run (--resume); rate and ETA count only this run's work.
  ProgressLog(std::int64_t total_tasks, std::int64_t already, double interval)
      : total_(total_tasks), already_(already), interval_(interval) {}
  void update(std::int64_t done_tasks) {
    const auto now = Clock::now();
    const double since = std::chrono::duration<double>(now - last_).count();
    if (since < interval_ || done_tasks >= total_) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double rate = elapsed > 0 ? static_cast<double>(done_tasks - already_) / elapsed : 0.0;
    const double eta = rate > 0 ? (total_ - done_tasks) / rate : 0.0;
    spdlog::info("progress: {}/{} tasks ({:.1f}%), {:.0f} tasks/s, ETA {:.0f} s", done_tasks, total_,
                 100.0 * done_tasks / std::max<std::int64_t>(1, total_), rate, eta);
  }

 private:
  std::int64_t total_;
  std::int64_t already_;
  double interval_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_ = Clock::now();
};

// Evaluates one chunk's tasks over the OpenMP threads; each task's slot is fixed, so the
// result does not depend on which thread ran it.
void compute_chunk(const ParameterSpace& space, const TaskKernel& kernel, const SweepConfig& config,
                   std::vector<std::unique_ptr<TaskScratch>>& scratch, ChunkResults& out) {
  const std::int64_t vpt = values_per_task(kernel);
  std::string error;
#pragma omp parallel
  {
    ParameterSet params;
    TaskScratch& mine = *scratch[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 8)
    for (std::int64_t i = 0; i < out.count; ++i) {
      const std::int64_t task = out.first_task + i;
      double* values = out.values.data() + i * vpt;
      std::uint64_t draws = 0;
      try {
        draws = space.parameters_of(task, params);
        out.status[static_cast<std::size_t>(i)] =
            static_cast<std::int64_t>(kernel.evaluate(task, params, mine, values));
      } catch (const std::exception& e) {
        out.status[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(TaskStatus::kFailed);
        std::fill(values, values + vpt, std::numeric_limits<double>::quiet_NaN());
        if (config.on_task_error == TaskErrorMode::kAbort) {
#pragma omp critical(simpact_task_error)
          if (error.empty())
            error = fmt::format("task {} failed ({}): {}", task, params.describe(), e.what());
        }
      }
      out.counters[static_cast<std::size_t>(i)] = draws;
    }
  }
  if (!error.empty()) throw std::runtime_error(error);
}

struct Finalizer {
  const Mpi& mpi;
  const SweepConfig& config;
  const ParameterSpace& space;
  const TaskKernel& kernel;
  const JournalManifest& manifest;
  const ChunkResultSource& index;
  double hdf5_seconds = 0.0;
  std::array<std::int64_t, kTaskStatusCount> status_totals{};  // all ranks, after write()

  // Times HDF5 work only: the barrier first absorbs ranks still reducing their statistics, which
  // would otherwise show up as time inside the collective write.
  template <typename F>
  void timed(F&& f) {
    MPI_Barrier(mpi.comm);
    const auto t0 = Clock::now();
    f();
    hdf5_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
  }

  // Reads task results in task order through a one-chunk cache.
  struct TaskReader {
    const ChunkResultSource& index;
    std::int64_t chunk_size;
    ChunkResults cache;
    std::int64_t cached = -1;
    std::int64_t vpt;
    const double* values(std::int64_t task) {
      load(task);
      return cache.values.data() + (task - cache.first_task) * vpt;
    }
    std::int64_t status(std::int64_t task) {
      load(task);
      return cache.status[static_cast<std::size_t>(task - cache.first_task)];
    }
    std::int64_t counter(std::int64_t task) {
      load(task);
      return static_cast<std::int64_t>(cache.counters[static_cast<std::size_t>(task - cache.first_task)]);
    }
    void load(std::int64_t task) {
      const std::int64_t chunk = task / chunk_size;
      if (chunk != cached) {
        cached = -1;
        index.read(chunk, cache);
        if (task < cache.first_task || task >= cache.first_task + cache.count)
          throw IoError(fmt::format("chunk {} holds tasks {}+{}, not task {}", chunk, cache.first_task,
                                    cache.count, task));
        cached = chunk;
      }
    }
  };

  void write(const std::string& path, const std::vector<ProvenanceRow>& provenance) {
    const SweepFileLayout layout = make_layout(config, space, kernel, manifest.chunk_count());
    std::unique_ptr<SweepFile> file;
    timed([&] { file = std::make_unique<SweepFile>(SweepFile::create(path, mpi.comm, layout)); });
    TaskReader reader{index, manifest.chunk_size, {}, -1, manifest.values_per_task};
    const ColumnOffsets cols(kernel);
    const std::size_t columns = cols.scalars.size();
    const bool replicas = space.replicas() > 1;
    const std::size_t maps_per_column = replicas ? 5 : 1;

    // Grid maps: a contiguous block of grid points per rank, written in equal-count rounds.
    const std::int64_t points = space.grid_points();
    const std::int64_t first = points * mpi.rank / mpi.size, last = points * (mpi.rank + 1) / mpi.size;
    const std::int64_t max_share = (points + mpi.size - 1) / mpi.size;
    const std::int64_t slab_points = std::max<std::int64_t>(1, kSlabTasks / space.replicas());
    const std::int64_t rounds = (max_share + slab_points - 1) / slab_points;
    std::vector<std::vector<double>> maps(layout.maps.size());
    for (std::int64_t round = 0; round < rounds; ++round) {
      const std::int64_t a = std::min(last, first + round * slab_points);
      const std::int64_t b = std::min(last, a + slab_points);
      for (auto& m : maps) m.assign(static_cast<std::size_t>(b - a), 0.0);
      std::vector<RunningStatistics> stats(columns);
      std::string error;  // a rank that cannot read its tasks must not leave the others in a collective
      try {
      for (std::int64_t g = a; g < b; ++g) {
        std::fill(stats.begin(), stats.end(), RunningStatistics{});
        const auto at = static_cast<std::size_t>(g - a);
        for (std::int64_t r = 0; r < space.replicas(); ++r) {
          const std::int64_t task = space.task_of(g, r);
          const double* v = reader.values(task);
          for (std::size_t c = 0; c < columns; ++c) stats[c].add(v[cols.offset[cols.scalars[c]]]);
          const std::int64_t st = std::clamp<std::int64_t>(reader.status(task), 0, kTaskStatusCount - 1);
          maps[columns * maps_per_column + static_cast<std::size_t>(st)][at] += 1.0;
          ++status_totals[static_cast<std::size_t>(st)];
        }
        for (std::size_t c = 0; c < columns; ++c) {
          const std::size_t base = c * maps_per_column;
          if (!replicas) {  // the single replica's value itself (NaN stays NaN)
            maps[base][at] = reader.values(space.task_of(g, 0))[cols.offset[cols.scalars[c]]];
            continue;
          }
          maps[base + 0][at] = stats[c].mean();
          maps[base + 1][at] = stats[c].std();
          maps[base + 2][at] = stats[c].min();
          maps[base + 3][at] = stats[c].max();
          maps[base + 4][at] = static_cast<double>(stats[c].count());
        }
        if (kernel.headline_column() >= 0) {
          const auto h =
              static_cast<std::size_t>(std::find(cols.scalars.begin(), cols.scalars.end(),
                                                 static_cast<std::size_t>(kernel.headline_column())) -
                                       cols.scalars.begin());
          maps.back()[at] = replicas ? stats[h].mean() : maps[h * maps_per_column][at];
        }
      }
      } catch (const std::exception& e) {
        error = fmt::format("rank {}: {}", mpi.rank, e.what());
      }
      agree_or_throw(mpi, error, false);
      timed([&] {
        for (std::size_t m = 0; m < maps.size(); ++m) file->write_map(m, a, maps[m].data(), b - a);
      });
    }
    MPI_Allreduce(MPI_IN_PLACE, status_totals.data(), kTaskStatusCount, MPI_INT64_T, MPI_SUM, mpi.comm);

    if (config.output.samples || !cols.arrays.empty()) write_samples(*file, reader, cols);

    timed([&] {
      const std::vector<std::uint8_t> done = index.done_bitmap();
      file->write_progress(0, done.data(), mpi.rank == 0 ? static_cast<std::int64_t>(done.size()) : 0);
      file->write_provenance(provenance);
      file->flush();
      file->set_complete(true);  // last: a file marked complete holds everything
      file->close();
    });
  }

  void write_samples(SweepFile& file, TaskReader& reader, const ColumnOffsets& cols) {
    const std::int64_t tasks = space.task_count();
    const std::int64_t first = tasks * mpi.rank / mpi.size, last = tasks * (mpi.rank + 1) / mpi.size;
    const std::int64_t max_share = (tasks + mpi.size - 1) / mpi.size;
    const std::int64_t rounds = (max_share + kSlabTasks - 1) / kSlabTasks;
    const bool tables = config.output.samples;  // inputs, status and scalar results too
    const std::size_t inputs = tables ? space.axes().size() + space.random_parameters().size() : 0;
    const std::size_t columns = tables ? cols.scalars.size() : 0;
    ParameterSet params;
    for (std::int64_t round = 0; round < rounds; ++round) {
      const std::int64_t a = std::min(last, first + round * kSlabTasks);
      const std::int64_t b = std::min(last, a + kSlabTasks);
      const auto n = static_cast<std::size_t>(b - a);
      std::vector<std::vector<double>> in(inputs, std::vector<double>(n));
      std::vector<std::vector<double>> out(columns, std::vector<double>(n));
      std::vector<std::int64_t> status(n), counter(n), grid_point(n), replica(n);
      std::vector<std::vector<double>> arrays(cols.arrays.size());
      for (std::size_t k = 0; k < cols.arrays.size(); ++k)
        arrays[k].resize(n * static_cast<std::size_t>(kernel.columns()[cols.arrays[k]].length));
      std::string error;
      try {
      for (std::int64_t t = a; t < b; ++t) {
        const auto i = static_cast<std::size_t>(t - a);
        const double* v = reader.values(t);
        for (std::size_t k = 0; k < cols.arrays.size(); ++k) {
          const auto length = static_cast<std::size_t>(kernel.columns()[cols.arrays[k]].length);
          std::copy_n(v + cols.offset[cols.arrays[k]], length,
                      arrays[k].begin() + static_cast<std::ptrdiff_t>(i * length));
        }
        if (!tables) continue;
        space.parameters_of(t, params);
        std::size_t j = 0;
        for (const auto& axis : space.axes()) in[j++][i] = params.get(axis.name, 0.0);
        for (const auto& p : space.random_parameters()) in[j++][i] = params.get(p.name, 0.0);
        for (std::size_t c = 0; c < columns; ++c) out[c][i] = v[cols.offset[cols.scalars[c]]];
        status[i] = reader.status(t);
        counter[i] = reader.counter(t);
        grid_point[i] = space.grid_point_of(t);
        replica[i] = space.replica_of(t);
      }
      } catch (const std::exception& e) {
        error = fmt::format("rank {}: {}", mpi.rank, e.what());
      }
      agree_or_throw(mpi, error, false);
      timed([&] {
        std::size_t col = 0;
        if (tables) {
          for (std::size_t j = 0; j < inputs; ++j) file.write_samples(col++, a, in[j].data(), b - a);
          file.write_samples(col++, a, status.data(), b - a);
          file.write_samples(col++, a, counter.data(), b - a);
          file.write_samples(col++, a, grid_point.data(), b - a);
          file.write_samples(col++, a, replica.data(), b - a);
          for (std::size_t c = 0; c < columns; ++c) file.write_samples(col++, a, out[c].data(), b - a);
        }
        for (const auto& values : arrays) file.write_samples(col++, a, values.data(), b - a);
      });
    }
  }
};

}  // namespace

double write_shard_file(MPI_Comm comm, const std::string& path, const SweepConfig& config,
                        const TaskKernel& kernel, const JournalManifest& manifest,
                        const ChunkResultSource& source, const std::vector<ProvenanceRow>& provenance,
                        std::int64_t shard_index, std::int64_t shard_count);

double write_sweep_file(MPI_Comm comm, const std::string& path, const SweepConfig& config,
                        const TaskKernel& kernel, const JournalManifest& manifest,
                        const ChunkResultSource& source, const std::vector<ProvenanceRow>& provenance,
                        TaskStatusCounts* status_counts) {
  const Mpi mpi(comm);
  const ParameterSpace space(config);
  Finalizer finalizer{mpi, config, space, kernel, manifest, source};
  finalizer.write(path, provenance);
  if (status_counts != nullptr) *status_counts = finalizer.status_totals;
  return finalizer.hdf5_seconds;
}

namespace {

std::string sample_name(const ResultColumn& c) {
  return c.group + "_" + c.name;
}

// A shard file: the axes/config/progress layout plus the raw per-task results (status, random counter,
// every result column) of the shard's chunks as /samples, NaN elsewhere; `shard` = "i/N".
double write_shard_file_impl(MPI_Comm comm, const std::string& path, const SweepConfig& config,
                             const TaskKernel& kernel, const JournalManifest& manifest,
                             const ChunkResultSource& source, const std::vector<ProvenanceRow>& provenance,
                             std::int64_t shard_index, std::int64_t shard_count) {
  const Mpi mpi(comm);
  const ParameterSpace space(config);
  SweepFileLayout layout = make_layout(config, space, kernel, manifest.chunk_count());
  layout.maps.clear();
  layout.samples = {{"status", "1", kTaskStatusLegend, true},
                    {"random_counter", "1", "uniform draws consumed from the (seed, task) stream", true}};
  for (const auto& c : kernel.columns())
    layout.samples.push_back({sample_name(c), c.units, c.long_name, false, c.length});
  layout.root_string_attributes.push_back({"shard", fmt::format("{}/{}", shard_index, shard_count)});
  const auto t0 = Clock::now();
  SweepFile file = SweepFile::create(path, comm, layout);
  std::vector<std::int64_t> mine;
  for (std::int64_t c = shard_index; c < manifest.chunk_count(); c += shard_count) mine.push_back(c);
  const auto n = static_cast<std::int64_t>(mine.size());
  const std::int64_t first = n * mpi.rank / mpi.size, last = n * (mpi.rank + 1) / mpi.size;
  const std::int64_t rounds = (n + mpi.size - 1) / mpi.size;
  ChunkResults chunk;
  const auto vpt = static_cast<std::size_t>(manifest.values_per_task);
  const ColumnOffsets cols(kernel);
  std::vector<double> column;
  std::vector<std::int64_t> counters;
  for (std::int64_t round = 0; round < rounds; ++round) {
    const std::int64_t k = first + round;
    std::int64_t count = 0, task0 = 0;
    std::string error;
    if (k < last) {
      try {
        source.read(mine[static_cast<std::size_t>(k)], chunk);
        count = chunk.count;
        task0 = chunk.first_task;
      } catch (const std::exception& e) {
        error = fmt::format("rank {}: {}", mpi.rank, e.what());
      }
    }
    agree_or_throw(mpi, error, false);
    file.write_samples(0, task0, chunk.status.data(), count);
    counters.assign(chunk.counters.begin(), chunk.counters.end());
    file.write_samples(1, task0, counters.data(), count);
    for (std::size_t c = 0; c < kernel.columns().size(); ++c) {
      const auto length = static_cast<std::size_t>(kernel.columns()[c].length);
      column.resize(static_cast<std::size_t>(count) * length);
      for (std::int64_t i = 0; i < count; ++i)
        std::copy_n(chunk.values.begin() +
                        static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * vpt + cols.offset[c]),
                    length,
                    column.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * length));
      file.write_samples(2 + c, task0, column.data(), count);
    }
  }
  const std::vector<std::uint8_t> done = source.done_bitmap();
  file.write_progress(0, done.data(), mpi.rank == 0 ? static_cast<std::int64_t>(done.size()) : 0);
  file.write_provenance(provenance);
  file.flush();
  file.set_complete(true);
  file.close();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The finished chunks of a sharded sweep, read back from its shard files.
class ShardSource final : public ChunkResultSource {
 public:
  ShardSource(std::vector<SweepFileReader> shards, const JournalManifest& manifest, const TaskKernel& kernel)
      : shards_(std::move(shards)), manifest_(manifest) {
    for (const auto& c : kernel.columns()) {
      columns_.push_back("samples/" + sample_name(c));
      lengths_.push_back(c.length);
    }
  }
  std::vector<std::uint8_t> done_bitmap() const override {
    return std::vector<std::uint8_t>(static_cast<std::size_t>(manifest_.chunk_count()), 1);
  }
  void read(std::int64_t chunk, ChunkResults& out) const override {
    const SweepFileReader& shard =
        shards_[static_cast<std::size_t>(chunk % static_cast<std::int64_t>(shards_.size()))];
    const std::int64_t first = chunk * manifest_.chunk_size;
    const std::int64_t count = std::min(manifest_.chunk_size, manifest_.task_count - first);
    out.chunk = chunk;
    out.first_task = first;
    out.resize(count, manifest_.values_per_task);
    shard.read("samples/status", first, count, out.status.data());
    std::vector<std::int64_t> counters(static_cast<std::size_t>(count));
    shard.read("samples/random_counter", first, count, counters.data());
    for (std::int64_t i = 0; i < count; ++i)
      out.counters[static_cast<std::size_t>(i)] =
          static_cast<std::uint64_t>(counters[static_cast<std::size_t>(i)]);
    const auto vpt = static_cast<std::size_t>(manifest_.values_per_task);
    std::size_t offset = 0;
    std::vector<double> column;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const auto length = static_cast<std::size_t>(lengths_[c]);  // per-task arrays: rows of `length`
      column.resize(static_cast<std::size_t>(count) * length);
      shard.read(columns_[c], first * lengths_[c], count * lengths_[c], column.data());
      for (std::int64_t i = 0; i < count; ++i)
        std::copy_n(
            column.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * length), length,
            out.values.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * vpt + offset));
      offset += length;
    }
  }

 private:
  std::vector<SweepFileReader> shards_;
  JournalManifest manifest_;
  std::vector<std::string> columns_;
  std::vector<std::int64_t> lengths_;
};

}  // namespace

namespace {

void broadcast_string(MPI_Comm comm, std::string& text) {
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, 0, comm);
}

// What an existing output file is, as far as --resume is concerned.
struct OutputIdentity {
  bool ours = false;      // a simpact file of this very config
  bool complete = false;
  std::string what;       // otherwise: what it is, for the refusal
};

OutputIdentity identify_output(const std::string& path, const std::string& config_hash) {
  OutputIdentity id;
  std::error_code ec;
  const auto bytes = fs::file_size(path, ec);
  char signature[8] = {};
  {
    std::ifstream in(path, std::ios::binary);
    in.read(signature, sizeof signature);
  }
  if (std::memcmp(signature, "\x89HDF\r\n\x1a\n", 8) != 0) {
    id.what = fmt::format("is not an HDF5 file ({} bytes)", ec ? 0 : bytes);
    return id;
  }
  std::string hash;
  try {
    hash = sweep_file_config_hash(path);
  } catch (const std::exception&) {
    id.what = "is an HDF5 file that simpact did not write (it has no config_hash attribute)";
    return id;
  }
  if (hash != config_hash) {
    id.what = fmt::format("is a simpact result of another config (sha256 {} vs this config's {})",
                          hash.substr(0, 12), config_hash.substr(0, 12));
    return id;
  }
  id.ours = true;
  id.complete = sweep_file_is_complete(path);
  return id;
}

// A new, exclusively created, empty staging file in the (locked) journal directory.
std::string new_staging_file(const std::string& journal, const std::string& what) {
  static int serial = 0;
  const std::string staging =
      fmt::format("{}/staging-{}-{}-{}.h5", journal, what, static_cast<long>(::getpid()), ++serial);
  ::close(create_exclusive(staging));
  return staging;
}

// Renames a finished staging file over the output (a regular file or nothing: checked again here,
// so nothing else planted in the meantime is replaced).
void replace_output(const std::string& staging, const std::string& path) {
  if (const std::string bad = check_result_output(path); !bad.empty()) {
    ::unlink(staging.c_str());
    throw AgreedError(bad, true);
  }
  if (::rename(staging.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(staging.c_str());
    throw IoError(fmt::format("cannot move the finished file to '{}': {}", path, std::strerror(err)));
  }
  sync_parent_directory(path);
}

// Removes what a killed run of ours left in the (locked) journal directory besides its work:
// staging files and a half-written manifest.
void remove_stale_staging(const std::string& journal) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(journal, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("staging-", 0) == 0 || name == "manifest.tmp") {
      std::error_code rm;
      fs::remove(e.path(), rm);
    }
  }
}

// Rank 0: may this run start, and how (mode 0 fresh, 1 resume from the journal, 2 already
// complete)? Takes the output's lock. Returns the one-line refusal, or "".
std::string decide_mode(const std::string& path, const std::string& journal, const SweepConfig& config,
                        const ParameterSpace& space, const TaskKernel& kernel, const JournalManifest& manifest,
                        const SweepRunOptions& options, OutputLock& lock, int& mode) {
  mode = 0;
  if (std::string bad = check_result_output(path); !bad.empty()) return bad;
  const fs::path parent = fs::absolute(path).parent_path();
  if (!fs::is_directory(parent)) return fmt::format("directory '{}' does not exist", parent.string());
  if (::access(parent.c_str(), W_OK) != 0) return fmt::format("directory '{}' is not writable", parent.string());
  const PathKind journal_kind = path_kind(journal);
  if (journal_kind != PathKind::kAbsent && journal_kind != PathKind::kDirectory)
    return fmt::format("'{}' is {}, not a simpact journal directory: refusing to touch it", journal,
                       path_kind_name(journal_kind));
  lock = OutputLock(journal);  // throws, naming the holder, when another job has it
  remove_stale_staging(journal);
  const JournalContents contents = journal_contents(journal);
  JournalManifest previous;
  std::string why;
  const ManifestStatus status = read_journal_manifest(journal, previous, &why);
  const bool has_journal = status != ManifestStatus::kMissing || contents.record_files > 0;
  const bool out_exists = path_kind(path) == PathKind::kRegular;
  const std::string work = fmt::format("{} record file(s), {:.1f} MiB", contents.record_files,
                                       static_cast<double>(contents.record_bytes) / 1048576.0);

  if (options.overwrite) {
    mode = 0;
  } else if (options.resume) {
    if (status == ManifestStatus::kOldVersion)
      return fmt::format("--resume refused: journal '{}' ({}): {}; finish it with that simpact version, or pass "
                         "--overwrite to recompute",
                         journal, work, why);
    if (has_journal && status != ManifestStatus::kOk)
      return fmt::format("--resume refused: journal '{}' holds finished work ({}) but {}: not deleting it; "
                         "move it away, or pass --overwrite to discard it",
                         journal, work, why);
    OutputIdentity id;
    if (out_exists) id = identify_output(path, manifest.config_hash);
    if (status == ManifestStatus::kOk) {
      if (previous.config_hash != manifest.config_hash)
        return fmt::format("--resume refused: the config changed since '{}' was started (sha256 {} vs {})", path,
                           previous.config_hash.substr(0, 12), manifest.config_hash.substr(0, 12));
      if (!(previous == manifest))
        return fmt::format("--resume refused: '{}' was started with a different chunk size or results", path);
      if (out_exists && !id.ours)
        return fmt::format("--resume refused: '{}' {}: not replacing it (its journal is of this config; move "
                           "the file away to finish the run)",
                           path, id.what);
      mode = 1;
    } else if (out_exists) {
      if (!id.ours)
        return fmt::format("--resume refused: '{}' {}: refusing to replace it", path, id.what);
      mode = id.complete ? 2 : 0;  // ours but incomplete without a journal: recompute
    }
  } else if (out_exists || has_journal) {
    return fmt::format("'{}' already exists: pass --resume to continue it or --overwrite to replace it",
                       out_exists ? path : journal);
  }
  if (mode == 2) return "";  // a complete file needs no space
  return check_free_space(parent, contents.record_bytes, config, space, kernel);
}

}  // namespace

double write_shard_file(MPI_Comm comm, const std::string& path, const SweepConfig& config,
                        const TaskKernel& kernel, const JournalManifest& manifest,
                        const ChunkResultSource& source, const std::vector<ProvenanceRow>& provenance,
                        std::int64_t shard_index, std::int64_t shard_count) {
  return write_shard_file_impl(comm, path, config, kernel, manifest, source, provenance, shard_index,
                               shard_count);
}

double merge_shards(MPI_Comm comm, const SweepConfig& config, const TaskKernel& kernel,
                    const std::vector<std::string>& shard_paths, const std::string& output_path,
                    const std::string& command_line) {
  const auto start_time = now_iso8601();
  const JournalManifest manifest = sweep_manifest(config, kernel);
  const Mpi mpi(comm);
  // The output must be a regular file or absent; rank 0 locks it and stages the merged file in
  // <output>.journal/, checked and agreed before any shard is read.
  const std::string journal = journal_directory(output_path);
  OutputLock lock;
  std::string error, staging;
  if (mpi.rank == 0) {
    try {
      error = check_result_output(output_path);
      if (error.empty()) {
        lock = OutputLock(journal);
        remove_stale_staging(journal);
        if (journal_contents(journal).record_files > 0 || path_kind(journal + "/manifest") != PathKind::kAbsent)
          error = fmt::format("'{}' holds the journal of a run of this output: finish or remove it first", journal);
        else
          staging = new_staging_file(journal, "merge");
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) lock.release();
  }
  agree_or_throw(mpi, error);
  broadcast_string(comm, staging);
  const auto n = static_cast<std::int64_t>(shard_paths.size());
  std::vector<std::unique_ptr<SweepFileReader>> slots(static_cast<std::size_t>(n));
  std::vector<ProvenanceRow> provenance;
  std::vector<bool> seen(static_cast<std::size_t>(n), false);
  for (const auto& path : shard_paths) {
    SweepFileReader shard(path);
    auto refuse = [&](const std::string& why) {
      throw InputError("shards", fmt::format("{}: {}", path, why));
    };
    if (!shard.has_attribute("shard")) refuse("not a shard file (no 'shard' attribute)");
    if (shard.string_attribute("config_hash") != config.source_hash)
      refuse("made from a different config than the first shard");
    if (shard.integer_attribute("chunk_count") != manifest.chunk_count() ||
        shard.integer_attribute("task_count") != manifest.task_count)
      refuse("different task or chunk count");
    std::int64_t index = -1, count = -1;
    if (std::sscanf(shard.string_attribute("shard").c_str(), "%ld/%ld", &index, &count) != 2 || count < 1 ||
        index < 0 || index >= count)
      refuse(fmt::format("malformed 'shard' attribute '{}'", shard.string_attribute("shard")));
    if (count != n) {  // say which shards are missing (or that there are too many)
      std::vector<bool> given(static_cast<std::size_t>(count), false);
      for (const auto& other : shard_paths) {
        std::int64_t i = -1, c = -1;
        const SweepFileReader r(other);
        if (r.has_attribute("shard") &&
            std::sscanf(r.string_attribute("shard").c_str(), "%ld/%ld", &i, &c) == 2 && c == count &&
            i >= 0 && i < count)
          given[static_cast<std::size_t>(i)] = true;
      }
      std::string missing;
      for (std::int64_t i = 0; i < count; ++i)
        if (!given[static_cast<std::size_t>(i)])
          missing += fmt::format("{}{}/{}", missing.empty() ? "" : ", ", i, count);
      refuse(missing.empty() ? fmt::format("the sweep has {} shards but {} files were given", count, n)
                             : fmt::format("the sweep has {} shards but {} were given: missing shard(s) {}",
                                           count, n, missing));
    }
    if (seen[static_cast<std::size_t>(index)]) refuse(fmt::format("shard {} given twice", index));
    seen[static_cast<std::size_t>(index)] = true;
    if (!sweep_file_is_complete(path)) refuse("unfinished shard (resume it first)");
    std::vector<std::uint8_t> done(static_cast<std::size_t>(manifest.chunk_count()));
    shard.read("progress/done", 0, manifest.chunk_count(), done.data());
    for (std::int64_t c = index; c < manifest.chunk_count(); c += n)
      if (!done[static_cast<std::size_t>(c)]) refuse(fmt::format("chunk {} missing", c));
    for (const auto& row : read_provenance(path)) provenance.push_back(row);
    slots[static_cast<std::size_t>(index)] = std::make_unique<SweepFileReader>(std::move(shard));
  }
  std::vector<SweepFileReader> shards;
  for (auto& slot : slots) shards.push_back(std::move(*slot));
  ProvenanceRow row = provenance_row(mpi, config, command_line);
  row.start_time = start_time;
  row.end_time = now_iso8601();
  provenance.push_back(row);
  const ShardSource source(std::move(shards), manifest, kernel);
  const double seconds = write_sweep_file(comm, staging, config, kernel, manifest, source, provenance);
  MPI_Barrier(comm);
  if (mpi.rank == 0) {
    try {
      replace_output(staging, output_path);
      lock.release();
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  agree_or_throw(mpi, error);
  return seconds;
}

JournalManifest sweep_manifest(const SweepConfig& config, const TaskKernel& kernel) {
  JournalManifest manifest;
  manifest.config_hash = config.source_hash;
  manifest.task_count = config.task_count();
  manifest.chunk_size =
      config.output.chunk_size > 0 ? config.output.chunk_size : default_chunk_size(config.task_count());
  manifest.values_per_task = values_per_task(kernel);
  manifest.columns = column_list(kernel);
  return manifest;
}

std::int64_t default_chunk_size(std::int64_t task_count) {
  // ~512 chunks: enough to balance 16+ ranks, few enough that journal syncs cost nothing.
  return std::clamp<std::int64_t>((task_count + 511) / 512, 16, 4096);
}

SweepRunSummary run_sweep(MPI_Comm comm, const SweepConfig& config, const TaskKernel& kernel,
                          const SweepRunOptions& options) {
  const auto start = Clock::now();
  const Mpi mpi(comm);
  const ParameterSpace space(config);
  SweepRunSummary summary;
  summary.tasks = space.task_count();

  const JournalManifest manifest = sweep_manifest(config, kernel);
  summary.chunks = manifest.chunk_count();
  const std::string& path = options.output_path;
  const std::string journal = journal_directory(path);

  // ---- decide, on rank 0, whether this run may start (nothing is written before) ----------
  // Rank 0 holds the output's lock (<output>.journal/lock) for the whole run.
  std::string error;
  int mode = 0;  // 0 fresh, 1 resume from journal, 2 already complete
  OutputLock lock;
  if (mpi.rank == 0) {
    try {
      error = decide_mode(path, journal, config, space, kernel, manifest, options, lock, mode);
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) lock.release();
  }
  agree_or_throw(mpi, error);
  MPI_Bcast(&mode, 1, MPI_INT, 0, comm);
  if (mode == 2) {
    summary.already_complete = summary.output_complete = true;
    if (mpi.rank == 0) summary.file_bytes = fs::file_size(path);
    return summary;
  }

  // ---- set up: journal, provenance row, incomplete output file -----------------------------
  const std::string run_id = fmt::format("{}", std::chrono::duration_cast<std::chrono::milliseconds>(
                                                   std::chrono::system_clock::now().time_since_epoch())
                                                   .count());
  const ProvenanceRow row = provenance_row(mpi, config, options.command_line);
  double hdf5_seconds = 0.0;
  if (mpi.rank == 0) {
    try {
      if (mode == 0) {
        clear_journal(journal);  // (--overwrite, or a journal-less incomplete file of this config)
        create_journal(journal, manifest);
        // The file exists from the start, marked incomplete, so a killed job leaves an honest
        // file; it holds only axes, config and progress until the final write lays out the maps.
        // Written in the journal directory (ours, locked) and renamed over the output.
        const auto t0 = Clock::now();
        SweepFileLayout incomplete_layout = make_layout(config, space, kernel, manifest.chunk_count());
        incomplete_layout.maps.clear();
        incomplete_layout.samples.clear();
        const std::string staging = new_staging_file(journal, "incomplete");
        // Tiny: rank 0 writes it alone with the serial driver (a collective MPI-IO open costs more).
        SweepFile::create(staging, MPI_COMM_SELF, incomplete_layout).close();
        replace_output(staging, path);
        hdf5_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
      }
      append_provenance_line(journal, row);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  agree_or_throw(mpi, error, false);

  // ---- which chunks remain ------------------------------------------------------------------
  std::vector<std::uint8_t> done(static_cast<std::size_t>(manifest.chunk_count()), 0);
  if (mpi.rank == 0 && mode == 1) {
    const JournalIndex found = JournalIndex::scan(journal, manifest);
    done = found.done_bitmap();
    for (const auto& problem : found.problems()) summary.warnings.push_back("journal: " + problem);
  }
  MPI_Bcast(done.data(), static_cast<int>(done.size()), MPI_UINT8_T, 0, comm);
  std::vector<std::int64_t> pending;
  for (std::size_t c = 0; c < done.size(); ++c)
    if (!done[c] && static_cast<std::int64_t>(c) % options.shard_count == options.shard_index)
      pending.push_back(static_cast<std::int64_t>(c));
  if (mpi.rank == 0)
    spdlog::info("{} tasks in {} chunks of {}; {} chunks to compute on {} rank(s) x {} thread(s)",
                 summary.tasks, manifest.chunk_count(), manifest.chunk_size, pending.size(), mpi.size,
                 row.threads);

  // ---- compute ------------------------------------------------------------------------------
  std::int64_t computed = 0;
  int stop = 0;
  {
    std::unique_ptr<ChunkJournalWriter> writer;
    try {
      writer = std::make_unique<ChunkJournalWriter>(journal, mpi.rank, run_id, manifest.config_hash);
    } catch (const std::exception& e) {
      error = fmt::format("rank {}: {}", mpi.rank, e.what());
    }
    agree_or_throw(mpi, error, false);
    std::vector<std::unique_ptr<TaskScratch>> scratch;
    for (int t = 0; t < omp_get_max_threads(); ++t) scratch.push_back(kernel.make_scratch());
    ChunkScheduler scheduler(comm, static_cast<std::int64_t>(pending.size()));
    const std::int64_t already =
        summary.tasks - static_cast<std::int64_t>(pending.size()) * manifest.chunk_size;
    ProgressLog progress(summary.tasks, std::max<std::int64_t>(0, already), options.progress_interval_s);
    ChunkResults chunk;
    auto stopping = [&] { return options.stop_signal != nullptr && *options.stop_signal != 0; };
    for (std::int64_t claimed = stopping() ? -1 : scheduler.next(); claimed >= 0;
         claimed = stopping() ? -1 : scheduler.next()) {
      chunk.chunk = pending[static_cast<std::size_t>(claimed)];
      chunk.first_task = chunk.chunk * manifest.chunk_size;
      chunk.resize(std::min(manifest.chunk_size, summary.tasks - chunk.first_task), manifest.values_per_task);
      try {
        compute_chunk(space, kernel, config, scratch, chunk);
        writer->append(chunk, manifest.values_per_task);
      } catch (const std::exception& e) {
        // A failing task or a failing journal write (disk full) on one rank: every finished
        // chunk is already journaled, so end all ranks now rather than leave them waiting.
        std::fprintf(stderr, "simpact: error: rank %d: %s\n", mpi.rank, e.what());
        std::fflush(stderr);
        MPI_Abort(comm, 3);
      }
      computed += chunk.count;
      if (mpi.rank == 0) progress.update(std::max<std::int64_t>(0, already) + claimed * manifest.chunk_size);
    }
    if (stopping()) stop = static_cast<int>(*options.stop_signal);
  }
  MPI_Allreduce(&computed, &summary.tasks_computed, 1, MPI_INT64_T, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_MAX, comm);
  if (stop != 0) {  // every finished chunk is in the journal; the lock is released on return
    summary.interrupted_by = stop;
    if (mpi.rank == 0) summary.tasks_saved = JournalIndex::scan(journal, manifest).task_total();
    summary.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return summary;
  }

  // ---- finalize: write the HDF5 file from the journal ---------------------------------------
  const JournalIndex index = JournalIndex::scan(journal, manifest);
  std::int64_t missing = 0;
  const std::vector<std::uint8_t> finished = index.done_bitmap();
  for (std::size_t c = 0; c < finished.size(); ++c)
    if (!finished[c] && static_cast<std::int64_t>(c) % options.shard_count == options.shard_index) ++missing;
  // Every task accounted for exactly once: each chunk's record holds exactly its own tasks.
  if (options.shard_count == 1 && missing == 0 && index.task_total() != summary.tasks) missing = 1;
  MPI_Allreduce(MPI_IN_PLACE, &missing, 1, MPI_INT64_T, MPI_MAX, comm);
  if (missing != 0)
    throw AgreedError(fmt::format("{}: {} chunks missing from the journal after the run (resume with --resume "
                                  "to compute them)",
                                  journal, missing),
                      false);
  if (mpi.rank == 0 && mode == 0)
    for (const auto& problem : index.problems()) summary.warnings.push_back("journal: " + problem);
  std::int64_t dropped = 0;
  std::vector<ProvenanceRow> provenance = read_provenance_lines(journal, dropped);
  if (mpi.rank == 0 && dropped > 0)
    summary.warnings.push_back(fmt::format("{}/provenance.tsv: {} malformed line(s) dropped", journal, dropped));
  if (provenance.empty()) provenance.push_back(row);  // the journal's copy was lost: keep this run's
  provenance.back().end_time = now_iso8601();
  provenance.back().tasks_done = summary.tasks_computed;
  {
    // The rest of the journal was finished by earlier, killed runs (no end time): with one such
    // run its row gets that count; several killed runs cannot be told apart and keep 0.
    std::vector<std::size_t> killed;
    std::int64_t others = 0;
    for (std::size_t r = 0; r + 1 < provenance.size(); ++r) {
      if (provenance[r].end_time.empty()) killed.push_back(r);
      others += provenance[r].tasks_done;
    }
    if (killed.size() == 1) {
      std::int64_t journal_tasks = 0;
      for (std::size_t c = 0; c < finished.size(); ++c)
        if (finished[c] && static_cast<std::int64_t>(c) % options.shard_count == options.shard_index)
          journal_tasks += std::min(manifest.chunk_size,
                                    summary.tasks - static_cast<std::int64_t>(c) * manifest.chunk_size);
      provenance[killed.front()].tasks_done =
          std::max<std::int64_t>(0, journal_tasks - summary.tasks_computed - others);
    }
  }
  // Written in the journal directory (created exclusively, never through a link) and renamed
  // over the output when complete: a kill during this step leaves the (readable, incomplete)
  // file in place, never a half-written one.
  std::string staging;
  if (mpi.rank == 0) {
    try {
      staging = new_staging_file(journal, "final");
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  agree_or_throw(mpi, error, false);
  broadcast_string(comm, staging);
  if (options.shard_count > 1)
    hdf5_seconds += write_shard_file(comm, staging, config, kernel, manifest, index, provenance,
                                     options.shard_index, options.shard_count);
  else
    hdf5_seconds +=
        write_sweep_file(comm, staging, config, kernel, manifest, index, provenance, &summary.status_counts);
  MPI_Barrier(comm);
  if (mpi.rank == 0) {
    try {
      replace_output(staging, path);
      clear_journal(journal);  // only now: the file holds everything the journal did
      lock.release();
      summary.file_bytes = fs::file_size(path);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  agree_or_throw(mpi, error, false);
  summary.output_complete = true;
  if (options.stop_signal != nullptr && *options.stop_signal != 0)
    summary.interrupted_by = static_cast<int>(*options.stop_signal);
  summary.hdf5_seconds = hdf5_seconds;
  summary.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return summary;
}

void agree_or_throw(MPI_Comm comm, const std::string& error, bool input_error) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int failing = error.empty() ? size : rank;
  MPI_Allreduce(MPI_IN_PLACE, &failing, 1, MPI_INT, MPI_MIN, comm);
  if (failing == size) return;
  std::string message = error;
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, failing, comm);
  message.resize(static_cast<std::size_t>(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, failing, comm);
  int input = input_error ? 1 : 0;
  MPI_Bcast(&input, 1, MPI_INT, failing, comm);
  throw AgreedError(message, input != 0);
}

}  // namespace simpact
