#include "simpact/study/batch_loop.hpp"

#include <omp.h>

#include "impact_batch_items.hpp"

namespace simpact {

void for_each_batch_item(long batch, int threads, const std::function<void(long item, int thread)>& body) {
  const int nthreads = batch_thread_count(threads);
  batch::FirstFailure failure;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
  for (long item = 0; item < batch; ++item) {
    try {
      body(item, omp_get_thread_num());
    } catch (...) {
      failure.record(item, std::current_exception());
    }
  }
  failure.rethrow();
}

}  // namespace simpact
