// simpact merge SHARD.h5... -o OUT.h5 [--overwrite]: the shards of a job array → one result file
// identical (datasets bit for bit) to a single run of the same config.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "mpi_session.hpp"
#include "simpact/analysis/impact_task_kernel.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/io/sweep_config_yaml.hpp"
#include "simpact/io/sweep_file_reader.hpp"
#include "simpact/models/model_catalog.hpp"
#include "simpact/study/sweep_runner.hpp"
#include "simpact/study/sweep_setup.hpp"

namespace simpact::app {

namespace {

struct MergeArgs {
  std::vector<std::string> shards;
  std::string output;
  bool overwrite = false;
  bool quiet = false;
};

// Every shard must be a simpact shard before anything is read from it: a text file or another
// program's HDF5 file is a bad argument (exit 2), not an I/O failure. Every rank checks every
// shard, so all of them throw alike.
void check_shard_files(const std::vector<std::string>& paths) {
  for (const auto& path : paths) {
    std::unique_ptr<SweepFileReader> reader;
    try {
      reader = std::make_unique<SweepFileReader>(path);
    } catch (const std::exception&) {
      throw InputError("shards", fmt::format("{}: not a shard file (not even an HDF5 file)", path));
    }
    if (!reader->has_attribute("shard") || !reader->has_attribute("config_hash") || !reader->has("config"))
      throw InputError("shards", fmt::format("{}: not a shard file (no 'shard' or 'config_hash' attribute or "
                                             "/config: another program's HDF5 file, or a whole run)",
                                             path));
  }
}

int merge(const MergeArgs& args) {
  MpiSession mpi;
  const bool root = mpi.rank() == 0;
  try {
    std::string error;
    if (root) {
      std::error_code ec;
      if (std::filesystem::symlink_status(args.output, ec).type() != std::filesystem::file_type::not_found &&
          !args.overwrite)
        error = "output: '" + args.output + "' already exists: pass --overwrite to replace it";
    }
    agree_or_throw(MPI_COMM_WORLD, error, true);
    check_shard_files(args.shards);
    // The config travels inside every shard: parse the first shard's copy.
    const SweepFileReader first(args.shards.at(0));
    const std::string text = first.string_dataset("config");
    const SweepConfig config = parse_config_text(
        text, first.has_attribute("config_folder") ? first.string_attribute("config_folder") : "");
    const auto kernel_ptr = make_task_kernel(config);
    const TaskKernel& kernel = *kernel_ptr;
    std::string command = "simpact merge";
    for (const auto& s : args.shards) command += " " + s;
    command += " -o " + args.output;
    const double hdf5 = merge_shards(MPI_COMM_WORLD, config, kernel, args.shards, args.output, command);
    if (root && !args.quiet)
      std::printf("merged %zu shards (%lld tasks) into %s (HDF5 %.3f s)\n", args.shards.size(),
                  static_cast<long long>(config.task_count()), args.output.c_str(), hdf5);
  } catch (const ConfigErrors& e) {
    if (root)
      std::fprintf(stderr, "simpact: error: config in %s: %s\n", args.shards.at(0).c_str(),
                   e.lines.at(0).c_str());
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

}  // namespace

CommandRunner add_merge_command(CLI::App& app) {
  auto args = std::make_shared<MergeArgs>();
  auto* cmd =
      app.add_subcommand("merge", "merge the shard files of `simpact run --shard i/N` into one result file");
  cmd->add_option("shards", args->shards, "shard files (all N of them, any order)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", args->output, "merged HDF5 file")->required()->check(non_empty_path());
  cmd->add_flag("--overwrite", args->overwrite, "replace an existing output file");
  cmd->add_flag("-q,--quiet", args->quiet, "print nothing on success");
  return [args] { return merge(*args); };
}

}  // namespace simpact::app
