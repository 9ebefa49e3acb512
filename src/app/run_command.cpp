// simpact run CONFIG.yaml [-o OUT.h5] [--resume | --overwrite] [--log-level L] [--quiet]
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "commands.hpp"
#include "mpi_session.hpp"
#include "simpact/analysis/impact_task_kernel.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/io/chunk_journal.hpp"
#include "simpact/io/sweep_config.hpp"
#include "simpact/models/model_catalog.hpp"
#include "simpact/sweep/parameter_space.hpp"
#include "simpact/sweep/sweep_runner.hpp"
#include "sweep_setup.hpp"

namespace simpact::app {

namespace {

struct RunArgs {
  std::string config;
  std::string output;
  bool resume = false;
  bool overwrite = false;
  bool quiet = false;
  std::string log_level = "info";
  double progress_interval = 5.0;
  std::string shard;  // "i/N"
  std::string command_line;
};

// Builds the impact problem of every grid point (first replica) before any work starts, so an
// invalid corner of the grid (e.g. θ below the smallest admissible angle for the chosen radii)
// is reported now, naming the point, instead of aborting the sweep later. Returns the error.
std::string preflight(const SweepConfig& config, const ImpactModel& model) {
  const ParameterSpace space(config);
  ParameterSet params;
  constexpr std::int64_t kMaxChecked = 2'000'000;
  for (std::int64_t g = 0; g < std::min(space.grid_points(), kMaxChecked); ++g) {
    try {
      space.parameters_of(space.task_of(g, 0), params);
      model.make_problem(params);
    } catch (const InputError& e) {
      return fmt::format("grid point {} ({}): {}", g, params.describe(), e.what());
    }
  }
  return "";
}

volatile std::sig_atomic_t g_stop_signal = 0;

// SIGINT/SIGTERM: finish the chunk in hand, keep the journal, say how to resume. A second
// signal ends the process at once.
extern "C" void on_stop_signal(int sig) {
  if (g_stop_signal != 0) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_stop_signal = sig;
}

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

std::string resume_command(const RunArgs& args, const std::string& output) {
  return "simpact run " + args.config + " -o " + output + (args.shard.empty() ? "" : " --shard " + args.shard) +
         " --resume";
}

int run_agreed(const RunArgs& args, MpiSession& mpi);

int run(const RunArgs& args) {
  MpiSession mpi;
  install_stop_handlers();
  try {
    return run_agreed(args, mpi);
  } catch (const AgreedError& e) {  // every rank has it: rank 0 prints the one line
    if (mpi.rank() == 0) std::fprintf(stderr, "simpact: error: %s\n", e.what());
    return e.input_error() ? 2 : 1;
  } catch (const std::exception& e) {
    // Thrown on this rank alone: the others may be waiting in a collective. End them all.
    if (mpi.size() > 1) {
      std::fprintf(stderr, "simpact: error: rank %d: %s\n", mpi.rank(), e.what());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    std::fprintf(stderr, "simpact: error: %s\n", e.what());
    return 1;
  }
}

int run_agreed(const RunArgs& args, MpiSession& mpi) {
  const bool root = mpi.rank() == 0;
  spdlog::set_pattern("[simpact %H:%M:%S] %v");
  spdlog::set_level(!root || args.quiet ? spdlog::level::warn : spdlog::level::from_str(args.log_level));

  SweepConfig config;
  std::vector<std::string> config_errors;
  try {
    config = load_config(args.config);
  } catch (const ConfigErrors& e) {
    config_errors = e.lines.empty() ? std::vector<std::string>{"config: invalid"} : e.lines;
  }
  try {  // a config one rank cannot read must stop every rank
    agree_or_throw(MPI_COMM_WORLD, config_errors.empty() ? "" : config_errors.front(), true);
  } catch (const AgreedError& e) {
    if (root) {
      if (config_errors.empty()) config_errors.push_back(e.what());
      for (const auto& line : config_errors) std::fprintf(stderr, "simpact: error: %s\n", line.c_str());
    }
    return 2;
  }
  std::string output = args.output;
  if (output.empty()) {  // default: results/<config name>.h5, creating results/ if needed
    output = "results/" + std::filesystem::path(args.config).stem().string() + ".h5";
    std::string error;
    if (root) {
      std::error_code ec;
      std::filesystem::create_directories("results", ec);
      if (ec || !std::filesystem::is_directory("results"))
        error = fmt::format("default output directory 'results': {}; pass -o FILE",
                            ec ? ec.message() : "exists and is not a directory");
    }
    agree_or_throw(MPI_COMM_WORLD, error, true);
  }
  const auto model = make_model(config.model);
  if (const std::string error = preflight(config, *model); !error.empty()) {
    if (root) std::fprintf(stderr, "simpact: error: %s\n", error.c_str());
    return 2;
  }
  const ImpactTaskKernel kernel(make_model(config.model), study_options(config));
  if (root) {
    const double maps = static_cast<double>(kernel.columns().size()) * (config.replicas() > 1 ? 5 : 1) + 1;
    double bytes = maps * static_cast<double>(config.grid_points()) * 8.0;
    if (config.output.samples)
      bytes +=
          static_cast<double>(config.task_count()) * 8.0 * static_cast<double>(values_per_task(kernel) + 6);
    spdlog::info(
        "{}: model '{}', {} tasks ({} grid points x {} replicas), output {} (at most {:.1f} MiB before "
        "compression)",
        args.config, config.model, config.task_count(), config.grid_points(), config.replicas(), output,
        bytes / (1024.0 * 1024.0));
  }
  SweepRunOptions options;
  options.output_path = output;
  options.resume = args.resume;
  options.overwrite = args.overwrite;
  options.command_line = args.command_line;
  options.progress_interval_s = args.progress_interval;
  options.stop_signal = &g_stop_signal;
  if (!args.shard.empty()) {
    long long i = -1, n = -1;
    char tail = 0;
    if (std::sscanf(args.shard.c_str(), "%lld/%lld%c", &i, &n, &tail) != 2 || n < 1 || i < 0 || i >= n) {
      if (root)
        std::fprintf(stderr, "simpact: error: --shard: expected i/N with 0 <= i < N (got '%s')\n",
                     args.shard.c_str());
      return 2;
    }
    options.shard_index = i;
    options.shard_count = n;
  }
  const SweepRunSummary s = run_sweep(MPI_COMM_WORLD, config, kernel, options);
  if (root)
    for (const auto& w : s.warnings) spdlog::warn("{}", w);
  if (s.interrupted_by != 0) {
    if (root) {
      const char* name = s.interrupted_by == SIGINT ? "SIGINT" : s.interrupted_by == SIGTERM ? "SIGTERM" : "a signal";
      if (s.output_complete)
        std::fprintf(stderr, "simpact: interrupted by %s after %s was complete\n", name, output.c_str());
      else
        std::fprintf(stderr,
                     "simpact: interrupted by %s: %lld of %lld tasks are saved in %s; resume with: %s\n", name,
                     static_cast<long long>(s.tasks_saved), static_cast<long long>(s.tasks),
                     journal_directory(output).c_str(), resume_command(args, output).c_str());
      std::fflush(stderr);
    }
    return 128 + s.interrupted_by;
  }
  if (root) {
    if (s.already_complete) {
      spdlog::info("{} is already complete: nothing to do", output);
    } else {
      spdlog::info(
          "done: {} tasks ({} computed now) in {:.2f} s, {:.0f} tasks/s, HDF5 {:.3f} s ({:.1f}%), {} "
          "({:.2f} MiB)",
          s.tasks, s.tasks_computed, s.wall_seconds, s.wall_seconds > 0 ? s.tasks_computed / s.wall_seconds : 0.0,
          s.hdf5_seconds, s.wall_seconds > 0 ? 100.0 * s.hdf5_seconds / s.wall_seconds : 0.0, output,
          static_cast<double>(s.file_bytes) / (1024.0 * 1024.0));
    }
  }
  return 0;
}

}  // namespace

CommandRunner add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "run a parameter sweep (plain or under mpirun) into an HDF5 file");
  cmd->add_option("config", args->config, "sweep config (YAML)")->required();
  cmd->add_option("-o,--output", args->output, "output HDF5 file (default results/<config name>.h5)");
  auto* resume = cmd->add_flag("--resume", args->resume, "continue an interrupted run from its journal");
  cmd->add_flag("--overwrite", args->overwrite, "replace an existing output file")->excludes(resume);
  cmd->add_option("--log-level", args->log_level, "trace, debug, info, warn, error, off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  cmd->add_flag("-q,--quiet", args->quiet, "only warnings and errors");
  cmd->add_option("--shard", args->shard,
                  "i/N: compute only shard i of N (a job array; see `simpact merge`)");
  cmd->add_option("--progress-interval", args->progress_interval, "seconds between progress lines")
      ->check(CLI::PositiveNumber);
  return [args, &app] {
    args->command_line = "simpact run " + args->config + (args->output.empty() ? "" : " -o " + args->output) +
                         (args->resume ? " --resume" : "") + (args->overwrite ? " --overwrite" : "") +
                         (args->shard.empty() ? "" : " --shard " + args->shard);
    (void)app;
    return run(*args);
  };
}

}  // namespace simpact::app
