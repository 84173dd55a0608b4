#include "softmax.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "rdpkit/accountant/errors.h"
#include "rounding.h"
#include "schema_classes.h"

namespace rdpkit::trees::internal {
namespace {

constexpr std::size_t kMaxClasses = static_cast<std::size_t>(Schema::kMaxClasses);

void Refuse(const std::string& key, const std::string& value, const std::string& why) {
  throw InvalidArgument(key, value + ": not supported with a multiclass objective (" + why + ")");
}

// s_a of softprob, the bound of a record's gradient vector ‖p − e_y‖: below √2 always (Lemma 1,
// docs/trees_training.md "Multiclass"), and capped by the L2 clip g*. sqrt(2.0) rounds up
// (1.41421356237309514… > √2). The sensitivity and the clip both take it from here.
double SoftprobGradientBound(double gradient_clip) {
  return std::min(gradient_clip, std::sqrt(2.0));
}

}  // namespace

Sensitivities MulticlassSensitivities(const TrainerConfig& config, int n_classes) {
  RDPKIT_CHECK(n_classes >= 2);
  const double k = n_classes;
  const bool newton = config.leaf_update == LeafUpdate::kNewton;
  Sensitivities s;
  if (config.objective == Objective::kMultiOvr) {
    // One class tree is a binary cross-entropy tree: |g| ≤ 1, 0 ≤ h ≤ 1/4 (Maddock §4.2).
    s.a = std::min(config.gradient_clip, 1.0);
    s.b = newton ? std::min(config.hessian_clip, 0.25) : 1.0;
    return s;
  }
  // ‖p − e_y‖² = (1 − p_y)² + Σ_{k≠y} p_k² ≤ 2(1 − p_y)² < 2, and the L2 clip caps it at g*
  // (docs/trees_training.md "Multiclass", Lemma 1).
  s.a = SoftprobGradientBound(config.gradient_clip);
  if (newton) {
    // Σ h_k² ≤ max_k h_k · Σ h_k ≤ min(h*, 1/4)·min(K·h*, 1 − Σ p_k²) and Σ p_k² ≥ 1/K
    // (Cauchy–Schwarz): docs/trees_training.md "Multiclass", Lemma 2.
    // Two square roots (no underflow of the product for tiny clips) of ≤ 3 rounded operations.
    const double h_max = std::min(config.hessian_clip, 0.25);
    s.b = RoundedUp(std::sqrt(h_max) * std::sqrt(std::min(k * config.hessian_clip, 1 - 1 / k)), 5);
  } else {
    s.b = RoundedUp(std::sqrt(k), 1);  // (g_k, 1) in each of the K class trees
  }
  return s;
}

void ValidateMulticlass(const TrainerConfig& config, const Dataset& data) {
  const int k = data.schema.n_classes;
  if (k < 2 || k > Schema::kMaxClasses) {
    throw InvalidArgument("n_classes", std::to_string(k),
                          "the integers [2, " + std::to_string(Schema::kMaxClasses) + "]");
  }
  for (std::size_t i = 0; i < data.labels.size(); ++i) {
    if (!IsClassLabel(data.labels[i], k)) {
      throw InvalidArgument("data.labels[" + std::to_string(i) + "]", FormatNumber(data.labels[i]),
                            "the class indices {0, …, " + std::to_string(k - 1) + "}");
    }
  }
  if (config.leaf_update == LeafUpdate::kAveraging) {
    Refuse("leaf_update", "\"averaging\"", "class proportions per leaf are not defined yet");
  }
  if (config.split_method == SplitMethod::kExponential) {
    Refuse("split_method", "\"exponential\"",
           "the gain of K class trees has no joint exponential-mechanism release yet");
  }
  if (config.split_candidates.method == CandidateMethod::kIterativeHessian) {
    Refuse("split_candidates.method", "\"iterative_hessian\"",
           "the per-class Hessian histograms are not released jointly yet");
  }
  if (config.batch_size != 1) {
    Refuse("batch_size", std::to_string(config.batch_size), "rounds are sequential; use 1");
  }
  if (config.initial_score) {
    Refuse("initial_score", "given",
           "the base margins are fixed and public: 0 for softprob, -log(K-1) for ovr");
  }
  if (config.renyi_filter && config.objective == Objective::kMultiOvr) {
    Refuse("renyi_filter", "given with multi:ovr",
           "one-vs-rest makes K leaf queries per round; the filter charges one (use "
           "multi:softprob)");
  }
}

double MulticlassBaseScore(Objective objective, int n_classes) {
  if (objective == Objective::kMultiOvr) return -std::log(n_classes - 1.0);  // σ(−log(K−1)) = 1/K
  return 0;
}

void ClassProbabilities(Objective objective, const double* margins, int n_classes,
                        double* probabilities) {
  const auto k = static_cast<std::size_t>(n_classes);
  double total = 0;
  if (objective == Objective::kMultiOvr) {
    for (std::size_t c = 0; c < k; ++c) {
      probabilities[c] = 1 / (1 + std::exp(-margins[c]));  // σ(F_k)
      total += probabilities[c];
    }
  } else {
    // softmax(F)_k = e^{F_k − max F} / Σ_j e^{F_j − max F} (shifted: no overflow).
    const double top = *std::max_element(margins, margins + k);
    for (std::size_t c = 0; c < k; ++c) {
      probabilities[c] = std::exp(margins[c] - top);
      total += probabilities[c];
    }
  }
  for (std::size_t c = 0; c < k; ++c) probabilities[c] /= total;
}

void MulticlassStatistics(Objective objective, LeafUpdate leaf_update, const double* margins,
                          int label, int n_classes, double g_clip, double h_clip, double* g,
                          double* h) {
  const auto k = static_cast<std::size_t>(n_classes);
  double p[kMaxClasses];
  if (objective == Objective::kMultiOvr) {
    for (std::size_t c = 0; c < k; ++c) p[c] = 1 / (1 + std::exp(-margins[c]));
  } else {
    ClassProbabilities(objective, margins, n_classes, p);
  }
  double norm2 = 0;
  for (std::size_t c = 0; c < k; ++c) {
    // ∂/∂F_k of the cross-entropy: p_k − [y = k] (softmax, and the logistic loss of class k).
    g[c] = p[c] - (static_cast<int>(c) == label ? 1.0 : 0.0);
    norm2 += g[c] * g[c];
    // The Hessian's diagonal p_k(1 − p_k), clipped to [0, h*] (S-BDT §4.2).
    h[c] = leaf_update == LeafUpdate::kNewton ? std::min(std::max(p[c] * (1 - p[c]), 0.0), h_clip)
                                              : 1.0;
  }
  if (objective == Objective::kMultiOvr) {
    for (std::size_t c = 0; c < k; ++c) g[c] = std::min(std::max(g[c], -g_clip), g_clip);
    return;
  }
  // L2 clipping of the gradient vector to norm g* (Abadi et al. 2016 Alg. 1 line "clip"), aimed
  // 1e-12 (relative) below the bound s_a = min(g*, √2): the computed norm may be up to K + 1
  // roundings below the true one, and the released vector's true norm must not exceed s_a.
  const double limit = SoftprobGradientBound(g_clip) * (1 - 1e-12);
  const double norm = std::sqrt(norm2);
  if (norm > limit) {
    const double scale = limit / norm;
    for (std::size_t c = 0; c < k; ++c) g[c] *= scale;
  }
}

ClassStatistics::ClassStatistics(const Dataset& data, const TrainerConfig& config, WorkerPool& pool,
                                 double base_score)
    : data_(data),
      pool_(pool),
      objective_(config.objective),
      leaf_update_(config.leaf_update),
      gradient_clip_(config.gradient_clip),
      hessian_clip_(config.hessian_clip),
      n_(data.n_rows()),
      k_(data.schema.n_classes),
      margins_(n_ * static_cast<std::size_t>(k_), base_score),
      stats_(static_cast<std::size_t>(k_), std::vector<Pair>(n_)) {
  Recompute();
}

void ClassStatistics::AddTree(int k, const std::vector<double>& leaf_values,
                              const std::uint16_t* node_of) {
  const auto classes = static_cast<std::size_t>(k_);
  const auto c = static_cast<std::size_t>(k);
  pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i) margins_[i * classes + c] += leaf_values[node_of[i]];
  });
}

Pair ClassStatistics::Norms(std::size_t i) const {
  double gg = 0;
  double hh = 0;
  for (const std::vector<Pair>& k : stats_) {
    gg += k[i].a * k[i].a;
    hh += k[i].b * k[i].b;
  }
  return {std::sqrt(gg), std::sqrt(hh)};
}

void ClassStatistics::Recompute(const RowSample& rows) {
  const auto classes = static_cast<std::size_t>(k_);
  pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int) {
    double g[kMaxClasses];
    double h[kMaxClasses];
    for (std::size_t i = begin; i < end; ++i) {
      if (!rows.Has(i)) continue;
      MulticlassStatistics(objective_, leaf_update_, &margins_[i * classes],
                           static_cast<int>(data_.labels[i]), k_, gradient_clip_, hessian_clip_, g,
                           h);
      for (std::size_t c = 0; c < classes; ++c) stats_[c][i] = {g[c], h[c]};
    }
  });
}

}  // namespace rdpkit::trees::internal
