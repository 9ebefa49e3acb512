// simpact._simpact.Mechanism: a loaded mechanism file (Python's simpact.Mechanism wraps it).
#include <pybind11/stl.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "python_module.hpp"
#include "simpact/models/mujoco_mechanism.hpp"

namespace simpact::python {

namespace {

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

void bind_mechanism(py::module_& m) {
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
              long batch, const std::string& options_json, bool plastic, bool definition1, int threads) {
             checked_threads(threads);
             const ResolveOptions options = batch_options(options_json, plastic, definition1);
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
              std::optional<double> consistency_tolerance, const std::string& options_json, bool plastic,
              bool definition1, int threads) {
             checked_threads(threads);
             const ResolveOptions options = batch_options(options_json, plastic, definition1);
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

}  // namespace simpact::python
