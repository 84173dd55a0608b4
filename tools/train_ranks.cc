#include "train_ranks.h"

#include <cstdlib>

#include "rdpkit/accountant/errors.h"
#ifdef RDPKIT_WITH_MPI
#include "rdpkit/trees/mpi_communicator.h"
#endif

namespace rdpkit::tools {
namespace {

constexpr const char* kShardPattern = "%d";

// An MPI starter's rank count, when the environment shows one (0 otherwise).
int LaunchedSize() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const char* value = std::getenv(name)) return std::atoi(value);
  }
  return 0;
}

}  // namespace

TrainRanks::TrainRanks(const std::string& data_argument) {
  const bool sharded = data_argument.find(kShardPattern) != std::string::npos;
#ifdef RDPKIT_WITH_MPI
  if (sharded || trees::MpiCommunicator::Launched()) {
    communicator_ = std::make_unique<trees::MpiCommunicator>();
  }
#else
  if (sharded || LaunchedSize() > 1) {
    throw InvalidArgument(
        "data",
        "\"" + data_argument + "\"" +
            (sharded ? " names one shard per rank (%d)" : " is read by several MPI ranks") +
            ", but this rdpkit was built without MPI: install an MPI library (Debian: apt-get "
            "install libopenmpi-dev openmpi-bin), rebuild with cmake -DRDPKIT_WITH_MPI=ON and run "
            "mpirun -np K rdpkit train --data shard_%d.csv ... (docs/distributed.md)");
  }
#endif
  (void)LaunchedSize;
}

TrainRanks::~TrainRanks() = default;

std::string TrainRanks::DataPath(const std::string& data_argument) const {
  std::string path = data_argument;
  const std::size_t at = path.find(kShardPattern);
  if (at != std::string::npos) path.replace(at, 2, std::to_string(rank()));
  return path;
}

void TrainRanks::AbortOthers(int status) {
#ifdef RDPKIT_WITH_MPI
  if (size() > 1) static_cast<trees::MpiCommunicator*>(communicator_.get())->Abort(status);
#else
  (void)status;
#endif
}

}  // namespace rdpkit::tools
