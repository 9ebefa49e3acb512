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

namespace simpact {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kRecordMagic = 0x314e524a504d4953ULL;  // "SIMPJRN1"

struct RecordHeader {
  std::uint64_t magic;
  std::int64_t chunk;
  std::int64_t first_task;
  std::int64_t count;
  std::int64_t values_per_task;
  std::uint64_t payload_bytes;
  std::uint64_t checksum;  // FNV-1a over the header fields above and the payload
};

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
  return fmt::format("config_hash {}\ntask_count {}\nchunk_size {}\nvalues_per_task {}\ncolumns {}\n",
                     m.config_hash, m.task_count, m.chunk_size, m.values_per_task, m.columns);
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
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << manifest_text(manifest);
    out.flush();
    if (!out) throw IoError(fmt::format("{}: cannot write journal manifest", tmp));
  }
  fs::rename(tmp, directory + "/manifest", ec);
  if (ec) throw IoError(fmt::format("{}: cannot write journal manifest: {}", directory, ec.message()));
}

bool read_journal_manifest(const std::string& directory, JournalManifest& m) {
  std::ifstream in(directory + "/manifest");
  if (!in) return false;
  std::string key;
  int seen = 0;
  while (in >> key) {
    if (key == "config_hash")
      in >> m.config_hash, ++seen;
    else if (key == "task_count")
      in >> m.task_count, ++seen;
    else if (key == "chunk_size")
      in >> m.chunk_size, ++seen;
    else if (key == "values_per_task")
      in >> m.values_per_task, ++seen;
    else if (key == "columns")
      in >> m.columns, ++seen;
  }
  return seen == 5;
}

void remove_journal(const std::string& directory) {
  std::error_code ec;
  fs::remove_all(directory, ec);
}

ChunkJournalWriter::ChunkJournalWriter(const std::string& directory, int rank, const std::string& run_id)
    : path_(fmt::format("{}/rank-{}-{}.bin", directory, rank, run_id)) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
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
  RecordHeader h{
      kRecordMagic, chunk.chunk, chunk.first_task, chunk.count, values_per_task, payload.size(), 0};
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
    std::ifstream in(file, std::ios::binary);
    std::uint64_t offset = 0;
    RecordHeader h{};
    while (in.read(reinterpret_cast<char*>(&h), sizeof h)) {
      const bool sane = h.magic == kRecordMagic && h.values_per_task == manifest.values_per_task &&
                        h.count > 0 && h.count <= manifest.chunk_size && h.chunk >= 0 &&
                        h.chunk < manifest.chunk_count() && h.first_task == h.chunk * manifest.chunk_size &&
                        h.payload_bytes == static_cast<std::uint64_t>(h.count) * (16 + 8 * h.values_per_task);
      if (!sane) break;  // torn or foreign: nothing after it in this file is trusted
      std::vector<char> payload(h.payload_bytes);
      if (!in.read(payload.data(), static_cast<std::streamsize>(payload.size()))) break;
      if (record_checksum(h, payload) != h.checksum) break;
      index.entries_.emplace(h.chunk, Entry{file, offset, h.first_task, h.count});
      offset += sizeof h + h.payload_bytes;
    }
  }
  return index;
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
  std::ifstream in(e.file, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(e.offset + sizeof(RecordHeader)));
  const std::int64_t vpt = manifest_.values_per_task;
  out.chunk = chunk;
  out.first_task = e.first_task;
  out.resize(e.count, vpt);
  const auto n = static_cast<std::streamsize>(e.count);
  in.read(reinterpret_cast<char*>(out.status.data()), n * 8);
  in.read(reinterpret_cast<char*>(out.counters.data()), n * 8);
  in.read(reinterpret_cast<char*>(out.values.data()), n * vpt * 8);
  if (!in) throw IoError(fmt::format("{}: cannot read chunk {}", e.file, chunk));
}

}  // namespace simpact
