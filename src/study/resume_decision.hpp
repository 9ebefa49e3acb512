// Whether a run may start on its output, and how: fresh, resumed from the journal, or already
// complete (rank 0, before anything is written; study/ only; not installed).
#pragma once

#include <string>

#include "simpact/io/chunk_journal.hpp"
#include "simpact/io/safe_file.hpp"
#include "simpact/study/sweep_runner.hpp"

namespace simpact::detail {

// Rank 0: may this run start, and how (mode 0 fresh, 1 resume from the journal, 2 already
// complete)? Takes the output's lock. Returns the one-line refusal, or "".
std::string decide_mode(const std::string& path, const std::string& journal, const SweepConfig& config,
                        const TaskKernel& kernel, const JournalManifest& manifest,
                        const SweepRunOptions& options, OutputLock& lock, int& mode);

}  // namespace simpact::detail
