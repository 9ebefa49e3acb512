#include "simpact/study/merge_session.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <functional>
#include <memory>

#include "simpact/core/input_error.hpp"
#include "simpact/io/sweep_config_yaml.hpp"
#include "simpact/io/sweep_file_reader.hpp"
#include "simpact/study/input_binding.hpp"
#include "simpact/study/sweep_analysis.hpp"
#include "simpact/study/sweep_runner.hpp"
#include "simpact/study/sweep_setup.hpp"

namespace simpact {

namespace {

// Every shard must be a simpact shard before anything is read from it: a text file or another
// program's HDF5 file is a bad argument, not an I/O failure. Every rank checks every shard, so
// all of them throw alike.
void check_shard_files(const std::vector<std::string>& paths) {
  if (paths.empty()) throw InputError("shards", "at least one shard file is required");
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

}  // namespace

MergeResult merge_shard_files(MPI_Comm comm, const MergeOptions& options) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string error;
  if (rank == 0) {
    std::error_code ec;
    if (std::filesystem::symlink_status(options.output, ec).type() != std::filesystem::file_type::not_found &&
        !options.overwrite)
      error = "output: '" + options.output + "' already exists: pass --overwrite to replace it";
  }
  agree_or_throw(comm, error, true);
  check_shard_files(options.shards);
  // The config travels inside every shard: parse the first shard's copy.
  const SweepFileReader first(options.shards.front());
  SweepConfig config;
  try {
    config = parse_config_text(first.string_dataset("config"), first.has_attribute("config_folder")
                                                                   ? first.string_attribute("config_folder")
                                                                   : "");
  } catch (const ConfigErrors& e) {
    std::vector<std::string> lines;
    for (const auto& line : e.lines) lines.push_back("config in " + options.shards.front() + ": " + line);
    throw ConfigErrors(lines);
  }
  // The merged file names the inputs as the first shard's run read them (its paths; parsing
  // /config again knows the config only as text), once their digests are the ones read now.
  if (first.has_attribute("input_files")) {
    std::vector<InputFile> recorded = parse_input_files(first.string_attribute("input_files"));
    if (describe_input_change(recorded, config.inputs).empty() && recorded.size() == config.inputs.size())
      config.inputs = std::move(recorded);
  }
  const auto kernel = make_task_kernel(config);
  std::string command = options.command_line;
  if (command.empty()) {
    command = "simpact merge";
    for (const auto& s : options.shards) command += " " + s;
    command += " -o " + options.output;
  }
  MergeResult result;
  result.output = options.output;
  result.shards = static_cast<std::int64_t>(options.shards.size());
  result.tasks = config.task_count();
  // A sensitivity design analysed at the end of a single run is analysed here too, in the staged
  // file before it is published (the shard runs skip it: each holds a part of the samples).
  std::function<void(const std::string&)> analyse;
  if (config.sensitivity.enabled && config.sensitivity.at_end) {
    analyse = [&config, &result](const std::string& staged) {
      result.analysis_lines = analyze_staged_result(staged, config, result.output);
    };
  }
  result.hdf5_seconds = merge_shards(comm, config, *kernel, options.shards, options.output, command, analyse);
  if (config.sensitivity.enabled && !config.sensitivity.at_end)
    result.analysis_lines.push_back(fmt::format(
        "sensitivity: not computed (the config sets at_end: false): simpact analyze {}", options.output));
  return result;
}

}  // namespace simpact
