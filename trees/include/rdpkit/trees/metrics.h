// Evaluation metrics of `rdpkit evaluate`. All take predictions and labels of equal, non-zero
// length and throw InvalidArgument otherwise (or on NaN).
#ifndef RDPKIT_TREES_METRICS_H_
#define RDPKIT_TREES_METRICS_H_

#include <vector>

namespace rdpkit::trees {

// Area under the ROC curve = Mann–Whitney U / (n_pos·n_neg), tied scores get their average rank.
// Labels must be 0/1 with both classes present.
double Auc(const std::vector<double>& scores, const std::vector<double>& labels);
// Fraction of rows with (probability >= 0.5) == label.
double Accuracy(const std::vector<double>& probabilities, const std::vector<double>& labels);
// Mean of -[y log p + (1-y) log(1-p)], p clipped to [1e-15, 1 - 1e-15].
double LogLoss(const std::vector<double>& probabilities, const std::vector<double>& labels);
// sqrt(mean((prediction - label)^2)).
double Rmse(const std::vector<double>& predictions, const std::vector<double>& labels);
// mean(|prediction - label|).
double Mae(const std::vector<double>& predictions, const std::vector<double>& labels);

// Multiclass (K classes, probabilities row-major n × K, labels class indices 0..K−1):
// fraction of rows whose most probable class (the lowest index on a tie) is the label.
double MulticlassAccuracy(const std::vector<double>& probabilities, int n_classes,
                          const std::vector<double>& labels);
// Mean over the classes present with both outcomes of Auc(p_k, [y = k]) (macro one-vs-rest AUC,
// Hand & Till's "one-vs-rest" average as scikit-learn's roc_auc_score(multi_class="ovr")).
double MacroAuc(const std::vector<double>& probabilities, int n_classes,
                const std::vector<double>& labels);
// Mean of −log p_y, p_y clipped to [1e-15, 1] (multi-class cross-entropy).
double MulticlassLogLoss(const std::vector<double>& probabilities, int n_classes,
                         const std::vector<double>& labels);

}  // namespace rdpkit::trees

#endif  // RDPKIT_TREES_METRICS_H_
