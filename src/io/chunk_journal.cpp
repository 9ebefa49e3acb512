// Journal records (version 3): a header tying the record to its config, kind and task range, a
// payload of rows or of per-grid-point partial statistics, and a checksum over both.
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

#include "journal_write.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/safe_file.hpp"

namespace simpact {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kRecordMagicV1 = 0x314e524a504d4953ULL;  // "SIMPJRN1" (no config hash)
constexpr std::uint64_t kRecordMagicV2 = 0x324e524a504d4953ULL;  // "SIMPJRN2" (rows only)
constexpr std::uint64_t kRecordMagic = 0x334e524a504d4953ULL;    // "SIMPJRN3"

struct RecordHeader {
  std::uint64_t magic;
  std::int64_t kind;  // JournalRecords
  std::int64_t chunk;
  std::int64_t first_task;
  std::int64_t count;
  std::int64_t width;        // rows: values per task; statistics: reduced columns
  std::int64_t first_point;  // statistics: the grid points touched (rows: 0, 0)
  std::int64_t points;
  std::uint64_t payload_bytes;
  char config_hash[64];    // hex sha256 of the config the record was computed for
  std::uint64_t checksum;  // FNV-1a over the header fields above and the payload
};
static_assert(sizeof(RecordHeader) == kJournalRecordHeaderBytes, "journal record header layout");
using StatisticsState = RunningStatistics::State;
constexpr std::uint64_t kStatusBytes = 8 * kTaskStatusCount;
static_assert(kStatusBytes + sizeof(StatisticsState) == journal_point_bytes(1), "journal statistics layout");

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

std::uint64_t record_checksum(const RecordHeader& h, const char* payload, std::size_t bytes) {
  return fnv1a(payload, bytes, fnv1a(&h, offsetof(RecordHeader, checksum)));
}

// A record buffer: header (checksum filled in last) followed by `payload_bytes` bytes.
std::vector<char> new_record(RecordHeader& h, const std::string& hash) {
  h.magic = kRecordMagic;
  set_hash(h, hash);
  return std::vector<char>(sizeof h + h.payload_bytes);
}

void seal(RecordHeader& h, std::vector<char>& record) {
  h.checksum = record_checksum(h, record.data() + sizeof h, h.payload_bytes);
  std::memcpy(record.data(), &h, sizeof h);
}

// The grid points a chunk's tasks belong to.
std::int64_t first_point_of(const JournalManifest& m, std::int64_t chunk) {
  return chunk * m.chunk_size / m.replicas;
}
std::int64_t points_of(const JournalManifest& m, std::int64_t chunk) {
  const std::int64_t first = chunk * m.chunk_size;
  return (first + m.chunk_tasks(chunk) - 1) / m.replicas - first / m.replicas + 1;
}

// What a record of `chunk` must say in its header for this manifest.
bool header_fits(const RecordHeader& h, const JournalManifest& m) {
  if (h.kind != static_cast<std::int64_t>(m.records) || h.chunk < 0 || h.chunk >= m.chunk_count() ||
      h.first_task != h.chunk * m.chunk_size || h.count != m.chunk_tasks(h.chunk))
    return false;
  if (m.records == JournalRecords::kRows)
    return h.width == m.values_per_task && h.first_point == 0 && h.points == 0 &&
           h.payload_bytes ==
               static_cast<std::uint64_t>(h.count) * (16 + 8 * static_cast<std::uint64_t>(h.width));
  return h.width == m.statistic_columns && h.first_point == first_point_of(m, h.chunk) &&
         h.points == points_of(m, h.chunk) &&
         h.payload_bytes == static_cast<std::uint64_t>(h.points * journal_point_bytes(h.width));
}

// Decodes a statistics payload; false if it does not account for each of the chunk's tasks
// exactly once (per grid point: the status counts sum to its tasks in the chunk).
bool decode_statistics(const RecordHeader& h, const char* p, std::int64_t replicas, ChunkStatistics& out) {
  out.chunk = h.chunk;
  out.first_task = h.first_task;
  out.count = h.count;
  out.reset(h.first_point, h.points, h.width);
  for (std::int64_t g = h.first_point; g < h.first_point + h.points; ++g) {
    std::int64_t* status = out.status_of(g);
    std::memcpy(status, p, kStatusBytes);
    p += kStatusBytes;
    const std::int64_t tasks =
        std::min(h.first_task + h.count, (g + 1) * replicas) - std::max(h.first_task, g * replicas);
    std::int64_t sum = 0;
    for (int k = 0; k < kTaskStatusCount; ++k) {
      if (status[k] < 0) return false;
      sum += status[k];
    }
    if (sum != tasks) return false;
    RunningStatistics* values = out.values_of(g);
    for (std::int64_t c = 0; c < h.width; ++c) {
      StatisticsState s{};
      std::memcpy(&s, p, sizeof s);
      p += sizeof s;
      if (s.count < 0 || s.count > tasks) return false;
      values[c] = RunningStatistics::from_state(s);
    }
  }
  return true;
}

double monotonic_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

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

void ChunkJournalWriter::sync() {
  if (::fdatasync(fd_) != 0)
    throw IoError(fmt::format("{}: fdatasync failed: {}", path_, std::strerror(errno)));
  last_sync_ = monotonic_seconds();
  unsynced_ = false;
}

void ChunkJournalWriter::write_record(std::vector<char>& record) {
  // One write of header + payload: the record is either whole or detectably torn.
  detail::write_all(fd_, record.data(), record.size(), path_);
  unsynced_ = true;
  if (monotonic_seconds() - last_sync_ >= sync_interval_s_) sync();
}

void ChunkJournalWriter::append(const ChunkResults& chunk, std::int64_t values_per_task) {
  const auto n = static_cast<std::size_t>(chunk.count);
  RecordHeader h{};
  h.kind = static_cast<std::int64_t>(JournalRecords::kRows);
  h.chunk = chunk.chunk;
  h.first_task = chunk.first_task;
  h.count = chunk.count;
  h.width = values_per_task;
  h.payload_bytes = n * 16 + n * static_cast<std::size_t>(values_per_task) * 8;
  std::vector<char> record = new_record(h, config_hash_);
  char* p = record.data() + sizeof h;
  std::memcpy(p, chunk.status.data(), n * 8);
  std::memcpy(p + n * 8, chunk.counters.data(), n * 8);
  std::memcpy(p + n * 16, chunk.values.data(), n * static_cast<std::size_t>(values_per_task) * 8);
  seal(h, record);
  write_record(record);
}

void ChunkJournalWriter::append(const ChunkStatistics& chunk) {
  RecordHeader h{};
  h.kind = static_cast<std::int64_t>(JournalRecords::kStatistics);
  h.chunk = chunk.chunk;
  h.first_task = chunk.first_task;
  h.count = chunk.count;
  h.width = chunk.columns;
  h.first_point = chunk.first_point;
  h.points = chunk.points;
  h.payload_bytes = static_cast<std::uint64_t>(chunk.points * journal_point_bytes(chunk.columns));
  std::vector<char> record = new_record(h, config_hash_);
  char* p = record.data() + sizeof h;
  for (std::int64_t g = chunk.first_point; g < chunk.first_point + chunk.points; ++g) {
    std::memcpy(p, chunk.status_of(g), kStatusBytes);
    p += kStatusBytes;
    const RunningStatistics* values = chunk.values_of(g);
    for (std::int64_t c = 0; c < chunk.columns; ++c) {
      const StatisticsState s = values[c].state();
      std::memcpy(p, &s, sizeof s);
      p += sizeof s;
    }
  }
  seal(h, record);
  write_record(record);
}

JournalIndex JournalIndex::scan(const std::string& directory, const JournalManifest& manifest) {
  JournalIndex index;
  index.manifest_ = manifest;
  std::error_code ec;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(directory, ec))
    if (e.path().extension() == ".bin") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());  // deterministic choice among (identical) duplicates
  ChunkStatistics decoded;
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
      if (h.magic == kRecordMagicV1 || h.magic == kRecordMagicV2) {
        reject(
            fmt::format("is from an older simpact (journal version {})", h.magic == kRecordMagicV1 ? 1 : 2));
        break;
      }
      if (h.magic != kRecordMagic) {
        reject("is not a simpact journal record");
        break;
      }
      if (!header_fits(h, manifest)) {
        reject(
            fmt::format("does not fit this sweep (chunk {}, tasks {}+{})", h.chunk, h.first_task, h.count));
        break;
      }
      if (file_bytes - offset - sizeof h < h.payload_bytes) break;  // torn payload
      std::vector<char> payload(h.payload_bytes);
      if (!in.read(payload.data(), static_cast<std::streamsize>(payload.size()))) break;
      if (record_checksum(h, payload.data(), payload.size()) != h.checksum) {
        reject("fails its checksum");
        break;
      }
      if (!same_hash(h, manifest.config_hash)) {
        reject("belongs to another config");
        break;
      }
      if (manifest.records == JournalRecords::kStatistics &&
          !decode_statistics(h, payload.data(), manifest.replicas, decoded)) {
        reject(fmt::format("does not account for the tasks of chunk {} exactly once", h.chunk));
        break;
      }
      index.entries_.emplace(h.chunk, Entry{file, offset, h.first_task, h.count});
      offset += sizeof h + h.payload_bytes;
    }
  }
  return index;
}

std::string JournalIndex::encode() const {
  std::vector<std::string> files;  // each file's name once; entries refer to it by position
  std::map<std::string, std::uint64_t> position;
  for (const auto& [chunk, entry] : entries_)
    if (position.emplace(entry.file, files.size()).second) files.push_back(entry.file);
  std::string out;
  const auto put = [&out](std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(files.size());
  for (const auto& f : files) {
    put(f.size());
    out += f;
  }
  put(entries_.size());
  for (const auto& [chunk, entry] : entries_) {
    put(static_cast<std::uint64_t>(chunk));
    put(position.at(entry.file));
    put(entry.offset);
    put(static_cast<std::uint64_t>(entry.first_task));
    put(static_cast<std::uint64_t>(entry.count));
  }
  return out;
}

JournalIndex JournalIndex::decode(const JournalManifest& manifest, const std::string& bytes) {
  std::size_t at = 0;
  const auto get = [&]() {
    std::uint64_t v = 0;
    if (bytes.size() - at < sizeof v) throw IoError("journal index: truncated");
    std::memcpy(&v, bytes.data() + at, sizeof v);
    at += sizeof v;
    return v;
  };
  JournalIndex index;
  index.manifest_ = manifest;
  std::vector<std::string> files(get());
  for (auto& f : files) {
    const std::uint64_t length = get();
    if (bytes.size() - at < length) throw IoError("journal index: truncated");
    f.assign(bytes.data() + at, length);
    at += length;
  }
  for (std::uint64_t n = get(); n > 0; --n) {
    const auto chunk = static_cast<std::int64_t>(get());
    const std::uint64_t file = get();
    if (file >= files.size()) throw IoError("journal index: a record of an unknown file");
    Entry entry{files[file], get(), 0, 0};
    entry.first_task = static_cast<std::int64_t>(get());
    entry.count = static_cast<std::int64_t>(get());
    index.entries_.emplace(chunk, std::move(entry));
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

std::vector<char> JournalIndex::read_payload(std::int64_t chunk, JournalRecords kind) const {
  if (manifest_.records != kind)
    throw IoError(fmt::format("journal: chunk {}: the journal holds {} records", chunk,
                              manifest_.records == JournalRecords::kRows ? "row" : "statistics"));
  const auto it = entries_.find(chunk);
  if (it == entries_.end()) throw IoError(fmt::format("journal: chunk {} is missing", chunk));
  const Entry& e = it->second;
  // Read and check the whole record again: the file may have changed since the scan.
  std::ifstream in(e.file, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(e.offset));
  RecordHeader h{};
  in.read(reinterpret_cast<char*>(&h), sizeof h);
  std::vector<char> payload;
  const bool fits = in && h.magic == kRecordMagic && header_fits(h, manifest_) && h.chunk == chunk;
  if (fits) {
    payload.resize(h.payload_bytes);
    in.read(payload.data(), static_cast<std::streamsize>(payload.size()));
  }
  if (!fits || !in || !same_hash(h, manifest_.config_hash) ||
      record_checksum(h, payload.data(), payload.size()) != h.checksum)
    throw IoError(
        fmt::format("{}: the record of chunk {} at byte {} changed or is corrupt since the journal was "
                    "scanned",
                    e.file, chunk, e.offset));
  return payload;
}

void JournalIndex::read(std::int64_t chunk, ChunkResults& out) const {
  const std::vector<char> payload = read_payload(chunk, JournalRecords::kRows);
  const std::int64_t vpt = manifest_.values_per_task;
  out.chunk = chunk;
  out.first_task = chunk * manifest_.chunk_size;
  out.resize(manifest_.chunk_tasks(chunk), vpt);
  const auto n = static_cast<std::size_t>(out.count);
  std::memcpy(out.status.data(), payload.data(), n * 8);
  std::memcpy(out.counters.data(), payload.data() + n * 8, n * 8);
  std::memcpy(out.values.data(), payload.data() + n * 16, n * static_cast<std::size_t>(vpt) * 8);
}

void JournalIndex::read_statistics(std::int64_t chunk, ChunkStatistics& out) const {
  const std::vector<char> payload = read_payload(chunk, JournalRecords::kStatistics);
  RecordHeader h{};
  h.chunk = chunk;
  h.first_task = chunk * manifest_.chunk_size;
  h.count = manifest_.chunk_tasks(chunk);
  h.width = manifest_.statistic_columns;
  h.first_point = first_point_of(manifest_, chunk);
  h.points = points_of(manifest_, chunk);
  if (!decode_statistics(h, payload.data(), manifest_.replicas, out))
    throw IoError(fmt::format("journal: chunk {}: its statistics do not account for its tasks", chunk));
}

}  // namespace simpact
