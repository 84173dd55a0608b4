// The Communicator of a run started by mpirun (docs/distributed.md): MPI_COMM_WORLD. Built only
// with -DRDPKIT_WITH_MPI=ON, as the library rdpkit::trees_mpi (Debian: libopenmpi-dev).
#ifndef RDPKIT_TREES_MPI_COMMUNICATOR_H_
#define RDPKIT_TREES_MPI_COMMUNICATOR_H_

#include <cstddef>
#include <cstdint>

#include "rdpkit/trees/communicator.h"

namespace rdpkit::trees {

class MpiCommunicator final : public Communicator {
 public:
  // Initialises MPI unless it already is (then also leaves finalising to the caller).
  MpiCommunicator();
  ~MpiCommunicator() override;  // MPI_Finalize if this object initialised MPI
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void AllreduceSum(double* values, std::size_t n) override;
  void AllreduceSumModular(std::uint64_t* values, std::size_t n) override;
  void Broadcast(void* bytes, std::size_t n, int root) override;
  void Send(const void* bytes, std::size_t n, int to) override;
  void Receive(void* bytes, std::size_t n, int from) override;
  // Ends every rank of the job with this exit status (a failed rank must not leave the others
  // waiting in a collective).
  [[noreturn]] void Abort(int status);

  // Whether the environment shows a launch by an MPI starter (mpirun, srun): OMPI_COMM_WORLD_SIZE,
  // PMIX_RANK, PMI_RANK or PMI_SIZE is set.
  static bool Launched();

 private:
  int rank_ = 0;
  int size_ = 1;
  bool finalize_ = false;
};

}  // namespace rdpkit::trees

#endif  // RDPKIT_TREES_MPI_COMMUNICATOR_H_
