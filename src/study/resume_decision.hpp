// Whether a run may start on its output, and how: fresh, resumed from the journal, or already
// complete (rank 0, before anything is written; study/ only; not installed).
#pragma once

#include <string>

#include "simpact/io/chunk_journal.hpp"
#include "simpact/io/safe_file.hpp"
#include "simpact/study/sweep_runner.hpp"

namespace simpact::detail {

// How a run starts on its output (its int value is what rank 0 broadcasts).
enum class RunMode : int {
  kFresh = 0,            // compute every task into a new journal
  kResume = 1,           // the journal's finished chunks are kept, the rest computed
  kAlreadyComplete = 2,  // the output is complete: nothing to do
};

// Rank 0: may this run start, and how? Takes the output's lock. Returns the one-line refusal,
// or "". A refusal changes no file of the journal (only its lock file comes and goes); stale
// staging files of a killed run are removed once the run is accepted.
std::string decide_mode(const std::string& path, const std::string& journal, const SweepConfig& config,
                        const TaskKernel& kernel, const JournalManifest& manifest,
                        const SweepRunOptions& options, OutputLock& lock, RunMode& mode);

}  // namespace simpact::detail
