// simpact run CONFIG.yaml [-o OUT.h5] [--resume | --overwrite] [--log-level L] [--quiet]
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "commands.hpp"
#include "mpi_session.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/io/chunk_journal.hpp"
#include "simpact/io/sweep_config_yaml.hpp"
#include "simpact/io/sweep_file.hpp"
#include "simpact/study/sweep_runner.hpp"
#include "simpact/study/sweep_session.hpp"
#include "simpact/study/sweep_size_estimate.hpp"
#include "simpact/sweep/parameter_space.hpp"
#include "thread_setup.hpp"

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
  bool dry_run = false;
  int threads = 0;  // --threads N (0: OMP_NUM_THREADS, else the cores of the affinity mask)
};

volatile std::sig_atomic_t g_stop_signal = 0;
// Set on rank 0 once every task is journaled: a signal then prints g_final_write_note at once
// (write(2) is async-signal-safe), because under mpirun the ranks may be killed (Open MPI sends
// SIGKILL about 2 s after forwarding the signal) before the final write ends and says anything.
volatile std::sig_atomic_t g_final_write = 0;
char g_final_write_note[4096] = "";
std::size_t g_final_write_note_length = 0;

// SIGINT/SIGTERM: finish the chunk in hand, keep the journal, say how to resume. A second
// signal ends the process at once.
extern "C" void on_stop_signal(int sig) {
  if (g_final_write != 0 && g_stop_signal == 0 && g_final_write_note_length > 0)
    (void)!::write(STDERR_FILENO, g_final_write_note, g_final_write_note_length);
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
  return "simpact run " + args.config + " -o " + output +
         (args.shard.empty() ? "" : " --shard " + args.shard) + " --resume";
}

int run_agreed(const RunArgs& args, MpiSession& mpi);

std::string mib(double bytes) {
  return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024.0));
}

// --dry-run: what the run would do, and how long it would take (study: estimate_compute_time, the
// speed-up the threads measured now, not perfect scaling; ranks are assumed to scale).
int dry_run(const SweepConfig& config, const TaskKernel& kernel, const std::string& output, int ranks,
            int threads, std::int64_t inadmissible) {
  const ParameterSpace space(config);
  fmt::print("model: {}   tasks: {} ({} grid points x {} replicas)   orderings: {}\n", config.model,
             config.task_count(), config.grid_points(), config.replicas(), config.orderings.size());
  fmt::print("grid:\n");
  for (const auto& axis : space.axes())
    fmt::print("  {:<14} {:>9} points  {:.6g} .. {:.6g} [{}]\n", axis.name, axis.values.size(),
               axis.values.front(), axis.values.back(), axis.units);
  if (inadmissible > 0)
    fmt::print("inadmissible grid points: {} (recorded as failed tasks, on_task_error: record)\n",
               inadmissible);
  const SweepSizeEstimate size = estimate_sweep_sizes(config, kernel);
  fmt::print("output: {} (at most {} before compression)   journal while running: at most {}\n", output,
             mib(size.file_bytes), mib(size.journal_bytes));
  const ComputeTimeEstimate time = estimate_compute_time(config, kernel, ranks, threads);
  fmt::print(
      "estimated compute time: {:.2f} s on {} rank(s) x {} thread(s) ({:.3g} us per task, from {} "
      "calibration tasks; the threads measured {:.2f}x one thread; plus start-up and file writing)\n",
      time.total_seconds, ranks, threads, time.seconds_per_task * 1e6, time.calibration_tasks,
      time.thread_speedup);
  const char* wait = std::getenv("OMP_WAIT_POLICY");
  fmt::print(
      "threads: {} per rank (--threads, OMP_NUM_THREADS, else the cores this rank may use); idle "
      "threads: OMP_WAIT_POLICY={}\n",
      threads, wait != nullptr ? wait : "(runtime default)");
  // A plain number of seconds hides that a sweep cannot finish: say so.
  constexpr double kYear = 365.25 * 24 * 3600;
  if (time.total_seconds > kYear)
    fmt::print("warning: the estimate exceeds a year ({:.3g} years): shrink the grid or the samples\n",
               time.total_seconds / kYear);
  const JournalManifest journal = sweep_manifest(config, kernel);
  if (journal.chunk_count() > kMaxJournalChunks)
    fmt::print(
        "warning: {} tasks in chunks of {} make {} chunks, more than the journal indexes (2^32): "
        "the run will be refused; raise output.chunk_size\n",
        config.task_count(), journal.chunk_size, journal.chunk_count());
  fmt::print("dry run: nothing was written\n");
  return 0;
}

// An audit's engine runs, counted per engine and rate from the written file (issue 35 §2): a run
// that reached its time limit or failed is not "ok" (its values are NaN in the maps). Per task
// from /samples/<group>_engine_status when the file has samples, else per grid point from the
// map (a value that is not 0, 1 or 2 — a mean over replicas, a task that failed first — is
// "other").
void log_audit_run_counts(const SweepConfig& config, const std::string& output) {
  if (!config.audit) return;
  for (const AuditEngineSpec& engine : config.audit->engines) {
    for (double rate : engine.rates) {
      const std::string group = fmt::format("audit_{}_{:g}hz", engine.label, rate);
      std::vector<double> status;
      const char* per = "task";
      try {
        status = read_dataset_f64(output, "/samples/" + group + "_engine_status");
      } catch (const std::exception&) {
        try {
          status = read_dataset_f64(output, "/" + group + "/engine_status");
          per = "grid point";
        } catch (const std::exception&) {
          continue;
        }
      }
      std::size_t counts[4] = {0, 0, 0, 0};
      for (double v : status) ++counts[v == 0.0 ? 0 : v == 1.0 ? 1 : v == 2.0 ? 2 : 3];
      spdlog::info("engine runs {} at {:g} Hz (per {}): {} impact ended, {} time limit, {} failed{}",
                   engine.label, rate, per, counts[0], counts[1], counts[2],
                   counts[3] > 0 ? fmt::format(", {} other (NaN or mixed)", counts[3]) : std::string());
    }
  }
}

// The end-of-run account of what was not computed exactly: every such value is NaN in the maps,
// counted per grid point under /status.
void log_status_counts(const TaskStatusCounts& counts) {
  std::string line;
  for (int k = 0; k < kTaskStatusCount; ++k)
    if (counts[static_cast<std::size_t>(k)] > 0)
      line += fmt::format("{}{} {}", line.empty() ? "" : ", ", counts[static_cast<std::size_t>(k)],
                          kTaskStatusNames[k]);
  if (!line.empty()) spdlog::info("task status: {}", line);
  const auto capped = counts[static_cast<std::size_t>(TaskStatus::kCapHit)];
  if (capped > 0)
    spdlog::warn(
        "{} task(s) hit a resolution cap: their ξ and capped results are NaN (counted in /status/cap_hit); "
        "raise limits.max_steps, max_depth, max_nodes, max_outcomes or max_definition1_checks in the config",
        capped);
  const auto failed = counts[static_cast<std::size_t>(TaskStatus::kFailed)];
  if (failed > 0)
    spdlog::warn("{} task(s) failed: their results are NaN (counted in /status/failed)", failed);
}

// run_agreed, its errors reported and turned into the exit status.
int run_reported(const RunArgs& args, MpiSession& mpi) {
  try {
    return run_agreed(args, mpi);
  } catch (const AgreedError& e) {  // every rank has it: rank 0 prints the one line
    if (mpi.rank() == 0) std::fprintf(stderr, "simpact: error: %s\n", e.what());
    return e.input_error() ? kExitInput : e.incomplete() ? kExitIncomplete : kExitFailure;
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

int run(const RunArgs& args) {
  MpiSession mpi;
  install_stop_handlers();
  return mpi.finish(run_reported(args, mpi));
}

int run_agreed(const RunArgs& args, MpiSession& mpi) {
  const bool root = mpi.rank() == 0;
  spdlog::set_pattern("[simpact %H:%M:%S] %v");
  spdlog::set_level(!root || args.quiet ? spdlog::level::warn : spdlog::level::from_str(args.log_level));
  ConfigRunOptions options;  // the flag first: nothing is read or logged before
  if (!args.shard.empty() && !parse_shard(args.shard, options.shard_index, options.shard_count)) {
    if (root)
      std::fprintf(
          stderr, "simpact: error: --shard: expected i/N with 0 <= i < N <= 9223372036854775807 (got '%s')\n",
          args.shard.c_str());
    return 2;
  }
  // The config, its kernel and every error the config alone shows (study: prepare_sweep), found
  // before any file is created (exit 2); a config one rank cannot read stops every rank.
  PreparedSweep prepared;
  try {
    prepared = prepare_sweep(MPI_COMM_WORLD, args.config);
  } catch (const ConfigErrors& e) {
    if (root)
      for (const auto& line : e.lines.empty() ? std::vector<std::string>{"config: invalid"} : e.lines)
        std::fprintf(stderr, "simpact: error: %s\n", line.c_str());
    return 2;
  } catch (const InputError& e) {
    if (root) std::fprintf(stderr, "simpact: error: %s\n", e.what());
    return 2;
  }
  const SweepConfig& config = prepared.config;
  const std::int64_t inadmissible = prepared.inadmissible;
  const std::string output = args.output.empty() ? default_output_path(args.config) : args.output;
  const TaskKernel& kernel = *prepared.kernel;
  const int threads = setup_threads(MPI_COMM_WORLD, args.threads);
  if (args.dry_run) return root ? dry_run(config, kernel, output, mpi.size(), threads, inadmissible) : 0;
  options.config_path = args.config;
  options.output = output;
  options.output_hint = args.output.empty() ? "; pass -o FILE" : "";
  options.resume = args.resume;
  options.overwrite = args.overwrite;
  options.command_line = args.command_line;
  options.progress_interval_s = args.progress_interval;
  options.stop_signal = &g_stop_signal;
  options.on_start = [&] {  // after the run's checks: no banner before a refusal
    const SweepSizeEstimate size = estimate_sweep_sizes(config, kernel);
    spdlog::info(
        "{}: model '{}', {} tasks ({} grid points x {} replicas), output {} (at most {} before "
        "compression; journal at most {} while running)",
        args.config, config.model, config.task_count(), config.grid_points(), config.replicas(), output,
        mib(size.file_bytes), mib(size.journal_bytes));
    if (inadmissible > 0)
      spdlog::warn("{} of {} grid points are inadmissible: recorded as failed tasks (status 4, NaN)",
                   inadmissible, config.grid_points());
  };
  // Where the work is when one rank's write fails inside a collective HDF5 call (the job ends).
  set_collective_io_failure_note(fmt::format("every task is in {}; finish with: {}",
                                             journal_directory(output), resume_command(args, output)));
  if (root) {
    const std::string note = fmt::format(
        "simpact: signal during the final write: every task is in {}; the write goes on, and if "
        "the job is killed first, finish it with: {}\n",
        journal_directory(output), resume_command(args, output));
    g_final_write_note_length = std::min(note.size(), sizeof g_final_write_note - 1);
    std::memcpy(g_final_write_note, note.data(), g_final_write_note_length);
    options.on_final_write = [] { g_final_write = 1; };
  }
  const ConfigRunResult result = run_prepared(MPI_COMM_WORLD, prepared, options);
  const SweepRunSummary& s = result.summary;
  if (root)
    for (const auto& w : s.warnings) spdlog::warn("{}", w);
  if (s.interrupted_by != 0) {
    if (root) {
      const char* name = s.interrupted_by == SIGINT    ? "SIGINT"
                         : s.interrupted_by == SIGTERM ? "SIGTERM"
                                                       : "a signal";
      if (s.output_complete)
        std::fprintf(stderr, "simpact: interrupted by %s after %s was complete\n", name, output.c_str());
      else
        std::fprintf(stderr,
                     "simpact: interrupted by %s: %lld of %lld tasks are saved in %s; resume with: %s\n",
                     name, static_cast<long long>(s.tasks_saved), static_cast<long long>(s.tasks),
                     journal_directory(output).c_str(), resume_command(args, output).c_str());
      std::fflush(stderr);
    }
    return 128 + s.interrupted_by;
  }
  if (root) {
    for (const auto& line : result.analysis_lines) spdlog::info("{}", line);
    if (s.already_complete) {
      spdlog::info("{} is already complete: nothing to do", output);
    } else {
      spdlog::info(
          "done: {} tasks ({} computed now) in {:.4f} s, {:.0f} tasks/s, HDF5 {:.4f} s ({:.1f}%), publish "
          "{:.4f} s, {} ({:.2f} MiB)",
          s.tasks, s.tasks_computed, s.wall_seconds,
          s.wall_seconds > 0 ? s.tasks_computed / s.wall_seconds : 0.0, s.hdf5_seconds,
          s.wall_seconds > 0 ? 100.0 * s.hdf5_seconds / s.wall_seconds : 0.0, s.publish_seconds, output,
          static_cast<double>(s.file_bytes) / (1024.0 * 1024.0));
      if (inadmissible > 0)
        spdlog::info("{} inadmissible grid points recorded as failed (status 4, NaN in the maps)",
                     inadmissible);
      log_status_counts(s.status_counts);
      log_audit_run_counts(config, output);
    }
    for (const auto& hint : result.hints) std::fprintf(stderr, "simpact: warning: %s\n", hint.c_str());
  }
  return 0;
}

}  // namespace

CommandRunner add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "run a parameter sweep (plain or under mpirun) into an HDF5 file");
  cmd->add_option("config", args->config, "sweep config (YAML)")->required();
  cmd->add_option("-o,--output", args->output, "output HDF5 file (default results/<config name>.h5)")
      ->check(non_empty_path());
  auto* resume = cmd->add_flag("--resume", args->resume, "continue an interrupted run from its journal");
  cmd->add_flag("--overwrite", args->overwrite, "replace an existing output file")->excludes(resume);
  cmd->add_option("--log-level", args->log_level, "trace, debug, info, warn, error, off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  cmd->add_flag("-q,--quiet", args->quiet, "only warnings and errors");
  cmd->add_option("--shard", args->shard,
                  "i/N: compute only shard i of N (a job array; see `simpact merge`)");
  cmd->add_option("--progress-interval", args->progress_interval, "seconds between progress lines")
      ->check(positive_finite_number());
  cmd->add_option("--threads", args->threads,
                  "OpenMP threads per rank (default: OMP_NUM_THREADS, else the cores this rank may use, "
                  "shared with the node's other ranks)")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--dry-run", args->dry_run,
                "check the config and print tasks, grid, size and time estimates; write nothing");
  return [args, &app] {
    args->command_line = "simpact run " + args->config + (args->output.empty() ? "" : " -o " + args->output) +
                         (args->resume ? " --resume" : "") + (args->overwrite ? " --overwrite" : "") +
                         (args->shard.empty() ? "" : " --shard " + args->shard);
    (void)app;
    return run(*args);
  };
}

}  // namespace simpact::app
