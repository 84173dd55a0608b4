// The private gradient-boosted-tree trainer (Maddock et al. 2022, with S-BDT and Revisiting
// DP-XGBoost options). Train() counts the run's queries, builds its privacy event, calibrates the
// noise multiplier with the accountant for the target (ε, δ), draws all noise through
// rdpkit::mechanisms and records the event in the returned model (DESIGN.md §6).
// Methods and the accounting per option are in docs/trees_training.md.
#ifndef RDPKIT_TREES_TRAIN_H_
#define RDPKIT_TREES_TRAIN_H_

#include <iostream>
#include <ostream>
#include <string>
#include <vector>

#include "rdpkit/trees/communicator.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/model.h"

namespace rdpkit::trees {

// One noise draw as the trainer added it, for audits and tests: the exact statistic, the
// released (noisy) value and which query and coordinate it belongs to.
struct NoiseRecord {
  std::string query;   // "leaf", "histogram", "partially_random", "hessian_histogram",
                       // "initial_score_count", "initial_score_sum"
  int coordinate = 0;  // 0: gradient-type statistic a, 1: Hessian-type statistic b
  double exact = 0;
  double noisy = 0;
};

struct TrainOptions {
  bool progress = true;                        // print one line per tree
  std::ostream* progress_stream = &std::cerr;  // where progress goes (nullptr: nowhere)
  // When set, every noise draw is appended here (tests; costs memory on large runs).
  std::vector<NoiseRecord>* noise_log = nullptr;
  // true: the trees as grown, complete and in heap order (node i's children 2i+1 and 2i+2), so
  // that an audit can match every leaf to its noise_log records; false: without the nodes no row
  // can reach (WithoutUnreachableNodes, model.h), as `rdpkit train` writes them.
  bool keep_unreachable_nodes = false;
  // A run over several ranks (docs/distributed.md): data holds this rank's rows; every rank calls
  // Train with the same config and schema. nullptr (or a size-1 communicator): one process.
  Communicator* communicator = nullptr;
};

// Trains a model on data (labels required). config is validated first; data must match the
// objective (binary labels 0/1 for binary:logistic). Throws InvalidArgument on bad input.
Model Train(const Dataset& data, const TrainerConfig& config, const TrainOptions& options = {});

}  // namespace rdpkit::trees

#endif  // RDPKIT_TREES_TRAIN_H_
