// Data sets built from columns in memory (the Python package's arrays) against the CSV reader:
// the same values give the same Dataset, the same clipping counts and the same refusals.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/data.h"

namespace rdpkit::trees {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Schema ThreeFeatures(Task task = Task::kBinary) {
  return Schema::FromJson({{"task", task == Task::kBinary ? "binary" : "regression"},
                           {"features",
                            {{{"name", "a"}, {"min", 0}, {"max", 10}},
                             {{"name", "b"}, {"min", -1}, {"max", 1}},
                             {{"name", "c"}, {"categorical", true}, {"n_codes", 3}}}}});
}

void ExpectSameValues(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i])) {
      EXPECT_TRUE(std::isnan(b[i])) << i;
    } else {
      EXPECT_EQ(a[i], b[i]) << i;
    }
  }
}

TEST(DatasetFromColumns, EqualsTheCsvReaderOnTheSameValues) {
  const Schema schema = ThreeFeatures();
  const Dataset csv = ParseCsv("a,b,c,label\n-3,0.5,2,1\n4,,0,0\n12.5,-7,,1\n", schema);
  const Dataset columns =
      DatasetFromColumns(schema, {{-3, 4, 12.5}, {0.5, kNaN, -7}, {2, 0, kNaN}}, {1, 0, 1}, "X");
  EXPECT_EQ(columns.feature_names, csv.feature_names);
  for (std::size_t f = 0; f < 3; ++f) ExpectSameValues(columns.columns[f], csv.columns[f]);
  EXPECT_EQ(columns.labels, csv.labels);
  EXPECT_EQ(columns.clipped, csv.clipped);
  EXPECT_EQ(columns.clipped, (std::vector<std::size_t>{2, 1, 0}));
  EXPECT_EQ(columns.schema.ToJson(), csv.schema.ToJson());
}

TEST(DatasetFromColumns, RefusesWhatTheCsvReaderRefuses) {
  const Schema schema = ThreeFeatures();
  EXPECT_THAT(
      [&] {
        (void)DatasetFromColumns(schema, {{1}, {0}, {1.5}}, {1}, "X");
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("X row 0, column \"c\": 1.5 is not a "
                                               "category code")));
  EXPECT_THAT(
      [&] {
        (void)DatasetFromColumns(schema, {{1}, {0}, {1}}, {2}, "X");
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("not a binary label")));
  EXPECT_THAT(
      [&] {
        (void)DatasetFromColumns(schema, {{1}, {0}, {1}}, {kNaN}, "X");
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("the label is missing")));
  EXPECT_THAT(
      [&] {
        (void)DatasetFromColumns(schema, {{std::numeric_limits<double>::infinity()}, {0}, {1}}, {1},
                                 "X");
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("column \"a\": inf is not a number")));
  EXPECT_THAT(
      [&] {
        (void)DatasetFromColumns(schema, {{1}, {0}}, {1}, "X");
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("2 feature columns, the schema has 3")));
  EXPECT_THAT(
      [&] {
        (void)DatasetFromColumns(schema, {{1, 2}, {0, 0}, {1, 1}}, {1}, "X");
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("2 rows but 1 labels")));
  EXPECT_THAT(
      [&] {
        (void)DatasetFromColumns(schema, {{}, {}, {}}, {}, "X");
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("X has no rows")));
}

TEST(SchemaFromColumns, FollowsTheRuleOfSchemaFromData) {
  const Schema schema =
      SchemaFromColumns({"a", "b", "c"}, {{3, -1, kNaN}, {kNaN, kNaN}, {5, 5}}, Task::kRegression);
  EXPECT_TRUE(schema.bounds_from_data);
  EXPECT_EQ(schema.task, Task::kRegression);
  ASSERT_EQ(schema.features.size(), 3u);
  EXPECT_EQ(schema.features[0].min, -1);
  EXPECT_EQ(schema.features[0].max, 3);
  EXPECT_EQ(schema.features[1].min, 0);  // every value missing: [0, 1]
  EXPECT_EQ(schema.features[1].max, 1);
  EXPECT_EQ(schema.features[2].min, 5);  // a constant column is widened by 1
  EXPECT_EQ(schema.features[2].max, 6);
  EXPECT_THROW((void)SchemaFromColumns({"a", "a"}, {{1, 2}, {1, 2}}, Task::kBinary),
               InvalidArgument);
}

}  // namespace
}  // namespace rdpkit::trees
