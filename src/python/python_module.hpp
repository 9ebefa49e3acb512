// Private to src/python/: the NumPy and dict conversions of study/'s results, and the pieces of
// the module defined in their own files (module.cpp registers them).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <utility>
#include <vector>

#include "buffer_pool.hpp"
#include "simpact/core/impact_resolution.hpp"
#include "simpact/study/design_service.hpp"
#include "simpact/study/impact_batch.hpp"
#include "simpact/study/result_info.hpp"
#include "simpact/study/simulate_service.hpp"
#include "simpact/study/sweep_session.hpp"

namespace simpact::python {

namespace py = pybind11;

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

// A NumPy array owning `values` (moved, not copied) with the given shape; its storage goes back
// to the BufferPool when Python frees it.
template <typename T>
py::array_t<T> to_numpy(std::vector<T>&& values, std::vector<py::ssize_t> shape) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule free_when_done(owned, [](void* p) {
    auto* v = static_cast<std::vector<T>*>(p);
    BufferPool::give(std::move(*v));
    delete v;
  });
  return py::array_t<T>(shape, owned->data(), free_when_done);
}

// A result for `batch` items of `dof` and `contacts` whose vectors come from the BufferPool, with
// room for about `outcomes_per_item` outcome rows per item (what resolve_batch writes into).
ImpactBatchResult pooled_result(long batch, int dof, int contacts, std::size_t outcomes_per_item);
// Its vectors back to the BufferPool (a batch that threw).
void recycle(ImpactBatchResult&& r);

// The batch services' arrays by name (simpact.Resolution / simpact.Check fields).
py::dict resolution_dict(ImpactBatchResult&& r);
py::dict check_dict(CheckBatchResult&& c);
// `simpact simulate`'s report as NumPy: the records as arrays over the recorded steps.
py::dict simulation_dict(SimulateReport&& r);
// `simpact design`'s report: the rows ("initial", "optimized") as dicts.
py::dict design_dict(const DesignReport& r);
// simpact.run's summary.
py::dict run_summary_dict(const ConfigRunResult& r);
// `simpact info --json`'s document, key for key, from the same study summary.
py::dict result_info_dict(const ResultInfo& info);

// A request's options (ordering, minimality, seed, limits: the JSON reader of `simpact resolve`)
// with the two a batch may switch off: the plastic outcome p_p (computed all the same when R < 1)
// and the Definition 1 test of each outcome (forced by minimality "definition1").
ResolveOptions batch_options(const std::string& options_json, bool plastic, bool definition1);

// The most OpenMP threads a call may ask for: `simpact run --threads`'s bound.
constexpr int kMaxThreads = 1024;

// `threads` as a call's argument (<= 0: OpenMP's default), checked: at most kMaxThreads, and no
// more than this process can start. libgomp ends the process ("libgomp: Thread creation failed",
// exit 1) when a thread of a parallel region cannot start (an address-space limit, a thread
// cap), so a count above the largest proven here is first tried with threads of libgomp's stack
// size: too many threads raise InputError("threads") instead of ending the interpreter.
int checked_threads(int threads);

// simpact._simpact.Mechanism (mechanism_binding.cpp).
void bind_mechanism(py::module_& m);

}  // namespace simpact::python
