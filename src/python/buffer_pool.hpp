// Private to src/python/: the storage of result arrays Python has freed, kept for the next batch.
// A batch's results are fresh arrays (1e5 billiards impacts: ~45 MB); filling freshly mapped
// memory costs a page fault per 4 KiB page (~11 000 per call: as much CPU time as the impact
// arithmetic). to_numpy's arrays give their vector back here when Python frees them, and the next
// batch takes its vectors from here (best fit by capacity), pages already mapped. At most
// kMaxBytes are kept; the rest is freed as usual.
#pragma once

#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

namespace simpact::python {

class BufferPool {
 public:
  static constexpr std::size_t kMaxBytes = std::size_t{256} << 20;

  // A vector with capacity >= `capacity` from the pool (the smallest such), or an empty one.
  template <typename T>
  static std::vector<T> take(std::size_t capacity) {
    const std::lock_guard<std::mutex> lock(mutex());
    auto& list = free_list<T>();
    std::size_t best = list.size();
    for (std::size_t i = 0; i < list.size(); ++i)
      if (list[i].capacity() >= capacity &&
          (best == list.size() || list[i].capacity() < list[best].capacity()))
        best = i;
    if (best == list.size()) return {};
    std::vector<T> v = std::move(list[best]);
    list[best] = std::move(list.back());
    list.pop_back();
    bytes() -= v.capacity() * sizeof(T);
    v.clear();
    return v;
  }

  // Keeps `v`'s storage for a later take (freed instead once the pool holds kMaxBytes).
  template <typename T>
  static void give(std::vector<T>&& v) {
    const std::size_t size = v.capacity() * sizeof(T);
    const std::lock_guard<std::mutex> lock(mutex());
    if (size == 0 || bytes() + size > kMaxBytes) return;  // v frees its storage on return
    bytes() += size;
    free_list<T>().push_back(std::move(v));
  }

 private:
  template <typename T>
  static std::vector<std::vector<T>>& free_list() {
    static std::vector<std::vector<T>> list;
    return list;
  }
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::size_t& bytes() {
    static std::size_t b = 0;
    return b;
  }
};

}  // namespace simpact::python
