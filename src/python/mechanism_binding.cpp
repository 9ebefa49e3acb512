// simpact._simpact.Mechanism: a loaded mechanism file (Python's simpact.Mechanism wraps it).
//
// Every evaluation takes a batch (docs/python.md "Batches"): B states (qpos B × nq, qvel or
// momentum B × nv), B restitutions and, per named parameter of the file's schema, B values. The
// items run in C++ with the GIL released, in parallel over the batch (OpenMP), each thread on its
// own workspace; an item depends on nothing but its own inputs, so a batch equals its items'
// one-state calls bit for bit, at any thread count.
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "python_module.hpp"
#include "simpact/io/sweep_config_yaml.hpp"  // nearest_name
#include "simpact/models/mujoco_mechanism.hpp"
#include "simpact/study/batch_loop.hpp"
#include "simpact/study/impact_service.hpp"
#include "simpact/study/simulate_service.hpp"

namespace simpact::python {

namespace {

// The status code of an item whose contacts are all open (every gap above the tolerance): no
// impact was posed, ξ is NaN (a ξ of 0 would read as a unique outcome). The codes below it are
// ResolveStatus's; 5 is also a sweep task's no_contact.
constexpr std::int32_t kNoContactStatus = 5;
static_assert(static_cast<int>(ResolveStatus::kPlasticUnverified) + 1 == kNoContactStatus,
              "no_contact follows the last ResolveStatus");

// One batch's inputs, not owned (NumPy arrays the binding holds), checked against the mechanism.
struct ItemInputs {
  long batch = 0;
  const double* qpos = nullptr;         // B × nq; null: the file's qpos0 (and the params' qpos.*)
  const double* qvel = nullptr;         // B × nv; null: the params' qvel.* (default 0)
  bool momentum = false;                // qvel holds momenta M·qvel
  const double* restitution = nullptr;  // B; null: the params' restitution (default 1)
  std::vector<std::string> names;       // parameter names (sorted by the caller)
  const double* values = nullptr;       // B × names.size()

  ParameterSet params(long item) const {
    ParameterSet set;
    const std::size_t count = names.size(), row = static_cast<std::size_t>(item) * count;
    for (std::size_t j = 0; j < count; ++j) set.set(names[j], values[row + j]);
    return set;
  }
};

// Workspaces kept between calls (one per thread of the widest call so far), lent to one call at a
// time: concurrent calls from several Python threads (the GIL is released) never share one.
class WorkspacePool {
 public:
  explicit WorkspacePool(const MujocoMechanism& mechanism) : mechanism_(mechanism) {}

  // A call's workspaces, one per thread, created on the thread's first use; back to the pool at
  // the end of the call.
  class Lease {
   public:
    Lease(WorkspacePool& pool, int threads) : pool_(pool), slots_(static_cast<std::size_t>(threads)) {
      const std::lock_guard<std::mutex> lock(pool_.mutex_);
      for (auto& slot : slots_) {
        if (pool_.free_.empty()) break;
        slot = std::move(pool_.free_.back());
        pool_.free_.pop_back();
      }
    }
    ~Lease() {
      const std::lock_guard<std::mutex> lock(pool_.mutex_);
      for (auto& slot : slots_)
        if (slot) pool_.free_.push_back(std::move(slot));
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

    // Thread `thread`'s workspace (only that thread touches its slot).
    MujocoMechanism::Workspace& at(int thread) {
      auto& slot = slots_[static_cast<std::size_t>(thread)];
      if (!slot) slot = pool_.mechanism_.make_workspace();
      return *slot;
    }

   private:
    WorkspacePool& pool_;
    std::vector<MujocoMechanism::WorkspacePtr> slots_;
  };

 private:
  const MujocoMechanism& mechanism_;
  std::mutex mutex_;
  std::vector<MujocoMechanism::WorkspacePtr> free_;
};

// What a mechanism batch reports besides the impact: each item's configuration after `place`
// (B × nq), its closed rows (B), and its problem's rows (the given contacts of the impact: each a
// witness point of a named contact; at most R = max_problem_rows()): how many (B), the contact
// each belongs to (B × R, −1 past the item's rows), the point [m] (B × R × 3) and its gap [m]
// (B × R) (NaN past the item's rows).
struct ItemStates {
  std::vector<double> placed_qpos;
  std::vector<std::int32_t> closed_contacts;
  std::vector<std::int32_t> rows, row_contact;
  std::vector<double> row_position, row_gap;
};

// Items with no closed contact: status no_contact, ξ (and its bounds) NaN, not unique.
void mark_no_contact(const std::vector<std::int32_t>& closed, ImpactBatchResult& r) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t b = 0; b < closed.size(); ++b) {
    if (closed[b] != 0) continue;
    r.status[b] = kNoContactStatus;
    r.xi[b] = r.xi_lower_bound[b] = r.xi_argmin_argmax[b] = nan;
    r.unique[b] = 0;
  }
}

py::dict with_states(py::dict out, ItemStates&& s, long batch, int nq, int rows) {
  out["placed_qpos"] = to_numpy(std::move(s.placed_qpos), {batch, nq});
  out["closed_contacts"] = to_numpy(std::move(s.closed_contacts), {batch});
  out["problem_rows"] = to_numpy(std::move(s.rows), {batch});
  out["row_contact"] = to_numpy(std::move(s.row_contact), {batch, rows});
  out["row_position"] = to_numpy(std::move(s.row_position), {batch, rows, 3});
  out["row_gap"] = to_numpy(std::move(s.row_gap), {batch, rows});
  return out;
}

// A loaded mechanism file: the description (shared, read-only) and the workspaces of its calls.
class PyMechanism {
 public:
  PyMechanism(const std::string& file, const std::vector<std::pair<std::string, std::string>>& contacts,
              const std::vector<std::string>& place, double gap_tolerance, const std::string& witnesses)
      : mechanism_(MechanismSpec{file, contacts, place, gap_tolerance, "mechanism", witnesses}),
        rows_(mechanism_.max_problem_rows()),
        pool_(mechanism_) {}

  const MujocoMechanism& mechanism() const { return mechanism_; }

  // The arrays as a batch, checked: shapes against B and the mechanism, parameter names against
  // its schema (the message of `simpact resolve`).
  ItemInputs inputs(const std::optional<Array>& q, const std::optional<Array>& v, bool momentum,
                    const std::optional<Array>& restitution, const std::vector<std::string>& names,
                    const Array& values, long batch, const std::string& q_field = "qpos") const {
    if (batch < 0) throw InputError("batch", "must be >= 0");
    const auto rows = [batch](const Array& a, py::ssize_t width, const std::string& field, const char* n) {
      if (a.ndim() != 2 || a.shape(0) != batch || a.shape(1) != width)
        throw InputError(field, "must have shape (" + std::to_string(batch) + ", " + n + " = " +
                                    std::to_string(width) + ")");
      return a.data();
    };
    ItemInputs in;
    in.batch = batch;
    if (q) in.qpos = rows(*q, mechanism_.nq(), q_field, "nq");
    if (v) in.qvel = rows(*v, mechanism_.nv(), momentum ? "momentum" : "qvel", "nv");
    in.momentum = momentum;
    if (restitution) {
      if (restitution->ndim() != 1 || restitution->shape(0) != batch)
        throw InputError("restitution", "must have shape (" + std::to_string(batch) + ",)");
      in.restitution = restitution->data();
    }
    std::vector<std::string> known;
    for (const auto& info : mechanism_.parameters()) known.push_back(info.name);
    for (const auto& name : names)
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        const std::string near = nearest_name(name, known);
        throw InputError("params." + name,
                         near.empty() ? "unknown parameter of the mechanism (see `simpact models FILE`)"
                                      : "unknown parameter of the mechanism (did you mean '" + near + "'?)");
      }
    in.names = names;
    in.values = rows(values, static_cast<py::ssize_t>(names.size()), "params", "parameters");
    return in;
  }

  // The thread count of a call: `threads` (≤ 0: OpenMP's default), at most one per item.
  static int thread_count(int threads, long batch) {
    return static_cast<int>(std::max(1L, std::min<long>(batch_thread_count(threads), batch)));
  }

  // Item `item`'s state from its parameters (errors name "params.<name>").
  MechanismState state(const ItemInputs& in, long item) const {
    try {
      ParameterSet params = in.params(item);
      if (in.restitution) params.set("restitution", in.restitution[item]);
      return mechanism_.state_from(params);
    } catch (const InputError& e) {
      if (e.field() == "restitution" && in.restitution) throw;
      throw InputError("params." + e.field(), std::string(e.what()).substr(e.field().size() + 2));
    }
  }

  // M, φ, Dφ at B configurations.
  py::tuple evaluate(const ItemInputs& in, int threads) {
    const py::ssize_t B = in.batch, nv = mechanism_.nv(), k = mechanism_.contacts(), nq = mechanism_.nq();
    std::vector<double> mass(static_cast<std::size_t>(B * nv * nv)), gaps(static_cast<std::size_t>(B * k)),
        normals(static_cast<std::size_t>(B * k * nv));
    {
      py::gil_scoped_release release;
      const int nthreads = thread_count(threads, B);
      WorkspacePool::Lease workspaces(pool_, nthreads);
      std::vector<MechanismEvaluation> evaluations(static_cast<std::size_t>(nthreads));
      for_each_batch_item(B, nthreads, [&](long b, int t) {
        MechanismState s = state(in, b);
        if (in.qpos) s.qpos = Eigen::Map<const Eigen::VectorXd>(in.qpos + b * nq, nq);
        mechanism_.check_state(s, "q", "qvel");
        MechanismEvaluation& e = evaluations[static_cast<std::size_t>(t)];
        const Eigen::VectorXd qpos = s.qpos;
        mechanism_.evaluate(s, qpos, workspaces.at(t), e);
        using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        Eigen::Map<RowMajor>(mass.data() + b * nv * nv, nv, nv) = e.mass;
        Eigen::Map<Eigen::VectorXd>(gaps.data() + b * k, k) = e.gaps;
        Eigen::Map<RowMajor>(normals.data() + b * k * nv, k, nv) = e.normals;
      });
    }
    return py::make_tuple(to_numpy(std::move(mass), {B, nv, nv}), to_numpy(std::move(gaps), {B, k}),
                          to_numpy(std::move(normals), {B, k, nv}));
  }

  // `place` applied to B configurations.
  Array place(const ItemInputs& in, int threads) {
    const py::ssize_t B = in.batch, nq = mechanism_.nq();
    std::vector<double> out(static_cast<std::size_t>(B * nq));
    {
      py::gil_scoped_release release;
      const int nthreads = thread_count(threads, B);
      WorkspacePool::Lease workspaces(pool_, nthreads);
      for_each_batch_item(B, nthreads, [&](long b, int t) {
        MechanismState s = state(in, b);
        if (in.qpos) s.qpos = Eigen::Map<const Eigen::VectorXd>(in.qpos + b * nq, nq);
        mechanism_.check_state(s, "q", "qvel");
        mechanism_.place(s, workspaces.at(t));
        Eigen::Map<Eigen::VectorXd>(out.data() + b * nq, nq) = s.qpos;
      });
    }
    return to_numpy(std::move(out), {B, nq});
  }

  // Item `item`'s impact problem, exactly as `simpact resolve` of the mechanism request with that
  // item's qpos, qvel/momentum, restitution and params builds it; its placed configuration and
  // closed contacts into `states`.
  BatchProblemMaker maker(const ItemInputs& in, WorkspacePool::Lease& workspaces, ItemStates& states) const {
    return [this, &in, &workspaces, &states](long item, int thread, ResolveRequest& request) {
      const MujocoMechanism& m = mechanism_;
      MechanismRequest r;
      r.file = m.spec().file;
      r.contacts = m.spec().contacts;
      r.place = m.spec().place;
      r.gap_tolerance = m.spec().gap_tolerance;
      if (in.restitution) r.restitution = in.restitution[item];
      r.params = in.params(item);
      if (in.qpos) r.qpos = Eigen::Map<const Eigen::VectorXd>(in.qpos + item * m.nq(), m.nq());
      if (in.qvel) {
        const Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(in.qvel + item * m.nv(), m.nv());
        (in.momentum ? r.momentum : r.qvel) = v;
      }
      request.model = r.file;
      request.params = r.params;
      make_mechanism_request_problem(m, workspaces.at(thread), r, request);
      const std::size_t nq = static_cast<std::size_t>(m.nq()), row = static_cast<std::size_t>(item) * nq;
      for (std::size_t i = 0; i < nq && i < request.placed_qpos.size(); ++i)
        states.placed_qpos[row + i] = request.placed_qpos[i].second;
      const auto b = static_cast<std::size_t>(item);
      states.closed_contacts[b] =
          request.dynamic() ? request.dynamic_problem->contacts() : request.problem.contacts();
      const int given =
          request.dynamic() ? request.dynamic_problem->given_contacts() : request.problem.given_contacts();
      if (given > rows_)  // resolve_batch's arrays hold rows_ per item
        throw InputError("mechanism.contacts", "the impact has " + std::to_string(given) +
                                                   " rows, more than the mechanism's bound " +
                                                   std::to_string(rows_));
      states.rows[b] = given;
      const auto& points = request.contact_points;
      for (std::size_t i = 0; i < points.size() && static_cast<int>(i) < rows_; ++i) {
        const std::size_t at = b * static_cast<std::size_t>(rows_) + i;
        states.row_contact[at] = contact_index(points[i].a, points[i].b);
        for (int c = 0; c < 3; ++c)
          states.row_position[3 * at + static_cast<std::size_t>(c)] = points[i].position[c];
        states.row_gap[at] = points[i].gap;
      }
    };
  }

  ItemStates item_states(long batch) const {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto B = static_cast<std::size_t>(batch), R = static_cast<std::size_t>(rows_);
    ItemStates s;
    s.placed_qpos.assign(B * static_cast<std::size_t>(mechanism_.nq()), nan);
    s.closed_contacts.assign(B, 0);
    s.rows.assign(B, 0);
    s.row_contact.assign(B * R, -1);
    s.row_position.assign(B * R * 3, nan);
    s.row_gap.assign(B * R, nan);
    return s;
  }

  // The index of the named contact (a, b) in spec().contacts (−1: none).
  int contact_index(const std::string& a, const std::string& b) const {
    const auto& contacts = mechanism_.spec().contacts;
    for (std::size_t i = 0; i < contacts.size(); ++i)
      if (contacts[i].first == a && contacts[i].second == b) return static_cast<int>(i);
    return -1;
  }

  py::dict resolve(const ItemInputs& in, const ResolveOptions& options, int threads) {
    ItemStates states = item_states(in.batch);
    ImpactBatchResult r;
    {
      py::gil_scoped_release release;
      const int nthreads = thread_count(threads, in.batch);
      WorkspacePool::Lease workspaces(pool_, nthreads);
      r = resolve_batch(in.batch, mechanism_.nv(), rows_, maker(in, workspaces, states), options, nthreads);
      mark_no_contact(states.closed_contacts, r);
    }
    return with_states(resolution_dict(std::move(r)), std::move(states), in.batch, mechanism_.nq(), rows_);
  }

  py::dict check(const ItemInputs& in, const CheckBatchInput& input, const ResolveOptions& options,
                 int threads) {
    ItemStates states = item_states(in.batch);
    CheckBatchResult c;
    {
      py::gil_scoped_release release;
      const int nthreads = thread_count(threads, in.batch);
      WorkspacePool::Lease workspaces(pool_, nthreads);
      c = check_batch(in.batch, mechanism_.nv(), rows_, maker(in, workspaces, states), input, options,
                      nthreads);
      mark_no_contact(states.closed_contacts, c.impact);
    }
    return with_states(check_dict(std::move(c)), std::move(states), in.batch, mechanism_.nq(), rows_);
  }

 private:
  MujocoMechanism mechanism_;
  int rows_;  // the most rows an item's problem has (witness points of the contacts)
  WorkspacePool pool_;
};

// B time-stepped runs of one `simpact simulate` request (the JSON text: the mechanism, dt, steps,
// record, ...), item b with its own q0/v0/p0 row, restitution and parameter values: each run is
// the request with those set, through the command's own run_simulation, so an item equals the
// one-state Mechanism.simulate of the same values bit for bit.
py::list simulate_batch(const std::string& text, const std::string& base_dir, const std::optional<Array>& q0,
                        const std::optional<Array>& v0, const std::optional<Array>& p0,
                        const std::optional<Array>& restitution, const std::vector<std::string>& names,
                        const Array& values, long batch, int threads) {
  checked_threads(threads);
  if (batch < 0) throw InputError("batch", "must be >= 0");
  const auto rows = [batch](const std::optional<Array>& a, const char* field) -> const double* {
    if (!a) return nullptr;
    if (a->ndim() != 2 || a->shape(0) != batch)
      throw InputError(field, "must have " + std::to_string(batch) + " rows (one per batch item)");
    return a->data();
  };
  const double *q = rows(q0, "q0"), *v = rows(v0, "v0"), *p = rows(p0, "p0");
  const std::size_t nq = q0 ? static_cast<std::size_t>(q0->shape(1)) : 0,
                    nv = v0   ? static_cast<std::size_t>(v0->shape(1))
                         : p0 ? static_cast<std::size_t>(p0->shape(1))
                              : 0;
  if (restitution && (restitution->ndim() != 1 || restitution->shape(0) != batch))
    throw InputError("restitution", "must have shape (" + std::to_string(batch) + ",)");
  const std::size_t count = names.size();
  if (values.ndim() != 2 || values.shape(0) != batch || static_cast<std::size_t>(values.shape(1)) != count)
    throw InputError("params",
                     "must have shape (" + std::to_string(batch) + ", " + std::to_string(count) + ")");
  const double* r = restitution ? restitution->data() : nullptr;
  const double* table = values.data();
  std::vector<SimulateReport> reports(static_cast<std::size_t>(batch));
  {
    py::gil_scoped_release release;
    const SimulateRequest base = parse_simulate_request(text, {}, base_dir);
    const int nthreads = static_cast<int>(std::max(1L, std::min<long>(batch_thread_count(threads), batch)));
    for_each_batch_item(batch, nthreads, [&](long b, int /*thread*/) {
      const auto item = static_cast<std::size_t>(b);
      SimulateRequest request = base;
      if (q) request.q0.assign(q + item * nq, q + (item + 1) * nq);
      if (v) request.v0.assign(v + item * nv, v + (item + 1) * nv);
      if (p) request.p0.assign(p + item * nv, p + (item + 1) * nv);
      if (r) request.restitution = r[item];
      for (std::size_t j = 0; j < count; ++j) request.params.set(names[j], table[item * count + j]);
      reports[item] = run_simulation(request);
    });
  }
  py::list out;
  for (auto& report : reports) out.append(simulation_dict(std::move(report)));
  return out;
}

}  // namespace

void bind_mechanism(py::module_& m) {
  m.attr("no_contact_status") = kNoContactStatus;
  m.def("simulate_batch", &simulate_batch, py::arg("text"), py::arg("base_dir"), py::arg("q0"), py::arg("v0"),
        py::arg("p0"), py::arg("restitution"), py::arg("names"), py::arg("values"), py::arg("batch"),
        py::arg("threads"));
  py::class_<PyMechanism>(m, "Mechanism")
      .def(py::init<const std::string&, const std::vector<std::pair<std::string, std::string>>&,
                    const std::vector<std::string>&, double, const std::string&>(),
           py::arg("file"), py::arg("contacts"), py::arg("place"), py::arg("gap_tolerance"),
           py::arg("witnesses") = "all")
      .def_property_readonly("max_problem_rows",
                             [](const PyMechanism& p) { return p.mechanism().max_problem_rows(); })
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
      .def("evaluate",
           [](PyMechanism& p, const std::optional<Array>& q, const std::vector<std::string>& names,
              const Array& values, long batch, int threads) {
             checked_threads(threads);
             return p.evaluate(p.inputs(q, std::nullopt, false, std::nullopt, names, values, batch, "q"),
                               threads);
           })
      .def("place",
           [](PyMechanism& p, const std::optional<Array>& q, const std::vector<std::string>& names,
              const Array& values, long batch, int threads) {
             checked_threads(threads);
             return p.place(p.inputs(q, std::nullopt, false, std::nullopt, names, values, batch, "q"),
                            threads);
           })
      .def("resolve",
           [](PyMechanism& p, const std::optional<Array>& q, const std::optional<Array>& v, bool momentum,
              const std::optional<Array>& restitution, const std::vector<std::string>& names,
              const Array& values, long batch, const std::string& options_json, bool plastic,
              bool definition1, int threads) {
             checked_threads(threads);
             const ResolveOptions options = batch_options(options_json, plastic, definition1);
             return p.resolve(p.inputs(q, v, momentum, restitution, names, values, batch), options, threads);
           })
      .def("check",
           [](PyMechanism& p, const std::optional<Array>& q, const std::optional<Array>& v, bool momentum,
              const std::optional<Array>& restitution, const std::vector<std::string>& names,
              const Array& values, long batch, const Array& after, bool after_velocity,
              std::optional<double> tolerance, std::optional<double> consistency_tolerance,
              const std::string& options_json, bool plastic, bool definition1, int threads) {
             checked_threads(threads);
             const ResolveOptions options = batch_options(options_json, plastic, definition1);
             const ItemInputs in = p.inputs(q, v, momentum, restitution, names, values, batch);
             if (after.ndim() != 2 || after.shape(0) != batch || after.shape(1) != p.mechanism().nv())
               throw InputError(after_velocity ? "velocity_after" : "momentum_after",
                                "must have shape (" + std::to_string(batch) +
                                    ", nv = " + std::to_string(p.mechanism().nv()) + ")");
             const CheckBatchInput input{after.data(), after_velocity, tolerance, consistency_tolerance};
             return p.check(in, input, options, threads);
           });
}

}  // namespace simpact::python
