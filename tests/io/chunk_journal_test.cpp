// The crash-safe journal (version 3, row records) and the file-safety helpers (issue 10): records are tied to
// their config and task range, a manifest is durable and checked, inputs are capped and must be
// regular files, the output lock names its holder.
#include "simpact/io/chunk_journal.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

#include "../support/temp_dir.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/safe_file.hpp"

namespace fs = std::filesystem;
using namespace simpact;
using simpact::testing::TempDir;

namespace {

JournalManifest manifest(const std::string& hash = std::string(64, 'a')) {
  JournalManifest m;
  m.config_hash = hash;
  m.task_count = 10;
  m.chunk_size = 4;  // chunks of 4, 4, 2 tasks
  m.values_per_task = 2;
  m.columns = "energy/x,energy/y";
  return m;
}

ChunkResults chunk_of(const JournalManifest& m, std::int64_t chunk, std::int64_t count = -1) {
  ChunkResults c;
  c.chunk = chunk;
  c.first_task = chunk * m.chunk_size;
  c.resize(count >= 0 ? count : std::min(m.chunk_size, m.task_count - c.first_task), m.values_per_task);
  for (std::size_t i = 0; i < c.values.size(); ++i) c.values[i] = 100.0 * static_cast<double>(chunk) + i;
  return c;
}

// Rank `rank`'s records of `chunks` (in that order), journaled by a writer of run "1" and closed.
void journal_chunks(const std::string& journal, const JournalManifest& m, int rank,
                    std::initializer_list<std::int64_t> chunks) {
  ChunkJournalWriter w(journal, rank, "1", m.config_hash);
  for (const std::int64_t chunk : chunks) w.append(chunk_of(m, chunk), m.values_per_task);
}

std::string write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

// The build that started a journal survives the manifest (flags hold spaces), and a manifest of
// an older simpact without the line reads as "not recorded", which --resume refuses.
TEST(ChunkJournal, ManifestRecordsTheBuild) {
  TempDir dir;
  const std::string j = dir / "out.h5.journal";
  JournalManifest m = manifest();
  m.build = "0.1.0 git 0123456789ab flags GNU 12.2.0 Release -O3 -DNDEBUG native=OFF";
  create_journal(j, m);
  JournalManifest back;
  ASSERT_EQ(read_journal_manifest(j, back), ManifestStatus::kOk);
  EXPECT_EQ(back.build, m.build);
  EXPECT_TRUE(back == m);
  JournalManifest other = m;
  other.build = "0.1.0 git fedcba987654 flags GNU 12.2.0 Release -O3 -DNDEBUG native=OFF";
  EXPECT_FALSE(back == other);
  write_file(j + "/manifest",
             "journal_version 3\nconfig_hash abc\ntask_count 10\nchunk_size 4\nvalues_per_task 2\ncolumns a\n"
             "records rows\nreplicas 1\nstatistic_columns 0\n");
  ASSERT_EQ(read_journal_manifest(j, back), ManifestStatus::kOk);
  EXPECT_EQ(back.build, "");
}

TEST(ChunkJournal, ManifestRoundTripAndRefusals) {
  TempDir dir;
  const std::string j = dir / "out.h5.journal";
  create_journal(j, manifest());
  JournalManifest back;
  EXPECT_EQ(read_journal_manifest(j, back), ManifestStatus::kOk);
  EXPECT_TRUE(back == manifest());
  EXPECT_FALSE(fs::exists(j + "/manifest.tmp"));

  std::string why;
  write_file(j + "/manifest", "");
  EXPECT_EQ(read_journal_manifest(j, back, &why), ManifestStatus::kUnreadable);
  EXPECT_NE(why.find("empty"), std::string::npos) << why;
  write_file(j + "/manifest", "config_hash abc\ntask_count 1");
  EXPECT_EQ(read_journal_manifest(j, back, &why), ManifestStatus::kUnreadable);
  // A version-1 manifest (no journal_version line) is recognized and refused.
  write_file(j + "/manifest", "config_hash abc\ntask_count 10\nchunk_size 4\nvalues_per_task 2\ncolumns a\n");
  EXPECT_EQ(read_journal_manifest(j, back, &why), ManifestStatus::kOldVersion);
  EXPECT_NE(why.find("version 1"), std::string::npos) << why;
  fs::remove(j + "/manifest");
  EXPECT_EQ(read_journal_manifest(j, back), ManifestStatus::kMissing);
}

TEST(ChunkJournal, RecordsAreTiedToTheirConfigAndTaskRange) {
  TempDir dir;
  const std::string j = dir / "out.h5.journal";
  const JournalManifest m = manifest();
  create_journal(j, m);
  {
    ChunkJournalWriter w(j, 0, "1", m.config_hash);
    w.append(chunk_of(m, 0), m.values_per_task);
    w.append(chunk_of(m, 2), m.values_per_task);  // the short last chunk: 2 tasks
  }
  {
    ChunkJournalWriter other(j, 1, "1", std::string(64, 'b'));  // another config, same shape
    other.append(chunk_of(m, 1), m.values_per_task);
  }
  {
    ChunkJournalWriter crafted(j, 2, "1", m.config_hash);
    crafted.append(chunk_of(m, 1, 1), m.values_per_task);  // a 1-task record for a 4-task chunk
  }
  const JournalIndex index = JournalIndex::scan(j, m);
  EXPECT_TRUE(index.done(0));
  EXPECT_FALSE(index.done(1));  // neither the foreign nor the short record counts
  EXPECT_TRUE(index.done(2));
  EXPECT_EQ(index.task_total(), 6);
  ASSERT_EQ(index.problems().size(), 2u);
  EXPECT_NE(index.problems()[0].find("another config"), std::string::npos) << index.problems()[0];
  EXPECT_NE(index.problems()[1].find("does not fit"), std::string::npos) << index.problems()[1];
  ChunkResults back;
  index.read(2, back);
  EXPECT_EQ(back.first_task, 8);
  EXPECT_EQ(back.count, 2);
  EXPECT_EQ(back.values[3], 203.0);
  // A scan with another config's manifest accepts none of these records.
  EXPECT_EQ(JournalIndex::scan(j, manifest(std::string(64, 'c'))).done_count(), 0);
}

TEST(ChunkJournal, CorruptionIsReportedButATornTailIsNot) {
  TempDir dir;
  const std::string j = dir / "out.h5.journal";
  const JournalManifest m = manifest();
  create_journal(j, m);
  journal_chunks(j, m, 0, {0, 1});
  const std::string file = j + "/rank-0-1.bin";
  const auto size = fs::file_size(file);
  fs::resize_file(file, size - 5);  // torn last record: a kill during its write
  JournalIndex index = JournalIndex::scan(j, m);
  EXPECT_TRUE(index.done(0));
  EXPECT_FALSE(index.done(1));
  EXPECT_TRUE(index.problems().empty());

  // A flipped byte in the first record's payload: that record and the rest are refused, loudly.
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(130);
    f.put('\x7f');
  }
  index = JournalIndex::scan(j, m);
  EXPECT_EQ(index.done_count(), 0);
  ASSERT_EQ(index.problems().size(), 1u);
  EXPECT_NE(index.problems()[0].find("checksum"), std::string::npos) << index.problems()[0];
}

TEST(ChunkJournal, ReadChecksTheRecordAgain) {
  TempDir dir;
  const std::string j = dir / "out.h5.journal";
  const JournalManifest m = manifest();
  create_journal(j, m);
  journal_chunks(j, m, 0, {0});
  const JournalIndex index = JournalIndex::scan(j, m);
  {
    std::fstream f(j + "/rank-0-1.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(200);
    f.put('\x01');
  }
  ChunkResults back;
  EXPECT_THROW(index.read(0, back), IoError);
}

// One rank scans, the others read through its index: the decoded index finds the same records
// (two files, chunks out of order), and bytes cut short are refused rather than half-read.
TEST(ChunkJournal, AnIndexTravelsAsBytes) {
  TempDir dir;
  const std::string j = dir / "out.h5.journal";
  const JournalManifest m = manifest();
  create_journal(j, m);
  journal_chunks(j, m, 0, {2, 0});
  journal_chunks(j, m, 1, {1});
  const JournalIndex scanned = JournalIndex::scan(j, m);
  const std::string bytes = scanned.encode();
  const JournalIndex decoded = JournalIndex::decode(m, bytes);
  EXPECT_EQ(decoded.done_bitmap(), scanned.done_bitmap());
  EXPECT_EQ(decoded.task_total(), 10);
  for (std::int64_t chunk = 0; chunk < 3; ++chunk) {
    ChunkResults a, b;
    scanned.read(chunk, a);
    decoded.read(chunk, b);
    EXPECT_EQ(b.first_task, a.first_task);
    EXPECT_EQ(b.count, a.count);
    EXPECT_EQ(b.values, a.values);
    EXPECT_EQ(b.values[0], 100.0 * static_cast<double>(chunk));
  }
  EXPECT_THROW(JournalIndex::decode(m, bytes.substr(0, bytes.size() - 1)), IoError);
  EXPECT_THROW(JournalIndex::decode(m, bytes.substr(0, 12)), IoError);
}

TEST(ChunkJournal, WriterNeverFollowsALink) {
  TempDir dir;
  const std::string j = dir / "out.h5.journal";
  const JournalManifest m = manifest();
  create_journal(j, m);
  const std::string victim = write_file(dir / "victim.txt", "precious");
  fs::create_symlink(victim, j + "/rank-0-7.bin");
  EXPECT_THROW(ChunkJournalWriter(j, 0, "7", m.config_hash), IoError);
  std::ifstream in(victim);
  std::string text;
  in >> text;
  EXPECT_EQ(text, "precious");
}

TEST(SafeFile, InputsMustBeRegularFilesUnderTheCap) {
  TempDir dir;
  const std::string fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  try {
    read_capped_input(fifo, 1024, "config", false);
    FAIL() << "a FIFO was read";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("FIFO"), std::string::npos) << e.what();
  }
  const std::string zero = dir / "zero";
  if (::mknod(zero.c_str(), S_IFCHR | 0644, makedev(1, 5)) == 0) {  // a /dev/zero of our own
    try {
      read_capped_input(zero, 1024, "config", false);
      FAIL() << "a character device was read";
    } catch (const IoError& e) {
      EXPECT_NE(std::string(e.what()).find("character device"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(read_capped_input(dir.path.string(), 1024, "config", false), IoError);
  const std::string big = write_file(dir / "big.yaml", std::string(2048, '#'));
  EXPECT_THROW(read_capped_input(big, 1024, "config", false), IoError);
  EXPECT_EQ(read_capped_input(big, 4096, "config", false).size(), 2048u);
}

TEST(SafeFile, ResultOutputsMustBeRegularOrAbsent) {
  TempDir dir;
  EXPECT_EQ(check_result_output(dir / "absent.h5"), "");
  EXPECT_EQ(check_result_output(write_file(dir / "file.h5", "x")), "");
  fs::create_symlink(dir / "file.h5", dir / "link.h5");
  EXPECT_NE(check_result_output(dir / "link.h5").find("symbolic link"), std::string::npos);
  EXPECT_NE(check_result_output(dir.path.string()).find("directory"), std::string::npos);
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  EXPECT_NE(check_result_output(dir / "fifo").find("FIFO"), std::string::npos);
}

TEST(SafeFile, OutputLockIsExclusiveAndNamesItsHolder) {
  TempDir dir;
  const std::string j = dir / "out.h5.journal";
  {
    OutputLock first(j);
    EXPECT_TRUE(first.held());
    EXPECT_TRUE(first.created_directory());
    // flock locks are per open file description: a second open in this process conflicts too.
    try {
      OutputLock second(j);
      FAIL() << "the lock was taken twice";
    } catch (const IoError& e) {
      EXPECT_NE(std::string(e.what()).find("pid " + std::to_string(::getpid())), std::string::npos)
          << e.what();
    }
  }
  EXPECT_FALSE(fs::exists(j));  // created by the lock, empty again: removed
  fs::create_directories(j);
  write_file(j + "/rank-0-1.bin", "work");
  { OutputLock again(j); }
  EXPECT_TRUE(fs::exists(j + "/rank-0-1.bin"));  // never removes work
}
