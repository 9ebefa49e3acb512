// Shard files of a sharded sweep (--shard i/N): each holds the raw per-task results of its
// chunks; ShardSource reads them back as finished chunks for the merge (study/ only; not installed).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "simpact/io/chunk_journal.hpp"
#include "simpact/io/sweep_file.hpp"
#include "simpact/io/sweep_file_reader.hpp"
#include "simpact/sweep/sweep_config.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

// A shard file: the axes/config/progress layout plus the raw per-task results (status, random counter,
// every result column) of the shard's own chunks as /samples, in chunk order (the /samples/task
// scale holds their task indices); `shard` = "i/N".
// Collective over `comm`. Returns the seconds spent writing.
double write_shard_file(MPI_Comm comm, const std::string& path, const SweepConfig& config,
                        const TaskKernel& kernel, const JournalManifest& manifest,
                        const ChunkResultSource& source, const std::vector<ProvenanceRow>& provenance,
                        std::int64_t shard_index, std::int64_t shard_count);

namespace detail {

// The rows of /samples in shard i of N: the tasks of chunks i, i + N, ...
std::int64_t shard_sample_rows(const JournalManifest& manifest, std::int64_t shard_index,
                               std::int64_t shard_count);

// The finished chunks of a sharded sweep, read back from its shard files.
class ShardSource final : public ChunkResultSource {
 public:
  ShardSource(std::vector<SweepFileReader> shards, const JournalManifest& manifest, const TaskKernel& kernel);
  std::vector<std::uint8_t> done_bitmap() const override;
  void read(std::int64_t chunk, ChunkResults& out) const override;

 private:
  std::vector<SweepFileReader> shards_;
  JournalManifest manifest_;
  std::vector<std::string> columns_;
  std::vector<std::int64_t> lengths_;
  std::vector<bool> own_rows_;  // per shard: /samples holds its own chunks only (else a row per task)
};

}  // namespace detail
}  // namespace simpact
