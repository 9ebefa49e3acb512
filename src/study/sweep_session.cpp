#include "simpact/study/sweep_session.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <exception>
#include <filesystem>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "simpact/core/input_error.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/sweep_config_yaml.hpp"
#include "simpact/io/sweep_file_reader.hpp"
#include "simpact/study/sweep_analysis.hpp"
#include "simpact/study/sweep_preflight.hpp"
#include "simpact/study/sweep_setup.hpp"

namespace simpact {

std::string default_output_path(const std::string& config_path) {
  return "results/" + std::filesystem::path(config_path).stem().string() + ".h5";
}

bool parse_shard(const std::string& text, std::int64_t& index, std::int64_t& count) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) return false;
  auto whole = [](const std::string& digits, std::int64_t& out) {
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return false;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
    return ec == std::errc() && end == digits.data() + digits.size();
  };
  return whole(text.substr(0, slash), index) && whole(text.substr(slash + 1), count) && count >= 1 &&
         index < count;
}

PreparedSweep prepare_sweep(const std::string& config_path) {
  PreparedSweep prepared;
  prepared.config = load_config(config_path);
  prepared.kernel = make_task_kernel(prepared.config);
  std::string error = preflight(prepared.config, *prepared.kernel, prepared.inadmissible);
  if (error.empty()) error = check_sensitivity_outputs(prepared.config, *prepared.kernel);
  if (!error.empty()) {  // "field: message", as the command prints it
    const auto colon = error.find(": ");
    throw InputError(colon == std::string::npos ? "config" : error.substr(0, colon),
                     colon == std::string::npos ? error : error.substr(colon + 2));
  }
  return prepared;
}

PreparedSweep prepare_sweep(MPI_Comm comm, const std::string& config_path) {
  PreparedSweep prepared;
  std::string first_line;
  std::exception_ptr own;
  try {
    prepared = prepare_sweep(config_path);
  } catch (const ConfigErrors& e) {
    first_line = e.lines.empty() ? "config: invalid" : e.lines.front();
    own = std::current_exception();
  } catch (const InputError& e) {
    first_line = e.what();
    own = std::current_exception();
  }
  try {
    agree_or_throw(comm, first_line, true);
  } catch (const AgreedError& e) {
    if (own) std::rethrow_exception(own);
    throw ConfigErrors({e.what()});
  }
  return prepared;
}

namespace {

// The smallest finite value of a dataset of the result (NaN: none, or no such dataset).
double smallest_value(const std::string& path, const std::string& dataset) {
  double smallest = std::numeric_limits<double>::quiet_NaN();
  try {
    const SweepFileReader file(path);
    if (!file.has(dataset)) return smallest;
    std::int64_t n = 1;
    for (std::int64_t extent : file.shape(dataset)) n *= extent;
    std::vector<double> slab;
    constexpr std::int64_t kSlab = 1 << 16;
    for (std::int64_t first = 0; first < n; first += kSlab) {
      slab.resize(static_cast<std::size_t>(std::min(kSlab, n - first)));
      file.read(dataset, first, static_cast<std::int64_t>(slab.size()), slab.data());
      for (double v : slab)
        if (std::isfinite(v) && !(v >= smallest)) smallest = v;
    }
  } catch (const std::exception&) {  // advice only: a file that cannot be read gives none
  }
  return smallest;
}

// A sweep in which no task closed a contact (every task no_contact, or failed) maps ξ = NaN
// everywhere: say so once, with the smallest gap any task had, and point at `place`.
std::vector<std::string> no_contact_hints(const SweepConfig& config, const ConfigRunResult& result) {
  const TaskStatusCounts& counts = result.summary.status_counts;
  const auto count = [&](TaskStatus s) { return counts[static_cast<std::size_t>(s)]; };
  if (count(TaskStatus::kNoContact) == 0 || count(TaskStatus::kOk) + count(TaskStatus::kNoImpact) +
                                                    count(TaskStatus::kNoElasticOutcome) +
                                                    count(TaskStatus::kCapHit) >
                                                0)
    return {};
  std::string gap;
  if (config.mechanism) {
    const double smallest =
        smallest_value(result.output, config.replicas() > 1 ? "contacts/min_gap_min" : "contacts/min_gap");
    if (std::isfinite(smallest))
      gap = fmt::format(": the smallest gap found is {:.6g} m (gap tolerance {:g} of the mechanism's length)",
                        smallest, config.mechanism->gap_tolerance);
  }
  return {
      fmt::format("no task closed any contact{}, so every ξ is NaN (status no_contact); name the "
                  "coordinates that bring the contacts together in model.place (e.g. place: "
                  "[qpos.<joint>, ...]) and each task solves them until every contact touches",
                  gap)};
}

}  // namespace

ConfigRunResult run_config(MPI_Comm comm, const ConfigRunOptions& options) {
  const PreparedSweep prepared = prepare_sweep(comm, options.config_path);
  return run_prepared(comm, prepared, options);
}

ConfigRunResult run_prepared(MPI_Comm comm, const PreparedSweep& prepared, const ConfigRunOptions& options) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const SweepConfig& config = prepared.config;
  ConfigRunResult result;
  result.inadmissible = prepared.inadmissible;
  result.output = options.output.empty() ? default_output_path(options.config_path) : options.output;
  {  // the output's directory, once the input is valid; a failure agreed by every rank
    std::string error;
    if (const auto parent = std::filesystem::path(result.output).parent_path();
        rank == 0 && !parent.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(parent, ec);
      if (ec || !std::filesystem::is_directory(parent))
        error = fmt::format("output directory '{}': {}{}", parent.string(),
                            ec ? ec.message() : "exists and is not a directory", options.output_hint);
    }
    agree_or_throw(comm, error, true);
  }
  SweepRunOptions run;
  run.output_path = result.output;
  run.resume = options.resume;
  run.overwrite = options.overwrite;
  run.command_line = options.command_line;
  run.progress_interval_s = options.progress_interval_s;
  run.stop_signal = options.stop_signal;
  run.on_progress = options.on_progress;
  run.shard_index = options.shard_index;
  run.shard_count = options.shard_count;
  run.on_start = options.on_start;
  if (rank == 0) run.on_final_write = options.on_final_write;
  // sensitivity.at_end: rank 0 analyses the staged file before it is published and the journal
  // removed, so a failed analysis loses nothing and leaves no half-written /sensitivity.
  if (config.sensitivity.enabled && config.sensitivity.at_end && options.shard_count == 1) {
    run.before_publish = [&config, &result](const std::string& staged) {
      result.analysis_lines = analyze_staged_result(staged, config, result.output);
    };
  }
  // This run's threads and log level, restored however it ends.
  struct Restore {
    int threads;
    spdlog::level::level_enum level;
    ~Restore() {
      omp_set_num_threads(threads);
      spdlog::set_level(level);
    }
  } restore{omp_get_max_threads(), spdlog::get_level()};
  if (options.threads > 0) omp_set_num_threads(options.threads);
  if (!options.engine_info_log && restore.level < spdlog::level::warn) spdlog::set_level(spdlog::level::warn);
  result.summary = run_sweep(comm, config, *prepared.kernel, run);
  if (rank == 0 && result.summary.output_complete && result.summary.interrupted_by == 0 &&
      options.shard_count == 1)
    result.hints = no_contact_hints(config, result);
  return result;
}

}  // namespace simpact
