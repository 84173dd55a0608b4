// Schemas read off the data (rdpkit schema's draft, --bounds-from-data): what they draft must be
// a schema the same data can be read with, so names no cell can hold, names that are not UTF-8
// (schema and model files are JSON) and headers the data reader refuses are refused at once,
// naming the column, with the data reader's own words where it has them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/data.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

using ::testing::HasSubstr;

using testing::Refusal;

// The refusal of `rdpkit schema`'s draft of a file holding text.
std::string DraftRefusal(const testing::ScratchDir& dir, const std::string& text) {
  const std::string path = dir.Write("draft.csv", text);
  return Refusal([&] { (void)DraftSchema(path, "label", std::nullopt); });
}

TEST(SchemaFromData, ADraftsNamesMustBeOnesACellCanHold) {
  const testing::ScratchDir dir;
  // A quoted cell with blanks inside the quotes: the reader trims the quotes only, so the name
  // " 1 " could never be matched (and it would read as a number if it were).
  EXPECT_THAT(DraftRefusal(dir, "x,label\n\" 1 \",0\n\"b\",1\n"),
              HasSubstr("column \"x\": its texts cannot be drafted as names: code 0's name \" 1 "
                        "\" begins or ends with a blank"));
  EXPECT_THAT(DraftRefusal(dir, "x,label\n1,\" yes\"\n2,no\n"),
              HasSubstr("column \"label\": its texts cannot be drafted as names: class 0's name"));
  // A missing label among class names (the reader would refuse the row).
  EXPECT_THAT(DraftRefusal(dir, "x,label\n1,yes\n2,\n3,no\n"),
              HasSubstr("label column \"label\": a label is missing"));
  // Names that can stand in cells are drafted and read back, doubled quotes inside a quoted cell
  // as one (RFC 4180, as Python's csv module and pandas write a text holding quotes).
  const std::string good =
      dir.Write("good.csv",
                "x,label\n\"a, b\",yes\n  c ,no\n\"say \"\"hi, you\"\"\",no\n\"\"\"q\"\"\",yes\n");
  const Schema draft = DraftSchema(good, "label", std::nullopt);
  EXPECT_EQ(draft.features[0].codes,
            (std::vector<std::string>{"\"q\"", "a, b", "c", "say \"hi, you\""}));
  EXPECT_EQ(ParseCsv(testing::ReadText(good), draft).columns[0], (std::vector<double>{1, 2, 3, 0}));
}

TEST(SchemaFromData, NamesThatAreNotUtf8AreRefusedByColumn) {
  const testing::ScratchDir dir;
  EXPECT_THAT(DraftRefusal(dir,
                           "x,label\nred,0\nr\xFF"
                           "d,1\n"),
              HasSubstr("column \"x\": its text \"r\\xFFd\" is not UTF-8"));
  const std::string header = dir.Write("header.csv", "x,y\xC3,label\n1,2,0\n");
  for (const auto& read : std::vector<std::function<void()>>{
           [&] { (void)DraftSchema(header, "label", std::nullopt); },
           [&] { (void)SchemaFromData(header, "label", Task::kBinary); }}) {
    EXPECT_THAT(Refusal(read),
                HasSubstr("column 2 of 3 in the header, \"y\\xC3\", is not UTF-8 text"));
  }
  // Control characters (an escape sequence would reach the terminal through predict's header).
  EXPECT_THAT(DraftRefusal(dir, "x,label\n1,x\n2,\x1B[2J\n"),
              HasSubstr("column \"label\": its text \"\\x1B[2J\" holds a control character"));
  const std::string tab = dir.Write("tab.csv", "x\ty,label\n1,0\n");
  EXPECT_THAT(Refusal([&] { (void)SchemaFromData(tab, "label", Task::kBinary); }),
              HasSubstr("\"x\\x09y\", holds a control character (\\x09)"));
  // Valid UTF-8 names are kept as they are.
  const std::string accents = dir.Write("accents.csv", "caf\xC3\xA9,label\nr\xC3\xB4t,0\nb,1\n");
  const Schema draft = DraftSchema(accents, "label", std::nullopt);
  EXPECT_EQ(draft.features[0].name, "caf\xC3\xA9");
  EXPECT_EQ(draft.features[0].codes[1], "r\xC3\xB4t");
}

// Each of these was drafted (or drafted into a schema train refused), and train then refused the
// data the schema came from.
TEST(SchemaFromData, DraftsAreSchemasTheirOwnDataTrainsWith) {
  const testing::ScratchDir dir;
  // A label column twice.
  EXPECT_THAT(DraftRefusal(dir, "x,label,label\n1,0,1\n2,1,0\n"),
              HasSubstr("label column \"label\" appears twice"));
  EXPECT_THAT(DraftRefusal(dir, "x,x,label\n1,0,1\n2,1,0\n"),
              HasSubstr(": column \"x\" appears twice"));
  // A --task the labels do not fit: drafted, then every row with such a label refused by train.
  const std::string labels = dir.Write("labels.csv", "x,label\n1,0\n2,1\n3,7\n");
  EXPECT_THAT(Refusal([&] { (void)DraftSchema(labels, "label", Task::kBinary); }),
              HasSubstr("label column \"label\": 7 on line 4 is not a binary label (0 or 1"));
  const std::string many = dir.Write("many.csv", "x,label\n1,0\n2,1000\n");
  EXPECT_THAT(Refusal([&] { (void)DraftSchema(many, "label", Task::kMulticlass); }),
              HasSubstr("class index 1000 is beyond the most classes a schema may have (1000)"));
  EXPECT_EQ(DraftSchema(dir.Write("most.csv", "x,label\n1,0\n2,999\n"), "label", Task::kMulticlass)
                .n_classes,
            1000);
  // A constant column of codes gets two codes, as a constant number gets a unit width, so that
  // train can split it (one code allows no split).
  EXPECT_EQ(DraftSchema(dir.Write("code.csv", "x,label\n0,0\n0,1\n"), "label", std::nullopt)
                .features[0]
                .n_codes,
            2);
  // A byte-order mark on a blank first line: the header is the next line.
  EXPECT_EQ(DraftSchema(dir.Write("bom.csv", "\xEF\xBB\xBF\r\nx,label\n1,0\n2,1\n"), "label",
                        std::nullopt)
                .features[0]
                .name,
            "x");
  // A constant label, and one narrower than 2·DBL_MIN, are widened as a constant feature is (the
  // label 1e16 got [1e16, 1e16 + 1], which rounds to [1e16, 1e16]).
  for (const auto& [first, second] : std::vector<std::pair<std::string, std::string>>{
           {"1e16", "1e16"}, {"0", "5e-324"}, {"3", "3"}}) {
    const std::string rows = "x,label\n1," + first + "\n2," + second + "\n";
    const Schema schema = DraftSchema(dir.Write("constant.csv", rows), "label", Task::kRegression);
    ASSERT_TRUE(schema.label.has_value()) << first;
    EXPECT_GE(schema.label->max / 2 - schema.label->min / 2, std::numeric_limits<double>::min())
        << first << ", " << second;
    EXPECT_LE(schema.label->min, std::stod(first)) << first;
  }
  // A column spanning fewer than 2^17 doubles is widened too (train refused [1, 1 + 2^-52]: "at
  // least 2 distinct split candidates"); a range of 0.1 at 1.7e9 (400 000 doubles) is kept.
  const Schema ulp = SchemaFromData(dir.Write("ulp.csv", "x,label\n1,0\n1.0000000000000002,1\n"),
                                    "label", Task::kBinary);
  EXPECT_EQ(ulp.features[0].min, 1);
  EXPECT_EQ(ulp.features[0].max, 2);
  const Schema seconds =
      SchemaFromData(dir.Write("seconds.csv", "x,label\n1700000000.0,0\n1700000000.1,1\n"), "label",
                     Task::kBinary);
  EXPECT_EQ(seconds.features[0].max, 1700000000.1);
  // A double quote after a blank does not open a quoted field, for the draft as for the reader:
  // the draft took ` "a,b"` as the name a,b, a name the reader never met in that cell.
  EXPECT_THAT(DraftRefusal(dir, "x,c,label\n1,\"a,b\",0\n2, \"a,b\",1\n"),
              HasSubstr("row 2 (line 3) has 4 fields, the header has 3"));
}

TEST(SchemaFromData, BoundsFromDataRefuseWhatTheDataReaderRefuses) {
  const testing::ScratchDir dir;
  EXPECT_THAT(Refusal([&] {
                (void)SchemaFromData(dir.Write("twice.csv", "x,y,x,label\n1,2,3,0\n"), "label",
                                     Task::kBinary);
              }),
              HasSubstr("column \"x\" appears twice"));
  EXPECT_THAT(Refusal([&] {
                (void)SchemaFromData(dir.Write("labels.csv", "label,x,label\n1,2,0\n"), "label",
                                     Task::kBinary);
              }),
              HasSubstr("label column \"label\" appears twice"));
  EXPECT_THAT(Refusal([&] {
                (void)SchemaFromData(dir.Write("header.csv", "x,label\n\n"), "label",
                                     Task::kBinary);
              }),
              HasSubstr("has a header but no data rows"));
}

}  // namespace
}  // namespace rdpkit::trees
