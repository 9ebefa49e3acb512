// `simpact analyze RESULT.h5` and the end-of-run analysis of `simpact run`: Sobol' indices
// (Saltelli design) or elementary effects (Morris, radial) of the config's outputs, per grid
// point, computed from /samples in task order — a pure function of the file's contents, so the
// same for any ranks, threads, shards or resumes — and written to /sensitivity/<output>/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "simpact/io/safe_file.hpp"
#include "simpact/io/sweep_config_yaml.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

struct AnalyzeOverrides {
  std::vector<std::string> outputs;  // empty: the config's sensitivity.outputs (else all scalars)
  std::optional<std::int64_t> bootstrap;
  std::optional<std::uint64_t> seed;
  std::optional<double> confidence;
  // Write /sensitivity into the file itself (run's staged file, discarded on failure) rather
  // than through a copy that replaces it when complete.
  bool in_place = false;
  // The file's identity when the caller first read it (its config): the copy replaces the file
  // only if it is still that one, unchanged (write_sensitivity).
  std::optional<FileIdentity> read_as;
};

// "" when every name in config.sensitivity.outputs is a scalar result of `kernel`, else one
// line naming the field and the allowed names.
std::string check_sensitivity_outputs(const SweepConfig& config, const TaskKernel& kernel);

struct AnalyzeSummary {
  std::vector<std::string> lines;  // one per output: what was written, headline numbers
};

// Analyses a complete result file of `config`. Throws InputError (bad output name, a config
// without a sensitivity design) or IoError.
AnalyzeSummary analyze_result(const std::string& path, const SweepConfig& config,
                              const AnalyzeOverrides& overrides);

// sensitivity.at_end of `run` and `merge`: the staged file analysed in place before it is published
// as `output`; the summary lines. InputError passes through; any other failure is an IoError
// naming `output`.
std::vector<std::string> analyze_staged_result(const std::string& staged, const SweepConfig& config,
                                               const std::string& output);

}  // namespace simpact
