// The at-end analysis of a staged result, shared by `run` (sweep_session) and `merge`.
#include <fmt/format.h>

#include "simpact/core/input_error.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/study/sweep_analysis.hpp"

namespace simpact {

std::vector<std::string> analyze_staged_result(const std::string& staged, const SweepConfig& config,
                                               const std::string& output) {
  AnalyzeOverrides in_place;
  in_place.in_place = true;
  try {
    return analyze_result(staged, config, in_place).lines;
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw IoError(fmt::format("analysis of {}: {}", output, e.what()));
  }
}

}  // namespace simpact
