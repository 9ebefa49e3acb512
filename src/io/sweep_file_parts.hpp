// The parts of SweepFile's implementation kept in their own files (io/ only; not installed):
// the structure of a new file (sweep_file_structure.cpp) and the /provenance table
// (sweep_file_provenance.cpp).
#pragma once

#include <string>
#include <vector>

#include "hdf5_attributes.hpp"
#include "hdf5_handle.hpp"
#include "simpact/io/sweep_file.hpp"

namespace simpact::detail {

// Throws InputError/IoError for a layout that cannot be written (names, shapes, reserved names).
void validate(const SweepFileLayout& layout);

// Builds a new file through the serial driver (rank 0 only): groups, axes, empty maps and
// sample tables, config, parameters, progress and the root attributes (complete = 0). Returns
// it open with every object of the structure closed: a serial writer goes on with it.
h5::File build_structure(const std::string& path, const SweepFileLayout& layout);

// Writes 0, 1, ..., n-1 into a 1-D int64 dataset, a block at a time.
void write_iota(h5::Dataset& dataset, hsize_t n);

// The in-memory compound type of one /provenance row.
h5::Datatype provenance_memory_type();

// Replaces /provenance (and /run, /provenance_columns) of an open file with `rows`.
void write_provenance_rows(hid_t file, const std::vector<ProvenanceRow>& rows);

}  // namespace simpact::detail
