#include "simpact/study/sweep_session.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <memory>
#include <utility>

#include "simpact/core/input_error.hpp"
#include "simpact/study/sweep_analysis.hpp"
#include "simpact/study/sweep_preflight.hpp"
#include "simpact/study/sweep_setup.hpp"

namespace simpact {

std::string default_output_path(const std::string& config_path) {
  return "results/" + std::filesystem::path(config_path).stem().string() + ".h5";
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

ConfigRunResult run_config(MPI_Comm comm, const ConfigRunOptions& options) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const PreparedSweep prepared = prepare_sweep(options.config_path);
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
        error = fmt::format("output directory '{}': {}", parent.string(),
                            ec ? ec.message() : "exists and is not a directory");
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
  result.summary = run_sweep(comm, prepared.config, *prepared.kernel, run);
  const SweepConfig& config = prepared.config;
  if (result.summary.interrupted_by == 0 && config.sensitivity.enabled && config.sensitivity.at_end &&
      result.summary.output_complete) {
    std::string error;
    bool input = false;
    if (rank == 0) {
      try {
        result.analysis_lines = analyze_result(result.output, config, {}).lines;
      } catch (const InputError& e) {
        error = e.what();
        input = true;
      } catch (const std::exception& e) {
        error = fmt::format("analysis of {}: {}", result.output, e.what());
      }
    }
    int flags[2] = {error.empty() ? 0 : 1, input ? 1 : 0};
    MPI_Bcast(flags, 2, MPI_INT, 0, comm);
    agree_or_throw(comm, error, flags[1] != 0);
  }
  return result;
}

}  // namespace simpact
