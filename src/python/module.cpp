// simpact._simpact: the C++ half of `import simpact` (python/simpact/ is the Python half). A thin
// layer over study/: NumPy arrays in, the batch services run with the GIL released, NumPy arrays
// out. InputError becomes simpact.InputError (a ValueError) carrying the CLI's one-line message
// and the field; runtime failures become RuntimeError.
#include <mpi.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <csignal>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "python_module.hpp"
#include "simpact/core/impact_resolution.hpp"
#include "simpact/models/model_catalog.hpp"
#include "simpact/study/design_service.hpp"
#include "simpact/study/impact_batch.hpp"
#include "simpact/study/impact_service.hpp"
#include "simpact/study/merge_session.hpp"
#include "simpact/study/mpi_startup.hpp"
#include "simpact/study/simulate_service.hpp"
#include "simpact/study/sweep_session.hpp"
#include "simpact/study/sweep_size_estimate.hpp"
#include "simpact/version.hpp"

namespace py = pybind11;
using namespace simpact;
using namespace simpact::python;

namespace simpact::python {

ResolveOptions batch_options(const std::string& options_json, bool plastic, bool definition1) {
  ResolveOptions options = parse_resolve_options(options_json);
  options.compute_plastic = plastic;
  options.check_definition1 = definition1;
  return options;
}

}  // namespace simpact::python

namespace {

// MPI for an in-process sweep: a singleton job of one rank, started on first use (funneled: only
// the calling thread uses MPI) and finalized when the interpreter exits.
void ensure_mpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;
  init_mpi_funneled();
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }));
}

volatile std::sig_atomic_t g_run_stop = 0;
extern "C" void on_run_stop(int sig) {
  g_run_stop = sig;
}

// SIGINT and SIGTERM stop the sweep (the chunk in hand finishes, the journal stays) while it runs
// with the GIL released; Python's own handlers are back afterwards.
class StopSignals {
 public:
  StopSignals() {
    g_run_stop = 0;
    struct sigaction action {};
    action.sa_handler = on_run_stop;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {
  }, old_term_{};
};

// The raw arrays, shapes already checked by the Python half: M (B,d,d), N (B,k,d), p (B,d),
// gaps (B,k) or None, restitution (B,).
RawImpactBatch raw_batch(const Array& mass, const Array& normals, const Array& momentum, bool velocity,
                         const std::optional<Array>& gaps, const Array& restitution, double gap_tolerance) {
  RawImpactBatch b;
  b.batch = static_cast<long>(mass.shape(0));
  b.dof = static_cast<int>(mass.shape(1));
  b.contacts = static_cast<int>(normals.shape(1));
  b.mass_matrix = mass.data();
  b.normals = normals.data();
  b.momentum = momentum.data();
  b.velocity = velocity;
  b.gaps = gaps ? gaps->data() : nullptr;
  b.restitution = restitution.data();
  b.gap_tolerance = gap_tolerance;
  return b;
}

}  // namespace

PYBIND11_MODULE(_simpact, m) {
  m.doc() = "simpact's C++ core (use the simpact package)";
  m.attr("__version__") = std::string(kVersion);
  m.attr("git_revision") = std::string(kGitRevision);

  // simpact.InputError(ValueError): .field and, in a batch, .item; str() is the CLI's line (with
  // "(batch item i)" appended for a batch).
  static py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const BatchInputError& e) {
      py::object err = py::reinterpret_borrow<py::object>(input_error.ptr())(std::string(e.what()));
      err.attr("field") = e.field();
      err.attr("item") = e.item();
      err.attr("line") = e.line();
      PyErr_SetObject(input_error.ptr(), err.ptr());
    } catch (const InputError& e) {
      py::object err = py::reinterpret_borrow<py::object>(input_error.ptr())(std::string(e.what()));
      err.attr("field") = e.field();
      err.attr("item") = py::none();
      err.attr("line") = std::string(e.what());
      PyErr_SetObject(input_error.ptr(), err.ptr());
    } catch (const ConfigErrors& e) {  // a config: every problem, one line each (.lines)
      const std::string first = e.lines.empty() ? std::string("config: invalid") : e.lines.front();
      const auto colon = first.find(": ");
      py::object err = py::reinterpret_borrow<py::object>(input_error.ptr())(first);
      err.attr("field") = colon == std::string::npos ? std::string("config") : first.substr(0, colon);
      err.attr("item") = py::none();
      err.attr("line") = first;
      err.attr("lines") = e.lines;
      PyErr_SetObject(input_error.ptr(), err.ptr());
    } catch (const AgreedError& e) {  // a sweep refused before it started (the output exists, ...)
      if (!e.input_error()) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
        return;
      }
      const std::string line = e.what();
      const auto colon = line.find(": ");
      py::object err = py::reinterpret_borrow<py::object>(input_error.ptr())(line);
      const std::string prefix = colon == std::string::npos ? "" : line.substr(0, colon);
      err.attr("field") =
          prefix.empty() || prefix.find_first_of(" '\"") != std::string::npos ? "output" : prefix;
      err.attr("item") = py::none();
      err.attr("line") = line;
      PyErr_SetObject(input_error.ptr(), err.ptr());
    }
  });

  m.def("status_names", [] {
    std::vector<std::string> names;
    for (auto s : {ResolveStatus::kOk, ResolveStatus::kNoImpact, ResolveStatus::kNoElasticOutcome,
                   ResolveStatus::kCapHit, ResolveStatus::kPlasticUnverified})
      names.emplace_back(resolve_status_name(s));
    return names;
  });
  m.def("model_names", &model_names);
  m.attr("max_threads") = kMaxThreads;

  m.def(
      "resolve_json",
      [](const std::string& text, int indent, const std::string& base_dir) {
        py::gil_scoped_release release;
        return resolve_json(text, indent, base_dir);
      },
      py::arg("text"), py::arg("indent") = -1, py::arg("base_dir") = "");
  m.def(
      "check_json",
      [](const std::string& text, int indent, const std::string& base_dir) {
        py::gil_scoped_release release;
        return check_json(text, indent, base_dir);
      },
      py::arg("text"), py::arg("indent") = -1, py::arg("base_dir") = "");

  m.def(
      "simulate_request",
      [](const std::string& text, const std::string& base_dir) {
        SimulateRun run;
        {
          py::gil_scoped_release release;
          run = run_simulation(text, base_dir);
        }
        return simulation_dict(std::move(run.report));
      },
      py::arg("text"), py::arg("base_dir") = "");
  m.def(
      "design_request",
      [](const std::string& text, const std::string& base_dir) {
        DesignRun run;
        {
          py::gil_scoped_release release;
          run = run_design(text, base_dir);
        }
        return design_dict(run.report);
      },
      py::arg("text"), py::arg("base_dir") = "");

  m.def(
      "result_info", [](const std::string& path) { return result_info_dict(describe_result(path)); },
      py::arg("path"));

  m.def(
      "run_config",
      [](const std::string& config_path, const std::string& output, bool resume, bool overwrite, int threads,
         const std::optional<std::function<void(std::int64_t, std::int64_t)>>& progress,
         double progress_interval, const std::string& command_line, const std::string& shard) {
        ConfigRunOptions options;
        if (!shard.empty() && !parse_shard(shard, options.shard_index, options.shard_count))
          throw InputError("shard",
                           "expected i/N with 0 <= i < N <= 9223372036854775807 (got '" + shard + "')");
        ensure_mpi();
        options.config_path = config_path;
        options.output = output;
        options.resume = resume;
        options.overwrite = overwrite;
        options.command_line = command_line;
        options.progress_interval_s = progress_interval;
        options.stop_signal = &g_run_stop;
        if (progress) {
          const auto callback = *progress;
          options.on_progress = [callback](std::int64_t done, std::int64_t total) {
            py::gil_scoped_acquire gil;
            try {
              callback(done, total);
            } catch (py::error_already_set& e) {  // a failing progress display must not end the run
              e.discard_as_unraisable("simpact.run progress callback");
            }
          };
        }
        options.threads = checked_threads(threads);
        options.engine_info_log = false;  // progress comes through the callback
        ConfigRunResult result;
        {
          StopSignals signals;
          py::gil_scoped_release release;
          result = run_config(MPI_COMM_SELF, options);
        }
        return run_summary_dict(result);
      },
      py::arg("config"), py::arg("output"), py::arg("resume") = false, py::arg("overwrite") = false,
      py::arg("threads") = 0, py::arg("progress") = py::none(), py::arg("progress_interval") = 5.0,
      py::arg("command_line") = "", py::arg("shard") = "");

  m.def(
      "estimate_config",
      [](const std::string& config_path, int ranks, int threads) {
        checked_threads(threads);
        const PreparedSweep prepared = prepare_sweep(config_path);
        const SweepConfig& config = prepared.config;
        const SweepSizeEstimate size = estimate_sweep_sizes(config, *prepared.kernel);
        ComputeTimeEstimate time;
        {
          py::gil_scoped_release release;
          time = estimate_compute_time(config, *prepared.kernel, ranks,
                                       threads > 0 ? threads : batch_thread_count(0));
        }
        py::dict out;
        out["model"] = config.model;
        out["tasks"] = config.task_count();
        out["grid_points"] = config.grid_points();
        out["replicas"] = config.replicas();
        out["inadmissible"] = prepared.inadmissible;
        out["file_bytes"] = size.file_bytes;
        out["journal_bytes"] = size.journal_bytes;
        out["calibration_tasks"] = time.calibration_tasks;
        out["seconds_per_task"] = time.seconds_per_task;
        out["thread_speedup"] = time.thread_speedup;
        out["total_seconds"] = time.total_seconds;
        return out;
      },
      py::arg("config"), py::arg("ranks") = 1, py::arg("threads") = 0);

  m.def(
      "merge_shards",
      [](const std::vector<std::string>& shards, const std::string& output, bool overwrite,
         const std::string& command_line) {
        ensure_mpi();
        MergeResult r;
        {
          py::gil_scoped_release release;
          r = merge_shard_files(MPI_COMM_SELF, MergeOptions{shards, output, overwrite, command_line});
        }
        py::dict out;
        out["output"] = r.output;
        out["shards"] = r.shards;
        out["tasks"] = r.tasks;
        out["hdf5_seconds"] = r.hdf5_seconds;
        out["analysis"] = r.analysis_lines;
        return out;
      },
      py::arg("shards"), py::arg("output"), py::arg("overwrite") = false, py::arg("command_line") = "");

  m.def("resolve_raw", [](const Array& mass, const Array& normals, const Array& momentum, bool velocity,
                          const std::optional<Array>& gaps, const Array& restitution, double gap_tolerance,
                          const std::string& options_json, bool plastic, bool definition1, int threads) {
    checked_threads(threads);
    const ResolveOptions options = batch_options(options_json, plastic, definition1);
    const RawImpactBatch b = raw_batch(mass, normals, momentum, velocity, gaps, restitution, gap_tolerance);
    // Into the storage of results Python freed (BufferPool): no fresh pages to fault in.
    ImpactBatchResult r =
        pooled_result(b.batch, b.dof, b.contacts, options.policy == OrderingPolicy::kAll ? 2 : 1);
    try {
      py::gil_scoped_release release;
      resolve_batch(b, options, threads, r);
    } catch (...) {
      recycle(std::move(r));
      throw;
    }
    return resolution_dict(std::move(r));
  });

  m.def("check_raw", [](const Array& mass, const Array& normals, const Array& momentum, bool velocity,
                        const std::optional<Array>& gaps, const Array& restitution, double gap_tolerance,
                        const Array& after, bool after_velocity, std::optional<double> tolerance,
                        std::optional<double> consistency_tolerance, const std::string& options_json,
                        bool plastic, bool definition1, int threads) {
    checked_threads(threads);
    const ResolveOptions options = batch_options(options_json, plastic, definition1);
    const RawImpactBatch b = raw_batch(mass, normals, momentum, velocity, gaps, restitution, gap_tolerance);
    const CheckBatchInput input{after.data(), after_velocity, tolerance, consistency_tolerance};
    CheckBatchResult c;
    {
      py::gil_scoped_release release;
      c = check_batch(b, input, options, threads);
    }
    return check_dict(std::move(c));
  });

  m.def("resolve_model", [](const std::string& model, const std::vector<std::string>& names,
                            const Array& values, const std::string& options_json, bool plastic,
                            bool definition1, int threads) {
    checked_threads(threads);
    const ResolveOptions options = batch_options(options_json, plastic, definition1);
    const long B = static_cast<long>(values.shape(0));
    const BatchProblemMaker make = model_problem_maker(model, names, values.data());
    // d and k from the first item (every point of a model has the same sizes).
    ResolveRequest first;
    if (B > 0) {
      try {
        make(0, 0, first);
      } catch (const InputError& e) {
        throw BatchInputError(0, e);
      }
    }
    const int d = B > 0 ? (first.dynamic() ? first.dynamic_problem->dof() : first.problem.dof()) : 1;
    const int k =
        B > 0 ? (first.dynamic() ? first.dynamic_problem->given_contacts() : first.problem.given_contacts())
              : 1;
    ImpactBatchResult r;
    {
      py::gil_scoped_release release;
      r = resolve_batch(B, d, k, make, options, threads);
    }
    return resolution_dict(std::move(r));
  });

  bind_mechanism(m);
}
