// simpact._simpact: the C++ half of `import simpact` (python/simpact/ is the Python half). A thin
// layer over study/: NumPy arrays in, the batch services run with the GIL released, NumPy arrays
// out. InputError becomes simpact.InputError (a ValueError) carrying the CLI's one-line message
// and the field; runtime failures become RuntimeError.
#include <mpi.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "simpact/core/impact_resolution.hpp"
#include "simpact/models/model_catalog.hpp"
#include "simpact/models/mujoco_mechanism.hpp"
#include "simpact/study/design_service.hpp"
#include "simpact/study/impact_batch.hpp"
#include "simpact/study/impact_service.hpp"
#include "simpact/study/result_info.hpp"
#include "simpact/study/simulate_service.hpp"
#include "simpact/study/sweep_session.hpp"
#include "simpact/version.hpp"

namespace py = pybind11;
using namespace simpact;

namespace {

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

template <typename T>
py::array_t<T> to_numpy(std::vector<T>&& values, std::vector<py::ssize_t> shape) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(shape, owned->data(), free_when_done);
}

py::dict resolution_dict(ImpactBatchResult&& r) {
  const py::ssize_t B = r.batch, d = r.dof, k = r.contacts;
  const py::ssize_t n = r.outcome_offsets.empty() ? 0 : static_cast<py::ssize_t>(r.outcome_offsets.back());
  py::dict out;
  out["status"] = to_numpy(std::move(r.status), {B});
  out["xi"] = to_numpy(std::move(r.xi), {B});
  out["xi_lower_bound"] = to_numpy(std::move(r.xi_lower_bound), {B});
  out["xi_argmin_argmax"] = to_numpy(std::move(r.xi_argmin_argmax), {B});
  out["outcome_count"] = to_numpy(std::move(r.outcome_count), {B});
  out["minimal_outcomes"] = to_numpy(std::move(r.minimal_outcomes), {B});
  out["unique"] = to_numpy(std::move(r.unique), {B});
  out["cap_hit"] = to_numpy(std::move(r.cap_hit), {B});
  out["momentum_before"] = to_numpy(std::move(r.momentum_before), {B, d});
  out["energy_before"] = to_numpy(std::move(r.energy_before), {B});
  out["plastic_momentum"] = to_numpy(std::move(r.plastic_momentum), {B, d});
  out["plastic_velocity"] = to_numpy(std::move(r.plastic_velocity), {B, d});
  out["plastic_impulses"] = to_numpy(std::move(r.plastic_impulses), {B, k});
  out["plastic_energy"] = to_numpy(std::move(r.plastic_energy), {B});
  out["outcome_offsets"] = to_numpy(std::move(r.outcome_offsets), {B + 1});
  out["outcome_momentum"] = to_numpy(std::move(r.outcome_momentum), {n, d});
  out["outcome_velocity"] = to_numpy(std::move(r.outcome_velocity), {n, d});
  out["outcome_impulses"] = to_numpy(std::move(r.outcome_impulses), {n, k});
  out["outcome_energy"] = to_numpy(std::move(r.outcome_energy), {n});
  return out;
}

py::dict check_dict(CheckBatchResult&& c) {
  const py::ssize_t B = c.impact.batch, d = c.impact.dof, k = c.impact.contacts;
  py::dict out = resolution_dict(std::move(c.impact));
  out["consistent"] = to_numpy(std::move(c.consistent), {B});
  out["negative_impulses"] = to_numpy(std::move(c.negative_impulses), {B});
  out["momentum_after"] = to_numpy(std::move(c.momentum_after), {B, d});
  out["energy_after"] = to_numpy(std::move(c.energy_after), {B});
  out["relative_energy_error"] = to_numpy(std::move(c.relative_energy_error), {B});
  out["predicted_energy_after"] = to_numpy(std::move(c.predicted_energy_after), {B});
  out["relative_energy_error_vs_model"] = to_numpy(std::move(c.relative_energy_error_vs_model), {B});
  out["max_feasibility_violation"] = to_numpy(std::move(c.max_feasibility_violation), {B});
  out["impulse_residual"] = to_numpy(std::move(c.impulse_residual), {B});
  out["nonnegative_impulse_residual"] = to_numpy(std::move(c.nonnegative_impulse_residual), {B});
  out["complementarity_residual"] = to_numpy(std::move(c.complementarity_residual), {B});
  out["distance_to_nearest_outcome"] = to_numpy(std::move(c.distance_to_nearest_outcome), {B});
  out["distance_to_plastic"] = to_numpy(std::move(c.distance_to_plastic), {B});
  out["tolerance"] = to_numpy(std::move(c.tolerance), {B});
  out["consistency_tolerance"] = to_numpy(std::move(c.consistency_tolerance), {B});
  out["nearest_outcome"] = to_numpy(std::move(c.nearest_outcome), {B});
  out["printed_significant_digits"] = to_numpy(std::move(c.printed_significant_digits), {B});
  out["implied_impulses"] = to_numpy(std::move(c.implied_impulses), {B, k});
  return out;
}

// `simpact simulate`'s report as NumPy: the records as arrays over the recorded steps.
py::dict simulation_dict(SimulateReport&& r) {
  const auto R = static_cast<py::ssize_t>(r.records.size());
  const auto n = static_cast<py::ssize_t>(r.coordinates.size());
  std::vector<std::int64_t> step;
  std::vector<double> t, q, p, energy;
  for (const auto& s : r.records) {
    step.push_back(s.step);
    t.push_back(s.t);
    q.insert(q.end(), s.q.begin(), s.q.end());
    p.insert(p.end(), s.p.begin(), s.p.end());
    energy.push_back(s.energy);
  }
  py::dict out;
  out["coordinates"] = r.coordinates;
  out["step"] = to_numpy(std::move(step), {R});
  out["t"] = to_numpy(std::move(t), {R});
  out["q"] = to_numpy(std::move(q), {R, n});
  out["p"] = to_numpy(std::move(p), {R, n});
  out["energy"] = to_numpy(std::move(energy), {R});
  py::list impacts;
  for (auto& i : r.impacts) {
    py::dict d;
    d["step"] = i.step;
    d["t"] = i.t;
    d["contacts"] = i.contacts;
    d["sequence"] = i.sequence;
    d["energy_before"] = i.energy_before;
    d["energy_after"] = i.energy_after;
    d["restitution"] = i.restitution;
    d["plastic"] = i.plastic;
    d["zeno"] = i.zeno;
    d["policy"] = std::string(ordering_policy_name(i.policy));
    d["status"] = i.status;
    d["momentum_before"] = to_numpy(std::move(i.momentum_before), {n});
    d["momentum_after"] = to_numpy(std::move(i.momentum_after), {n});
    impacts.append(d);
  }
  out["impacts"] = impacts;
  out["max_energy_drift"] = r.max_energy_drift;
  out["energy_initial"] = r.energy_initial;
  out["energy_final"] = r.energy_final;
  out["energy_residual"] = r.energy_residual;
  py::dict work;
  for (std::size_t j = 0; j < r.work_sources.size() && j < r.work.size(); ++j)
    work[py::str(r.work_sources[j])] = r.work[j];
  out["work"] = work;
  out["newton_mean"] = r.newton_mean;
  out["newton_max"] = r.newton_max;
  return out;
}

py::dict named(const NamedValues& values) {
  py::dict d;
  for (const auto& [name, value] : values) d[py::str(name)] = value;
  return d;
}

// `simpact design`'s report: the rows ("initial", "optimized") as dicts.
py::dict design_dict(const DesignReport& r) {
  py::dict out;
  out["model"] = r.model;
  out["foot"] = r.foot;
  out["at_bound"] = r.at_bound;
  out["converged"] = r.converged();
  py::list rows;
  for (const auto& row : r.rows) {
    py::dict d;
    d["name"] = row.name;
    d["status"] = row.status;
    d["iterations"] = row.iterations;
    d["configuration"] = named(row.configuration);
    d["design"] = named(row.design);
    d["gaps"] = named(row.gaps);
    d["tail_length"] = row.tail_length;
    d["metric_product"] = row.metric_product;
    d["normalized_product"] = row.normalized_product;
    py::dict points;
    for (const auto& [name, xy] : row.points) points[py::str(name)] = py::make_tuple(xy[0], xy[1]);
    d["points"] = points;
    rows.append(d);
  }
  out["rows"] = rows;
  return out;
}

// MPI for an in-process sweep: a singleton job of one rank, started on first use (funneled: only
// the calling thread uses MPI) and finalized when the interpreter exits.
void ensure_mpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
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

py::dict run_summary_dict(const ConfigRunResult& r) {
  const SweepRunSummary& s = r.summary;
  py::dict out;
  out["output"] = r.output;
  out["tasks"] = s.tasks;
  out["tasks_computed"] = s.tasks_computed;
  out["chunks"] = s.chunks;
  out["wall_seconds"] = s.wall_seconds;
  out["hdf5_seconds"] = s.hdf5_seconds;
  out["already_complete"] = s.already_complete;
  out["interrupted_by"] = s.interrupted_by;
  out["tasks_saved"] = s.tasks_saved;
  out["output_complete"] = s.output_complete;
  out["warnings"] = s.warnings;
  out["inadmissible"] = r.inadmissible;
  out["analysis"] = r.analysis_lines;
  py::dict status;
  for (int k = 0; k < kTaskStatusCount; ++k)
    status[py::str(kTaskStatusNames[k])] = s.status_counts[static_cast<std::size_t>(k)];
  out["status_counts"] = status;
  return out;
}

// `simpact info --json`'s document, key for key, from the same study summary.
py::dict result_info_dict(const ResultInfo& info) {
  py::dict d;
  d["file"] = info.file;
  d["status"] = ResultInfo::status_name(info.status);
  if (info.status == ResultInfo::Status::kNotSimpact) {
    d["reason"] = info.reason;
    return d;
  }
  if (!info.readable) {
    d["reason"] = info.reason;
    py::dict journal;
    journal["chunks_done"] = info.chunks_done;
    journal["chunks"] = info.chunks;
    journal["tasks_done"] = info.tasks_done;
    journal["tasks"] = info.tasks;
    d["journal"] = journal;
    return d;
  }
  d["shard"] = info.shard.empty() ? py::object(py::none()) : py::object(py::str(info.shard));
  d["schema_version"] = info.schema_version;
  d["model"] = info.model;
  d["orderings"] = info.orderings;
  d["minimality"] = info.minimality;
  d["tasks"] = info.tasks;
  d["replicas"] = info.replicas;
  d["chunks"] = info.chunks;
  d["chunks_done"] = info.chunks_done;
  d["tasks_done"] = info.tasks_done;
  d["progress_percent"] = info.progress_percent();
  d["journal"] = info.journal;
  d["config_sha256"] = info.config_sha256;
  py::list grid;
  for (const auto& a : info.grid) {
    py::dict axis;
    axis["name"] = a.name;
    axis["points"] = a.points;
    axis["first"] = a.first;
    axis["last"] = a.last;
    axis["units"] = a.units;
    axis["long_name"] = a.long_name;
    grid.append(axis);
  }
  d["grid"] = grid;
  py::list maps;
  for (const auto& m : info.maps) maps.append(m.name);
  d["maps"] = maps;
  d["samples"] = info.samples;
  if (info.has_task_status) {
    py::dict status;
    for (const auto& [name, count] : info.task_status) status[py::str(name)] = count;
    d["task_status"] = status;
  } else {
    d["task_status"] = py::none();
  }
  py::list provenance;
  for (const auto& row : info.provenance) {
    py::dict r;
    r["start"] = row.start_time;
    r["end"] = row.end_time;
    r["ranks"] = row.ranks;
    r["threads"] = row.threads;
    r["hosts"] = row.hosts;
    r["slurm_job_id"] = row.slurm_job_id;
    r["tasks_done"] = row.tasks_done;
    r["version"] = row.version;
    r["git_revision"] = row.git_revision;
    r["command"] = row.command;
    provenance.append(r);
  }
  d["provenance"] = provenance;
  return d;
}

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

// A loaded mechanism file: the description (shared, read-only) and one workspace for the
// single-state evaluations (Python calls them one at a time under the GIL).
class PyMechanism {
 public:
  PyMechanism(const std::string& file, const std::vector<std::pair<std::string, std::string>>& contacts,
              const std::vector<std::string>& place, double gap_tolerance)
      : mechanism_(MechanismSpec{file, contacts, place, gap_tolerance, "mechanism"}),
        workspace_(mechanism_.make_workspace()) {}

  const MujocoMechanism& mechanism() const { return mechanism_; }

  ParameterSet params_of(const std::map<std::string, double>& params) const {
    ParameterSet set;
    for (const auto& [name, value] : params) set.set(name, value);
    return set;
  }

  // The state named by params (the request's "params", as `simpact resolve` reads them).
  MechanismState state(const std::map<std::string, double>& params) const {
    std::vector<std::string> known;
    for (const auto& info : mechanism_.parameters()) known.push_back(info.name);
    for (const auto& [name, value] : params)
      if (std::find(known.begin(), known.end(), name) == known.end())
        throw InputError("params." + name, "unknown parameter of the mechanism (see `simpact models FILE`)");
    try {
      return mechanism_.state_from(params_of(params));
    } catch (const InputError& e) {
      throw InputError("params." + e.field(), std::string(e.what()).substr(e.field().size() + 2));
    }
  }

  // M, φ, Dφ at B configurations q (B, nq).
  py::tuple evaluate(const Array& q, const std::map<std::string, double>& params) {
    const py::ssize_t B = q.shape(0), nv = mechanism_.nv(), k = mechanism_.contacts(), nq = mechanism_.nq();
    MechanismState s = state(params);
    std::vector<double> mass(static_cast<std::size_t>(B * nv * nv)), gaps(static_cast<std::size_t>(B * k)),
        normals(static_cast<std::size_t>(B * k * nv));
    MechanismEvaluation e;
    for (py::ssize_t b = 0; b < B; ++b) {
      const Eigen::VectorXd qpos = Eigen::Map<const Eigen::VectorXd>(q.data() + b * nq, nq);
      s.qpos = qpos;
      mechanism_.check_state(s, "q", "qvel");
      mechanism_.evaluate(s, qpos, *workspace_, e);
      using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      Eigen::Map<RowMajor>(mass.data() + b * nv * nv, nv, nv) = e.mass;
      Eigen::Map<Eigen::VectorXd>(gaps.data() + b * k, k) = e.gaps;
      Eigen::Map<RowMajor>(normals.data() + b * k * nv, k, nv) = e.normals;
    }
    return py::make_tuple(to_numpy(std::move(mass), {B, nv, nv}), to_numpy(std::move(gaps), {B, k}),
                          to_numpy(std::move(normals), {B, k, nv}));
  }

  // `place` applied to B configurations.
  Array place(const Array& q, const std::map<std::string, double>& params) {
    const py::ssize_t B = q.shape(0), nq = mechanism_.nq();
    MechanismState s = state(params);
    std::vector<double> out(static_cast<std::size_t>(B * nq));
    for (py::ssize_t b = 0; b < B; ++b) {
      s.qpos = Eigen::Map<const Eigen::VectorXd>(q.data() + b * nq, nq);
      mechanism_.check_state(s, "q", "qvel");
      mechanism_.place(s, *workspace_);
      Eigen::Map<Eigen::VectorXd>(out.data() + b * nq, nq) = s.qpos;
    }
    return to_numpy(std::move(out), {B, nq});
  }

  MechanismBatch batch(const std::optional<Array>& q, const std::optional<Array>& v, bool momentum,
                       std::optional<double> restitution, const std::map<std::string, double>& params) const {
    MechanismBatch b;
    b.mechanism = &mechanism_;
    b.qpos = q ? q->data() : nullptr;
    b.qvel = v ? v->data() : nullptr;
    b.momentum = momentum;
    b.restitution = restitution;
    b.params = params_of(params);
    return b;
  }

 private:
  MujocoMechanism mechanism_;
  MujocoMechanism::WorkspacePtr workspace_;
};

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
         double progress_interval, const std::string& command_line) {
        ensure_mpi();
        ConfigRunOptions options;
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
        options.threads = threads;
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
      py::arg("command_line") = "");

  m.def("resolve_raw", [](const Array& mass, const Array& normals, const Array& momentum, bool velocity,
                          const std::optional<Array>& gaps, const Array& restitution, double gap_tolerance,
                          const std::string& options_json, int threads) {
    const ResolveOptions options = parse_resolve_options(options_json);
    const RawImpactBatch b = raw_batch(mass, normals, momentum, velocity, gaps, restitution, gap_tolerance);
    ImpactBatchResult r;
    {
      py::gil_scoped_release release;
      r = resolve_batch(b, options, threads);
    }
    return resolution_dict(std::move(r));
  });

  m.def("check_raw", [](const Array& mass, const Array& normals, const Array& momentum, bool velocity,
                        const std::optional<Array>& gaps, const Array& restitution, double gap_tolerance,
                        const Array& after, bool after_velocity, std::optional<double> tolerance,
                        std::optional<double> consistency_tolerance, const std::string& options_json,
                        int threads) {
    const ResolveOptions options = parse_resolve_options(options_json);
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
                            const Array& values, const std::string& options_json, int threads) {
    const ResolveOptions options = parse_resolve_options(options_json);
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

  py::class_<PyMechanism>(m, "Mechanism")
      .def(py::init<const std::string&, const std::vector<std::pair<std::string, std::string>>&,
                    const std::vector<std::string>&, double>(),
           py::arg("file"), py::arg("contacts"), py::arg("place"), py::arg("gap_tolerance"))
      .def_property_readonly("nq", [](const PyMechanism& p) { return p.mechanism().nq(); })
      .def_property_readonly("nv", [](const PyMechanism& p) { return p.mechanism().nv(); })
      .def_property_readonly("contacts", [](const PyMechanism& p) { return p.mechanism().contacts(); })
      .def_property_readonly("qpos_names", [](const PyMechanism& p) { return p.mechanism().qpos_names(); })
      .def_property_readonly("qvel_names", [](const PyMechanism& p) { return p.mechanism().qvel_names(); })
      .def_property_readonly("file", [](const PyMechanism& p) { return p.mechanism().spec().file; })
      .def_property_readonly("parameters",
                             [](const PyMechanism& p) {
                               py::list out;
                               for (const auto& info : p.mechanism().parameters())
                                 out.append(py::make_tuple(info.name, info.units, info.default_value,
                                                           info.min, info.max, info.long_name));
                               return out;
                             })
      .def("default_qpos",
           [](const PyMechanism& p) {
             const Eigen::VectorXd q = p.mechanism().default_qpos();
             return to_numpy(std::vector<double>(q.data(), q.data() + q.size()), {q.size()});
           })
      .def("evaluate", &PyMechanism::evaluate)
      .def("place", &PyMechanism::place)
      .def("resolve",
           [](const PyMechanism& p, const std::optional<Array>& q, const std::optional<Array>& v,
              bool momentum, std::optional<double> restitution, const std::map<std::string, double>& params,
              long batch, const std::string& options_json, int threads) {
             const ResolveOptions options = parse_resolve_options(options_json);
             const MechanismBatch mb = p.batch(q, v, momentum, restitution, params);
             ImpactBatchResult r;
             {
               py::gil_scoped_release release;
               r = resolve_batch(batch, p.mechanism().nv(), p.mechanism().contacts(),
                                 mechanism_problem_maker(mb, threads), options, threads);
             }
             return resolution_dict(std::move(r));
           })
      .def("check",
           [](const PyMechanism& p, const std::optional<Array>& q, const std::optional<Array>& v,
              bool momentum, std::optional<double> restitution, const std::map<std::string, double>& params,
              long batch, const Array& after, bool after_velocity, std::optional<double> tolerance,
              std::optional<double> consistency_tolerance, const std::string& options_json, int threads) {
             const ResolveOptions options = parse_resolve_options(options_json);
             const MechanismBatch mb = p.batch(q, v, momentum, restitution, params);
             const CheckBatchInput input{after.data(), after_velocity, tolerance, consistency_tolerance};
             CheckBatchResult c;
             {
               py::gil_scoped_release release;
               c = check_batch(batch, p.mechanism().nv(), p.mechanism().contacts(),
                               mechanism_problem_maker(mb, threads), input, options, threads);
             }
             return check_dict(std::move(c));
           });
}
