// rdpkit evaluate: model + labelled CSV → metrics (DESIGN.md §3).
#include <memory>

#include "cli.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/metrics.h"
#include "rdpkit/trees/model.h"
#include "trees_commands.h"

namespace rdpkit::tools {

int RunEvaluate(const EvaluateArgs& args, std::ostream& out) {
  if (args.model.empty()) throw InvalidArgument("model", "missing (--model model.json)");
  if (args.data.empty()) throw InvalidArgument("data", "missing (--data test.csv)");
  const trees::Model model = trees::Model::Load(args.model);
  const trees::Dataset data = LoadDataForModel(model, args.data, args.label, true);
  if (trees::TaskOfObjective(model.objective) == trees::Task::kMulticlass) {
    const std::vector<double> p = model.PredictProbabilities(data);
    const int k = model.n_classes;
    WriteJson(out, {{"accuracy", JsonNumber(trees::MulticlassAccuracy(p, k, data.labels))},
                    {"macro_auc", JsonNumber(trees::MacroAuc(p, k, data.labels))},
                    {"log_loss", JsonNumber(trees::MulticlassLogLoss(p, k, data.labels))}});
    return 0;
  }
  const std::vector<double> predictions = model.Predict(data);
  if (trees::TaskOfObjective(model.objective) == trees::Task::kBinary) {
    WriteJson(out, {{"auc", JsonNumber(trees::Auc(predictions, data.labels))},
                    {"accuracy", JsonNumber(trees::Accuracy(predictions, data.labels))},
                    {"log_loss", JsonNumber(trees::LogLoss(predictions, data.labels))}});
  } else {
    WriteJson(out, {{"rmse", JsonNumber(trees::Rmse(predictions, data.labels))},
                    {"mae", JsonNumber(trees::Mae(predictions, data.labels))}});
  }
  return 0;
}

void RegisterEvaluate(CLI::App& app, Action& action) {
  auto args = std::make_shared<EvaluateArgs>();
  CLI::App* sub = app.add_subcommand("evaluate", "metrics of a trained model on labelled data");
  sub->add_option("--model", args->model, "model file written by rdpkit train")->required();
  sub->add_option("--data", args->data, "CSV with the model's features and the label")->required();
  sub->add_option("--label", args->label, "name of the label column (default: label)");
  sub->callback(
      [args, &action] { action = [args](std::ostream& out) { return RunEvaluate(*args, out); }; });
}

}  // namespace rdpkit::tools
