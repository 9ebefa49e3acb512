// checked_threads: a call's `threads` bounded, and proven startable before OpenMP is asked for it
// (python_module.hpp says why).
#include <pthread.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "python_module.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/study/impact_batch.hpp"

namespace simpact::python {

namespace {

// libgomp's stack size for its threads: OMP_STACKSIZE (or GOMP_STACKSIZE), "N[B|K|M|G]" with K by
// default; 0 when neither is set (libgomp then takes pthread's default, as the probe does).
std::size_t openmp_stack_size() {
  for (const char* name : {"OMP_STACKSIZE", "GOMP_STACKSIZE"}) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') continue;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text, &end, 10);
    while (*end == ' ') ++end;
    unsigned shift = 10;
    switch (std::toupper(static_cast<unsigned char>(*end))) {
      case 'B':
        shift = 0;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      default:
        break;
    }
    if (value > 0 && value < (1ULL << (63 - shift))) return static_cast<std::size_t>(value << shift);
  }
  return 0;
}

void* probe_thread(void*) {
  return nullptr;
}

// Starts count - 1 threads (the calling thread is the region's first) that all exist at once:
// an exited thread keeps its stack until joined. Returns "" or why a thread could not start.
std::string start_threads(int count) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (const std::size_t stack = openmp_stack_size(); stack > 0) pthread_attr_setstacksize(&attr, stack);
  std::vector<pthread_t> started;
  started.reserve(static_cast<std::size_t>(count));
  std::string failure;
  for (int i = 1; i < count && failure.empty(); ++i) {
    pthread_t thread;
    const int err = pthread_create(&thread, &attr, probe_thread, nullptr);
    if (err != 0)
      failure = "thread " + std::to_string(i + 1) + " could not start: " + std::strerror(err);
    else
      started.push_back(thread);
  }
  for (pthread_t thread : started) pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  return failure;
}

}  // namespace

int checked_threads(int threads) {
  if (threads > kMaxThreads)
    throw InputError("threads", "must be an integer <= " + std::to_string(kMaxThreads) +
                                    " (0 or less: OpenMP's default) (got " + std::to_string(threads) + ")");
  const int count = batch_thread_count(threads);
  static std::mutex mutex;
  static int proven = 1;  // the largest count started here
  const std::lock_guard<std::mutex> lock(mutex);
  if (count <= proven) return threads;
  const std::string failure = start_threads(count);
  if (!failure.empty())
    throw InputError("threads", "cannot start " + std::to_string(count) + " threads in this process (" +
                                    failure + (threads > 0 ? "" : "; the count is OMP_NUM_THREADS's") +
                                    "): ask for fewer");
  proven = count;
  return threads;
}

}  // namespace simpact::python
