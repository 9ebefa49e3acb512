// The crash-safe record of finished work (DESIGN §3, design (b)): while a sweep runs, each rank
// appends one checksummed record per finished chunk to its own file in <output>.journal/ and
// syncs it to disk before claiming more work. A record holds either the chunk's per-task rows
// (when per-task output is wanted) or, by default, its per-grid-point partial statistics, so
// that the journal grows with grid points × chunks rather than with tasks. A SIGKILL at any moment loses at
// most the chunks in flight: a torn last record fails its checksum and is ignored. The HDF5 file is written
// from the journal at the end (collectively, or by rank 0 alone for a small sweep) into a staging file
// renamed over the output, so a kill during that step is repaired by --resume. The chunk types it
// stores and the source interfaces it implements are the sweep engine's (sweep/chunk_results.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "simpact/sweep/chunk_results.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

// What a journal record of a chunk holds.
enum class JournalRecords : std::int64_t {
  kRows = 0,        // every task's status, random counter and values
  kStatistics = 1,  // per grid point: tasks per status and partial statistics per scalar column
};

// What the journal was started for; --resume refuses a journal whose manifest differs.
struct JournalManifest {
  std::string config_hash;
  std::int64_t task_count = 0;
  std::int64_t chunk_size = 0;
  std::int64_t values_per_task = 0;
  std::string columns;  // comma-separated result column names
  JournalRecords records = JournalRecords::kRows;
  std::int64_t replicas = 1;           // tasks per grid point (consecutive tasks)
  std::int64_t statistic_columns = 0;  // kStatistics: scalar columns reduced per grid point
  // The simpact build that started the journal ("0.1.0 git 9327a8cc5262 flags GNU 12.2.0 ..."):
  // a resume refuses another build (record layout, arithmetic). Empty: not recorded (older
  // simpact); docs/design.md "Journal records and their config binding".
  std::string build;
  // The part of the sweep the journal is for: shard i/N (--shard), or 0/1 = the whole sweep.
  std::int64_t shard_index = 0;
  std::int64_t shard_count = 1;
  // The files the sweep reads, one "<sha256> <role> <path>" line each (study/input_binding.hpp):
  // config_hash covers their digests; these name the file a refused --resume blames. Empty in
  // journals of simpact before issue 39.
  std::string inputs;

  std::int64_t chunk_count() const { return chunk_size > 0 ? (task_count + chunk_size - 1) / chunk_size : 0; }
  // Tasks of chunk `chunk` (the last one may be short).
  std::int64_t chunk_tasks(std::int64_t chunk) const;
  bool operator==(const JournalManifest& o) const {
    return config_hash == o.config_hash && task_count == o.task_count && chunk_size == o.chunk_size &&
           values_per_task == o.values_per_task && columns == o.columns && records == o.records &&
           replicas == o.replicas && statistic_columns == o.statistic_columns && build == o.build &&
           shard_index == o.shard_index && shard_count == o.shard_count;
  }
};

// Version 3 (this one): a record holds rows or partial statistics (the manifest says which);
// every record carries the config hash and its task range. Journals of versions 1 and 2 are
// refused on --resume with a message naming the version (finish them with that simpact, or
// --overwrite): their records hold rows that a version 3 run of the same config would not write.
constexpr int kJournalVersion = 3;
// The most chunks a journal indexes: every rank holds a byte per chunk (the done bitmap, also
// /progress/done); 2^32 chunks is 4 GiB each. Beyond it, raise output.chunk_size.
constexpr std::int64_t kMaxJournalChunks = std::int64_t{1} << 32;
// Record sizes (the one source for size estimates and checks): a header, then either rows of
// 16 + 8·values_per_task bytes per task, or per grid point the chunk touches its tasks per status
// (8 bytes each) and per reduced column count, mean, M2, min, max (40 bytes).
constexpr std::int64_t kJournalRecordHeaderBytes = 144;
constexpr std::int64_t journal_point_bytes(std::int64_t statistic_columns) {
  return 8 * kTaskStatusCount + 40 * statistic_columns;
}

std::string journal_directory(const std::string& output_path);
// "i/N" of a manifest's shard; in words for messages ("shard 0/2", "the whole sweep (no --shard)").
std::string shard_text(const JournalManifest& m);
std::string shard_description(const JournalManifest& m);
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
// Removes the files simpact writes there (by name: manifest, records, provenance, staging
// files), never anything else, and keeps the lock file (held by the caller).
void clear_journal(const std::string& directory);
// The names simpact writes in a journal directory (journal_ownership.cpp): rank-*.bin records,
// and lock, manifest, manifest.tmp, provenance.tsv, staging-*.h5.
bool is_journal_record_name(const std::string& name);
bool is_journal_file_name(const std::string& name);
// "" when `directory` is absent or a simpact journal, recognized by what simpact wrote into it,
// never by file names: a manifest that parses, a record file starting with the record magic, or
// only what a run or merge of ours leaves before its manifest (its lock, a manifest.tmp, staging
// files, empty records, each checked by content). Otherwise the one-line refusal naming what it
// holds.
std::string check_journal_ownership(const std::string& directory);

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
  void append(const ChunkStatistics& chunk);
  void sync();

 private:
  void write_record(std::vector<char>& record);

  int fd_ = -1;
  std::string path_;
  std::string config_hash_;
  double sync_interval_s_ = 1.0;
  double last_sync_ = 0.0;
  bool unsynced_ = false;
};

// Every valid record in a journal directory, by chunk. A record counts only if its checksum, its
// config hash (the manifest's), its kind, chunk, first task and task count (exactly the chunk's)
// and, for statistics, its grid points and per-point task counts (exactly the chunk's tasks) all
// check; anything else is listed in problems() and its chunk is recomputed. A torn last record
// (a kill during the write) is ignored silently.
class JournalIndex final : public ChunkResultSource, public ChunkStatisticsSource {
 public:
  static JournalIndex scan(const std::string& directory, const JournalManifest& manifest);
  // The index as bytes and back (its entries; not the problems, which the scanning process
  // reports): one process scans and validates every record, the others read the records they
  // need through its index instead of reading the whole journal again each.
  std::string encode() const;
  static JournalIndex decode(const JournalManifest& manifest, const std::string& bytes);
  const std::vector<std::string>& problems() const { return problems_; }
  // Tasks covered by the valid records (each chunk once).
  std::int64_t task_total() const;
  bool done(std::int64_t chunk) const { return entries_.count(chunk) > 0; }
  std::int64_t done_count() const { return static_cast<std::int64_t>(entries_.size()); }
  std::vector<std::uint8_t> done_bitmap() const override;
  void read(std::int64_t chunk, ChunkResults& out) const override;                // kRows journals
  void read_statistics(std::int64_t chunk, ChunkStatistics& out) const override;  // kStatistics

 private:
  std::vector<char> read_payload(std::int64_t chunk, JournalRecords kind) const;

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
