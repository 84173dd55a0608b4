// `rdpkit train` asked for distributed training (docs/distributed.md) by a build without MPI: a
// refusal that says how to get it. (The MPI build's runs are checked by scripts/mpi_check.sh.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "rdpkit/accountant/errors.h"
#include "trees_commands.h"
#include "trees_test_util.h"

namespace rdpkit::tools {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

#ifndef RDPKIT_WITH_MPI
TEST(TrainRanks, ShardedDataWithoutMpiSaysHowToGetIt) {
  TrainArgs args;
  args.data = "shard_%d.csv";
  args.schema = trees::testing::SourcePath("examples/credit_g.schema.json");
  args.config = R"({"n_estimators": 2, "privacy": {"epsilon": 1}})";
  args.out = ::testing::TempDir() + "/never_written.json";
  std::ostringstream out, err;
  args.err = &err;
  EXPECT_THAT([&] { RunTrain(args, out); },
              ::testing::ThrowsMessage<InvalidArgument>(
                  AllOf(HasSubstr("data"), HasSubstr("-DRDPKIT_WITH_MPI=ON"),
                        HasSubstr("libopenmpi-dev"), HasSubstr("mpirun -np K"))));
  EXPECT_EQ(out.str(), "");
}
#endif

}  // namespace
}  // namespace rdpkit::tools
