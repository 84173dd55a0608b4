#include "parallel.h"

#include <chrono>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace rdpkit::trees::internal {
namespace {
// Below this many rows a loop is cheaper than waking a worker.
constexpr std::size_t kMinRowsPerChunk = 4096;
// A waiting thread spins this long before it sleeps: the trainer hands out one short task per
// tree, and a condition-variable wake-up costs about as much as the task itself.
constexpr auto kSpinFor = std::chrono::microseconds(200);

void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// Spins until done() or kSpinFor has passed; true if done() became true. Every 64 turns it
// yields the core: where other processes hold the cores, a pure spin took the core of the thread
// it waits for (threads = 2 ran 5× slower than 1 on a 2-core machine with two busy processes).
template <typename Done>
bool SpinUntil(const Done& done) {
  const auto until = std::chrono::steady_clock::now() + kSpinFor;
  for (int i = 0;; ++i) {
    if (done()) return true;
    CpuRelax();
    if ((i & 63) == 63) {
      if (std::chrono::steady_clock::now() > until) return done();
      std::this_thread::yield();
    }
  }
}
}  // namespace

WorkerPool::WorkerPool(int threads) : threads_(threads < 1 ? 1 : threads) {
  for (int w = 1; w < threads_; ++w) workers_.emplace_back([this, w] { WorkerLoop(w); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true, std::memory_order_release);
  }
  start_.notify_all();
  for (auto& t : workers_) t.join();
}

int WorkerPool::Chunks(std::size_t n) const noexcept {
  if (threads_ == 1 || n < 2 * kMinRowsPerChunk) return 1;
  return threads_;
}

void WorkerPool::ParallelFor(std::size_t n,
                             const std::function<void(std::size_t, std::size_t, int)>& fn) {
  const int chunks = Chunks(n);
  if (chunks == 1) {
    fn(0, n, 0);
    return;
  }
  task_ = &fn;
  n_ = n;
  pending_.store(threads_ - 1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    generation_.fetch_add(1, std::memory_order_release);  // publishes task_ and n_
  }
  start_.notify_all();
  const std::size_t per = n / static_cast<std::size_t>(threads_);
  fn(0, per, 0);
  const auto finished = [this] { return pending_.load(std::memory_order_acquire) == 0; };
  if (!SpinUntil(finished)) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, finished);
  }
  task_ = nullptr;
}

void WorkerPool::WorkerLoop(int worker) {
  unsigned long long seen = 0;
  for (;;) {
    const auto ready = [&] {
      return stop_.load(std::memory_order_acquire) ||
             generation_.load(std::memory_order_acquire) != seen;
    };
    if (!SpinUntil(ready)) {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, ready);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = generation_.load(std::memory_order_acquire);
    const auto* task = task_;
    const std::size_t n = n_;
    const auto w = static_cast<std::size_t>(worker);
    const auto t = static_cast<std::size_t>(threads_);
    const std::size_t per = n / t;
    const std::size_t begin = per * w;
    const std::size_t end = w + 1 == t ? n : per * (w + 1);
    (*task)(begin, end, worker);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mutex_);  // pairs with the waiter's predicate check
      done_.notify_one();
    }
  }
}

}  // namespace rdpkit::trees::internal
