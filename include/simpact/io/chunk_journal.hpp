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

// Version 2 (this one): every record carries the config hash and its task range; the manifest
// names the version. Journals of version 1 are refused (their records are not tied to a config).
constexpr int kJournalVersion = 2;

std::string journal_directory(const std::string& output_path);
// Creates the directory if needed and writes the manifest durably (temp file, fsync, rename,
// directory fsync). Throws IoError.
void create_journal(const std::string& directory, const JournalManifest& manifest);
enum class ManifestStatus { kMissing, kOk, kUnreadable, kOldVersion };
// kMissing: no manifest file; kUnreadable: present but empty/garbled (`why` says how);
// kOldVersion: written by an older simpact with another journal format.
ManifestStatus read_journal_manifest(const std::string& directory, JournalManifest& manifest,
                                     std::string* why = nullptr);
// Finished work in a journal directory: number of record files (*.bin) and their total bytes.
struct JournalContents {
  std::int64_t record_files = 0;
  std::uintmax_t record_bytes = 0;
};
JournalContents journal_contents(const std::string& directory);
// Removes everything in the directory but its lock file (held by the caller).
void clear_journal(const std::string& directory);
void remove_journal(const std::string& directory);

// One rank's append-only record file for one run.
class ChunkJournalWriter {
 public:
  // Records are stamped with `config_hash`. The file is created exclusively (never through a link).
  ChunkJournalWriter(const std::string& directory, int rank, const std::string& run_id,
                     const std::string& config_hash);
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
  std::string config_hash_;
  double sync_interval_s_ = 1.0;
  double last_sync_ = 0.0;
  bool unsynced_ = false;
};

// Every valid record in a journal directory, by chunk. A record counts only if its checksum, its
// config hash (the manifest's), its chunk, first task and task count (exactly the chunk's) all
// check; anything else is listed in problems() and its chunk is recomputed. A torn last record
// (a kill during the write) is ignored silently.
class JournalIndex final : public ChunkResultSource {
 public:
  static JournalIndex scan(const std::string& directory, const JournalManifest& manifest);
  const std::vector<std::string>& problems() const { return problems_; }
  // Tasks covered by the valid records (each chunk once).
  std::int64_t task_total() const;
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
  std::vector<std::string> problems_;
};

}  // namespace simpact
