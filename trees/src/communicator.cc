// InProcessGroup: K parties as threads, with collectives over shared memory (communicator.h).
#include "rdpkit/trees/communicator.h"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/mechanisms/thread_caches.h"

namespace rdpkit::trees {
namespace {

// Thrown on the ranks still waiting when another rank has failed, so that no thread waits forever.
struct GroupAborted : std::runtime_error {
  GroupAborted() : std::runtime_error("another rank of the group failed") {}
};

}  // namespace

std::uint64_t SumOverRanks(Communicator& communicator, std::uint64_t count) {
  std::uint64_t value = count;
  communicator.AllreduceSumModular(&value, 1);  // exact; no count of a run reaches 2^64
  return value;
}

struct InProcessGroup::Shared {
  explicit Shared(int size) : slots(static_cast<std::size_t>(size)), inputs(slots.size()) {}
  std::mutex mutex;
  std::condition_variable changed;
  int arrived = 0;
  std::uint64_t generation = 0;
  bool aborted = false;
  std::vector<const void*> slots;  // each rank's contribution to the current collective
  std::map<std::pair<int, int>, std::deque<std::vector<unsigned char>>> mail;  // (from, to)
  std::vector<std::vector<std::vector<std::uint64_t>>> inputs;  // modular inputs, per rank

  // Every rank arrives before any leaves; throws GroupAborted once a rank has failed.
  void Barrier() {
    std::unique_lock<std::mutex> lock(mutex);
    if (aborted) throw GroupAborted();
    const std::uint64_t mine = generation;
    if (++arrived == static_cast<int>(slots.size())) {
      arrived = 0;
      ++generation;
      changed.notify_all();
      return;
    }
    changed.wait(lock, [&] { return aborted || generation != mine; });
    if (generation == mine) throw GroupAborted();
  }
  void Abort() {
    std::lock_guard<std::mutex> lock(mutex);
    aborted = true;
    changed.notify_all();
  }
};

class InProcessGroup::Member final : public Communicator {
 public:
  Member(Shared& shared, int rank) : shared_(shared), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(shared_.slots.size()); }

  void AllreduceSum(double* values, std::size_t n) override {
    CountBytes(n * sizeof(double));
    Reduce(values, n, [](double* out, const double* in, std::size_t k) {
      for (std::size_t i = 0; i < k; ++i) out[i] += in[i];
    });
  }
  void AllreduceSumModular(std::uint64_t* values, std::size_t n) override {
    CountBytes(n * sizeof(std::uint64_t));
    {
      std::lock_guard<std::mutex> lock(shared_.mutex);
      shared_.inputs[static_cast<std::size_t>(rank_)].emplace_back(values, values + n);
    }
    Reduce(values, n, [](std::uint64_t* out, const std::uint64_t* in, std::size_t k) {
      for (std::size_t i = 0; i < k; ++i) out[i] += in[i];  // unsigned: modulo 2^64
    });
  }
  void Broadcast(void* bytes, std::size_t n, int root) override {
    if (rank_ == root) CountBytes(n);
    shared_.slots[static_cast<std::size_t>(rank_)] = bytes;
    shared_.Barrier();
    if (rank_ != root) std::memcpy(bytes, shared_.slots[static_cast<std::size_t>(root)], n);
    shared_.Barrier();
  }
  void Send(const void* bytes, std::size_t n, int to) override {
    CountBytes(n);
    const auto* first = static_cast<const unsigned char*>(bytes);
    std::lock_guard<std::mutex> lock(shared_.mutex);
    shared_.mail[{rank_, to}].emplace_back(first, first + n);
    shared_.changed.notify_all();
  }
  void Receive(void* bytes, std::size_t n, int from) override {
    std::unique_lock<std::mutex> lock(shared_.mutex);
    auto& box = shared_.mail[{from, rank_}];
    shared_.changed.wait(lock, [&] { return shared_.aborted || !box.empty(); });
    if (box.empty()) throw GroupAborted();
    RDPKIT_CHECK(box.front().size() == n);
    std::memcpy(bytes, box.front().data(), n);
    box.pop_front();
  }

 private:
  // Every rank publishes its vector, then each sums all of them in rank order into a copy (the
  // same bits everywhere) and writes it back after a second barrier.
  template <class T, class Add>
  void Reduce(T* values, std::size_t n, const Add& add) {
    shared_.slots[static_cast<std::size_t>(rank_)] = values;
    shared_.Barrier();
    std::vector<T> sum(static_cast<const T*>(shared_.slots[0]),
                       static_cast<const T*>(shared_.slots[0]) + n);
    for (std::size_t r = 1; r < shared_.slots.size(); ++r) {
      add(sum.data(), static_cast<const T*>(shared_.slots[r]), n);
    }
    shared_.Barrier();
    std::copy(sum.begin(), sum.end(), values);
  }

  Shared& shared_;
  int rank_;
};

InProcessGroup::InProcessGroup(int size) : size_(size) {
  if (size < 1) throw InvalidArgument("ranks", std::to_string(size), "[1, inf)");
  shared_ = std::make_unique<Shared>(size);
}

InProcessGroup::~InProcessGroup() = default;

void InProcessGroup::Run(const std::function<void(Communicator&)>& fn) {
  shared_ = std::make_unique<Shared>(size_);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(size_));
  std::vector<std::thread> threads;
  for (int k = 0; k < size_; ++k) {
    threads.emplace_back([this, k, &fn, &errors] {
      Member member(*shared_, k);
      try {
        fn(member);
      } catch (const GroupAborted&) {
        // another rank's failure, reported by that rank
      } catch (...) {
        errors[static_cast<std::size_t>(k)] = std::current_exception();
        shared_->Abort();
      }
      // The party's calibration and noise filled this thread's MPFR caches.
      mechanisms::ReleaseThreadCaches();
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

const std::vector<std::vector<std::uint64_t>>& InProcessGroup::modular_inputs(int rank) const {
  return shared_->inputs.at(static_cast<std::size_t>(rank));
}

}  // namespace rdpkit::trees
