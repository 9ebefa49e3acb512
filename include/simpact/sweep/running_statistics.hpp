// Streaming statistics of one quantity over Monte Carlo replicas (Welford's update). The
// engine feeds replicas strictly in task order, so the result is bit-identical for any number of
// ranks, threads or chunk sizes. Non-finite values (e.g. ξ of a task with no elastic outcome)
// are not counted.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace simpact {

class RunningStatistics {
 public:
  void add(double x) {
    if (!std::isfinite(x)) return;
    ++count_;
    const double delta = x - mean_;
    mean_ += delta / static_cast<double>(count_);
    m2_ += delta * (x - mean_);
    min_ = std::min(min_, x);
    max_ = std::max(max_, x);
  }
  std::int64_t count() const { return count_; }
  double mean() const { return count_ > 0 ? mean_ : kNaN; }
  // Population standard deviation (0 for a single replica).
  double std() const {
    return count_ > 0 ? std::sqrt(std::max(0.0, m2_ / static_cast<double>(count_))) : kNaN;
  }
  double min() const { return count_ > 0 ? min_ : kNaN; }
  double max() const { return count_ > 0 ? max_ : kNaN; }

 private:
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::int64_t count_ = 0;
  double mean_ = 0.0;
  double m2_ = 0.0;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
};

}  // namespace simpact
