// Provenance of a run: this run's row (versions, hosts, Slurm job, ranks, threads, seed) and the
// rows of earlier runs and resumes, kept in <output>.journal/provenance.tsv until the file is
// complete (study/ only; not installed).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mpi_context.hpp"
#include "simpact/io/sweep_file.hpp"
#include "simpact/sweep/sweep_config.hpp"

namespace simpact::detail {

// UTC now, e.g. "2024-05-01T12:00:00Z".
std::string now_iso8601();

// This run's provenance (collective: gathers the host names); start time = now.
ProvenanceRow provenance_row(const Mpi& mpi, const SweepConfig& config, const std::string& command);

// Appends one row to <dir>/provenance.tsv (tab-separated, fields escaped of tabs/newlines).
void append_provenance_line(const std::string& dir, const ProvenanceRow& r);

// Every valid line of <dir>/provenance.tsv, in order; a line that does not parse (a torn last
// line from a kill, or damage) is dropped and counted in `dropped` — it never stops a resume.
std::vector<ProvenanceRow> read_provenance_lines(const std::string& dir, std::int64_t& dropped);

}  // namespace simpact::detail
