// Streaming statistics of one quantity over Monte Carlo replicas (Welford's update), and the
// merge of two such partial statistics (Chan et al.'s pairwise update). The engine folds each
// chunk's replicas in task order and merges the chunks' partials in chunk order; chunks are fixed
// by the config, so the result is bit-identical for any number of ranks, threads or restarts.
// Merging into an empty set copies the partial, so a grid point inside one chunk gets exactly
// the sequential fold's bits. Non-finite values (e.g. ξ of a task with no elastic outcome) are
// not counted.
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
  // Adds the values summarised by `o` (as if they followed this set's values).
  void merge(const RunningStatistics& o) {
    if (o.count_ == 0) return;
    if (count_ == 0) {
      *this = o;
      return;
    }
    const std::int64_t n = count_ + o.count_;
    const double delta = o.mean_ - mean_;
    const double weight = static_cast<double>(o.count_) / static_cast<double>(n);
    mean_ += delta * weight;
    m2_ += o.m2_ + delta * delta * static_cast<double>(count_) * weight;
    count_ = n;
    min_ = std::min(min_, o.min_);
    max_ = std::max(max_, o.max_);
  }
  // The raw state (for the journal): count, running mean, sum of squared deviations, min, max.
  struct State {
    std::int64_t count;
    double mean, m2, min, max;
  };
  State state() const { return {count_, mean_, m2_, min_, max_}; }
  static RunningStatistics from_state(const State& s) {
    RunningStatistics r;
    r.count_ = s.count;
    r.mean_ = s.mean;
    r.m2_ = s.m2;
    r.min_ = s.min;
    r.max_ = s.max;
    return r;
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
