// simpact analyze RESULT.h5 [--variable NAME]... [--bootstrap B] [--seed S] [--confidence C]
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "simpact/analysis/morris_indices.hpp"
#include "simpact/analysis/sobol_indices.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/io/chunk_journal.hpp"
#include "simpact/io/safe_file.hpp"
#include "simpact/io/sensitivity_file.hpp"
#include "simpact/io/sweep_file.hpp"
#include "simpact/io/sweep_file_reader.hpp"
#include "simpact/study/sweep_analysis.hpp"
#include "simpact/study/sweep_setup.hpp"
#include "simpact/sweep/parameter_space.hpp"

namespace simpact::app {

namespace {

struct AnalyzeArgs {
  std::string file;
  std::vector<std::string> outputs;
  std::vector<std::string> deprecated_outputs;  // --output NAME (the old spelling of --variable)
  std::int64_t bootstrap = -1;
  std::string seed;
  bool seed_given = false;
  double confidence = -1;
  bool confidence_given = false;  // any value given is checked: nan and -1 are not "absent"
  bool quiet = false;
};

int analyze(const AnalyzeArgs& args) {
  namespace fs = std::filesystem;
  // The flags first: a bad flag is exit 2 whatever the file is.
  AnalyzeOverrides o;
  o.outputs = args.outputs;
  if (args.bootstrap >= 0) o.bootstrap = args.bootstrap;
  if (args.seed_given) {
    // from_chars refuses what strtoull would clamp to 2^64 - 1 (and "-1", "", " 1"), as the config's seed.
    std::uint64_t s = 0;
    const char* first = args.seed.data();
    const char* last = first + args.seed.size();
    const auto [end, ec] = std::from_chars(first, last, s);
    if (args.seed.empty() || ec != std::errc() || end != last)
      throw InputError("--seed", fmt::format("must be a non-negative integer, at most 18446744073709551615 "
                                             "(got '{}')",
                                             args.seed));
    o.seed = s;
  }
  if (args.confidence_given) {
    if (!(args.confidence > 0 && args.confidence < 1))
      throw InputError("--confidence", fmt::format("must lie in (0, 1) (got {:g})", args.confidence));
    o.confidence = args.confidence;
  }
  if (!fs::exists(args.file)) throw InputError("file", fmt::format("'{}' does not exist", args.file));
  if (!fs::is_regular_file(args.file))
    throw InputError("file", fmt::format("'{}' is not a regular file", args.file));
  // A symbolic link is followed: its target is what is read, locked and replaced (the link stays).
  const std::string file = fs::canonical(args.file).string();
  // One writer per output: the lock `run` and `merge` hold on it (<file>.journal/lock), from the
  // first read to the replacement, so that no run or merge replaces the file meanwhile (the loser
  // is refused, naming the holder). Where <file>.journal is not simpact's (a user's folder, a
  // file), no run or merge can write the file and nothing is put there.
  const std::string journal = journal_directory(file);
  const PathKind journal_kind = path_kind(journal);
  OutputLock lock;
  if ((journal_kind == PathKind::kAbsent || journal_kind == PathKind::kDirectory) &&
      check_journal_ownership(journal).empty())
    lock = OutputLock(journal);
  // And anything else that rewrites or replaces it meanwhile is noticed before the replacement.
  o.read_as = file_identity(file);
  std::unique_ptr<SweepFileReader> reader;
  try {
    reader = std::make_unique<SweepFileReader>(file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simpact: error: file: '%s' is not a simpact result (%s)\n", args.file.c_str(),
                 e.what());
    return kExitNotResult;
  }
  if (!reader->has_attribute("schema_version") || !reader->has_attribute("complete") ||
      !reader->has("config")) {
    std::fprintf(stderr,
                 "simpact: error: file: '%s' is not a simpact result (no schema_version/complete/config)\n",
                 args.file.c_str());
    return kExitNotResult;
  }
  if (reader->integer_attribute("complete") == 0 || reader->has_attribute("shard")) {
    std::fprintf(stderr,
                 "simpact: error: file: '%s' is %s: finish it first (simpact run CONFIG -o %s --resume%s)\n",
                 args.file.c_str(), reader->has_attribute("shard") ? "a shard" : "incomplete",
                 args.file.c_str(), reader->has_attribute("shard") ? ", or simpact merge" : "");
    return kExitIncomplete;
  }
  const std::string text = reader->string_dataset("config");
  const std::string folder =
      reader->has_attribute("config_folder") ? reader->string_attribute("config_folder") : "";
  reader.reset();
  const SweepConfig config = parse_config_text(text, folder);
  const AnalyzeSummary s = analyze_result(args.file, config, o);  // messages name it as given
  if (!args.quiet)
    for (const auto& line : s.lines) std::printf("%s\n", line.c_str());
  return kExitOk;
}

}  // namespace

CommandRunner add_analyze_command(CLI::App& app) {
  auto args = std::make_shared<AnalyzeArgs>();
  auto* cmd = app.add_subcommand(
      "analyze",
      "sensitivity indices of a finished sweep with a saltelli/morris/radial design -> /sensitivity");
  cmd->add_option("file", args->file, "result file (HDF5) of `simpact run`")->required();
  cmd->add_option("--variable", args->outputs,
                  "result variable to analyse: name or group/name (repeatable; default: the "
                  "config's sensitivity.outputs, else every scalar result)");
  // Deprecated: -o/--output is a file everywhere else.
  auto* old = cmd->add_option("--output", args->deprecated_outputs, "deprecated alias of --variable");
  old->group("");  // hidden from --help
  cmd->add_option("--bootstrap", args->bootstrap, "bootstrap resamples for the intervals (0: none)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1000000}));
  auto* seed = cmd->add_option("--seed", args->seed, "seeds the bootstrap");
  auto* confidence = cmd->add_option("--confidence", args->confidence, "level of the intervals, in (0, 1)");
  cmd->add_flag("-q,--quiet", args->quiet, "print nothing on success");
  return [args, seed, confidence] {
    if (!args->deprecated_outputs.empty()) {
      std::fprintf(stderr, "simpact: warning: analyze --output is deprecated: use --variable\n");
      args->outputs.insert(args->outputs.end(), args->deprecated_outputs.begin(),
                           args->deprecated_outputs.end());
    }
    args->seed_given = seed->count() > 0;
    args->confidence_given = confidence->count() > 0;
    return analyze(*args);
  };
}

}  // namespace simpact::app
