// simpact merge SHARD.h5... -o OUT.h5 [--overwrite]: the shards of a job array → one result file
// identical (datasets bit for bit) to a single run of the same config (study: merge_shard_files).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "mpi_session.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/io/sweep_config_yaml.hpp"
#include "simpact/study/merge_session.hpp"
#include "simpact/study/sweep_runner.hpp"

namespace simpact::app {

namespace {

struct MergeArgs {
  MergeOptions options;
  bool quiet = false;
};

int merge_reported(const MergeArgs& args, MpiSession& mpi) {
  const bool root = mpi.rank() == 0;
  // Where the work is when one rank's write fails inside a collective HDF5 call (the job ends).
  set_collective_io_failure_note("the shards are unchanged; run the merge again");
  try {
    const MergeResult r = merge_shard_files(MPI_COMM_WORLD, args.options);
    if (root && !args.quiet)
      std::printf("merged %lld shards (%lld tasks) into %s (HDF5 %.3f s)\n", static_cast<long long>(r.shards),
                  static_cast<long long>(r.tasks), r.output.c_str(), r.hdf5_seconds);
    if (root && !args.quiet)
      for (const auto& line : r.analysis_lines) std::printf("%s\n", line.c_str());
  } catch (const ConfigErrors& e) {
    if (root) std::fprintf(stderr, "simpact: error: %s\n", e.lines.at(0).c_str());
    return 2;
  } catch (const AgreedError& e) {
    if (root) std::fprintf(stderr, "simpact: error: %s\n", e.what());
    return e.input_error() ? 2 : 1;
  } catch (const InputError& e) {  // shard checks: every rank reads every shard, so all throw it
    if (root) std::fprintf(stderr, "simpact: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    if (mpi.size() > 1) {  // possibly this rank alone: end the job rather than leave a rank waiting
      std::fprintf(stderr, "simpact: error: rank %d: %s\n", mpi.rank(), e.what());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    std::fprintf(stderr, "simpact: error: %s\n", e.what());
    return 1;
  }
  return 0;
}

int merge(const MergeArgs& args) {
  MpiSession mpi;
  return mpi.finish(merge_reported(args, mpi));
}

}  // namespace

CommandRunner add_merge_command(CLI::App& app) {
  auto args = std::make_shared<MergeArgs>();
  auto* cmd =
      app.add_subcommand("merge", "merge the shard files of `simpact run --shard i/N` into one result file");
  cmd->add_option("shards", args->options.shards, "shard files (all N of them, any order)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", args->options.output, "merged HDF5 file")
      ->required()
      ->check(non_empty_path());
  cmd->add_flag("--overwrite", args->options.overwrite, "replace an existing output file");
  cmd->add_flag("-q,--quiet", args->quiet, "print nothing on success");
  return [args] { return merge(*args); };
}

}  // namespace simpact::app
