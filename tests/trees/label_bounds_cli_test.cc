// The train command's account of how regression labels were used (label bounds, DESIGN.md §4).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "rdpkit/accountant/errors.h"
#include "trees_commands.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

json RegressionSchemaJson(json label) {
  json schema = {{"task", "regression"}, {"features", {{{"name", "a"}, {"min", 0}, {"max", 1}}}}};
  if (!label.is_null()) schema["label"] = std::move(label);
  return schema;
}

TEST(LabelBounds, TrainCommandSaysHowLabelsWereUsed) {
  testing::ScratchDir dir;
  std::string csv = "a,label\n";
  for (int i = 0; i < 300; ++i)
    csv += std::to_string(i % 10 / 10.0) + "," + std::to_string(i) + "\n";
  const std::string data = dir.Write("train.csv", csv);
  const auto run = [&](json label) {
    tools::TrainArgs args;
    args.data = data;
    args.schema = dir.Write("schema.json", RegressionSchemaJson(label).dump());
    args.config = R"({"n_estimators": 2, "max_depth": 2, "seed": 1})";
    args.epsilon = 1;
    args.out = dir.File("model.json");
    std::ostringstream out;
    std::ostringstream err;
    args.err = &err;
    EXPECT_EQ(tools::RunTrain(args, out), 0);
    return err.str();
  };
  EXPECT_THAT(run(nullptr), HasSubstr("warning: the schema has no public label bounds"));
  const std::string bounded = run({{"min", 0}, {"max", 250}});
  EXPECT_THAT(bounded, HasSubstr("labels scaled from the schema's label bounds [0, 250]"));
  EXPECT_THAT(bounded, HasSubstr("49 labels outside were clipped"));
  EXPECT_THAT(
      [&] {
        run({{"min", "?"}, {"max", 250}});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("label.min = \"?\"")));
}

}  // namespace
}  // namespace rdpkit::trees
