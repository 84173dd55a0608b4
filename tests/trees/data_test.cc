#include "rdpkit/trees/data.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/binned_csv.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::ThrowsMessage;

// Two numeric features with bounds [0, 10] and [-1, 1], one categorical feature with 3 codes.
Schema SmallSchema(Task task = Task::kBinary) {
  return Schema::FromJson({{"task", task == Task::kBinary ? "binary" : "regression"},
                           {"features",
                            {{{"name", "a"}, {"min", 0}, {"max", 10}},
                             {{"name", "b"}, {"min", -1}, {"max", 1}, {"categorical", false}},
                             {{"name", "c"}, {"categorical", true}, {"n_codes", 3}}}}});
}

nlohmann::json SchemaWithFeature(nlohmann::json feature) {
  return {{"task", "binary"}, {"features", {std::move(feature)}}};
}

TEST(Schema, ReadsBoundsAndCategories) {
  const Schema schema = SmallSchema();
  ASSERT_EQ(schema.features.size(), 3u);
  EXPECT_EQ(schema.task, Task::kBinary);
  EXPECT_EQ(schema.features[0].name, "a");
  EXPECT_EQ(schema.features[0].min, 0);
  EXPECT_EQ(schema.features[0].max, 10);
  EXPECT_FALSE(schema.features[1].categorical);
  EXPECT_TRUE(schema.features[2].categorical);
  EXPECT_EQ(schema.features[2].n_codes, 3);
  EXPECT_EQ(schema.features[2].min, 0);
  EXPECT_EQ(schema.features[2].max, 2);
  EXPECT_EQ(schema.FeatureIndex("b"), 1);
  EXPECT_EQ(schema.FeatureIndex("zzz"), -1);
}

TEST(Schema, ToJsonRoundTrips) {
  const Schema schema = SmallSchema(Task::kRegression);
  const Schema again = Schema::FromJson(schema.ToJson());
  EXPECT_EQ(again.ToJson(), schema.ToJson());
  EXPECT_EQ(again.task, Task::kRegression);
}

TEST(Schema, AcceptsTheDescriptiveDatasetSidecars) {
  const Schema spambase = Schema::FromFile(testing::SourcePath("examples/spambase.schema.json"));
  EXPECT_EQ(spambase.features.size(), 57u);
  EXPECT_EQ(spambase.task, Task::kBinary);
  EXPECT_EQ(spambase.features[0].name, "word_freq_make");
  EXPECT_EQ(spambase.features[0].max, 4.54);
  const Schema credit = Schema::FromFile(testing::SourcePath("tests/data/credit_g.json"));
  EXPECT_EQ(credit.features.size(), 20u);
  EXPECT_TRUE(credit.features[0].categorical);
  EXPECT_EQ(credit.features[0].n_codes, 4);
}

TEST(Schema, RejectsMissingBounds) {
  EXPECT_THAT(
      [] {
        Schema::FromJson(SchemaWithFeature({{"name", "x"}, {"min", 0}}));
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("features[0].max")));
  EXPECT_THAT(
      [] {
        Schema::FromJson(SchemaWithFeature({{"name", "x"}, {"max", 0}}));
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("features[0].min")));
}

TEST(Schema, RejectsMinNotBelowMax) {
  EXPECT_THAT(
      [] {
        Schema::FromJson(SchemaWithFeature({{"name", "x"}, {"min", 1}, {"max", 1}}));
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("features[0].max = 1 is outside (min, inf)")));
  EXPECT_THAT(
      [] {
        Schema::FromJson(SchemaWithFeature({{"name", "x"}, {"min", 2}, {"max", 1}}));
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("features[0].max")));
  EXPECT_THAT(
      [] {
        Schema::FromJson(SchemaWithFeature({{"name", "x"}, {"min", "0"}, {"max", 1}}));
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("features[0].min")));
}

// Issue 11 item 6: ±9e307 are finite but max − min is not; candidate grids and midpoints overflowed
// (one threshold, or none and a division by zero with iterative_hessian).
TEST(Schema, RejectsBoundsWhoseWidthOverflows) {
  EXPECT_THAT(
      [] {
        Schema::FromJson(SchemaWithFeature({{"name", "x"}, {"min", -9e307}, {"max", 9e307}}));
      },
      ThrowsMessage<InvalidArgument>(
          AllOf(HasSubstr("features[0].min/max = [-9e+307, 9e+307]"), HasSubstr("\"x\""),
                HasSubstr("finite width (max − min ≤ 1.7976931348623157e+308)"))));
  // The widest accepted: max − min is the largest double.
  const double half = std::numeric_limits<double>::max() / 2;
  const Schema widest =
      Schema::FromJson(SchemaWithFeature({{"name", "x"}, {"min", -half}, {"max", half}}));
  EXPECT_EQ(widest.features[0].max, half);
}

// Names are printed in predict's CSV header and on terminals: a control character (an escape
// sequence, a C1 CSI, a tab) in a feature's, code's or class's name is refused by its field.
TEST(Schema, RejectsNamesWithControlCharacters) {
  EXPECT_THAT(
      [] {
        Schema::FromJson(SchemaWithFeature({{"name", "x\x1B[2J"}, {"min", 0}, {"max", 1}}));
      },
      ThrowsMessage<InvalidArgument>(
          HasSubstr("features[0].name: \"x\\x1B[2J\" holds a control character (\\x1B)")));
  EXPECT_THAT(
      [] {
        Schema::FromJson(SchemaWithFeature(
            {{"name", "x"}, {"categorical", true}, {"n_codes", 2}, {"codes", {"a", "b\x7F"}}}));
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("features[0].codes[1]")));
  EXPECT_THAT(
      [] {
        Schema::FromJson({{"task", "multiclass"},
                          {"n_classes", 2},
                          {"classes", {"a\xC2\x9B", "b"}},
                          {"features", {{{"name", "x"}, {"min", 0}, {"max", 1}}}}});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("classes[0]")));
}

TEST(Schema, RejectsBadCategoricalCodes) {
  EXPECT_THAT(
      [] {
        Schema::FromJson(SchemaWithFeature({{"name", "x"}, {"categorical", true}}));
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("features[0].n_codes")));
  EXPECT_THAT(
      [] {
        Schema::FromJson(SchemaWithFeature({{"name", "x"}, {"categorical", true}, {"n_codes", 0}}));
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("features[0].n_codes")));
  EXPECT_THAT(
      [] {
        Schema::FromJson(
            SchemaWithFeature({{"name", "x"}, {"categorical", true}, {"n_codes", 2.5}}));
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("features[0].n_codes")));
  // Descriptive bounds of a categorical feature must fit its codes.
  EXPECT_THAT(
      [] {
        Schema::FromJson(SchemaWithFeature(
            {{"name", "x"}, {"categorical", true}, {"n_codes", 3}, {"min", 0}, {"max", 3}}));
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("features[0].max")));
}

TEST(Schema, RejectsStructuralErrors) {
  EXPECT_THAT(
      [] {
        Schema::FromJson({{"features", nlohmann::json::array()}});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("task")));
  EXPECT_THAT(
      [] {
        Schema::FromJson({{"task", "ordinal"}});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("task")));
  EXPECT_THAT(
      [] {
        Schema::FromJson({{"task", "binary"}});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("features")));
  EXPECT_THAT(
      [] {
        Schema::FromJson(
            {{"task", "binary"},
             {"features",
              {{{"name", "x"}, {"min", 0}, {"max", 1}}, {{"name", "x"}, {"min", 0}, {"max", 1}}}}});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("features[1].name")));
  EXPECT_THAT([] { Schema::FromFile("/nonexistent/schema.json"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("schema")));
}

TEST(LoadCsv, ReadsColumnsInSchemaOrderWhateverTheFileOrder) {
  const Dataset data = ParseCsv("c,label,b,a\n2,1,0.5,3\n0,0,-0.25,7.5\n", SmallSchema());
  ASSERT_EQ(data.n_rows(), 2u);
  ASSERT_EQ(data.n_features(), 3u);
  EXPECT_THAT(data.feature_names, ElementsAre("a", "b", "c"));
  EXPECT_THAT(data.columns[0], ElementsAre(3, 7.5));
  EXPECT_THAT(data.columns[1], ElementsAre(0.5, -0.25));
  EXPECT_THAT(data.columns[2], ElementsAre(2, 0));
  EXPECT_THAT(data.labels, ElementsAre(1, 0));
  EXPECT_THAT(data.clipped, ElementsAre(0, 0, 0));
  EXPECT_THAT(data.Row(1), ElementsAre(7.5, -0.25, 0));
}

TEST(LoadCsv, ToleratesCrlfSpacesQuotesBomAndBlankLines) {
  const Dataset data = ParseCsv(
      "\xEF\xBB\xBF\"a\", b ,c,label\r\n 1 ,+0.5,\"2\",1\r\n\r\n2,1e-1,0,0\r\n\n", SmallSchema());
  ASSERT_EQ(data.n_rows(), 2u);
  EXPECT_THAT(data.columns[0], ElementsAre(1, 2));
  EXPECT_THAT(data.columns[1], ElementsAre(0.5, 0.1));
  EXPECT_THAT(data.columns[2], ElementsAre(2, 0));
}

// A byte-order mark with nothing after it on the first line (or blanks, or CR) is a blank line:
// the header is the next line, for the reader of values and the binning reader alike.
TEST(LoadCsv, AByteOrderMarkOnABlankFirstLineIsABlankLine) {
  for (const std::string first : {"\xEF\xBB\xBF\n", "\xEF\xBB\xBF\r\n", "\xEF\xBB\xBF  \n"}) {
    const std::string text = first + "a,b,c,label\n1,0.5,2,1\n2,0.1,0,0\n";
    const Dataset data = ParseCsv(text, SmallSchema());
    ASSERT_EQ(data.n_rows(), 2u);
    EXPECT_THAT(data.columns[0], ElementsAre(1, 2));
    EXPECT_EQ(ParseCsvBinned(text, SmallSchema(), {}, 1).n_rows(), 2u);
  }
}

// A leading + is read, but "+-1" is no number (it was read as −1).
TEST(LoadCsv, APlusBeforeAMinusIsNoNumber) {
  EXPECT_EQ(ParseCsv("a,b,c,label\n+1,+.5,0,1\n", SmallSchema()).columns[1][0], 0.5);
  for (const char* field : {"+-1", "+-.5", "+-0", "++1"}) {
    EXPECT_THAT([&] { ParseCsv("a,b,c,label\n" + std::string(field) + ",0,0,1\n", SmallSchema()); },
                ThrowsMessage<InvalidArgument>(HasSubstr("is not a number")))
        << field;
  }
}

TEST(LoadCsv, ClipsOutOfBoundValuesAndCountsThemPerFeature) {
  // a in [0, 10]: -3 and 11 and 1e300 are clipped; b in [-1, 1]: 5 is clipped.
  const Dataset data =
      ParseCsv("a,b,c,label\n-3,0,0,0\n11,5,1,1\n1e300,1,2,0\n10,-1,0,1\n", SmallSchema());
  EXPECT_THAT(data.columns[0], ElementsAre(0, 10, 10, 10));
  EXPECT_THAT(data.columns[1], ElementsAre(0, 1, 1, -1));
  EXPECT_THAT(data.clipped, ElementsAre(3, 1, 0));
  EXPECT_EQ(data.total_clipped(), 4u);
}

TEST(LoadCsv, EmptyAndNanFieldsAreMissingAndNeverClipped) {
  const Dataset data =
      ParseCsv("a,b,c,label\n,NaN,,0\nnan,NA,1,1\n  ,?,NaN,0\n5,0.5,2,1\n", SmallSchema());
  ASSERT_EQ(data.n_rows(), 4u);
  for (std::size_t f = 0; f < 3; ++f) {
    for (std::size_t row = 0; row < 3; ++row) {
      if (f == 2 && row == 1) continue;  // the one code present
      EXPECT_TRUE(std::isnan(data.columns[f][row])) << "feature " << f << " row " << row;
    }
  }
  EXPECT_EQ(data.columns[2][1], 1);
  EXPECT_EQ(data.columns[0][3], 5);
  EXPECT_EQ(data.total_clipped(), 0u);
}

TEST(LoadCsv, NamesTheMissingColumn) {
  EXPECT_THAT([] { ParseCsv("a,c,label\n1,0,1\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("schema feature \"b\" has no column")));
}

TEST(LoadCsv, NamesExtraColumns) {
  EXPECT_THAT([] { ParseCsv("a,b,c,zip,id,label\n1,0,0,5,7,1\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("\"zip\", \"id\" are not in the schema")));
}

TEST(LoadCsv, NamesRowAndColumnOfANonNumericValue) {
  EXPECT_THAT([] { ParseCsv("a,b,c,label\n1,0,0,1\n2,abc,0,0\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(
                  HasSubstr("row 2 (line 3), column \"b\": \"abc\" is not a number")));
  EXPECT_THAT([] { ParseCsv("a,b,c,label\n1.5x,0,0,1\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("column \"a\": \"1.5x\"")));
  EXPECT_THAT([] { ParseCsv("a,b,c,label\ninf,0,0,1\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("column \"a\": \"inf\" is not a number")));
}

TEST(LoadCsv, RejectsNonBinaryAndMissingLabels) {
  EXPECT_THAT([] { ParseCsv("a,b,c,label\n1,0,0,1\n1,0,0,2\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("row 2 (line 3), column \"label\": 2 is "
                                                       "not a binary label (0 or 1)")));
  EXPECT_THAT([] { ParseCsv("a,b,c,label\n1,0,0,0.5\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("0.5 is not a binary label")));
  EXPECT_THAT([] { ParseCsv("a,b,c,label\n1,0,0,\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("the label is missing")));
  // Regression takes any finite label.
  const Dataset data =
      ParseCsv("a,b,c,label\n1,0,0,2.5\n1,0,0,-7\n", SmallSchema(Task::kRegression));
  EXPECT_THAT(data.labels, ElementsAre(2.5, -7));
}

TEST(LoadCsv, LabelColumnNameIsAnOption) {
  EXPECT_THAT([] { ParseCsv("a,b,c\n1,0,0\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("no label column \"label\"")));
  EXPECT_THAT([] { ParseCsv("a,b,c,y\n1,0,0,1\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("\"y\" are not in the schema")));
  const Dataset data = ParseCsv("a,b,c,y\n1,0,0,1\n", SmallSchema(), {.label = "y"});
  EXPECT_THAT(data.labels, ElementsAre(1));
  // A feature of the schema cannot be the label (the header would seem to lack the feature).
  EXPECT_THAT([] { ParseCsv("a,b,c\n1,0,0\n", SmallSchema(), {.label = "b"}); },
              ThrowsMessage<InvalidArgument>(HasSubstr("\"b\" is a feature of the schema")));
  // Without a required label (prediction) the label column may be absent ...
  const Dataset unlabelled = ParseCsv("a,b,c\n1,0,0\n", SmallSchema(), {.require_label = false});
  EXPECT_TRUE(unlabelled.labels.empty());
  EXPECT_EQ(unlabelled.n_rows(), 1u);
  // ... or present and skipped unread.
  const Dataset skipped = ParseCsv("a,b,c,label\n1,0,0,oops\n", SmallSchema(),
                                   {.require_label = false, .read_label = false});
  EXPECT_TRUE(skipped.labels.empty());
}

TEST(LoadCsv, CategoricalValuesMustBeCodes) {
  EXPECT_THAT([] { ParseCsv("a,b,c,label\n1,0,3,1\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr(
                  "row 1 (line 2), column \"c\": 3 is not a category code (integers 0..2)")));
  EXPECT_THAT([] { ParseCsv("a,b,c,label\n1,0,1.5,1\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("column \"c\": 1.5 is not a category")));
  EXPECT_THAT([] { ParseCsv("a,b,c,label\n1,0,-1,1\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("column \"c\": -1 is not a category")));
}

TEST(LoadCsv, RejectsRaggedAndEmptyFiles) {
  EXPECT_THAT(
      [] { ParseCsv("a,b,c,label\n1,0,0,1\n1,0,1\n", SmallSchema()); },
      ThrowsMessage<InvalidArgument>(HasSubstr("row 2 (line 3) has 3 fields, the header has 4")));
  EXPECT_THAT([] { ParseCsv("", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("is empty")));
  EXPECT_THAT([] { ParseCsv("a,b,c,label\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("no data rows")));
  EXPECT_THAT([] { LoadCsv("/nonexistent/data.csv", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("cannot open file")));
}

// Inside a quoted field a doubled quote is one quote and no end (RFC 4180 §2.7, as Python's csv
// module and pandas write a text holding quotes): a header name holding quotes and a comma, and
// quoted cells holding doubled quotes, split and read alike in both readers (the split at the comma
// of "x, y" gave 5 fields).
TEST(LoadCsv, ADoubledQuoteInsideAQuotedFieldIsOneQuote) {
  const Schema schema = Schema::FromJson({{"task", "binary"},
                                          {"features",
                                           {{{"name", "a \"x, y\""}, {"min", 0}, {"max", 10}},
                                            {{"name", "kind"},
                                             {"categorical", true},
                                             {"n_codes", 2},
                                             {"codes", {"say \"hi\"", "b"}}}}}});
  const std::string text =
      "\"a \"\"x, y\"\"\",kind,label\n"
      "1,\"say \"\"hi\"\"\",1\n"
      "\"2\",b,0\n"
      "3,\"say \"\"hi\"\"\" ,0\n";
  const Dataset data = ParseCsv(text, schema);
  EXPECT_THAT(data.columns[0], ElementsAre(1, 2, 3));
  EXPECT_THAT(data.columns[1], ElementsAre(0, 1, 0));
  EXPECT_EQ(ParseCsvBinned(text, schema, {}, 1).binned->bins,
            ParseCsvBinned("\"a \"\"x, y\"\"\",kind,label\n1,0,1\n2,1,0\n3,0,0\n", schema, {}, 1)
                .binned->bins);
  // The texts of a refusal are shown as read, the doubled quote as one.
  EXPECT_THAT([&] { ParseCsv("\"a \"\"x, y\"\"\",kind,label\n1,\"c\"\"d\",1\n", schema); },
              ThrowsMessage<InvalidArgument>(HasSubstr("\"c\"d\" is neither a number")));
  // A doubled quote at the end of a field left open does not close it.
  EXPECT_THAT([&] { ParseCsv("\"a \"\"x, y\"\"\",kind,label\n\"1\"\",0,1\n", schema); },
              ThrowsMessage<InvalidArgument>(HasSubstr("a quoted field with a line break?")));
}

// A quoted field with a line break (rdpkit reads one row per line) and a header cell without a
// name (a comma at the end of the header) are refused saying so, by both readers and the draft.
TEST(LoadCsv, SaysWhenAQuotedFieldBreaksItsLineOrAColumnHasNoName) {
  const char* quoted_break = "a,b,c,label\n\"1\n0\",0,0,1\n";
  EXPECT_THAT([&] { ParseCsv(quoted_break, SmallSchema()); },
              ThrowsMessage<InvalidArgument>(
                  AllOf(HasSubstr("row 1 (line 2), column \"a\": \"\"1\" is not a number"),
                        HasSubstr("a quoted field with a line break?"))));
  EXPECT_THAT([&] { ParseCsvBinned(quoted_break, SmallSchema(), {}, 1); },
              ThrowsMessage<InvalidArgument>(HasSubstr("a quoted field with a line break?")));
  EXPECT_THAT([&] { ParseCsv("a,b,c,label\n\"1,0,0,1\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("a quoted field with a line break?")));
  // A field with both quotes is only not a number.
  EXPECT_THAT([&] { ParseCsv("a,b,c,label\n\"1,5\",0,0,1\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(Not(HasSubstr("line break"))));
  EXPECT_THAT([&] { ParseCsv("a,b,c,label,\n1,0,0,1,\n", SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr(
                  "column 5 of 5 in the header has no name (a comma at the end of the line?)")));
  const testing::ScratchDir dir;
  const std::string draft = dir.Write("d.csv", "a,,label\n1,2,0\n3,4,1\n");
  EXPECT_THAT([&] { (void)DraftSchema(draft, "label", std::nullopt); },
              ThrowsMessage<InvalidArgument>(HasSubstr("column 2 of 3 in the header has no name")));
}

// Found by the CSV fuzzer (fuzz/regressions/csv/header_without_newline): a header with no newline
// and nothing after it made the row-count reservation start one byte past the text. The text sits
// in a buffer of exactly its size, so the sanitizer build reports any read past it.
TEST(LoadCsv, HeaderWithoutNewlineReadsNothingPastTheText) {
  const std::string header = "a,b,c,label";
  const std::unique_ptr<char[]> exact(new char[header.size()]);
  std::memcpy(exact.get(), header.data(), header.size());
  EXPECT_THAT([&] { ParseCsv(std::string_view(exact.get(), header.size()), SmallSchema()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("no data rows")));
}

TEST(LoadCsv, ReadsTheBundledSpambaseExactly) {
  const std::string csv = testing::SourcePath("examples/spambase.csv");
  const Schema schema = Schema::FromFile(testing::SourcePath("examples/spambase.schema.json"));
  const Dataset data = LoadCsv(csv, schema);
  ASSERT_EQ(data.n_rows(), 4601u);
  ASSERT_EQ(data.n_features(), 57u);
  // The sidecar's label_counts: 2788 zeros, 1813 ones; its bounds come from the data, so nothing
  // is clipped.
  EXPECT_EQ(std::accumulate(data.labels.begin(), data.labels.end(), 0.0), 1813);
  EXPECT_EQ(data.total_clipped(), 0u);
  // First row of the file: 0,0.64,0.64,0,0.32,...,3.756,61,278,1
  EXPECT_EQ(data.columns[1][0], 0.64);
  EXPECT_EQ(data.columns[54][0], 3.756);
  EXPECT_EQ(data.columns[56][0], 278);
  EXPECT_EQ(data.labels[0], 1);
}

TEST(LoadCsv, ReadsCreditGWithCategoricalCodes) {
  const Schema schema = Schema::FromFile(testing::SourcePath("tests/data/credit_g.json"));
  const Dataset data = LoadCsv(testing::SourcePath("tests/data/credit_g.csv"), schema);
  ASSERT_EQ(data.n_rows(), 1000u);
  EXPECT_EQ(data.columns[0][1], 1);     // checking_status of row 2
  EXPECT_EQ(data.columns[4][0], 1169);  // credit_amount of row 1
  EXPECT_EQ(std::accumulate(data.labels.begin(), data.labels.end(), 0.0), 300);
}

TEST(SchemaFromData, TakesBoundsFromTheData) {
  testing::ScratchDir dir;
  const std::string path = dir.Write("d.csv", "x,label,y,z\n1,0,5,\n-2,1,5,NaN\n4,1,5,\n");
  const Schema schema = SchemaFromData(path, "label", Task::kBinary);
  ASSERT_EQ(schema.features.size(), 3u);
  EXPECT_EQ(schema.features[0].name, "x");
  EXPECT_EQ(schema.features[0].min, -2);
  EXPECT_EQ(schema.features[0].max, 4);
  EXPECT_EQ(schema.features[1].min, 5);  // constant column: widened to [5, 6]
  EXPECT_EQ(schema.features[1].max, 6);
  EXPECT_EQ(schema.features[2].min, 0);  // all missing: [0, 1]
  EXPECT_EQ(schema.features[2].max, 1);
  const Dataset data = LoadCsv(path, schema);
  EXPECT_EQ(data.total_clipped(), 0u);
  EXPECT_THAT([&] { SchemaFromData(path, "target", Task::kBinary); },
              ThrowsMessage<InvalidArgument>(HasSubstr("no label column \"target\"")));
}

TEST(SchemaFromData, ExtremeColumnsGiveUsableBoundsOrANamedError) {
  testing::ScratchDir dir;
  // A constant column far from 0: lo + 1 == lo, so widening by 1 gave min == max.
  const Schema constant = SchemaFromData(
      dir.Write("c.csv", "x,y,label\n1e300,1.7e308,0\n1e300,1.7e308,1\n"), "label", Task::kBinary);
  for (const FeatureSpec& f : constant.features) {
    EXPECT_LT(f.min, f.max) << f.name;
    EXPECT_TRUE(std::isfinite(f.max - f.min)) << f.name;
  }
  EXPECT_THAT(
      [&] {
        SchemaFromData(dir.Write("w.csv", "x,label\n-1e308,0\n1e308,1\n"), "label", Task::kBinary);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("features[0].min/max")));
}

}  // namespace
}  // namespace rdpkit::trees
