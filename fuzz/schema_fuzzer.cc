// Schema sidecars (DESIGN.md §4) as `rdpkit train --schema` reads them: trees::Schema::FromFile
// (the input is written to tmpfs first; FromFile takes a path). An accepted schema must survive
// ToJson → FromJson unchanged; then five rows at and beyond its bounds are read with it (a named
// categorical code once by its name, which must read as that code, or be refused), and a
// small model (2 trees of depth 2, split candidates uniform, log or iterative_hessian by input)
// is trained on them, which turns the bounds into split candidates.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/train.h"

namespace {

using rdpkit::FormatNumber;
using rdpkit::trees::Schema;

constexpr std::size_t kMaxInputBytes = 8192;
constexpr std::size_t kMaxTrainedFeatures = 16;
constexpr int kRows = 5;

// Row r of feature spec: min, max, the middle, below min (clipped), missing.
std::string Cell(const rdpkit::trees::FeatureSpec& spec, int row) {
  if (spec.categorical) {
    const int codes[kRows] = {0, spec.n_codes - 1, spec.n_codes / 2, 0, -1};
    // The middle code by its name, quoted, where the schema names the codes.
    if (row == 2 && !spec.codes.empty()) return "\"" + spec.codes[codes[row]] + "\"";
    return codes[row] < 0 ? "" : std::to_string(codes[row]);
  }
  switch (row) {
    case 0:
      return FormatNumber(spec.min);
    case 1:
      return FormatNumber(spec.max);
    case 2:
      return FormatNumber(spec.min / 2 + spec.max / 2);
    case 3:
      return FormatNumber(spec.min - 1);
    default:
      return "";
  }
}

// What a cell holding `cell` reads as in a numeric column (NaN: missing, or refused).
double AsNumberCell(const std::string& cell) {
  static const Schema numeric =
      Schema::FromJson({{"task", "regression"},
                        {"features", {{{"name", "v"}, {"min", -1.7e308}, {"max", 1.7e308}}}}});
  double value = std::nan("");
  rdpkit::fuzz::RefusalsAllowed([&] {
    value = rdpkit::trees::ParseCsv("v\n" + cell + "\n", numeric, {.require_label = false})
                .columns[0][0];
  });
  return value;
}

std::string RowsFor(const Schema& schema) {
  std::string csv;
  for (const auto& spec : schema.features) csv += spec.name + ",";
  csv += "label\n";
  for (int row = 0; row < kRows; ++row) {
    for (const auto& spec : schema.features) csv += Cell(spec, row) + ",";
    csv += std::to_string(row % 2) + "\n";
  }
  return csv;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > kMaxInputBytes) return -1;
  static const rdpkit::fuzz::TempFile file("schema");
  const std::string& path = file.Write(rdpkit::fuzz::AsText(data, size));
  rdpkit::fuzz::RefusalsAllowed([&] {
    const Schema schema = Schema::FromFile(path);

    const nlohmann::json written = schema.ToJson();
    nlohmann::json reread;
    if (!rdpkit::fuzz::RefusalsAllowed([&] { reread = Schema::FromJson(written).ToJson(); })) {
      rdpkit::fuzz::Fail("FromJson refused what ToJson wrote", written.dump());
    }
    if (reread != written) {
      rdpkit::fuzz::Fail("ToJson -> FromJson changed the schema", written.dump());
    }

    if (schema.features.size() > kMaxTrainedFeatures) return;
    const rdpkit::trees::Dataset rows =
        rdpkit::trees::ParseCsv(RowsFor(schema), schema, {}, "rows.csv");
    for (std::size_t f = 0; f < schema.features.size(); ++f) {
      const auto& spec = schema.features[f];
      const double value = rows.columns[f][2];
      if (!spec.categorical || value == spec.n_codes / 2) continue;
      // Only a name that reads as a number (or as missing) is not taken as a name.
      const double as_number = AsNumberCell(Cell(spec, 2));
      if (!(value == as_number || (std::isnan(value) && std::isnan(as_number)))) {
        rdpkit::fuzz::Fail("the middle code's name read as another code", spec.name);
      }
    }
    static const char* const kMethods[] = {"uniform", "log", "iterative_hessian",
                                           "uniform_and_log"};
    const rdpkit::trees::Task task = schema.task;
    const auto config = rdpkit::trees::TrainerConfig::FromJson({
        {"objective", task == rdpkit::trees::Task::kBinary       ? "binary:logistic"
                      : task == rdpkit::trees::Task::kRegression ? "reg:squarederror"
                                                                 : "multi:softprob"},
        {"n_estimators", 2},
        {"max_depth", 2},
        {"split_candidates", {{"method", kMethods[size % 4]}, {"count", 8}}},
        {"privacy", {{"epsilon", 1.0}, {"delta", 1e-5}}},
        {"seed", 1},
    });
    (void)rdpkit::trees::Train(rows, config, {.progress = false, .progress_stream = nullptr});
  });
  return 0;
}
