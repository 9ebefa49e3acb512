// The periodic "progress: done/total tasks, rate, ETA" log line of a running sweep (study/ only;
// not installed).
#pragma once

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace simpact::detail {

class ProgressLog {
 public:
  // `already`: tasks finished before this run (--resume); rate and ETA count only this run's work.
  ProgressLog(std::int64_t total_tasks, std::int64_t already, double interval)
      : total_(total_tasks), already_(already), interval_(interval) {}
  void update(std::int64_t done_tasks) {
    const auto now = std::chrono::steady_clock::now();
    const double since = std::chrono::duration<double>(now - last_).count();
    if (since < interval_ || done_tasks >= total_) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double rate = elapsed > 0 ? static_cast<double>(done_tasks - already_) / elapsed : 0.0;
    const double eta = rate > 0 ? (total_ - done_tasks) / rate : 0.0;
    spdlog::info("progress: {}/{} tasks ({:.1f}%), {:.0f} tasks/s, ETA {:.0f} s", done_tasks, total_,
                 100.0 * done_tasks / std::max<std::int64_t>(1, total_), rate, eta);
  }

 private:
  std::int64_t total_;
  std::int64_t already_;
  double interval_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace simpact::detail
