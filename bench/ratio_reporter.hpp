// The console output of a benchmark program, then ratios of its benchmarks' times: each bench
// prints its own (core against the flat reference, robots against mj_forward) from the times kept
// here. Other output formats (csv, json) are read by scripts and get no extra lines.
#pragma once

#include <benchmark/benchmark.h>

#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace simpact::bench {

// Keeps each benchmark's CPU time per item [ns] (the median when --benchmark_repetitions gives one).
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred || (run.run_type == Run::RT_Aggregate && run.aggregate_name != "median"))
        continue;
      const auto it = run.counters.find("items_per_second");
      if (it != run.counters.end() && it->second.value > 0)
        ns_[run.run_name.function_name] = 1e9 / it->second.value;
    }
  }
  // 0 when the benchmark did not run (filtered out, or failed).
  double ns(const std::string& name) const {
    const auto it = ns_.find(name);
    return it == ns_.end() ? 0.0 : it->second;
  }

 private:
  std::map<std::string, double> ns_;
};

// A benchmark program's main: runs them, then `print_ratios` on a console run.
inline int run_with_ratios(int argc, char** argv,
                           const std::function<void(const RatioReporter&)>& print_ratios) {
  bool console = true;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_format=", 19) == 0 && std::strcmp(argv[i] + 19, "console") != 0)
      console = false;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (console) {
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    print_ratios(reporter);
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
  benchmark::Shutdown();
  return 0;
}

}  // namespace simpact::bench
