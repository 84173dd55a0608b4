// rdpkit evaluate: model + labelled CSV → metrics (DESIGN.md §3).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/metrics.h"
#include "rdpkit/trees/model.h"
#include "trees_commands.h"

namespace rdpkit::tools {
namespace {

// An AUC of the labels, or null with the reason under "<key>_undefined" when the labels lack a
// class (a test set of one class still has an accuracy and a log loss).
void AddAuc(nlohmann::json& metrics, const char* key, const std::function<double()>& auc) {
  try {
    metrics[key] = JsonNumber(auc());
  } catch (const InvalidArgument& error) {
    if (error.field() != "labels") throw;
    metrics[key] = nullptr;
    metrics[std::string(key) + "_undefined"] = error.what();
  }
}

}  // namespace

int RunEvaluate(const EvaluateArgs& args, std::ostream& out) {
  if (args.model.empty()) throw InvalidArgument("model", "missing (--model model.json)");
  if (args.data.empty()) throw InvalidArgument("data", "missing (--data test.csv)");
  const trees::Model model = trees::Model::Load(args.model);
  const trees::Task task = trees::TaskOfObjective(model.objective);
  // Only the predictions (or class probabilities) and labels are kept, not the rows.
  std::vector<double> predictions;
  std::vector<double> labels;
  ReadDataForModel(model, args.data, args.label, true, [&](trees::Dataset&& part) {
    const std::vector<double> p =
        task == trees::Task::kMulticlass ? model.PredictProbabilities(part) : model.Predict(part);
    predictions.insert(predictions.end(), p.begin(), p.end());
    labels.insert(labels.end(), part.labels.begin(), part.labels.end());
  });
  if (task == trees::Task::kMulticlass) {
    const int k = model.n_classes;
    nlohmann::json metrics = {
        {"accuracy", JsonNumber(trees::MulticlassAccuracy(predictions, k, labels))},
        {"log_loss", JsonNumber(trees::MulticlassLogLoss(predictions, k, labels))}};
    AddAuc(metrics, "macro_auc", [&] { return trees::MacroAuc(predictions, k, labels); });
    WriteJson(out, metrics);
  } else if (task == trees::Task::kBinary) {
    nlohmann::json metrics = {{"accuracy", JsonNumber(trees::Accuracy(predictions, labels))},
                              {"log_loss", JsonNumber(trees::LogLoss(predictions, labels))}};
    AddAuc(metrics, "auc", [&] { return trees::Auc(predictions, labels); });
    WriteJson(out, metrics);
  } else {
    WriteJson(out, {{"rmse", JsonNumber(trees::Rmse(predictions, labels))},
                    {"mae", JsonNumber(trees::Mae(predictions, labels))}});
  }
  return 0;
}

void RegisterEvaluate(CLI::App& app, Action& action) {
  auto args = std::make_shared<EvaluateArgs>();
  CLI::App* sub = app.add_subcommand("evaluate", "metrics of a trained model on labelled data");
  sub->add_option("--model", args->model, "model file written by rdpkit train")->required();
  sub->add_option("--data", args->data, "CSV with the model's features and the label")->required();
  sub->add_option("--label", args->label,
                  "name of the label column (default: the model's, else label)");
  sub->callback(
      [args, &action] { action = [args](std::ostream& out) { return RunEvaluate(*args, out); }; });
}

}  // namespace rdpkit::tools
