// Journal version 3 statistics records: per chunk, per grid point it touches, the tasks per status
// and partial statistics per column. Round trip bit for bit; a torn tail is ignored silently; a
// bad checksum, a foreign config, a record of another kind or one that does not account for its
// tasks exactly once is refused loudly; a chunk found in two rank files counts once; journals of
// versions 1 and 2 are recognised as old.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "../support/temp_dir.hpp"
#include "simpact/io/chunk_journal.hpp"
#include "simpact/io/io_error.hpp"

namespace fs = std::filesystem;
using namespace simpact;
using simpact::testing::TempDir;

namespace {

// 10 tasks in chunks of 4 (4, 4, 2), 3 replicas per grid point (points 0..3, the last one short):
// chunk 0 touches points 0-1, chunk 1 points 1-2, chunk 2 points 2-3.
JournalManifest manifest(const std::string& hash = std::string(64, 'a')) {
  JournalManifest m;
  m.config_hash = hash;
  m.task_count = 10;
  m.chunk_size = 4;
  m.values_per_task = 3;
  m.columns = "energy/x,energy/y,energy/z";
  m.records = JournalRecords::kStatistics;
  m.replicas = 3;
  m.statistic_columns = 2;
  return m;
}

// Task t: status t % kTaskStatusCount, column 0 = 1.5 t, column 1 = −t except NaN at task 5.
ChunkStatistics statistics_of(const JournalManifest& m, std::int64_t chunk) {
  ChunkStatistics s;
  s.chunk = chunk;
  s.first_task = chunk * m.chunk_size;
  s.count = m.chunk_tasks(chunk);
  const std::int64_t first = s.first_task / m.replicas;
  s.reset(first, (s.first_task + s.count - 1) / m.replicas - first + 1, m.statistic_columns);
  for (std::int64_t t = s.first_task; t < s.first_task + s.count; ++t) {
    ++s.status_of(t / m.replicas)[t % kTaskStatusCount];
    s.values_of(t / m.replicas)[0].add(1.5 * static_cast<double>(t));
    s.values_of(t / m.replicas)[1].add(t == 5 ? std::numeric_limits<double>::quiet_NaN()
                                              : -static_cast<double>(t));
  }
  return s;
}

bool same_state(const RunningStatistics& a, const RunningStatistics& b) {
  const auto x = a.state(), y = b.state();
  return std::memcmp(&x, &y, sizeof x) == 0;
}

void write_all(const JournalManifest& m, const std::string& j, int rank,
               std::initializer_list<std::int64_t> chunks, const std::string& hash = "") {
  ChunkJournalWriter w(j, rank, "1", hash.empty() ? m.config_hash : hash);
  for (std::int64_t c : chunks) w.append(statistics_of(m, c));
}

void flip_byte(const std::string& file, std::streamoff at) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(at);
  const char c = static_cast<char>(f.get());
  f.seekp(at);
  f.put(static_cast<char>(c ^ 0x5a));
}

}  // namespace

TEST(ChunkStatisticsJournal, RoundTripIsBitExact) {
  TempDir dir;
  const std::string j = dir / "out.h5.journal";
  const JournalManifest m = manifest();
  create_journal(j, m);
  JournalManifest back_manifest;
  ASSERT_EQ(read_journal_manifest(j, back_manifest), ManifestStatus::kOk);
  EXPECT_TRUE(back_manifest == m);
  EXPECT_EQ(back_manifest.records, JournalRecords::kStatistics);
  write_all(m, j, 0, {0, 1, 2});
  const JournalIndex index = JournalIndex::scan(j, m);
  EXPECT_TRUE(index.problems().empty());
  EXPECT_EQ(index.done_count(), 3);
  EXPECT_EQ(index.task_total(), 10);
  for (std::int64_t c = 0; c < 3; ++c) {
    const ChunkStatistics want = statistics_of(m, c);
    ChunkStatistics got;
    index.read_statistics(c, got);
    EXPECT_EQ(got.first_point, want.first_point);
    EXPECT_EQ(got.points, want.points);
    EXPECT_EQ(got.status, want.status);
    for (std::size_t k = 0; k < want.values.size(); ++k)
      EXPECT_TRUE(same_state(got.values[k], want.values[k]));
  }
  // Chunk 1 (tasks 4..7): point 1 holds tasks 4, 5 (column 1: −4 and a NaN), point 2 tasks 6, 7.
  ChunkStatistics c1;
  index.read_statistics(1, c1);
  EXPECT_EQ(c1.first_point, 1);
  EXPECT_EQ(c1.values_of(1)[0].count(), 2);
  EXPECT_EQ(c1.values_of(1)[0].mean(), 6.75);  // (6 + 7.5) / 2
  EXPECT_EQ(c1.values_of(1)[1].count(), 1);
  EXPECT_EQ(c1.values_of(1)[1].mean(), -4.0);
  EXPECT_EQ(c1.status_of(2)[6 % kTaskStatusCount] + c1.status_of(2)[7 % kTaskStatusCount], 2);  // tasks 6, 7
  // The size is the header plus, per point touched, 5 status counts and 5 numbers per column.
  EXPECT_EQ(journal_contents(j).record_bytes,
            static_cast<std::uintmax_t>(3 * kJournalRecordHeaderBytes + 6 * journal_point_bytes(2)));
  // A statistics journal has no rows to give.
  ChunkResults rows;
  EXPECT_THROW(index.read(0, rows), IoError);
}

TEST(ChunkStatisticsJournal, TornTailIsIgnoredBadChecksumIsNot) {
  TempDir dir;
  const std::string j = dir / "out.h5.journal";
  const JournalManifest m = manifest();
  create_journal(j, m);
  write_all(m, j, 0, {0, 1});
  const std::string file = j + "/rank-0-1.bin";
  fs::resize_file(file, fs::file_size(file) - 3);  // a kill during the second write
  JournalIndex index = JournalIndex::scan(j, m);
  EXPECT_TRUE(index.done(0));
  EXPECT_FALSE(index.done(1));
  EXPECT_TRUE(index.problems().empty());
  flip_byte(file, kJournalRecordHeaderBytes + 50);  // inside the first record's payload
  index = JournalIndex::scan(j, m);
  EXPECT_EQ(index.done_count(), 0);
  ASSERT_EQ(index.problems().size(), 1u);
  EXPECT_NE(index.problems()[0].find("checksum"), std::string::npos) << index.problems()[0];
}

TEST(ChunkStatisticsJournal, ForeignConfigOtherKindAndMiscountsAreRefused) {
  TempDir dir;
  const std::string j = dir / "out.h5.journal";
  const JournalManifest m = manifest();
  create_journal(j, m);
  write_all(m, j, 0, {0});
  write_all(m, j, 1, {1}, std::string(64, 'b'));  // another config, same shape
  {
    ChunkJournalWriter rows(j, 2, "1", m.config_hash);  // a row record in a statistics journal
    ChunkResults r;
    r.chunk = 1;
    r.first_task = 4;
    r.resize(4, m.values_per_task);
    rows.append(r, m.values_per_task);
  }
  {
    ChunkStatistics twice = statistics_of(m, 2);  // checksum fine, but a task counted twice
    ++twice.status_of(3)[0];
    ChunkJournalWriter crafted(j, 3, "1", m.config_hash);
    crafted.append(twice);
  }
  const JournalIndex index = JournalIndex::scan(j, m);
  EXPECT_TRUE(index.done(0));
  EXPECT_FALSE(index.done(1));
  EXPECT_FALSE(index.done(2));
  EXPECT_EQ(index.task_total(), 4);
  ASSERT_EQ(index.problems().size(), 3u);
  EXPECT_NE(index.problems()[0].find("another config"), std::string::npos) << index.problems()[0];
  EXPECT_NE(index.problems()[1].find("does not fit"), std::string::npos) << index.problems()[1];
  EXPECT_NE(index.problems()[2].find("exactly once"), std::string::npos) << index.problems()[2];
  // The same records under a rows manifest of this config: the statistics ones do not fit.
  JournalManifest rows = m;
  rows.records = JournalRecords::kRows;
  const JournalIndex as_rows = JournalIndex::scan(j, rows);
  EXPECT_EQ(as_rows.done_count(), 1);  // only the row record of chunk 1
  EXPECT_TRUE(as_rows.done(1));
}

TEST(ChunkStatisticsJournal, OneChunkInTwoRankFilesCountsOnce) {
  TempDir dir;
  const std::string j = dir / "out.h5.journal";
  const JournalManifest m = manifest();
  create_journal(j, m);
  write_all(m, j, 0, {0, 1});
  write_all(m, j, 1, {1, 2});  // chunk 1 again (e.g. recomputed after a lost rank)
  const JournalIndex index = JournalIndex::scan(j, m);
  EXPECT_TRUE(index.problems().empty());
  EXPECT_EQ(index.done_count(), 3);
  EXPECT_EQ(index.task_total(), 10);  // every task exactly once
  ChunkStatistics got;
  index.read_statistics(1, got);
  EXPECT_EQ(got.status, statistics_of(m, 1).status);
}

TEST(ChunkStatisticsJournal, ReadChecksTheRecordAgain) {
  TempDir dir;
  const std::string j = dir / "out.h5.journal";
  const JournalManifest m = manifest();
  create_journal(j, m);
  write_all(m, j, 0, {0});
  const JournalIndex index = JournalIndex::scan(j, m);
  flip_byte(j + "/rank-0-1.bin", kJournalRecordHeaderBytes + 8);
  ChunkStatistics got;
  EXPECT_THROW(index.read_statistics(0, got), IoError);
}

TEST(ChunkStatisticsJournal, OlderVersionsAreRecognised) {
  TempDir dir;
  const std::string j = dir / "out.h5.journal";
  create_journal(j, manifest());
  // A version 2 manifest (rows only, no record kind): old, refused on --resume with its version.
  std::ofstream(j + "/manifest") << "journal_version 2\nconfig_hash abc\ntask_count 10\nchunk_size 4\n"
                                    "values_per_task 3\ncolumns a\n";
  JournalManifest back;
  std::string why;
  EXPECT_EQ(read_journal_manifest(j, back, &why), ManifestStatus::kOldVersion);
  EXPECT_NE(why.find("version 2"), std::string::npos) << why;
  // A version 3 manifest that lacks its record kind is garbled, not old.
  std::ofstream(j + "/manifest") << "journal_version 3\nconfig_hash abc\ntask_count 10\nchunk_size 4\n"
                                    "values_per_task 3\ncolumns a\n";
  EXPECT_EQ(read_journal_manifest(j, back, &why), ManifestStatus::kUnreadable);
  // A version 2 record ("SIMPJRN2") in a version 3 journal is named as such.
  const JournalManifest m = manifest();
  create_journal(j, m);
  std::string old(200, '\0');
  const std::uint64_t magic_v2 = 0x324e524a504d4953ULL;
  std::memcpy(old.data(), &magic_v2, sizeof magic_v2);
  std::ofstream(j + "/rank-0-0.bin", std::ios::binary) << old;
  const JournalIndex index = JournalIndex::scan(j, m);
  ASSERT_EQ(index.problems().size(), 1u);
  EXPECT_NE(index.problems()[0].find("journal version 2"), std::string::npos) << index.problems()[0];
}
