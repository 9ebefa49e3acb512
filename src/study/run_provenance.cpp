#include "run_provenance.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>
#include <sstream>

#include "simpact/io/io_error.hpp"
#include "simpact/io/safe_file.hpp"
#include "simpact/version.hpp"

namespace simpact::detail {

namespace {

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

// One provenance row per run or resume, kept in the journal until the file is complete.
// Tab-separated, fields escaped of tabs/newlines.
std::string escape(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n') c = ' ';
  return s;
}

template <typename T>
bool parse_integer(const std::string& text, T& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::string now_iso8601() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

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

void append_provenance_line(const std::string& dir, const ProvenanceRow& r) {
  const std::string path = dir + "/provenance.tsv";
  // Never through a planted link: O_NOFOLLOW, a regular file with one name (else IoError).
  const int fd = open_journal_file(path, O_RDWR | O_APPEND | O_CREAT);
  std::ostringstream line;
  struct stat st {};
  char last = '\n';  // a line cut by a kill (or garbage) must not swallow this run's row
  if (::fstat(fd, &st) == 0 && st.st_size > 0 && ::pread(fd, &last, 1, st.st_size - 1) != 1) last = '\n';
  if (last != '\n') line << '\n';
  line << escape(r.version) << '\t' << escape(r.git_revision) << '\t' << escape(r.build_flags) << '\t'
       << escape(r.hosts) << '\t' << escape(r.slurm_job_id) << '\t' << escape(r.start_time) << '\t'
       << escape(r.end_time) << '\t' << escape(r.command) << '\t' << r.ranks << '\t' << r.threads << '\t'
       << r.seed << '\t' << r.tasks_done << '\n';
  const std::string text = line.str();
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      const int err = errno;
      ::close(fd);
      throw IoError(fmt::format("{}: write failed: {}", path, std::strerror(err)));
    }
    done += static_cast<std::size_t>(w);
  }
  ::close(fd);
}

std::vector<ProvenanceRow> read_provenance_lines(const std::string& dir, std::int64_t& dropped) {
  std::vector<ProvenanceRow> rows;
  dropped = 0;
  std::string text;
  try {
    text = read_journal_file(dir + "/provenance.tsv", 16u << 20, "provenance");
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
        !parse_integer(f[10], seed) || !parse_integer(f[11], tasks) || ranks < 1 || threads < 1 ||
        tasks < 0) {
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

}  // namespace simpact::detail
