// The journal directory: its durable manifest (what the journal was started for, which version
// and record kind), its contents, and clearing it.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <vector>

#include "journal_write.hpp"
#include "simpact/io/chunk_journal.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/safe_file.hpp"

namespace simpact {

namespace fs = std::filesystem;

namespace {

const char* records_name(JournalRecords r) {
  return r == JournalRecords::kStatistics ? "statistics" : "rows";
}

std::string prefixed_lines(const std::string& prefix, const std::string& lines) {
  std::string out;
  std::istringstream in(lines);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out += prefix + line + "\n";
  return out;
}

std::string manifest_text(const JournalManifest& m) {
  return fmt::format(
             "journal_version {}\nconfig_hash {}\ntask_count {}\nchunk_size {}\nvalues_per_task {}\ncolumns "
             "{}\n"
             "records {}\nreplicas {}\nstatistic_columns {}\nshard {}\nbuild {}\n",
             kJournalVersion, m.config_hash, m.task_count, m.chunk_size, m.values_per_task, m.columns,
             records_name(m.records), m.replicas, m.statistic_columns, shard_text(m), m.build) +
         prefixed_lines("input ", m.inputs);
}

}  // namespace

std::string shard_text(const JournalManifest& m) {
  return fmt::format("{}/{}", m.shard_index, m.shard_count);
}

std::string shard_description(const JournalManifest& m) {
  return m.shard_count > 1 ? fmt::format("shard {}", shard_text(m)) : "the whole sweep (no --shard)";
}

std::int64_t JournalManifest::chunk_tasks(std::int64_t chunk) const {
  return std::min(chunk_size, task_count - chunk * chunk_size);
}

std::string journal_directory(const std::string& output_path) {
  return output_path + ".journal";
}

void create_journal(const std::string& directory, const JournalManifest& manifest) {
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec) throw IoError(fmt::format("{}: cannot create journal directory: {}", directory, ec.message()));
  const std::string tmp = directory + "/manifest.tmp";
  ::unlink(tmp.c_str());  // a stale one from a killed run (the directory is ours and locked)
  const int fd = create_exclusive(tmp);
  const std::string text = manifest_text(manifest);
  try {
    detail::write_all(fd, text.data(), text.size(), tmp);
    if (::fsync(fd) != 0) throw IoError(fmt::format("{}: fsync failed: {}", tmp, std::strerror(errno)));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), (directory + "/manifest").c_str()) != 0)
    throw IoError(fmt::format("{}: cannot write journal manifest: {}", directory, std::strerror(errno)));
  sync_parent_directory(directory + "/manifest");
}

ManifestStatus read_journal_manifest(const std::string& directory, JournalManifest& m, std::string* why) {
  const std::string path = directory + "/manifest";
  auto say = [&](const std::string& reason) {
    if (why) *why = reason;
  };
  if (path_kind(path) == PathKind::kAbsent) {
    say("it has no manifest");
    return ManifestStatus::kMissing;
  }
  std::string text;
  try {
    text = read_journal_file(path, 1 << 16, "journal manifest");
  } catch (const std::exception& e) {
    say(e.what());
    return ManifestStatus::kUnreadable;
  }
  m = JournalManifest{};  // a line absent (build, in older journals) reads as empty, not as before
  std::istringstream in(text);
  std::string key, records, shard = "0/1";
  int seen = 0, seen_v3 = 0;
  long long version = 1;
  while (in >> key) {
    if (key == "journal_version")
      in >> version;
    else if (key == "config_hash")
      in >> m.config_hash, ++seen;
    else if (key == "task_count")
      in >> m.task_count, ++seen;
    else if (key == "chunk_size")
      in >> m.chunk_size, ++seen;
    else if (key == "values_per_task")
      in >> m.values_per_task, ++seen;
    else if (key == "columns")
      in >> m.columns, ++seen;
    else if (key == "records")
      in >> records, ++seen_v3;
    else if (key == "replicas")
      in >> m.replicas, ++seen_v3;
    else if (key == "statistic_columns")
      in >> m.statistic_columns, ++seen_v3;
    else if (key == "shard")  // absent in journals before issue 27: the whole sweep
      in >> shard;
    else if (key == "build") {  // the rest of the line: build flags hold spaces
      std::getline(in, m.build);
      m.build.erase(0, m.build.find_first_not_of(' '));
    } else if (key == "input") {  // one line per input file (paths may hold spaces)
      std::string line;
      std::getline(in, line);
      m.inputs +=
          line.substr(line.find_first_not_of(' ') == std::string::npos ? line.size()
                                                                       : line.find_first_not_of(' ')) +
          "\n";
    }
    if (!in) break;
  }
  if (seen != 5 || m.chunk_size <= 0 || m.task_count < 0) {
    say(text.empty() ? "its manifest is empty" : "its manifest is incomplete or garbled");
    return ManifestStatus::kUnreadable;
  }
  if (version != kJournalVersion) {
    say(fmt::format("it is a version {} journal (this simpact writes version {})", version, kJournalVersion));
    return ManifestStatus::kOldVersion;
  }
  if (seen_v3 != 3 || (records != "rows" && records != "statistics") || m.replicas < 1 ||
      m.statistic_columns < 0) {
    say("its manifest is incomplete or garbled");
    return ManifestStatus::kUnreadable;
  }
  long long index = -1, count = -1;
  char tail = 0;
  if (std::sscanf(shard.c_str(), "%lld/%lld%c", &index, &count, &tail) != 2 || count < 1 || index < 0 ||
      index >= count) {
    say("its manifest is incomplete or garbled");
    return ManifestStatus::kUnreadable;
  }
  m.shard_index = index;
  m.shard_count = count;
  m.records = records == "statistics" ? JournalRecords::kStatistics : JournalRecords::kRows;
  return ManifestStatus::kOk;
}

JournalContents journal_contents(const std::string& directory) {
  JournalContents c;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(directory, ec)) {
    if (e.path().extension() != ".bin") continue;
    ++c.record_files;
    std::error_code size_ec;
    const auto size = e.file_size(size_ec);
    if (!size_ec) c.record_bytes += size;
  }
  return c;
}

void clear_journal(const std::string& directory) {
  std::error_code ec;
  std::vector<std::string> ours;
  for (const auto& e : fs::directory_iterator(directory, ec)) {
    const std::string name = e.path().filename().string();
    if (name != "lock" && is_journal_file_name(name)) ours.push_back(e.path().string());
  }
  // unlink, never a recursive remove: a directory planted under one of our names stays.
  for (const auto& path : ours) ::unlink(path.c_str());
}

}  // namespace simpact
