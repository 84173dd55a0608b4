// MpiCommunicator over MPI_COMM_WORLD (mpi_communicator.h).
#include "rdpkit/trees/mpi_communicator.h"

#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace rdpkit::trees {
namespace {

// MPI counts are ints: large vectors go in pieces of at most this many elements.
constexpr std::size_t kMaxPiece = INT_MAX / 8;

void Check(int status, const char* what) {
  if (status != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

// Element-wise sum modulo 2^64, whatever the MPI library does with unsigned overflow.
void AddModular(void* in, void* inout, int* count, MPI_Datatype*) {
  const auto* a = static_cast<const std::uint64_t*>(in);
  auto* b = static_cast<std::uint64_t*>(inout);
  for (int i = 0; i < *count; ++i) b[i] += a[i];
}

template <class Fn>
void InPieces(std::size_t n, const Fn& fn) {
  for (std::size_t first = 0; first < n; first += kMaxPiece) {
    fn(first, static_cast<int>(std::min(kMaxPiece, n - first)));
  }
}

}  // namespace

bool MpiCommunicator::Launched() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

MpiCommunicator::MpiCommunicator() {
  int initialized = 0;
  Check(MPI_Initialized(&initialized), "MPI_Initialized");
  if (!initialized) {
    Check(MPI_Init(nullptr, nullptr), "MPI_Init");
    finalize_ = true;
  }
  Check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  Check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
}

MpiCommunicator::~MpiCommunicator() {
  if (finalize_) MPI_Finalize();
}

void MpiCommunicator::AllreduceSum(double* values, std::size_t n) {
  CountBytes(n * sizeof(double));
  InPieces(n, [&](std::size_t first, int count) {
    Check(MPI_Allreduce(MPI_IN_PLACE, values + first, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
          "MPI_Allreduce");
  });
}

void MpiCommunicator::AllreduceSumModular(std::uint64_t* values, std::size_t n) {
  CountBytes(n * sizeof(std::uint64_t));
  MPI_Op op;
  Check(MPI_Op_create(&AddModular, /*commute=*/1, &op), "MPI_Op_create");
  InPieces(n, [&](std::size_t first, int count) {
    Check(MPI_Allreduce(MPI_IN_PLACE, values + first, count, MPI_UINT64_T, op, MPI_COMM_WORLD),
          "MPI_Allreduce");
  });
  MPI_Op_free(&op);
}

void MpiCommunicator::Broadcast(void* bytes, std::size_t n, int root) {
  if (rank_ == root) CountBytes(n);
  InPieces(n, [&](std::size_t first, int count) {
    Check(MPI_Bcast(static_cast<char*>(bytes) + first, count, MPI_BYTE, root, MPI_COMM_WORLD),
          "MPI_Bcast");
  });
}

void MpiCommunicator::Send(const void* bytes, std::size_t n, int to) {
  CountBytes(n);
  InPieces(n, [&](std::size_t first, int count) {
    Check(MPI_Send(static_cast<const char*>(bytes) + first, count, MPI_BYTE, to, /*tag=*/17,
                   MPI_COMM_WORLD),
          "MPI_Send");
  });
}

void MpiCommunicator::Receive(void* bytes, std::size_t n, int from) {
  InPieces(n, [&](std::size_t first, int count) {
    Check(MPI_Recv(static_cast<char*>(bytes) + first, count, MPI_BYTE, from, /*tag=*/17,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Recv");
  });
}

void MpiCommunicator::Abort(int status) {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::exit(status);  // not reached: MPI_Abort ends the process
}

}  // namespace rdpkit::trees
