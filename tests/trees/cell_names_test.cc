// Names in data cells (cell_names.h, DESIGN.md §4): a categorical feature's cells may be its codes'
// names and a classification label's cells its classes' names; both readers give the data of the
// integer codes, names that could be mistaken for numbers or missing values are not taken, bad
// schemas and cells are refused by name; rdpkit schema drafts text columns.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/binned_csv.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/model.h"
#include "rdpkit/trees/train.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using json = nlohmann::json;

Schema ColourSchema(const std::string& task = "binary", const json& classes = nullptr) {
  json schema = json::parse(R"({
    "features": [
      {"name": "age", "min": 18, "max": 90},
      {"name": "colour", "categorical": true, "n_codes": 4,
       "codes": ["red", "dark blue", "green, light", "<0 \"cold\""]},
      {"name": "zone", "categorical": true, "n_codes": 3, "codes": ["1", "2", "3"]}
    ]})");
  schema["task"] = task;
  if (task == "multiclass") schema["n_classes"] = 3;
  if (!classes.is_null()) schema["classes"] = classes;
  return Schema::FromJson(schema);
}

// The same rows with names (quoted, spaced, missing, quotes doubled inside quotes as RFC 4180 and
// pandas write them) and with the integer codes.
constexpr const char* kNamesCsv =
    "age,colour,zone,label\n"
    "20,red,0,yes\n"
    "30, dark blue ,2,no\n"
    "40,\"green, light\",1,yes\n"
    "50,\"<0 \"\"cold\"\"\",,no\n"
    "60,,0,no\n"
    "70,2,1,yes\n";
constexpr const char* kCodesCsv =
    "age,colour,zone,label\n"
    "20,0,0,1\n"
    "30,1,2,0\n"
    "40,2,1,1\n"
    "50,3,,0\n"
    "60,,0,0\n"
    "70,2,1,1\n";

TEST(CellNames, NamesReadAsTheirCodesInBothReaders) {
  const Schema schema = ColourSchema("binary", json({"no", "yes"}));
  const Dataset names = ParseCsv(kNamesCsv, schema);
  const Dataset codes = ParseCsv(kCodesCsv, schema);
  ASSERT_EQ(names.columns.size(), 3U);
  for (std::size_t f = 0; f < 3; ++f) {
    for (std::size_t row = 0; row < codes.n_rows(); ++row) {
      const double a = names.columns[f][row], b = codes.columns[f][row];
      EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << "feature " << f << " row " << row;
    }
  }
  EXPECT_EQ(names.labels, codes.labels);
  const TrainerConfig::SplitCandidates sc;
  for (int threads : {1, 2}) {
    const Dataset binned_names = ParseCsvBinned(kNamesCsv, schema, sc, threads);
    const Dataset binned_codes = ParseCsvBinned(kCodesCsv, schema, sc, threads);
    EXPECT_EQ(binned_names.binned->bins, binned_codes.binned->bins);
    EXPECT_EQ(binned_names.binned->has_missing, binned_codes.binned->has_missing);
    EXPECT_EQ(binned_names.LabelValues(), codes.labels);
  }
}

TEST(CellNames, MulticlassLabelsByName) {
  const Schema schema = ColourSchema("multiclass", json({"cat", "dog", "bird"}));
  const Dataset data =
      ParseCsv("age,colour,zone,label\n20,red,0,bird\n30,0,1,cat\n40,1,2,1\n", schema);
  EXPECT_EQ(data.labels, (std::vector<double>{2, 0, 1}));
  EXPECT_THAT([&] { ParseCsv("age,colour,zone,label\n20,red,0,fish\n", schema); },
              ThrowsMessage<InvalidArgument>(
                  HasSubstr("column \"label\": \"fish\" is neither a number (the class indices "
                            "0..2) nor one of the names of the schema's \"classes\" (\"cat\"")));
}

TEST(CellNames, UnknownNamesAndUnusableListsAreRefusedByName) {
  const Schema schema = ColourSchema();
  const TrainerConfig::SplitCandidates sc;
  // Refused alike by both readers.
  const auto refuse = [&](const std::string& csv, const std::string& text) {
    EXPECT_THAT([&] { ParseCsv(csv, schema); }, ThrowsMessage<InvalidArgument>(HasSubstr(text)));
    EXPECT_THAT([&] { ParseCsvBinned(csv, schema, sc, 2); },
                ThrowsMessage<InvalidArgument>(HasSubstr(text)));
  };
  refuse("age,colour,zone,label\n20,purple,0,1\n",
         "row 1 (line 2), column \"colour\": \"purple\" is neither a number (the codes 0..3, or "
         "empty or NaN for missing) nor one of the names of the schema's \"codes\" (\"red\", "
         "\"dark blue\"");
  // Names are matched exactly.
  refuse("age,colour,zone,label\n20,Red,0,1\n", "\"Red\" is neither a number");
  // zone's names read as numbers, so its cells are codes only ("1" is code 1, not zone "1").
  refuse("age,colour,zone,label\n20,red,one,1\n",
         "\"one\" is not a number (the codes 0..2, or empty or NaN for missing; the schema's "
         "\"codes\" cannot stand for them in the data: code 0's name \"1\" reads as a number)");
  EXPECT_EQ(ParseCsv("age,colour,zone,label\n20,red,1,1\n", schema).columns[2][0], 1.0);
  // A binary schema without class names takes 0 and 1 only, and says how to name them.
  refuse("age,colour,zone,label\n20,red,1,yes\n",
         "\"yes\" is not a number (the labels 0 and 1; list their names in the schema's "
         "\"classes\" to write the names instead)");
  // A numeric feature's cells are numbers.
  refuse("age,colour,zone,label\n2O,red,1,1\n", "\"2O\" is not a number (missing values");
  // Other names that cannot stand in a cell: they read as missing, or lose their blanks.
  for (const auto& [name, why] :
       std::vector<std::pair<std::string, std::string>>{{"NA", "reads as a missing value"},
                                                        {" x", "begins or ends with a blank"},
                                                        {"1e3", "reads as a number"}}) {
    json bad = ColourSchema().ToJson();
    bad["features"][1]["codes"][3] = name;
    EXPECT_THAT([&] { ParseCsv("age,colour,zone,label\n20,q,1,1\n", Schema::FromJson(bad)); },
                ThrowsMessage<InvalidArgument>(HasSubstr(why)));
  }
}

TEST(CellNames, SchemaListsAreCheckedAndKeptInTheModel) {
  const json good = ColourSchema("binary", json({"no", "yes"})).ToJson();
  EXPECT_EQ(good["features"][1]["codes"][2], "green, light");
  EXPECT_EQ(good["classes"], json({"no", "yes"}));
  EXPECT_FALSE(good.contains("n_classes"));
  const auto refused = [&](const json& schema, const std::string& text) {
    EXPECT_THAT([&] { Schema::FromJson(schema); }, ThrowsMessage<InvalidArgument>(HasSubstr(text)));
  };
  json bad = good;
  bad["features"][1]["codes"] = {"red", "blue"};
  refused(bad, "features[1].codes: must be a list of 4 names (n_codes = 4; it has 2)");
  bad["features"][1]["codes"] = {"red", "blue", "red", "x"};
  refused(bad, "features[1].codes[2]: \"red\" appears twice");
  bad["features"][1]["codes"] = {"red", "blue", 3, "x"};
  refused(bad, "features[1].codes[2]: must be a non-empty string");
  bad["features"][1]["codes"] = "?";
  refused(bad, "features[1].codes = \"?\" is outside the lists of 4 names");
  bad = good;
  bad["classes"] = {"no", "yes", "maybe"};
  refused(bad, "classes: must be a list of 2 names (class 0, class 1; it has 3)");
  bad["classes"] = {"no", "yes"};
  bad["n_classes"] = 2;
  refused(bad, "n_classes: given for a binary schema");
  bad = good;
  bad["task"] = "regression";
  refused(bad, "classes: given for a regression schema");
  // A model keeps the lists in its schema, so predict reads the same names; a binary model's own
  // top level still refuses classes.
  Model model;
  model.objective = Objective::kBinaryLogistic;
  model.schema = Schema::FromJson(good);
  model.feature_names = {"age", "colour", "zone"};
  model.trees.push_back(Tree{{Node{}}});
  const json text = json::parse(model.ToText());
  EXPECT_EQ(text["schema"], good);
  EXPECT_EQ(Model::FromJson(text).ToText(), model.ToText());
  json top = text;
  top["classes"] = {"no", "yes"};
  EXPECT_THAT([&] { Model::FromJson(top); },
              ThrowsMessage<InvalidArgument>(HasSubstr("classes: given for a binary model")));
}

// Text cells from memory (the Python package's text columns) read as CSV cells of the feature.
TEST(CellNames, CodesOfCellsReadsTextAsTheCsvReaderDoes) {
  const Schema schema = ColourSchema();
  const std::vector<double> colour =
      CodesOfCells(schema.features[1], {"red", " dark blue ", "green, light", "3", "", "NA"}, "X");
  ASSERT_EQ(colour.size(), 6U);
  EXPECT_EQ(std::vector<double>(colour.begin(), colour.begin() + 4),
            (std::vector<double>{0, 1, 2, 3}));
  EXPECT_TRUE(std::isnan(colour[4]) && std::isnan(colour[5]));
  EXPECT_EQ(CodesOfCells(schema.features[2], {"1", "+2"}), (std::vector<double>{1, 2}));
  EXPECT_THAT(
      [&] {
        CodesOfCells(schema.features[1], {"red", "purple"}, "X");
      },
      ThrowsMessage<InvalidArgument>(
          HasSubstr("X row 1, column \"colour\": \"purple\" is neither a number (the codes 0..3")));
  EXPECT_THAT([&] { CodesOfCells(schema.features[0], {"old"}, "X"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("\"old\" is not a number")));
}

// A binary model trained on a schema with class names keeps them in its schema only (its own
// classes are a multiclass model's): the in-memory model is the one its file loads back as.
TEST(CellNames, ABinaryModelKeepsItsClassNamesInItsSchema) {
  const Schema schema = ColourSchema("binary", json({"no", "yes"}));
  const TrainerConfig config = TrainerConfig::FromJson(
      {{"n_estimators", 2}, {"max_depth", 2}, {"privacy", {{"epsilon", 1}, {"delta", 1e-5}}}});
  Model model =
      Train(ParseCsv(kNamesCsv, schema), config, {.progress = false, .progress_stream = nullptr});
  EXPECT_TRUE(model.classes.empty());
  model.schema = schema;  // as rdpkit train does
  const Model back = Model::FromJson(json::parse(model.ToText()));
  EXPECT_EQ(back.classes, model.classes);
  EXPECT_EQ(back.schema.ToJson(), model.schema.ToJson());
}

TEST(CellNames, DraftsTextColumnsAsNamedCodesAndClasses) {
  testing::ScratchDir dir;
  const std::string binary = dir.Write(
      "b.csv", "age,colour,city,label\n30,red,\"Paris, FR\",yes\n40,blue,Rome,no\n41,,Rome,yes\n");
  const Schema draft = DraftSchema(binary, "label", std::nullopt);
  EXPECT_EQ(draft.task, Task::kBinary);
  EXPECT_EQ(draft.classes, (std::vector<std::string>{"no", "yes"}));
  EXPECT_EQ(draft.features[1].codes, (std::vector<std::string>{"blue", "red"}));
  EXPECT_EQ(draft.features[2].codes, (std::vector<std::string>{"Paris, FR", "Rome"}));
  const json blank = SchemaDraftJson(draft, /*with_data_bounds=*/false);
  EXPECT_EQ(blank["classes"], "?");
  EXPECT_EQ(blank["features"][1]["codes"], "?");
  EXPECT_EQ(blank["features"][1]["n_codes"], "?");
  const json leaky = SchemaDraftJson(draft, /*with_data_bounds=*/true);
  EXPECT_EQ(leaky["features"][2]["codes"], json({"Paris, FR", "Rome"}));
  EXPECT_TRUE(leaky.contains("bounds_from_data"));
  // The leaky draft reads its own data back.
  const Dataset data = LoadCsv(binary, Schema::FromJson(leaky));
  EXPECT_EQ(data.labels, (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(data.columns[2], (std::vector<double>{0, 1, 1}));

  const std::string three = dir.Write("m.csv", "x,label\n1,a\n2,b\n3,c\n");
  const Schema multiclass = DraftSchema(three, "label", std::nullopt);
  EXPECT_EQ(multiclass.task, Task::kMulticlass);
  EXPECT_EQ(multiclass.n_classes, 3);
  EXPECT_EQ(SchemaDraftJson(multiclass, false)["n_classes"], "?");
  EXPECT_THAT([&] { DraftSchema(three, "label", Task::kBinary); },
              ThrowsMessage<InvalidArgument>(HasSubstr("3 class names, a binary label has 2")));
  EXPECT_EQ(
      DraftSchema(dir.Write("k.csv", "x,label\n1,0\n2,2\n"), "label", Task::kMulticlass).n_classes,
      3);
  const std::string mixed = dir.Write("x.csv", "colour,label\nred,1\n2,0\n");
  EXPECT_THAT([&] { DraftSchema(mixed, "label", std::nullopt); },
              ThrowsMessage<InvalidArgument>(
                  HasSubstr("column \"colour\": mixes numbers (\"2\" on line 3) and text "
                            "(\"red\" on line 2)")));
}

}  // namespace
}  // namespace rdpkit::trees
