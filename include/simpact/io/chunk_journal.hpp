// The crash-safe record of finished work (DESIGN §3, design (b)): while a sweep runs, each rank
// appends one checksummed record per finished chunk to its own file in <output>.journal/ and
// syncs it to disk before claiming more work. A SIGKILL at any moment loses at most the chunks
// in flight: a torn last record fails its checksum and is ignored. The HDF5 file is written from
// the journal at the end (collectively), so a kill during that step is repaired by --resume.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace simpact {

// What the journal was started for; --resume refuses a journal whose manifest differs.
struct JournalManifest {
  std::string config_hash;
  std::int64_t task_count = 0;
  std::int64_t chunk_size = 0;
  std::int64_t values_per_task = 0;
  std::string columns;  // comma-separated result column names

  std::int64_t chunk_count() const { return chunk_size > 0 ? (task_count + chunk_size - 1) / chunk_size : 0; }
  bool operator==(const JournalManifest& o) const {
    return config_hash == o.config_hash && task_count == o.task_count && chunk_size == o.chunk_size &&
           values_per_task == o.values_per_task && columns == o.columns;
  }
};

// The results of the tasks of one chunk, in task order.
struct ChunkResults {
  std::int64_t chunk = 0;
  std::int64_t first_task = 0;
  std::int64_t count = 0;
  std::vector<std::int64_t> status;     // count
  std::vector<std::uint64_t> counters;  // random draws consumed, count
  std::vector<double> values;           // count × values_per_task, row-major

  void resize(std::int64_t n, std::int64_t values_per_task);
};

// Where finished chunks can be read back from: the journal of a run, or the shard files of a
// sharded sweep being merged.
class ChunkResultSource {
 public:
  virtual ~ChunkResultSource() = default;
  virtual std::vector<std::uint8_t> done_bitmap() const = 0;
  // Reads chunk `chunk` (throws IoError if missing or corrupt).
  virtual void read(std::int64_t chunk, ChunkResults& out) const = 0;
};

std::string journal_directory(const std::string& output_path);
// Creates the directory and writes the manifest atomically (write temp + rename). Throws IoError.
void create_journal(const std::string& directory, const JournalManifest& manifest);
// False when there is no readable manifest.
bool read_journal_manifest(const std::string& directory, JournalManifest& manifest);
void remove_journal(const std::string& directory);

// One rank's append-only record file for one run.
class ChunkJournalWriter {
 public:
  ChunkJournalWriter(const std::string& directory, int rank, const std::string& run_id);
  ~ChunkJournalWriter();
  ChunkJournalWriter(const ChunkJournalWriter&) = delete;
  ChunkJournalWriter& operator=(const ChunkJournalWriter&) = delete;
  // Appends the record with one write(): when this returns, the chunk survives a SIGKILL of the
  // process (the kernel holds the data). To also survive a node crash it is fdatasync()ed, at
  // most once per `sync_interval_s` (syncing every chunk cost more than computing it) and at close.
  void append(const ChunkResults& chunk, std::int64_t values_per_task);
  void sync();

 private:
  int fd_ = -1;
  std::string path_;
  double sync_interval_s_ = 1.0;
  double last_sync_ = 0.0;
  bool unsynced_ = false;
};

// Every valid record in a journal directory, by chunk.
class JournalIndex final : public ChunkResultSource {
 public:
  static JournalIndex scan(const std::string& directory, const JournalManifest& manifest);
  bool done(std::int64_t chunk) const { return entries_.count(chunk) > 0; }
  std::int64_t done_count() const { return static_cast<std::int64_t>(entries_.size()); }
  std::vector<std::uint8_t> done_bitmap() const override;
  void read(std::int64_t chunk, ChunkResults& out) const override;

 private:
  struct Entry {
    std::string file;
    std::uint64_t offset = 0;
    std::int64_t first_task = 0, count = 0;
  };
  JournalManifest manifest_;
  std::map<std::int64_t, Entry> entries_;
};

}  // namespace simpact
