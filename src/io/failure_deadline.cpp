#include "failure_deadline.hpp"  // private to io/ (not installed)

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace simpact::h5 {

double FailureDeadline::seconds() {
  if (const char* text = std::getenv("SIMPACT_FAILURE_DEADLINE_S")) {
    char* end = nullptr;
    const double s = std::strtod(text, &end);
    if (end != text && *end == '\0' && s > 0 && s < 86400) return s;
  }
  return 10.0;
}

FailureDeadline::FailureDeadline(std::string message, bool print) {
  const auto limit = std::chrono::duration<double>(seconds());
  watcher_ = std::thread([this, limit, message = std::move(message), print] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (cv_.wait_for(lock, limit, [this] { return disarmed_; })) return;
    if (print) {
      std::fprintf(stderr, "simpact: error: %s (the other ranks did not finish the failed step in %.0f s)\n",
                   message.c_str(), limit.count());
      std::fflush(stderr);
    }
    std::_Exit(1);  // no destructors, no MPI_Finalize: they would wait on the stuck ranks
  });
}

FailureDeadline::~FailureDeadline() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    disarmed_ = true;
  }
  cv_.notify_one();
  watcher_.join();
}

}  // namespace simpact::h5
