// CSV data (DESIGN.md §4) read with a fixed small schema through trees::ParseCsv, the in-memory
// form of LoadCsv: once as training data (label required) and once as prediction data (label
// skipped if present). What is accepted must keep the documented shape: one value per row and
// feature, numeric values inside their bounds (clipped) or NaN, categorical codes in
// [0, n_codes) or NaN (written as codes or as their names), binary labels 0/1 (or no/yes), clipped
// counts at most the number of rows. The binning reader (ParseCsvBinned, what `rdpkit train` uses)
// must agree with it: the same refusal message, or the same labels, clipping counts and each
// value's bin. The reader in parts (ReadCsvParts, what `predict` and `evaluate` use) must accept
// what ParseCsv accepts, with the same values, labels and clipping counts in blocks of any size,
// and refuse what ParseCsv refuses with the same message, in one block or many. A schema that
// `rdpkit schema` drafts from the text itself (with each --task) must read that text unrefused
// and unclipped, and the binning reader and the reader in parts must agree with ParseCsv under it.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>

#include "csv_table.h"
#include "fuzz_util.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/binned_csv.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/model.h"

namespace {

using rdpkit::trees::Dataset;
using rdpkit::trees::Schema;

const Schema& FixedSchema() {
  static const Schema schema = Schema::FromJson(nlohmann::json::parse(R"({
    "task": "binary", "classes": ["no", "yes"],
    "features": [
      {"name": "age", "min": 18, "max": 90},
      {"name": "balance", "min": -1e6, "max": 1e6},
      {"name": "colour", "categorical": true, "n_codes": 3, "codes": ["red", "blue", "dark, green"]}
    ]})"));
  return schema;
}

void CheckShape(const Dataset& data, bool with_labels) {
  const Schema& schema = FixedSchema();
  if (data.n_features() != schema.features.size() ||
      data.feature_names.size() != schema.features.size() ||
      data.clipped.size() != schema.features.size()) {
    rdpkit::fuzz::Fail("feature count differs from the schema");
  }
  const std::size_t rows = data.n_rows();
  if (with_labels && data.labels.size() != rows) rdpkit::fuzz::Fail("one label per row");
  for (const double label : data.labels) {
    if (label != 0 && label != 1) rdpkit::fuzz::Fail("binary label not 0/1");
  }
  for (std::size_t f = 0; f < data.n_features(); ++f) {
    const auto& spec = schema.features[f];
    if (data.feature_names[f] != spec.name) rdpkit::fuzz::Fail("feature order", spec.name);
    if (data.columns[f].size() != rows) rdpkit::fuzz::Fail("ragged column", spec.name);
    if (data.clipped[f] > rows) rdpkit::fuzz::Fail("more clipped values than rows", spec.name);
    for (const double value : data.columns[f]) {
      if (std::isnan(value)) continue;
      if (value < spec.min || value > spec.max)
        rdpkit::fuzz::Fail("value out of bounds", spec.name);
      if (spec.categorical && value != std::floor(value)) {
        rdpkit::fuzz::Fail("categorical value not an integer code", spec.name);
      }
    }
  }
}

// The bin of x for sorted candidates: how many of them x does not go left at (model.h GoesLeft).
std::uint8_t ExpectedBin(const std::vector<double>& candidates, int feature, double x) {
  if (std::isnan(x)) return 255;
  rdpkit::trees::Node node;
  node.feature = feature;
  std::uint8_t bin = 0;
  for (const double c : candidates) {
    node.threshold = c;
    if (!rdpkit::trees::GoesLeft(node, x)) ++bin;
  }
  return bin;
}

// What ParseCsv made of text under a schema (labels required): the data, or the refusal. The
// other readers are compared with it.
struct ParsedText {
  Dataset data;
  std::string error;  // empty: accepted
};

ParsedText ParseOrRefusal(std::string_view text, const Schema& schema) {
  ParsedText parsed;
  try {
    parsed.data = rdpkit::trees::ParseCsv(text, schema, {}, "fuzz.csv");
  } catch (const rdpkit::InvalidArgument& e) {
    parsed.error = e.what();
  }
  return parsed;
}

void CheckBinnedAgrees(std::string_view text, const Schema& schema, const ParsedText& parsed) {
  const Dataset& expected = parsed.data;
  const std::string& expected_error = parsed.error;
  std::string actual_error;
  Dataset actual;
  try {
    // One thread: fuzz inputs are far below the 8 KiB a second part needs (the parallel parts are
    // checked in tests/trees/binned_csv_test.cc); a pool per input would only slow fuzzing.
    actual = rdpkit::trees::ParseCsvBinned(text, schema, {}, /*threads=*/1, {}, "fuzz.csv");
  } catch (const rdpkit::InvalidArgument& e) {
    actual_error = e.what();
  }
  if (expected_error != actual_error) rdpkit::fuzz::Fail("binned reader refuses differently");
  if (!expected_error.empty()) return;
  if (actual.n_rows() != expected.n_rows() || actual.LabelValues() != expected.LabelValues() ||
      actual.clipped != expected.clipped) {
    rdpkit::fuzz::Fail("binned reader: rows, labels or clipping differ");
  }
  const std::size_t n = expected.n_rows();
  for (std::size_t f = 0; f < expected.n_features(); ++f) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint8_t bin =
          ExpectedBin(actual.binned->candidates[f], static_cast<int>(f), expected.columns[f][i]);
      if (actual.binned->bins[f * n + i] != bin) rdpkit::fuzz::Fail("binned reader: bin differs");
    }
  }
}

// The rows of text read by ReadCsvParts in blocks of about block_bytes, joined; or the refusal.
std::string ReadJoined(std::string_view text, std::size_t block_bytes, const Schema& schema,
                       Dataset& joined) {
  joined = Dataset{};
  joined.columns.resize(schema.features.size());
  joined.clipped.assign(schema.features.size(), 0);
  rdpkit::trees::internal::BlockSource blocks =
      rdpkit::trees::internal::BlockSource::OfText(text, block_bytes);
  try {
    rdpkit::trees::internal::ReadCsvParts(blocks, "fuzz.csv", schema, {}, [&](Dataset&& part) {
      if (part.n_rows() == 0) rdpkit::fuzz::Fail("parts: an empty part");
      rdpkit::trees::internal::AppendPart(joined, part);
    });
  } catch (const rdpkit::InvalidArgument& e) {
    return e.what();
  }
  return "";
}

void CheckPartsAgree(std::string_view text, const Schema& schema, const ParsedText& parsed) {
  const Dataset& expected = parsed.data;
  const std::string& expected_error = parsed.error;
  Dataset joined;
  if (ReadJoined(text, 0, schema, joined) != expected_error) {
    rdpkit::fuzz::Fail("parts (one block) refuse differently");
  }
  const std::string error = ReadJoined(text, 1 + text.size() % 37, schema, joined);
  if (error != expected_error) rdpkit::fuzz::Fail("parts (small blocks) refuse differently");
  if (!error.empty()) return;
  if (joined.labels != expected.labels || joined.clipped != expected.clipped) {
    rdpkit::fuzz::Fail("parts: labels or clipping differ");
  }
  for (std::size_t f = 0; f < expected.columns.size(); ++f) {
    const auto& a = joined.columns[f];
    const auto& b = expected.columns[f];
    if (a.size() != b.size() ||
        (!a.empty() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) != 0)) {
      rdpkit::fuzz::Fail("parts: values differ");
    }
  }
}

// What a schema reader made of text: the schema's JSON, or the refusal.
std::string SchemaOrRefusal(const std::function<Schema()>& read, Schema& schema) {
  try {
    schema = read();
  } catch (const rdpkit::InvalidArgument& e) {
    return std::string("refused: ") + e.what();
  }
  return schema.ToJson().dump();
}

// `rdpkit schema`'s draft and --bounds-from-data read the text the same in one block or many,
// and a schema they draft from the data's own bounds takes that data: nothing refused (labels
// aside, which --bounds-from-data does not read) and nothing clipped.
void CheckSchemasFromData(std::string_view text) {
  using rdpkit::trees::internal::BlockSource;
  namespace internal = rdpkit::trees::internal;
  const std::size_t small_blocks = 1 + text.size() % 37;
  // The task as the user may pass it: none (drafted from the labels), or one of the three.
  const std::optional<rdpkit::trees::Task> tasks[] = {std::nullopt, rdpkit::trees::Task::kBinary,
                                                      rdpkit::trees::Task::kRegression,
                                                      rdpkit::trees::Task::kMulticlass};
  const std::optional<rdpkit::trees::Task> task = tasks[text.size() % 4];
  Schema draft;
  Schema other;
  const auto draft_of = [&](std::size_t block_bytes) {
    return [&text, &task, block_bytes] {
      BlockSource blocks = BlockSource::OfText(text, block_bytes);
      return internal::DraftSchemaOfBlocks(blocks, "fuzz.csv", "label", task);
    };
  };
  const std::string drafted = SchemaOrRefusal(draft_of(0), draft);
  if (SchemaOrRefusal(draft_of(small_blocks), other) != drafted) {
    rdpkit::fuzz::Fail("draft: blocks give another schema or refusal");
  }
  if (drafted.rfind("refused: ", 0) != 0) {
    const ParsedText own = ParseOrRefusal(text, draft);
    if (!own.error.empty()) rdpkit::fuzz::Fail("draft: its own data is refused:", own.error);
    if (own.data.total_clipped() != 0) rdpkit::fuzz::Fail("draft: its own data is clipped");
    // train's and predict's readers under the drafted schema (codes, class names, label kinds
    // the fixed schema does not have).
    CheckBinnedAgrees(text, draft, own);
    CheckPartsAgree(text, draft, own);
  }
  Schema bounds;
  const auto bounds_of = [&](std::size_t block_bytes) {
    return [&text, block_bytes] {
      BlockSource blocks = BlockSource::OfText(text, block_bytes);
      return internal::SchemaFromBlocks(blocks, "fuzz.csv", "label",
                                        rdpkit::trees::Task::kRegression);
    };
  };
  const std::string from_data = SchemaOrRefusal(bounds_of(0), bounds);
  if (SchemaOrRefusal(bounds_of(small_blocks), other) != from_data) {
    rdpkit::fuzz::Fail("bounds from data: blocks give another schema or refusal");
  }
  if (from_data.rfind("refused: ", 0) != 0) {
    try {
      const Dataset data = rdpkit::trees::ParseCsv(
          text, bounds, {.require_label = false, .read_label = false}, "fuzz.csv");
      if (data.total_clipped() != 0) rdpkit::fuzz::Fail("bounds from data: its data is clipped");
    } catch (const rdpkit::InvalidArgument& e) {
      rdpkit::fuzz::Fail("bounds from data: its own data is refused:", e.what());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = rdpkit::fuzz::AsText(data, size);
  const ParsedText fixed = ParseOrRefusal(text, FixedSchema());
  if (fixed.error.empty()) CheckShape(fixed.data, true);
  rdpkit::fuzz::RefusalsAllowed([&] {
    CheckShape(rdpkit::trees::ParseCsv(text, FixedSchema(),
                                       {.require_label = false, .read_label = false}, "fuzz.csv"),
               false);
  });
  CheckBinnedAgrees(text, FixedSchema(), fixed);
  CheckPartsAgree(text, FixedSchema(), fixed);
  CheckSchemasFromData(text);
  return 0;
}
