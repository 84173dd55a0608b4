// Model files (DESIGN.md §6) as `rdpkit predict` reads them: trees::Model::Load from a file (the
// input is written to tmpfs first; Load takes a path), then a prediction on a tiny dataset with
// the model's features. A model that loads must write itself back (ToText) to text that loads to
// the same model, and predict one value per row. Model::Parse, which reads the nodes as the parser
// meets them, must refuse with FromJson(ParseJson(text))'s message or give its model.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/model.h"

namespace {

using rdpkit::trees::Dataset;
using rdpkit::trees::Model;

// Values every feature takes in the tiny dataset: ordinary, negative, huge, tiny, missing.
constexpr double kRowValues[] = {0.0,      1.0,     -1.0,
                                 0.5,      1e300,   -1e300,
                                 4.9e-324, 12345.0, std::numeric_limits<double>::quiet_NaN()};

Dataset TinyDataset(const Model& model) {
  Dataset data;
  data.schema = model.schema;
  data.feature_names = model.feature_names;
  data.columns.assign(model.feature_names.size(), {});
  data.clipped.assign(model.feature_names.size(), 0);
  for (std::size_t f = 0; f < data.columns.size(); ++f) {
    // Rows differ per feature (a rotation), so paths through different features are taken.
    for (std::size_t row = 0; row < std::size(kRowValues); ++row) {
      data.columns[f].push_back(kRowValues[(row + f) % std::size(kRowValues)]);
    }
  }
  return data;
}

// The outcome of reading text one way: the model's text, or the refusal.
std::string Outcome(const std::function<Model()>& read) {
  try {
    return read().ToText();
  } catch (const rdpkit::InvalidArgument& error) {
    return std::string("refused: ") + error.what();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const rdpkit::fuzz::TempFile file("model");
  const std::string_view text = rdpkit::fuzz::AsText(data, size);
  const std::string& path = file.Write(text);
  const std::string streamed = Outcome([&] { return Model::Parse(text, "fuzz"); });
  const std::string from_dom =
      Outcome([&] { return Model::FromJson(rdpkit::ParseJson(text, "model", "fuzz")); });
  if (streamed != from_dom) {
    rdpkit::fuzz::Fail("Parse differs from FromJson(ParseJson)",
                       streamed.substr(0, 500) + " / " + from_dom.substr(0, 500));
  }
  rdpkit::fuzz::RefusalsAllowed([&] {
    const Model model = Model::Load(path);

    const std::string written = model.ToText();
    Model reread;
    if (!rdpkit::fuzz::RefusalsAllowed(
            [&] { reread = Model::FromJson(nlohmann::json::parse(written)); })) {
      rdpkit::fuzz::Fail("FromJson refused what ToText wrote", written.substr(0, 2000));
    }
    if (reread.ToText() != written) {
      rdpkit::fuzz::Fail("ToText -> FromJson changed the model", written.substr(0, 2000));
    }

    if (model.feature_names.size() <= 256) {
      const Dataset tiny = TinyDataset(model);
      const std::vector<double> predictions = model.Predict(tiny);
      if (predictions.size() != std::size(kRowValues)) rdpkit::fuzz::Fail("one prediction per row");
      // The block kernel (forest_margins.cc) against the one-row walk, bit for bit.
      for (std::size_t row = 0; model.n_classes < 2 && row < predictions.size(); ++row) {
        const double walked = model.PredictRow(tiny.Row(row).data());
        const bool same =
            predictions[row] == walked || (std::isnan(predictions[row]) && std::isnan(walked));
        if (!same) rdpkit::fuzz::Fail("Predict differs from PredictRow", std::to_string(row));
      }
    }
  });
  return 0;
}
