// The shard files of a job array (`simpact run --shard i/N`) into one result file, without
// printing: the library call behind `simpact merge` and `simpact.merge`, the same for both.
// Every shard is checked to be a simpact shard before anything is read from it, the config is
// read from the first one (it travels inside every shard), and merge_shards writes the file
// (datasets bit-identical to a single run of the same config, /sensitivity included when the
// config asks for it at the end).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace simpact {

struct MergeOptions {
  std::vector<std::string> shards;  // all N of them, any order
  std::string output;
  bool overwrite = false;
  std::string command_line;  // recorded in the provenance (empty: "simpact merge SHARDS -o OUTPUT")
};

struct MergeResult {
  std::string output;
  std::int64_t shards = 0;
  std::int64_t tasks = 0;
  double hdf5_seconds = 0.0;
  // The config's sensitivity analysis: with `at_end` (the default) computed into the merged file
  // before it is published, one line per output as `simpact run` prints them; without it, one
  // line naming the command that computes it. Empty when the config asks for none.
  std::vector<std::string> analysis_lines;
};

// Collective over `comm`. Throws InputError naming the field ("shards": no shard given, not a
// shard file; "output": exists without overwrite), ConfigErrors (the config inside the first
// shard, each line prefixed "config in SHARD: ") and AgreedError (shards of another config or
// count, missing, duplicate or unfinished ones: merge_shards' refusals).
MergeResult merge_shard_files(MPI_Comm comm, const MergeOptions& options);

}  // namespace simpact
