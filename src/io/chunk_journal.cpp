#include "simpact/io/chunk_journal.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "simpact/io/io_error.hpp"
#include "simpact/io/safe_file.hpp"

namespace simpact {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kRecordMagicV1 = 0x314e524a504d4953ULL;  // "SIMPJRN1" (no config hash)
constexpr std::uint64_t kRecordMagic = 0x324e524a504d4953ULL;    // "SIMPJRN2"

struct RecordHeader {
  std::uint64_t magic;
  std::int64_t chunk;
  std::int64_t first_task;
  std::int64_t count;
  std::int64_t values_per_task;
  std::uint64_t payload_bytes;
  char config_hash[64];    // hex sha256 of the config the record was computed for
  std::uint64_t checksum;  // FNV-1a over the header fields above and the payload
};
static_assert(sizeof(RecordHeader) == 120, "journal record header layout");

void set_hash(RecordHeader& h, const std::string& hash) {
  std::memset(h.config_hash, 0, sizeof h.config_hash);
  std::memcpy(h.config_hash, hash.data(), std::min(hash.size(), sizeof h.config_hash));
}

bool same_hash(const RecordHeader& h, const std::string& hash) {
  RecordHeader expected{};
  set_hash(expected, hash);
  return std::memcmp(h.config_hash, expected.config_hash, sizeof h.config_hash) == 0;
}

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ULL) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::uint64_t record_checksum(const RecordHeader& h, const std::vector<char>& payload) {
  std::uint64_t sum = fnv1a(&h, offsetof(RecordHeader, checksum));
  return fnv1a(payload.data(), payload.size(), sum);
}

std::vector<char> encode_payload(const ChunkResults& c, std::int64_t vpt) {
  const std::size_t n = static_cast<std::size_t>(c.count);
  std::vector<char> payload(n * 16 + n * static_cast<std::size_t>(vpt) * 8);
  char* p = payload.data();
  std::memcpy(p, c.status.data(), n * 8);
  std::memcpy(p + n * 8, c.counters.data(), n * 8);
  std::memcpy(p + n * 16, c.values.data(), n * static_cast<std::size_t>(vpt) * 8);
  return payload;
}

void write_all(int fd, const void* data, std::size_t n, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw IoError(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

std::string manifest_text(const JournalManifest& m) {
  return fmt::format(
      "journal_version {}\nconfig_hash {}\ntask_count {}\nchunk_size {}\nvalues_per_task {}\ncolumns {}\n",
      kJournalVersion, m.config_hash, m.task_count, m.chunk_size, m.values_per_task, m.columns);
}

std::int64_t expected_count(const JournalManifest& m, std::int64_t chunk) {
  return std::min(m.chunk_size, m.task_count - chunk * m.chunk_size);
}

}  // namespace

void ChunkResults::resize(std::int64_t n, std::int64_t values_per_task) {
  count = n;
  status.assign(static_cast<std::size_t>(n), 0);
  counters.assign(static_cast<std::size_t>(n), 0);
  values.assign(static_cast<std::size_t>(n * values_per_task), 0.0);
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
    write_all(fd, text.data(), text.size(), tmp);
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
    text = read_capped_input(path, 1 << 16, "journal manifest", false);
  } catch (const std::exception& e) {
    say(e.what());
    return ManifestStatus::kUnreadable;
  }
  std::istringstream in(text);
  std::string key;
  int seen = 0;
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
  for (const auto& e : fs::directory_iterator(directory, ec)) {
    if (e.path().filename() == "lock") continue;
    std::error_code rm;
    fs::remove_all(e.path(), rm);
  }
}

void remove_journal(const std::string& directory) {
  std::error_code ec;
  fs::remove_all(directory, ec);
}

ChunkJournalWriter::ChunkJournalWriter(const std::string& directory, int rank, const std::string& run_id,
                                       const std::string& config_hash)
    : path_(fmt::format("{}/rank-{}-{}.bin", directory, rank, run_id)), config_hash_(config_hash) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw IoError(fmt::format("{}: cannot open journal: {}", path_, std::strerror(errno)));
}

ChunkJournalWriter::~ChunkJournalWriter() {
  if (fd_ < 0) return;
  if (unsynced_) ::fdatasync(fd_);
  ::close(fd_);
}

namespace {
double monotonic_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
}  // namespace

void ChunkJournalWriter::sync() {
  if (::fdatasync(fd_) != 0)
    throw IoError(fmt::format("{}: fdatasync failed: {}", path_, std::strerror(errno)));
  last_sync_ = monotonic_seconds();
  unsynced_ = false;
}

void ChunkJournalWriter::append(const ChunkResults& chunk, std::int64_t values_per_task) {
  const std::vector<char> payload = encode_payload(chunk, values_per_task);
  RecordHeader h{};
  h.magic = kRecordMagic;
  h.chunk = chunk.chunk;
  h.first_task = chunk.first_task;
  h.count = chunk.count;
  h.values_per_task = values_per_task;
  h.payload_bytes = payload.size();
  set_hash(h, config_hash_);
  h.checksum = record_checksum(h, payload);
  // One write of header + payload, then a data sync: the record is either whole or detectably torn.
  std::vector<char> record(sizeof h + payload.size());
  std::memcpy(record.data(), &h, sizeof h);
  std::memcpy(record.data() + sizeof h, payload.data(), payload.size());
  write_all(fd_, record.data(), record.size(), path_);
  unsynced_ = true;
  if (monotonic_seconds() - last_sync_ >= sync_interval_s_) sync();
}

JournalIndex JournalIndex::scan(const std::string& directory, const JournalManifest& manifest) {
  JournalIndex index;
  index.manifest_ = manifest;
  std::error_code ec;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(directory, ec))
    if (e.path().extension() == ".bin") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());  // deterministic choice among (identical) duplicates
  for (const auto& file : files) {
    if (path_kind(file) != PathKind::kRegular) {
      index.problems_.push_back(fmt::format("{}: not a regular file: ignored", file));
      continue;
    }
    std::ifstream in(file, std::ios::binary);
    in.seekg(0, std::ios::end);
    const auto file_bytes = static_cast<std::uint64_t>(std::max<std::streamoff>(0, in.tellg()));
    in.seekg(0);
    std::uint64_t offset = 0;
    RecordHeader h{};
    auto reject = [&](const std::string& why) {
      index.problems_.push_back(
          fmt::format("{}: record at byte {} {}: it and the {} bytes after it are ignored "
                      "(their chunks are recomputed)",
                      file, offset, why, file_bytes - offset));
    };
    while (offset < file_bytes) {
      if (file_bytes - offset < sizeof h) break;  // torn header: the run was killed while writing it
      if (!in.read(reinterpret_cast<char*>(&h), sizeof h)) break;
      if (h.magic == kRecordMagicV1) {
        reject("is from an older simpact (journal version 1)");
        break;
      }
      if (h.magic != kRecordMagic) {
        reject("is not a simpact journal record");
        break;
      }
      const bool sane = h.values_per_task == manifest.values_per_task && h.chunk >= 0 &&
                        h.chunk < manifest.chunk_count() && h.first_task == h.chunk * manifest.chunk_size &&
                        h.count == expected_count(manifest, h.chunk) &&
                        h.payload_bytes == static_cast<std::uint64_t>(h.count) * (16 + 8 * h.values_per_task);
      if (!sane) {
        reject(
            fmt::format("does not fit this sweep (chunk {}, tasks {}+{})", h.chunk, h.first_task, h.count));
        break;
      }
      if (file_bytes - offset - sizeof h < h.payload_bytes) break;  // torn payload
      std::vector<char> payload(h.payload_bytes);
      if (!in.read(payload.data(), static_cast<std::streamsize>(payload.size()))) break;
      if (record_checksum(h, payload) != h.checksum) {
        reject("fails its checksum");
        break;
      }
      if (!same_hash(h, manifest.config_hash)) {
        reject("belongs to another config");
        break;
      }
      index.entries_.emplace(h.chunk, Entry{file, offset, h.first_task, h.count});
      offset += sizeof h + h.payload_bytes;
    }
  }
  return index;
}

std::int64_t JournalIndex::task_total() const {
  std::int64_t total = 0;
  for (const auto& [chunk, entry] : entries_) total += entry.count;
  return total;
}

std::vector<std::uint8_t> JournalIndex::done_bitmap() const {
  std::vector<std::uint8_t> bits(static_cast<std::size_t>(manifest_.chunk_count()), 0);
  for (const auto& [chunk, entry] : entries_) bits[static_cast<std::size_t>(chunk)] = 1;
  return bits;
}

void JournalIndex::read(std::int64_t chunk, ChunkResults& out) const {
  const auto it = entries_.find(chunk);
  if (it == entries_.end()) throw IoError(fmt::format("journal: chunk {} is missing", chunk));
  const Entry& e = it->second;
  // Read and check the whole record again: the file may have changed since the scan.
  std::ifstream in(e.file, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(e.offset));
  RecordHeader h{};
  in.read(reinterpret_cast<char*>(&h), sizeof h);
  const std::int64_t vpt = manifest_.values_per_task;
  const std::uint64_t bytes = static_cast<std::uint64_t>(e.count) * static_cast<std::uint64_t>(16 + 8 * vpt);
  std::vector<char> payload;
  if (in && h.payload_bytes == bytes) {
    payload.resize(bytes);
    in.read(payload.data(), static_cast<std::streamsize>(bytes));
  }
  if (!in || h.magic != kRecordMagic || h.chunk != chunk || h.first_task != e.first_task ||
      h.count != e.count || h.payload_bytes != bytes || !same_hash(h, manifest_.config_hash) ||
      record_checksum(h, payload) != h.checksum)
    throw IoError(
        fmt::format("{}: the record of chunk {} at byte {} changed or is corrupt since the journal was "
                    "scanned",
                    e.file, chunk, e.offset));
  out.chunk = chunk;
  out.first_task = e.first_task;
  out.resize(e.count, vpt);
  const auto n = static_cast<std::size_t>(e.count);
  std::memcpy(out.status.data(), payload.data(), n * 8);
  std::memcpy(out.counters.data(), payload.data() + n * 8, n * 8);
  std::memcpy(out.values.data(), payload.data() + n * 16, n * static_cast<std::size_t>(vpt) * 8);
}

}  // namespace simpact
