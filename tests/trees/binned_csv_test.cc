// The binning CSV reader (binned_csv.h) against LoadCsv's reader: the same bins, clipping counts,
// labels and errors on one, two and three threads, row ranges that concatenate to the file, and
// the same model bytes from the trainer.
#include "rdpkit/trees/binned_csv.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>

#include "binned_matrix.h"
#include "parallel.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/train.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

using ::testing::HasSubstr;

Schema MixedSchema() {
  return Schema::FromJson(nlohmann::json::parse(R"({
    "task": "binary",
    "features": [
      {"name": "age", "min": 18, "max": 90},
      {"name": "income", "min": 0, "max": 1000},
      {"name": "colour", "categorical": true, "n_codes": 4}
    ]})"));
}

// rows data rows in the column order income, label, colour, age (not the schema's), with missing
// values (empty, NaN, NA), values outside the bounds, quoted and spaced fields, blank and CRLF
// lines: about 20 bytes a row, so 20000 rows span several threads' parts.
std::string MixedCsv(std::size_t rows, std::uint64_t seed = 3) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::string text = "income,label,colour,age\n";
  char buffer[96];
  for (std::size_t i = 0; i < rows; ++i) {
    const double u = unit(rng);
    const char* income = u < 0.05 ? "" : u < 0.07 ? "NaN" : nullptr;
    std::string income_text = income ? income : std::to_string(unit(rng) * 1200 - 100);
    if (unit(rng) < 0.02) income_text = " \"" + income_text + "\"";
    const int colour = static_cast<int>(unit(rng) * 4);
    const double age = 10 + unit(rng) * 90;
    std::snprintf(buffer, sizeof(buffer), "%s,%d,%s,%.3f%s\n", income_text.c_str(),
                  unit(rng) < 0.3 ? 1 : 0, unit(rng) < 0.03 ? "NA" : std::to_string(colour).c_str(),
                  age, unit(rng) < 0.01 ? "\r" : "");
    text += buffer;
    if (unit(rng) < 0.01) text += "  \n";
  }
  return text;
}

// The bins LoadCsv's data give in the trainer (BinnedMatrix over the double columns).
void ExpectSameAsDoubles(const Dataset& binned, const Dataset& doubles,
                         const TrainerConfig::SplitCandidates& sc) {
  ASSERT_TRUE(binned.binned);
  internal::WorkerPool pool(1);
  const internal::BinnedMatrix expected(doubles, sc, pool);
  const internal::BinnedMatrix actual(binned, sc, pool);
  ASSERT_EQ(actual.n_rows(), expected.n_rows());
  for (std::size_t f = 0; f < expected.n_features(); ++f) {
    EXPECT_EQ(actual.candidates(f), expected.candidates(f));
    EXPECT_EQ(actual.has_missing(f), expected.has_missing(f));
    for (std::size_t i = 0; i < expected.n_rows(); ++i) {
      ASSERT_EQ(actual.bin(f, i), expected.bin(f, i)) << "feature " << f << " row " << i;
    }
  }
  EXPECT_EQ(binned.clipped, doubles.clipped);
  EXPECT_EQ(binned.LabelValues(), doubles.labels);
  EXPECT_EQ(binned.feature_names, doubles.feature_names);
}

TEST(BinnedCsv, SameBinsClippingAndLabelsAsTheDoubleReader) {
  const std::string text = MixedCsv(20000);
  const Dataset doubles = ParseCsv(text, MixedSchema());
  for (const auto method :
       {CandidateMethod::kUniform, CandidateMethod::kLog, CandidateMethod::kUniformAndLog}) {
    const TrainerConfig::SplitCandidates sc{.method = method, .count = 32};
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(threads);
      ExpectSameAsDoubles(ParseCsvBinned(text, MixedSchema(), sc, threads), doubles, sc);
    }
  }
}

TEST(BinnedCsv, FileInRowRangesConcatenatesToTheWholeFile) {
  const std::string path = ::testing::TempDir() + "/binned_ranges.csv";
  const std::string text = MixedCsv(3001);
  std::FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  std::fwrite(text.data(), 1, text.size(), file);
  std::fclose(file);
  const TrainerConfig::SplitCandidates sc;
  const Dataset whole = LoadCsvBinned(path, MixedSchema(), sc, 2);
  ExpectSameAsDoubles(whole, LoadCsv(path, MixedSchema()), sc);
  std::vector<double> labels;
  std::size_t rows = 0;
  for (int rank = 0; rank < 3; ++rank) {
    const Dataset part = LoadCsvBinned(path, MixedSchema(), sc, 2, {}, {.rank = rank, .ranks = 3});
    const std::vector<double> part_labels = part.LabelValues();
    labels.insert(labels.end(), part_labels.begin(), part_labels.end());
    for (std::size_t f = 0; f < 3; ++f) {
      for (std::size_t i = 0; i < part.n_rows(); ++i) {
        ASSERT_EQ(part.binned->bins[f * part.n_rows() + i],
                  whole.binned->bins[f * whole.n_rows() + rows + i]);
      }
    }
    rows += part.n_rows();
  }
  EXPECT_EQ(rows, whole.n_rows());
  EXPECT_EQ(labels, whole.LabelValues());
  std::remove(path.c_str());
}

// Every refusal of LoadCsv's reader, with the same message (also where a file has several faults:
// a value that is no number first, then each feature's codes in schema order, then labels).
TEST(BinnedCsv, RefusesWhatTheDoubleReaderRefusesWithTheSameMessage) {
  const std::string big = MixedCsv(20000);
  const std::vector<std::string> inputs = {
      "",
      "\n  \n",
      "income,label,colour,age\n",
      "income,label,colour\n1,0,1\n",
      "income,label,colour,age,extra\n1,0,1,20,3\n",
      "income,income,label,colour,age\n1,1,0,1,20\n",
      "income,colour,age\n1,1,20\n",
      "income,label,colour,age\n1,0,1,20\n2,1,1\n",
      "income,label,colour,age\n1,0,1,20\n2,1,1,20,5\n",
      "income,label,colour,age\n1,0,1,x20\n",
      "income,label,colour,age\n1,0,1,inf\n",
      "income,label,colour,age\n1,0,1.5,20\n",
      "income,label,colour,age\n1,0,7,20\n",
      "income,label,colour,age\n1,2,1,20\n",
      "income,label,colour,age\n1,,1,20\n",
      "income,label,colour,age\n1,2,9,20\n3,0,1,abc\n",
      big + "1,2,9,20\n",
      big + "1,0,1,20\n1,0,9,20\n" + "1,2,1,20\n",
      "1,0,1,20\n" + big,  // a data line as the header
      big.substr(0, big.size() / 2) + "1,0,1,20,,\n" + big.substr(big.size() / 2),
  };
  const TrainerConfig::SplitCandidates sc;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::string expected = "accepted";
    try {
      ParseCsv(inputs[i], MixedSchema());
    } catch (const InvalidArgument& e) {
      expected = e.what();
    }
    for (int threads : {1, 2}) {
      std::string actual = "accepted";
      try {
        ParseCsvBinned(inputs[i], MixedSchema(), sc, threads);
      } catch (const InvalidArgument& e) {
        actual = e.what();
      }
      EXPECT_EQ(actual, expected) << "input " << i << ", " << threads << " threads";
    }
  }
}

TEST(BinnedCsv, RefusesCandidatesThatNeedTheRawValues) {
  const TrainerConfig::SplitCandidates ih{.method = CandidateMethod::kIterativeHessian};
  EXPECT_THAT([&] { ParseCsvBinned(MixedCsv(10), MixedSchema(), ih, 1); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("split_candidates")));
  // Data binned for other candidates than the trainer's.
  const Dataset data = ParseCsvBinned(MixedCsv(100), MixedSchema(), {.count = 16}, 1);
  TrainerConfig config;
  config.non_private = true;
  config.n_estimators = 1;
  EXPECT_THAT([&] { Train(data, config, testing::Quiet()); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("split_candidates")));
}

TEST(BinnedCsv, TrainerGivesTheSameModelBytes) {
  const std::string text = MixedCsv(5000);
  TrainerConfig config;
  config.n_estimators = 10;
  config.max_depth = 6;
  config.seed = 5;
  config.privacy = TrainerConfig::Privacy{.epsilon = 1};
  const Dataset doubles = ParseCsv(text, MixedSchema());
  for (const auto candidates : {CandidateMethod::kUniform, CandidateMethod::kUniformAndLog}) {
    config.split_candidates.method = candidates;
    const Dataset binned = ParseCsvBinned(text, MixedSchema(), config.split_candidates, 2);
    for (const auto method : {SplitMethod::kTotallyRandom, SplitMethod::kHistogram}) {
      config.split_method = method;
      EXPECT_EQ(Train(binned, config, testing::Quiet()).ToText(),
                Train(doubles, config, testing::Quiet()).ToText())
          << ToString(candidates);
    }
  }
  // The categorical feature's own candidate count (its 3 code boundaries thinned to 2) and deeper
  // one-feature trees over it.
  config.split_method = SplitMethod::kTotallyRandom;
  config.split_candidates.categorical_count = 2;
  config.categorical_depth = 9;
  config.feature_interaction = {.method = InteractionMethod::kCyclical, .k = 1};
  const Dataset binned = ParseCsvBinned(text, MixedSchema(), config.split_candidates, 2);
  EXPECT_EQ(binned.binned->candidates[2].size(), 2u);
  EXPECT_EQ(Train(binned, config, testing::Quiet()).ToText(),
            Train(doubles, config, testing::Quiet()).ToText());
}

}  // namespace
}  // namespace rdpkit::trees
