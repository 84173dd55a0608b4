// Evaluation metrics (`rdpkit evaluate`).
#include "rdpkit/trees/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "rdpkit/accountant/errors.h"

namespace rdpkit::trees {
namespace {

void CheckInputs(const std::vector<double>& predictions, const std::vector<double>& labels,
                 bool binary_labels) {
  if (predictions.empty() || predictions.size() != labels.size()) {
    throw InvalidArgument("labels", std::to_string(labels.size()) + " labels for " +
                                        std::to_string(predictions.size()) +
                                        " predictions (need the same, non-zero number)");
  }
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    if (std::isnan(predictions[i])) {
      throw InvalidArgument("predictions[" + std::to_string(i) + "]", "nan", "the numbers");
    }
    if (binary_labels ? (labels[i] != 0 && labels[i] != 1) : !std::isfinite(labels[i])) {
      throw InvalidArgument("labels[" + std::to_string(i) + "]", FormatNumber(labels[i]),
                            binary_labels ? "{0, 1}" : "the finite numbers");
    }
  }
}

}  // namespace

// AUC = (R₊ − n₊(n₊+1)/2) / (n₊·n₋), R₊ = sum of the ranks of the positives, tied scores sharing
// their average rank (Mann–Whitney U statistic; Hanley & McNeil 1982, eq. 2).
double Auc(const std::vector<double>& scores, const std::vector<double>& labels) {
  CheckInputs(scores, labels, /*binary_labels=*/true);
  const std::size_t n = scores.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  double rank_sum_positive = 0;
  double n_positive = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && scores[order[j]] == scores[order[i]]) ++j;
    // Ranks i+1..j share their mean (i+1+j)/2.
    const double average_rank = 0.5 * static_cast<double>(i + 1 + j);
    for (std::size_t k = i; k < j; ++k) {
      if (labels[order[k]] == 1) {
        rank_sum_positive += average_rank;
        n_positive += 1;
      }
    }
    i = j;
  }
  const double n_negative = static_cast<double>(n) - n_positive;
  if (n_positive == 0 || n_negative == 0) {
    throw InvalidArgument("labels", "AUC needs both classes; all " + std::to_string(n) +
                                        " labels are " + (n_positive == 0 ? "0" : "1"));
  }
  return (rank_sum_positive - n_positive * (n_positive + 1) / 2) / (n_positive * n_negative);
}

double Accuracy(const std::vector<double>& probabilities, const std::vector<double>& labels) {
  CheckInputs(probabilities, labels, /*binary_labels=*/true);
  std::size_t correct = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    correct += ((probabilities[i] >= 0.5) == (labels[i] == 1)) ? 1 : 0;
  }
  return static_cast<double>(correct) / static_cast<double>(labels.size());
}

// Binary cross-entropy −mean(y·log p + (1−y)·log(1−p)); p is clipped to [1e-15, 1 − 1e-15] so a
// confident mistake costs at most log(1e15) ≈ 34.5 instead of ∞ (the scikit-learn convention).
double LogLoss(const std::vector<double>& probabilities, const std::vector<double>& labels) {
  CheckInputs(probabilities, labels, /*binary_labels=*/true);
  constexpr double kClip = 1e-15;
  double total = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const double p = std::clamp(probabilities[i], kClip, 1 - kClip);
    total -= labels[i] == 1 ? std::log(p) : std::log1p(-p);
  }
  return total / static_cast<double>(labels.size());
}

// The regression metrics sum in long double: its exponent range (x86-64's 80-bit, or binary128)
// holds the square of any double and of any difference of two, so neither overflows (labels near
// ±1e160 gave rmse = inf) nor underflows (labels near 1e-320 gave rmse = 0 < mae).
static_assert(std::numeric_limits<long double>::max_exponent >
                  2 * std::numeric_limits<double>::max_exponent,
              "the regression metrics need a long double of wider exponent range than double");

double Rmse(const std::vector<double>& predictions, const std::vector<double>& labels) {
  CheckInputs(predictions, labels, /*binary_labels=*/false);
  long double total = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const long double error =
        static_cast<long double>(predictions[i]) - static_cast<long double>(labels[i]);
    total += error * error;
  }
  return static_cast<double>(std::sqrt(total / static_cast<long double>(labels.size())));
}

double Mae(const std::vector<double>& predictions, const std::vector<double>& labels) {
  CheckInputs(predictions, labels, /*binary_labels=*/false);
  long double total = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    total +=
        std::abs(static_cast<long double>(predictions[i]) - static_cast<long double>(labels[i]));
  }
  return static_cast<double>(total / static_cast<long double>(labels.size()));
}

namespace {

// n rows of K probabilities and n class labels.
std::size_t CheckClassInputs(const std::vector<double>& probabilities, int n_classes,
                             const std::vector<double>& labels) {
  if (n_classes < 2) throw InvalidArgument("n_classes", std::to_string(n_classes), "[2, inf)");
  const auto k = static_cast<std::size_t>(n_classes);
  if (labels.empty() || probabilities.size() != labels.size() * k) {
    throw InvalidArgument("labels", std::to_string(labels.size()) + " labels for " +
                                        std::to_string(probabilities.size()) +
                                        " probabilities of " + std::to_string(k) +
                                        " classes (need n and n·K, n > 0)");
  }
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const double y = labels[i];
    if (!(y >= 0 && y < n_classes && std::floor(y) == y)) {
      throw InvalidArgument("labels[" + std::to_string(i) + "]", FormatNumber(y),
                            "the class indices {0, …, " + std::to_string(k - 1) + "}");
    }
  }
  for (std::size_t j = 0; j < probabilities.size(); ++j) {
    if (std::isnan(probabilities[j])) {
      throw InvalidArgument("probabilities[" + std::to_string(j) + "]", "nan", "the numbers");
    }
  }
  return k;
}

}  // namespace

double MulticlassAccuracy(const std::vector<double>& probabilities, int n_classes,
                          const std::vector<double>& labels) {
  const std::size_t k = CheckClassInputs(probabilities, n_classes, labels);
  std::size_t correct = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto first = probabilities.begin() + static_cast<std::ptrdiff_t>(i * k);
    const auto best = std::max_element(first, first + static_cast<std::ptrdiff_t>(k)) - first;
    correct += static_cast<double>(best) == labels[i] ? 1 : 0;
  }
  return static_cast<double>(correct) / static_cast<double>(labels.size());
}

double MacroAuc(const std::vector<double>& probabilities, int n_classes,
                const std::vector<double>& labels) {
  const std::size_t k = CheckClassInputs(probabilities, n_classes, labels);
  const std::size_t n = labels.size();
  double total = 0;
  int counted = 0;
  std::vector<double> scores(n), is_class(n);
  for (std::size_t c = 0; c < k; ++c) {
    double positives = 0;
    for (std::size_t i = 0; i < n; ++i) {
      scores[i] = probabilities[i * k + c];
      is_class[i] = labels[i] == static_cast<double>(c) ? 1 : 0;
      positives += is_class[i];
    }
    if (positives == 0 || positives == static_cast<double>(n)) continue;  // AUC undefined
    total += Auc(scores, is_class);
    ++counted;
  }
  if (counted == 0) throw InvalidArgument("labels", "macro AUC needs two classes present");
  return total / counted;
}

double MulticlassLogLoss(const std::vector<double>& probabilities, int n_classes,
                         const std::vector<double>& labels) {
  const std::size_t k = CheckClassInputs(probabilities, n_classes, labels);
  constexpr double kClip = 1e-15;  // as LogLoss: a confident mistake costs at most log(1e15)
  double total = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto y = static_cast<std::size_t>(labels[i]);
    total -= std::log(std::clamp(probabilities[i * k + y], kClip, 1.0));
  }
  return total / static_cast<double>(labels.size());
}

}  // namespace rdpkit::trees
