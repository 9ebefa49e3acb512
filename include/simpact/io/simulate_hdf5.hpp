// HDF5 output of `simpact simulate -o OUT.h5` (the same run as the JSON output, as arrays):
//   netCDF-4 / CF-1.8 (ncdump and xarray, both engines, read every group): each dimension has a
//   dimension scale of its own name in the group using it, every variable units + long_name.
//   /                 attributes: format = "simpact-simulate", Conventions = "CF-1.8", model, dof,
//                     dt, steps, ordering, restitution, max_energy_drift, newton_mean, newton_max,
//                     status = "ok", coordinate_names, coordinate_units (string arrays),
//                     complete = 1 (written last)
//   /records/record   int64 [R] 0..R-1, dimension `record`; step int64 [R], t float64 [R] [s]
//                     (auxiliary coordinates: `coordinates = "step t"` on q, p, energy)
//   /records/coordinate  string [dof], dimension `coordinate` (the coordinate names);
//                     coordinate_units string [dof] ("m", "rad", or "unknown")
//   /records/q, /records/p  float64 [R, dof]: units when every coordinate has the same, else
//                     attribute units_per_coordinate
//   /records/energy   float64 [R] [J]
//   /impacts/impact int64 [I] (dimension), coordinate as above; step int64 [I], t, energy_before,
//            energy_after, restitution float64 [I], plastic, zeno uint8 [I], impact_status
//            string [I], momentum_before, momentum_after float64 [I, dof], contacts, sequence int32
//            [Σ] (dimensions contact_entry, sequence_entry) with contacts_offsets, sequence_offsets
//            int64 [I+1] (dimension impact_bound; impact i's list is [offsets[i], offsets[i+1])),
//            status: string array attribute.
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
