// HDF5 output of `simpact simulate -o OUT.h5` (the same run as the JSON output, as arrays):
//   /                 attributes: format = "simpact-simulate", model, dof, dt, steps, ordering,
//                     restitution, max_energy_drift, newton_mean, newton_max, status = "ok",
//                     coordinates (string array), complete = 1 (written last)
//   /records/step     int64 [R]      dimension scale "step" of dimension 0 below
//   /records/t        float64 [R]    dimension scale "t" of dimension 0 below [s]
//   /records/q, /records/p  float64 [R, dof]   (attribute `coordinates` on each)
//   /records/energy   float64 [R] [J]
//   /impacts/step int64 [I], t, energy_before, energy_after, restitution float64 [I],
//            plastic, zeno uint8 [I], momentum_before, momentum_after float64 [I, dof],
//            contacts, sequence int32 [Σ] with contacts_offsets, sequence_offsets int64 [I+1]
//            (impact i's list is [offsets[i], offsets[i+1])), status: string array attribute.
// Safety as for every simpact output: the file is built under an exclusively created temporary
// name beside the target and renamed over it only when complete; an output path that is a
// symbolic link or not a regular file is refused (never written through).
#pragma once

#include <string>

#include "simpact/io/simulate_json.hpp"

namespace simpact {

// Throws IoError.
void write_simulation_hdf5(const std::string& path, const SimulateRequest& request,
                           const SimulateReport& report);

}  // namespace simpact
