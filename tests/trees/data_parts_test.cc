// LoadCsvParts against LoadCsv: the same rows in the same order, the same clip counts and, for a
// file with one error, the same refusal, whatever the block size (tiny blocks make every row
// boundary a block boundary).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "csv_table.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/data.h"
#include "text_file.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

Schema PartsSchema() {
  return Schema::FromJson({{"task", "multiclass"},
                           {"n_classes", 3},
                           {"classes", {"low", "mid", "high"}},
                           {"features",
                            {{{"name", "a"}, {"min", 0}, {"max", 10}},
                             {{"name", "b"}, {"min", -1}, {"max", 1}},
                             {{"name", "c"},
                              {"categorical", true},
                              {"n_codes", 3},
                              {"codes", {"red", "green", "blue"}}}}}});
}

// A CSV with a byte-order mark, CRLF and LF lines, blank lines, extra and reordered columns,
// missing values, values outside the bounds, code and class names.
std::string MixedCsv(int rows, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> value(-3, 13);
  std::string csv =
      "\xEF\xBB\xBF"
      "c, label ,b,a\r\n";
  const char* colours[] = {"red", "green", "blue", "0", "2", ""};
  const char* classes[] = {"low", "mid", "high", "1"};
  for (int r = 0; r < rows; ++r) {
    if (random() % 7 == 0) csv += random() % 2 == 0 ? "\n" : "  \t\r\n";
    csv += std::string(colours[random() % 6]) + "," + classes[random() % 4] + ",";
    csv += random() % 9 == 0 ? "NaN" : std::to_string(value(random) / 5);
    csv += ",";
    csv += random() % 9 == 0 ? "" : std::to_string(value(random));
    csv += random() % 3 == 0 ? "\r\n" : "\n";
  }
  return csv;
}

// MixedCsv's rows without its header.
std::string MixedRows(int rows, unsigned seed) {
  const std::string csv = MixedCsv(rows, seed);
  return csv.substr(csv.find('\n') + 1);
}

TEST(BlockSource, CutsTextAndFilesIntoWholeLines) {
  const std::string text = MixedCsv(200, 3) + "last line without a break";
  const testing::ScratchDir dir;
  const std::string path = dir.Write("lines.csv", text);
  for (const std::size_t block_bytes : std::vector<std::size_t>{1, 2, 17, 300, 1 << 20}) {
    SCOPED_TRACE(block_bytes);
    internal::BlockSource of_text = internal::BlockSource::OfText(text, block_bytes);
    internal::BlockSource of_file = internal::BlockSource::OfFile(path, block_bytes);
    for (internal::BlockSource* blocks : {&of_text, &of_file}) {
      std::string joined;
      std::string_view block;
      std::size_t n_blocks = 0;
      while (blocks->Next(block)) {
        ASSERT_FALSE(block.empty());
        if (!joined.empty()) {
          EXPECT_EQ(joined.back(), '\n');
        }
        joined += block;
        ++n_blocks;
      }
      EXPECT_EQ(joined, text);
      if (block_bytes < 300) {
        EXPECT_GT(n_blocks, text.size() / 300);
      }
    }
  }
  std::string_view block;
  internal::BlockSource whole = internal::BlockSource::OfText(text);
  ASSERT_TRUE(whole.Next(block));
  EXPECT_EQ(block, text);
  EXPECT_FALSE(whole.Next(block));
}

struct Parts {
  Dataset joined;
  std::size_t n_parts = 0;
};

Parts ReadInParts(const std::string& path, std::size_t block_bytes, const Schema& schema,
                  const LoadOptions& options = {}) {
  internal::BlockSource blocks = internal::BlockSource::OfFile(path, block_bytes);
  Parts parts;
  parts.joined.columns.resize(schema.features.size());
  parts.joined.clipped.assign(schema.features.size(), 0);
  internal::ReadCsvParts(blocks, "\"" + path + "\"", schema, options, [&](Dataset&& part) {
    EXPECT_GT(part.n_rows(), 0u);
    internal::AppendPart(parts.joined, part);
    ++parts.n_parts;
  });
  return parts;
}

void ExpectSameValues(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(std::memcmp(&a[i], &b[i], sizeof(double)) == 0) << i << ": " << a[i] << " " << b[i];
  }
}

TEST(LoadCsvParts, GivesLoadCsvsRowsInPartsOfAnyBlockSize) {
  const Schema schema = PartsSchema();
  const testing::ScratchDir dir;
  const std::string path = dir.Write("mixed.csv", MixedCsv(600, 5));
  const Dataset whole = LoadCsv(path, schema);
  for (const std::size_t block_bytes :
       std::vector<std::size_t>{1, 13, 100, 4096, internal::BlockSource::kBlockBytes}) {
    SCOPED_TRACE(block_bytes);
    const Parts parts = ReadInParts(path, block_bytes, schema);
    for (std::size_t f = 0; f < 3; ++f) ExpectSameValues(parts.joined.columns[f], whole.columns[f]);
    ExpectSameValues(parts.joined.labels, whole.labels);
    EXPECT_EQ(parts.joined.clipped, whole.clipped);
    EXPECT_GT(whole.clipped[0], 0u);
    if (block_bytes == internal::BlockSource::kBlockBytes) {
      EXPECT_EQ(parts.n_parts, 1u);
    }
    if (block_bytes <= 100) {
      EXPECT_GT(parts.n_parts, 50u);
    }
  }
  // The public entry reads the file the same way.
  std::size_t rows = 0;
  LoadCsvParts(path, schema, {}, [&](Dataset&& part) { rows += part.n_rows(); });
  EXPECT_EQ(rows, whole.n_rows());
}

TEST(LoadCsvParts, SkipsAnUnreadLabelColumnAsLoadCsvDoes) {
  const Schema schema = PartsSchema();
  const testing::ScratchDir dir;
  const std::string path = dir.Write("unlabelled.csv", MixedCsv(50, 9));
  const LoadOptions options{.require_label = false, .read_label = false};
  const Parts parts = ReadInParts(path, 64, schema, options);
  EXPECT_TRUE(parts.joined.labels.empty());
  ExpectSameValues(parts.joined.columns[0], LoadCsv(path, schema, options).columns[0]);
}

using testing::Refusal;

// A file with one fault late in it is refused with LoadCsv's message: the row and line counted
// in the whole file, not in the part that holds it.
TEST(LoadCsvParts, RefusesAFaultWithLoadCsvsMessage) {
  const Schema schema = PartsSchema();
  const std::string good = MixedCsv(300, 11);
  const std::vector<std::string> faults = {
      "red,low,0.5,abc\n",      // not a number
      "red,low,0.5\n",          // ragged
      "purple,low,0.5,1\n",     // not a code name
      "1.5,low,0.5,1\n",        // not a code
      "red,very high,0.5,1\n",  // not a class
      "red,,0.5,1\n",           // missing label
      "red,low,0.5,1,extra\n",  // ragged, long
  };
  for (const std::string& fault : faults) {
    SCOPED_TRACE(fault);
    const testing::ScratchDir dir;
    const std::string path = dir.Write("fault.csv", good + fault + "green,mid,0,0\n");
    const std::string expected = Refusal([&] { (void)LoadCsv(path, schema); });
    ASSERT_NE(expected, "(no refusal)");
    EXPECT_THAT(expected, ::testing::HasSubstr("row 301 (line "));  // a row of the whole file
    for (const std::size_t block_bytes : std::vector<std::size_t>{7, 500, 1 << 20}) {
      EXPECT_EQ(Refusal([&] { (void)ReadInParts(path, block_bytes, schema); }), expected);
    }
  }
}

// With two faults in a file the parts report the one the whole text read at once reports
// (ParseCsv, one block): a field that is no number before any bad code or label, a bad code
// before a bad label, and of two of a kind the earlier. Whichever comes first in the file, and
// whether the two share a block or not.
TEST(LoadCsvParts, RefusesAFileWithTwoFaultsAsTheWholeTextIsRefused) {
  const Schema schema = PartsSchema();
  const std::vector<std::string> faults = {
      "red,low,0.5,abc\n",  // not a number
      "1.5,low,0.5,1\n",    // not a code (feature c)
      "7,low,0.5,1\n",      // a code out of range (feature c)
      "red,,0.5,1\n",       // missing label
      "red,5,0.5,1\n",      // a class out of range
  };
  std::size_t later_fault_reported = 0;
  for (const std::string& first : faults) {
    for (const std::string& second : faults) {
      SCOPED_TRACE(first + second);
      const std::string text =
          MixedCsv(40, 13) + first + MixedRows(300, 17) + second + "green,mid,0,0\n";
      const testing::ScratchDir dir;
      const std::string path = dir.Write("faults.csv", text);
      const std::string expected = Refusal([&] { (void)ParseCsv(text, schema, {}, path); });
      ASSERT_NE(expected, "(no refusal)");
      if (expected.find("row 41 ") == std::string::npos) ++later_fault_reported;
      for (const std::size_t block_bytes : std::vector<std::size_t>{7, 500, 1 << 20}) {
        EXPECT_EQ(Refusal([&] { (void)ReadInParts(path, block_bytes, schema); }),
                  Refusal([&] { (void)ParseCsv(text, schema, {}, "\"" + path + "\""); }));
      }
      EXPECT_EQ(Refusal([&] { (void)LoadCsv(path, schema); }),
                Refusal([&] { (void)ParseCsv(text, schema, {}, "\"" + path + "\""); }));
    }
  }
  // The later fault is the one of 8 pairs: a bad code or label before a non-number (2 · 2), a bad
  // label before a bad code (2 · 2).
  EXPECT_EQ(later_fault_reported, 8u);
}

// A file of several blocks (LoadCsv reads 4 MiB at a time) is read by LoadCsv in parts and
// appended: the values, labels and clip counts of its text read at once. Its later rows are
// shorter than its first, so the columns reserved for the first block's bytes per row are too
// short and grow.
TEST(LoadCsvParts, LoadCsvAppendsTheBlocksOfALargeFile) {
  const Schema schema = PartsSchema();
  std::string text = MixedCsv(1, 19);
  while (text.size() < (std::size_t{6} << 20)) {
    text += MixedRows(20000, static_cast<unsigned>(text.size()));
  }
  while (text.size() < (std::size_t{9} << 20)) text += "red,low,1,2\n";
  const testing::ScratchDir dir;
  const std::string path = dir.Write("large.csv", text);
  const Dataset appended = LoadCsv(path, schema);
  const Dataset whole = ParseCsv(text, schema);
  EXPECT_GT(whole.n_rows(), 500000u);
  for (std::size_t f = 0; f < 3; ++f) ExpectSameValues(appended.columns[f], whole.columns[f]);
  ExpectSameValues(appended.labels, whole.labels);
  EXPECT_EQ(appended.clipped, whole.clipped);
  EXPECT_EQ(appended.feature_names, whole.feature_names);
}

// A file of two blocks whose last rows hold each column's extremes: `rdpkit schema`'s draft and
// --bounds-from-data read every block (a block at a time, keeping only what the draft needs).
TEST(SchemaOfALargeFile, DraftAndBoundsFromDataReadEveryBlock) {
  const auto file_of = [](const std::string& last_rows, bool names = true) {
    std::string text = "\xEF\xBB\xBFx,code,count,name,label\r\n";
    for (int row = 0; text.size() < internal::BlockSource::kBlockBytes * 9 / 8; ++row) {
      text += std::to_string(1 + row % 100) + "," + std::to_string(row % 4) + "," +
              std::to_string(row % 3) + (names ? (row % 2 == 0 ? ",alpha," : ",beta,") : ",7,") +
              std::to_string(row % 2) + "\n";
    }
    return text + last_rows;
  };
  const testing::ScratchDir dir;
  const std::string path = dir.Write("large.csv", file_of("1e9,31,40,zeta,2\n,,,,1\n"));
  const Schema draft = DraftSchema(path, "label", std::nullopt);
  ASSERT_EQ(draft.features.size(), 4u);
  EXPECT_EQ(draft.features[0].min, 1);
  EXPECT_EQ(draft.features[0].max, 1e9);
  EXPECT_TRUE(draft.features[1].categorical);  // whole numbers in [0, 32]: codes
  EXPECT_EQ(draft.features[1].n_codes, 32);
  EXPECT_FALSE(draft.features[2].categorical);  // 40 is past the codes a draft assumes
  EXPECT_EQ(draft.features[2].max, 40);
  EXPECT_EQ(draft.features[3].codes, (std::vector<std::string>{"alpha", "beta", "zeta"}));
  EXPECT_EQ(draft.task, Task::kRegression);  // a label 2: not binary
  ASSERT_TRUE(draft.label.has_value());
  EXPECT_EQ(draft.label->max, 2);
  EXPECT_EQ(DraftSchema(path, "label", Task::kMulticlass).n_classes, 3);
  const std::string missing = dir.Write("missing.csv", file_of("1,0,0,alpha,\n"));
  EXPECT_THAT(Refusal([&] { (void)DraftSchema(missing, "label", std::nullopt); }),
              ::testing::HasSubstr("a label is missing"));

  const std::string numbers = dir.Write("numbers.csv", file_of("1e9,31,-40,7,1\n", false));
  const Schema bounds = SchemaFromData(numbers, "label", Task::kBinary);
  ASSERT_EQ(bounds.features.size(), 4u);
  EXPECT_EQ(bounds.features[0].max, 1e9);
  EXPECT_EQ(bounds.features[1].max, 31);
  EXPECT_EQ(bounds.features[2].min, -40);
  const std::string late_name = dir.Write("name.csv", file_of("1,0,0,zeta,1\n", false));
  EXPECT_THAT(Refusal([&] { (void)SchemaFromData(late_name, "label", Task::kBinary); }),
              ::testing::HasSubstr("\"zeta\" is not a number"));
}

TEST(LoadCsvParts, RefusesEmptyFilesAndHeadersAloneAsLoadCsvDoes) {
  const Schema schema = PartsSchema();
  for (const std::string text : {"", "\n\n  \n", "c,label,b,a\n", "c,label,b,a\n\n \n",
                                 "c,label,b,zzz\n1,1,1,1\n", "a,b\n"}) {
    SCOPED_TRACE(text);
    const testing::ScratchDir dir;
    const std::string path = dir.Write("short.csv", text);
    const std::string expected = Refusal([&] { (void)LoadCsv(path, schema); });
    ASSERT_NE(expected, "(no refusal)");
    for (const std::size_t block_bytes : std::vector<std::size_t>{1, 4096}) {
      EXPECT_EQ(Refusal([&] { (void)ReadInParts(path, block_bytes, schema); }), expected);
    }
  }
  EXPECT_THAT(Refusal([&] { LoadCsvParts("/nonexistent/x.csv", schema, {}, [](Dataset&&) {}); }),
              ::testing::HasSubstr("cannot open file \"/nonexistent/x.csv\""));
}

}  // namespace
}  // namespace rdpkit::trees
