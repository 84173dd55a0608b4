// How the ranks of a distributed training run talk (docs/distributed.md): every rank holds its own
// rows, and the trainer's query plan combines the per-rank sums through a Communicator before it
// releases them. Two implementations: MpiCommunicator (rdpkit/trees/mpi_communicator.h, built with
// -DRDPKIT_WITH_MPI=ON) and InProcessGroup below (K parties as threads of one process: tests and
// the federated simulation). A run without a communicator is the single-process trainer.
#ifndef RDPKIT_TREES_COMMUNICATOR_H_
#define RDPKIT_TREES_COMMUNICATOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace rdpkit::trees {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Element-wise sum over the ranks; every rank receives the sum. The summation order is the
  // implementation's: ranks may differ in the last bits, so the trainer broadcasts what it
  // releases from rank 0.
  virtual void AllreduceSum(double* values, std::size_t n) = 0;
  // Element-wise sum modulo 2^64 (exact, the same on every rank): secure aggregation.
  virtual void AllreduceSumModular(std::uint64_t* values, std::size_t n) = 0;
  // Rank root's bytes to every rank.
  virtual void Broadcast(void* bytes, std::size_t n, int root) = 0;
  // Point-to-point bytes between two ranks (the pairwise mask keys of secure aggregation).
  virtual void Send(const void* bytes, std::size_t n, int to) = 0;
  virtual void Receive(void* bytes, std::size_t n, int from) = 0;

  // Payload bytes this rank has handed to the calls above (what it sends, not what a
  // collective's algorithm forwards): the communication volume of a run.
  std::uint64_t bytes_sent() const noexcept { return bytes_sent_; }

 protected:
  void CountBytes(std::size_t n) noexcept { bytes_sent_ += n; }

 private:
  std::uint64_t bytes_sent_ = 0;
};

// Sum over the ranks of a count (rows, clipped values): exact for counts below 2^53.
std::uint64_t SumOverRanks(Communicator& communicator, std::uint64_t count);

// K parties as threads of one process (docs/distributed.md "Federated simulation"). Run(fn) starts
// K threads, calls fn(communicator of rank k) on thread k and returns when all have; an exception
// thrown on any thread is rethrown by Run (the lowest rank's first) after every thread has ended.
// Collectives sum in rank order, so every rank gets the same bits.
class InProcessGroup {
 public:
  explicit InProcessGroup(int size);
  ~InProcessGroup();
  InProcessGroup(const InProcessGroup&) = delete;
  InProcessGroup& operator=(const InProcessGroup&) = delete;

  int size() const noexcept { return size_; }
  void Run(const std::function<void(Communicator&)>& fn);
  // What rank k handed to AllreduceSumModular, call by call (tests of secure aggregation: the
  // masked vectors each rank lets the others see).
  const std::vector<std::vector<std::uint64_t>>& modular_inputs(int rank) const;

 private:
  class Member;
  struct Shared;
  int size_;
  std::unique_ptr<Shared> shared_;
};

}  // namespace rdpkit::trees

#endif  // RDPKIT_TREES_COMMUNICATOR_H_
