// A small persistent worker pool for the trainer's row loops (private to the trees module).
#ifndef RDPKIT_TREES_SRC_PARALLEL_H_
#define RDPKIT_TREES_SRC_PARALLEL_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace rdpkit::trees::internal {

class WorkerPool {
 public:
  // threads ≥ 1; threads − 1 workers are started, the caller is the last one.
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int threads() const noexcept { return threads_; }
  // Splits [0, n) into threads() contiguous chunks (chunk w is fixed by n and w alone, so results
  // that are reduced in chunk order are deterministic) and runs fn(begin, end, w) on each.
  // Small n runs inline as one chunk.
  void ParallelFor(std::size_t n, const std::function<void(std::size_t, std::size_t, int)>& fn);
  // Number of chunks ParallelFor(n, …) uses.
  int Chunks(std::size_t n) const noexcept;

 private:
  void WorkerLoop(int worker);

  int threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  const std::function<void(std::size_t, std::size_t, int)>* task_ = nullptr;
  std::size_t n_ = 0;
  std::atomic<unsigned long long> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_PARALLEL_H_
