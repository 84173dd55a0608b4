// The ranks of an `rdpkit train` run (docs/distributed.md): one process, or every process of an
// mpirun / srun launch when rdpkit is built with -DRDPKIT_WITH_MPI=ON.
#ifndef RDPKIT_TOOLS_TRAIN_RANKS_H_
#define RDPKIT_TOOLS_TRAIN_RANKS_H_

#include <memory>
#include <string>

#include "rdpkit/trees/communicator.h"

namespace rdpkit::tools {

class TrainRanks {
 public:
  // A launch by mpirun (or a --data path with %d) starts MPI; otherwise one process. Without MPI
  // in the build, such a request is an InvalidArgument saying how to get it.
  explicit TrainRanks(const std::string& data_argument);
  ~TrainRanks();
  TrainRanks(const TrainRanks&) = delete;
  TrainRanks& operator=(const TrainRanks&) = delete;

  int rank() const { return communicator_ ? communicator_->rank() : 0; }
  int size() const { return communicator_ ? communicator_->size() : 1; }
  // nullptr in one process.
  trees::Communicator* communicator() { return communicator_.get(); }
  // The file this rank reads: --data with "%d" replaced by the rank.
  std::string DataPath(const std::string& data_argument) const;
  // Ends every rank with `status` after this rank failed (MPI); returns in one process.
  void AbortOthers(int status);

 private:
  std::unique_ptr<trees::Communicator> communicator_;
};

}  // namespace rdpkit::tools

#endif  // RDPKIT_TOOLS_TRAIN_RANKS_H_
