// The private GBDT trainer's boosting loop (Maddock et al. 2022 with S-BDT and Revisiting
// DP-XGBoost options). Methods and accounting: docs/trees_training.md; the pieces and the path of
// one run: docs/architecture.md. Everything the run releases goes through the query plan
// (query_plan.h); splits come from the split strategy (split_strategy.h); routing, binning, the
// logistic kernels and leaf values live in their own files.
#include "rdpkit/trees/train.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binned_matrix.h"
#include "candidates.h"
#include "distributed_release.h"
#include "heap_tree.h"
#include "label_bounds.h"
#include "leaf_value.h"
#include "model_nodes.h"
#include "parallel.h"
#include "query_plan.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/filter.h"
#include "rdpkit/accountant/individual.h"
#include "rdpkit/mechanisms/random.h"
#include "rdpkit/trees/accounting.h"
#include "rounding.h"
#include "routing.h"
#include "row_sample.h"
#include "row_statistics.h"
#include "softmax.h"
#include "split_strategy.h"
#include "statistics.h"
#include "training_report.h"

namespace rdpkit::trees {
namespace {

using internal::BinnedMatrix;
using internal::FixedPair;
using internal::FixedScales;
using internal::HeapTree;
using internal::kMissingBin;
using internal::Pair;
using internal::QueryPlan;
using mechanisms::Random;

class Trainer final : public internal::GrowContext {
 public:
  Trainer(const Dataset& data, const TrainerConfig& config, const TrainOptions& options)
      : data_(data),
        config_(config),
        options_(options),
        n_(data.n_rows()),
        n_total_(n_),
        row_offset_(0),
        m_(static_cast<int>(data.n_features())),
        rng_(internal::RunRandom(config, options.communicator)),
        pool_(config.threads) {}

  Model Run();

  // GrowContext
  const BinnedMatrix& bins() const override { return *bins_; }
  Random& rng() override { return rng_; }
  QueryPlan& plan() override { return *plan_; }
  const internal::LeafParams& leaf_params() const override { return leaf_params_; }
  void ResetNodes() override { std::fill(node_of_.begin(), node_of_.end(), 0); }
  void RouteLevel(const HeapTree& tree, std::size_t first) override {
    internal::RouteLevel(*bins_, tree, first, node_of_, pool_);
  }
  void RouteToLeaves(const HeapTree& tree, std::vector<Pair>& sums) override;
  void SumLeaves(std::size_t leaves, std::vector<Pair>& sums) override;
  std::vector<Pair> Histogram(const std::vector<int>& features, std::size_t cells,
                              std::size_t count,
                              const std::vector<std::vector<std::uint16_t>>* cell_split,
                              bool count_as_b) override;

 private:
  void ValidateData();
  // Runs over several ranks: n_total_, row_offset_ and the refusals (distributed_release.h).
  void ShareRowCounts();
  // The statistics the trees are grown on: the current class tree's with a multiclass objective.
  const std::vector<Pair>& stats() const {
    return classes_ ? classes_->stats(class_) : rows_->stats();
  }
  // One round of K class trees, all grown on the round's starting margins (softmax.h).
  void TrainClassTrees(int t, const std::vector<int>& features, Model& model);
  // The binned data, the calibrated privacy plan, the query plan and the split strategy.
  void SetUp();
  double InitialScore();
  void DrawSample();
  void ApplyFilter();
  std::vector<int> TreeFeatures(int t);
  void RefineCandidatesIh();
  // Maddock §4.5.2 with histogram splits: the root's released Hessian histogram refines the
  // candidates for the next tree at no privacy cost.
  void RefineCandidatesFromRoot(const std::vector<int>& features,
                                const internal::SplitStrategy::RootHessian& root_hessian);
  // Grows tree t (its releases bracketed as one tree of the plan) and its leaf values.
  HeapTree TrainTree(int t, const std::vector<int>& features,
                     internal::SplitStrategy::RootHessian* root_hessian);
  // Lets tree t's leaf values enter the margins (at the end of its batch) and renews statistics.
  void ApplyTree(int t, const HeapTree& tree);
  Tree ToModelTree(const HeapTree& tree);  // counts its text towards the model file's limit

  const Dataset& data_;
  TrainerConfig config_;  // as given, but for an adapted g* (label_bounds.h), which the model holds
  const TrainOptions& options_;
  std::size_t n_;
  std::size_t n_total_;     // rows of every rank (n_ in one process)
  std::size_t row_offset_;  // this rank's first row in the ranks' concatenation
  int m_;
  Random rng_;
  internal::WorkerPool pool_;

  bool binary_ = true;
  LeafUpdate leaf_ = LeafUpdate::kNewton;
  int features_per_tree_ = 1;  // min(k of feature_interaction, splittable features)
  bool noisy_ = false;
  PrivacyPlan privacy_;
  std::optional<BinnedMatrix> bins_;
  std::optional<QueryPlan> plan_;
  std::unique_ptr<internal::SplitStrategy> strategy_;
  internal::LeafParams leaf_params_;

  std::optional<internal::TrainingLabels> labels_;  // as they are, or scaled (label_bounds.h)
  // A binary objective's labels as 0/1 bytes: the data's (LoadCsvBinned) or own_binary_labels_.
  const std::uint8_t* binary_labels_ = nullptr;
  std::vector<std::uint8_t> own_binary_labels_;
  std::optional<internal::RowStatistics> rows_;
  std::optional<internal::ClassStatistics> classes_;  // multiclass objectives
  int class_ = 0;                                     // the class tree being grown
  internal::RowSample in_sample_;                     // the tree's sample (row_sample.h)
  std::optional<Random> sample_rng_;  // distributed_noise "shares": this rank's Poisson draws
  // Node index within the current level (a leaf index after routing); < 2^16 as max_depth ≤ 16.
  std::vector<std::uint16_t> node_of_;
  // Fused mode (binary Newton, B = 1, data-independent splits, no filter): one pass per tree adds
  // the previous tree's values to every row's state, computes (g, h), routes and sums the rows of
  // the tree's sample.
  bool fused_ = false;
  int total_trees_ = 0;               // n_estimators plus the filter's extra rounds
  std::size_t model_text_bytes_ = 0;  // of the trees trained so far (CountedTowardsModelFile)
  bool ih_ = false;                   // iterative_hessian candidates
  int ih_rounds_ = 0;
  // Individual Rényi filter (S-BDT §6.5–6.6), renyi_filter only.
  std::optional<accountant::IndividualRenyiFilter> filter_;
  std::optional<accountant::IndividualRdpTable> filter_table_;
  std::vector<double> filter_ratios_;
  std::vector<std::uint8_t> admitted_;
  std::uint64_t filtered_out_ = 0;
};

void Trainer::ValidateData() {
  binary_ = TaskOfObjective(config_.objective) == Task::kBinary;
  if (data_.schema.task != TaskOfObjective(config_.objective)) {
    const Task task = data_.schema.task;
    throw InvalidArgument(
        "objective", "\"" + ToString(config_.objective) + "\"",
        "objectives of a " + TaskName(task) + " schema " +
            (task == Task::kBinary       ? "{\"binary:logistic\"}"
             : task == Task::kRegression ? "{\"reg:squarederror\"}"
                                         : "{\"multi:softprob\", \"multi:ovr\"}"));
  }
  if (n_ == 0) throw InvalidArgument("data", "has no rows");
  if (m_ == 0) throw InvalidArgument("data", "has no features");
  if (data_.schema.task == Task::kMulticlass) internal::ValidateMulticlass(config_, data_);
  binary_labels_ = internal::CheckLabels(data_, binary_, own_binary_labels_);
  if (config_.feature_interaction.method != InteractionMethod::kAll &&
      config_.feature_interaction.k > m_) {
    throw InvalidArgument("feature_interaction.k", std::to_string(config_.feature_interaction.k),
                          "[1, n_features = " + std::to_string(m_) + "]");
  }
  internal::RequireLabelBoundsToAdaptClip(config_, data_.schema);
  if (config_.renyi_filter) {
    // S-BDT §6.5–6.6 covers random trees whose only data access is the leaf query.
    const bool leaf_only = config_.split_method == SplitMethod::kTotallyRandom &&
                           config_.split_candidates.method != CandidateMethod::kIterativeHessian;
    if (!leaf_only) {
      throw InvalidArgument(
          "renyi_filter", "not supported yet with split_method = \"" +
                              ToString(config_.split_method) + "\" / split_candidates.method = \"" +
                              ToString(config_.split_candidates.method) +
                              "\" (only totally_random trees without iterative_hessian)");
    }
    if (config_.batch_size != 1) {
      throw InvalidArgument("renyi_filter", "not supported yet with batch_size > 1");
    }
    if (config_.non_private) {
      throw InvalidArgument("renyi_filter", "needs a privacy target, not non_private");
    }
  }
}

void Trainer::ShareRowCounts() {
  internal::ValidateDistributed(config_, data_.schema, *options_.communicator);
  const internal::RankRows rows = internal::ShareRowCounts(*options_.communicator, n_);
  n_total_ = rows.total;
  row_offset_ = rows.offset;
  if (config_.distributed_noise == DistributedNoise::kShares) {
    sample_rng_.emplace(internal::PrivateRandom(config_, *options_.communicator, /*stream=*/1));
  }
}

double Trainer::InitialScore() {
  if (!config_.initial_score) return 0;
  const double score =
      internal::ReleaseInitialScore(labels_->values(), binary_labels_, n_, config_, *plan_);
  privacy_.sensitivities = plan_->sensitivities();  // g* may have been adapted
  return score;
}

void Trainer::ApplyFilter() {
  // S-BDT Alg. 2 lines 7–8: each record's individual RDP for this round from its sensitivity
  // ratios c_d = |statistic_d|/s_d (Thm 19, Cor. 21; spherical noise: one ratio ‖(a, b)‖/‖s‖);
  // records that cannot afford the round sit it out (Feldman & Zrnic 2021, Alg. 3). Ratios are
  // rounded up (rounding.h): a record pays at least its true loss.
  const std::size_t dims = config_.leaf_noise_weights.empty() ? 1 : 2;
  filter_ratios_.resize(n_ * dims);
  const Sensitivities& bound = plan_->sensitivities();
  const double pair_bound = bound.pair();
  for (std::size_t i = 0; i < n_; ++i) {
    const Pair s = classes_ ? classes_->Norms(i) : stats()[i];  // softprob: ‖g_i‖, ‖h_i‖
    if (dims == 1) {
      filter_ratios_[i] = internal::RatioUp(internal::Norm(s.a, s.b), pair_bound);
    } else {
      filter_ratios_[2 * i] = internal::RatioUp(std::fabs(s.b), bound.b);      // Hessian, r1
      filter_ratios_[2 * i + 1] = internal::RatioUp(std::fabs(s.a), bound.a);  // gradient, r2
    }
  }
  const std::size_t taking_part = filter_->ChargeRound(*filter_table_, filter_ratios_, &admitted_);
  filtered_out_ += n_ - taking_part;
  if (in_sample_.all()) in_sample_.SetEach(n_);
  for (std::size_t i = 0; i < n_; ++i) {
    if (!admitted_[i]) in_sample_.Remove(i);
  }
}

void Trainer::DrawSample() {
  if (config_.subsample >= 1) {
    in_sample_.SetAll();  // every row (the filter, if any, narrows this per round)
    return;
  }
  // Over several ranks each keeps its own rows' draws of the run's stream (the sample one process
  // would draw), or draws from its own generator under "shares".
  if (sample_rng_) {
    in_sample_.DrawPoisson(*sample_rng_, config_.subsample, 0, n_, n_);
  } else {
    in_sample_.DrawPoisson(rng_, config_.subsample, row_offset_, n_, n_total_);
  }
}

std::vector<int> Trainer::TreeFeatures(int t) {
  return internal::TreeFeatures(config_.feature_interaction.method, bins_->splittable(),
                                features_per_tree_, t, rng_);
}

void Trainer::RefineCandidatesIh() {
  // Maddock §4.5.2: one noisy Hessian histogram per feature over its current candidate bins
  // (each record in one bin: sensitivity s_b), then a refinement round (post-processing).
  for (std::size_t f = 0; f < static_cast<std::size_t>(m_); ++f) {
    const FeatureSpec& spec = data_.schema.features[f];
    if (spec.categorical || bins_->candidates(f).empty()) continue;
    const std::size_t cells = bins_->candidates(f).size() + 1;
    const internal::FixedPoint fixed(plan_->sensitivities().b);  // exact sums (statistics.h)
    std::vector<std::int64_t> exact(cells, 0);
    for (std::size_t i = 0; i < n_; ++i) {
      if (!in_sample_.Has(i)) continue;
      const std::uint16_t bin = bins_->bin(f, i);
      if (bin == kMissingBin) continue;
      exact[bin] += fixed.ToFixed(stats()[i].b);
    }
    std::vector<double> hist(cells);
    for (std::size_t c = 0; c < cells; ++c) hist[c] = fixed.ToDouble(exact[c]);
    plan_->ReleaseHessianHistogram(hist);
    bins_->SetCandidates(f, internal::RefineIterativeHessian(spec, bins_->candidates(f), hist,
                                                             config_.split_candidates.count));
  }
}

void Trainer::SumLeaves(std::size_t leaves, std::vector<Pair>& sums) {
  const FixedScales scales(plan_->sensitivities().a, plan_->sensitivities().b);
  const int chunks = pool_.Chunks(n_);
  std::vector<std::vector<FixedPair>> partial(static_cast<std::size_t>(chunks),
                                              std::vector<FixedPair>(leaves));
  pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int w) {
    auto& local = partial[static_cast<std::size_t>(w)];
    for (std::size_t i = begin; i < end; ++i) {
      if (in_sample_.Has(i)) local[node_of_[i]] += scales.ToFixed(stats()[i]);
    }
  });
  sums = ExactSums(partial, leaves, scales);
}

std::vector<Pair> Trainer::Histogram(const std::vector<int>& features, std::size_t cells,
                                     std::size_t count,
                                     const std::vector<std::vector<std::uint16_t>>* cell_split,
                                     bool count_as_b) {
  const std::size_t k = features.size();
  const std::size_t size = k * count * cells;
  const int chunks = pool_.Chunks(n_);
  const FixedScales scales(plan_->sensitivities().a, count_as_b ? 1.0 : plan_->sensitivities().b);
  std::vector<std::vector<FixedPair>> partial(static_cast<std::size_t>(chunks),
                                              std::vector<FixedPair>(size));
  pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int w) {
    auto& local = partial[static_cast<std::size_t>(w)];
    for (std::size_t i = begin; i < end; ++i) {
      if (!in_sample_.Has(i)) continue;
      const std::size_t node = node_of_[i];
      const Pair& row = stats()[i];
      const FixedPair s = scales.ToFixed(count_as_b ? Pair{row.a, 1.0} : row);
      for (std::size_t slot = 0; slot < k; ++slot) {
        const auto f = static_cast<std::size_t>(features[slot]);
        const std::uint16_t bin = bins_->bin(f, i);
        std::size_t cell;
        if (cell_split == nullptr) {
          cell = bin == kMissingBin ? bins_->candidates(f).size() + 1 : bin;
        } else {
          const std::uint16_t j = (*cell_split)[slot][node];
          cell = bin == kMissingBin ? 2 : (bin < j ? 0 : 1);
        }
        local[(slot * count + node) * cells + cell] += s;
      }
    }
  });
  return ExactSums(partial, size, scales);
}

Tree Trainer::ToModelTree(const HeapTree& tree) {
  return internal::ModelTreeOf(tree, *bins_, options_.keep_unreachable_nodes, &model_text_bytes_);
}

void Trainer::RouteToLeaves(const HeapTree& tree, std::vector<Pair>& sums) {
  // Rows are routed in blocks (routing.h); in the fused mode the block's statistics are computed
  // first, after the pending leaf values of the previous tree enter its margins.
  const std::size_t leaves = HeapTree::Leaves(tree.depth);
  const internal::TreeRouter router(*bins_, tree);
  const int chunks = pool_.Chunks(n_);
  const bool fused = fused_;
  // The fused pass sums into kCopies interleaved copies (row r into copy r mod kCopies), so that
  // rows of the same leaf in a row do not wait on each other's stores; copies are added in order.
  constexpr std::size_t kCopies = 4;
  const std::size_t copies = fused ? kCopies : 1;
  const FixedScales scales(plan_->sensitivities().a, plan_->sensitivities().b);
  std::vector<std::vector<FixedPair>> partial(static_cast<std::size_t>(chunks),
                                              std::vector<FixedPair>(copies * leaves));
  const internal::RowStatistics::Pass pass =
      fused ? rows_->BeginPass() : internal::RowStatistics::Pass{};
  pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int w) {
    constexpr std::size_t kBlock = internal::TreeRouter::kBlock;
    static_assert(kBlock <= internal::RowStatistics::kMaxBlock);
    alignas(64) double gh[2 * kBlock];
    std::uint16_t leaf[kBlock];
    FixedPair* local = partial[static_cast<std::size_t>(w)].data();
    for (std::size_t start = begin; start < end; start += kBlock) {
      const std::size_t count = std::min(kBlock, end - start);
      if (fused) {
        rows_->Block(pass, start, count, node_of_.data(), in_sample_.bits(), gh);
      }
      router.RouteBlock(start, count, leaf);
      std::memcpy(node_of_.data() + start, leaf, count * sizeof(std::uint16_t));
      if (!fused) {
        for (std::size_t r = 0; r < count; ++r) {
          if (in_sample_.Has(start + r)) local[leaf[r]] += scales.ToFixed(stats()[start + r]);
        }
        continue;
      }
      FixedPair* copy[kCopies];
      for (std::size_t c = 0; c < kCopies; ++c) copy[c] = local + c * leaves;
      std::size_t r = 0;
      for (; r + kCopies <= count; r += kCopies) {
#pragma GCC unroll 4
        for (std::size_t c = 0; c < kCopies; ++c) {
          FixedPair& sum = copy[c][leaf[r + c]];
          sum.a += scales.a.ToFixed(gh[2 * (r + c)]);
          sum.b += scales.b.ToFixed(gh[2 * (r + c) + 1]);
        }
      }
      for (; r < count; ++r) {
        FixedPair& sum = copy[r % kCopies][leaf[r]];
        sum.a += scales.a.ToFixed(gh[2 * r]);
        sum.b += scales.b.ToFixed(gh[2 * r + 1]);
      }
    }
  });
  if (fused) rows_->EndPass();  // the margins now hold every tree before this one
  sums = ExactSums(partial, leaves, scales, copies);
}

void Trainer::RefineCandidatesFromRoot(const std::vector<int>& features,
                                       const internal::SplitStrategy::RootHessian& root_hessian) {
  for (std::size_t slot = 0; slot < features.size(); ++slot) {
    const auto f = static_cast<std::size_t>(features[slot]);
    bins_->SetCandidates(
        f, internal::RefineIterativeHessian(data_.schema.features[f], bins_->candidates(f),
                                            root_hessian[slot], config_.split_candidates.count));
  }
}

void Trainer::SetUp() {
  binary_ = TaskOfObjective(config_.objective) == Task::kBinary;
  leaf_ = config_.leaf_update;
  noisy_ = !config_.non_private && config_.privacy.has_value();
  bins_.emplace(data_, config_.split_candidates, pool_);
  QueryShape shape = QueryShape::AllNumeric(m_);
  if (data_.schema.task == Task::kMulticlass) shape.n_classes = data_.schema.n_classes;
  shape.n_splittable_features = static_cast<int>(bins_->splittable().size());
  shape.n_refinable_features = 0;
  for (int f : bins_->splittable()) {
    if (!data_.schema.features[static_cast<std::size_t>(f)].categorical) {
      ++shape.n_refinable_features;
    }
  }
  features_per_tree_ =
      std::min(internal::FeaturesPerTree(config_, m_), shape.n_splittable_features);
  strategy_ = internal::MakeSplitStrategy(config_, features_per_tree_);
  privacy_ = PlanPrivacy(config_, n_total_, shape);
  plan_.emplace(config_, internal::QuerySchedule::Of(config_, shape),
                noisy_ ? privacy_.noise_multiplier : 0.0, &rng_, options_.noise_log);
  if (options_.communicator) plan_->UseCommunicator(*options_.communicator, config_, n_total_);
  if (config_.renyi_filter) plan_->UseRenyiFilter(privacy_.filter_order, privacy_.filter_budget);
  // The plan's mechanisms report the event that calibration certified.
  RDPKIT_CHECK(!noisy_ || plan_->ScheduledEvent().ToJson() == privacy_.event->ToJson());
  leaf_params_ = {
      .leaf_update = leaf_,
      .binary = binary_,
      .reg_lambda = config_.reg_lambda,
      // c·s_H, the floor of the noisy Hessian (count) in the leaf and gain
      // denominators (noisy_hessian_floor; post-processing, docs/trees_training.md §4).
      .hessian_floor = config_.noisy_hessian_floor * plan_->hessian_noise_stddev(),
      .max_leaf_value = config_.max_leaf_value,
      .zero_negative_hessian = config_.negative_hessian_leaf == NegativeHessianLeaf::kZero,
      .learning_rate = config_.learning_rate};
  // With the filter, extra rounds run on the records that still have budget (S-BDT §6.6).
  total_trees_ =
      config_.n_estimators + (config_.renyi_filter ? config_.renyi_filter->extra_rounds : 0);
  ih_ = config_.split_candidates.method == CandidateMethod::kIterativeHessian;
  ih_rounds_ = std::min(config_.split_candidates.rounds, total_trees_);
  if (config_.renyi_filter) {
    filter_.emplace(privacy_.filter_order, privacy_.filter_budget, n_);
    filter_table_.emplace(
        privacy_.noise_multiplier,
        config_.leaf_noise_weights.empty() ? std::vector<double>{1.0} : config_.leaf_noise_weights,
        config_.subsample, privacy_.filter_order);
  }
  fused_ = binary_ && leaf_ == LeafUpdate::kNewton && config_.batch_size == 1 && !filter_ &&
           strategy_->DataIndependent();
}

HeapTree Trainer::TrainTree(int t, const std::vector<int>& features,
                            internal::SplitStrategy::RootHessian* root_hessian) {
  HeapTree tree(strategy_->GrownDepth(internal::TreeDepth(config_, data_.schema, features), bins(),
                                      features));
  std::vector<Pair> leaf_sums;
  strategy_->Grow(*this, features, tree, leaf_sums, root_hessian);
  const int batch =
      std::min(config_.batch_size, total_trees_ - (t / config_.batch_size) * config_.batch_size);
  for (std::size_t l = 0; l < leaf_sums.size(); ++l) {
    tree.leaf_value[l] = internal::LeafValue(leaf_sums[l], leaf_params_, batch);
  }
  return tree;
}

void Trainer::ApplyTree(int t, const HeapTree& tree) {
  const int batch = config_.batch_size;
  if (batch > 1) rows_->AddToBatch(tree.leaf_value, node_of_.data());
  if ((t + 1) % batch != 0 && t + 1 != total_trees_) return;
  // Maddock §5.2: the batch's averaged updates enter the margin, then gradients are renewed.
  if (fused_) {
    rows_->SetPending(tree.leaf_value);  // enters the margins in the next tree's pass
  } else if (batch == 1) {
    rows_->Update({}, tree.leaf_value.data(), node_of_.data());
  } else {
    rows_->ApplyBatch();
  }
}

void Trainer::TrainClassTrees(int t, const std::vector<int>& features, Model& model) {
  for (class_ = 0; class_ < classes_->n_classes(); ++class_) {
    plan_->BeginClass(class_);
    internal::SplitStrategy::RootHessian unused;  // iterative_hessian is refused (softmax.h)
    const HeapTree tree = TrainTree(t, features, &unused);
    model.trees.push_back(ToModelTree(tree));  // tree j belongs to class j mod K (as XGBoost)
    classes_->AddTree(class_, tree.leaf_value, node_of_.data());
  }
  class_ = 0;
  plan_->EndTree();
  if (options_.progress && options_.progress_stream) {
    *options_.progress_stream << "rdpkit train: " << (t + 1) << "/" << total_trees_ << " rounds\n";
  }
}

Model Trainer::Run() {
  // The model holds no timings: the same seed must give the same model bytes.
  config_.Validate();
  ValidateData();
  if (options_.communicator && options_.communicator->size() > 1) ShareRowCounts();
  // Refuses, with the estimate, what cannot fit in memory before any of it is allocated.
  RequireTrainableInMemory(config_, data_.schema, n_);
  labels_.emplace(data_.labels, binary_ ? std::nullopt : data_.schema.label);
  SetUp();
  node_of_.assign(n_, 0);
  double base_score = noisy_ ? InitialScore() : 0.0;
  if (data_.schema.task == Task::kMulticlass) {
    base_score = internal::MulticlassBaseScore(config_.objective, data_.schema.n_classes);
    classes_.emplace(data_, config_, pool_, base_score);
  } else {
    rows_.emplace(labels_->values(), binary_labels_, n_, config_, pool_, fused_, base_score);
  }

  Model model;
  model.objective = config_.objective;
  model.base_score = base_score;
  model.feature_names = data_.feature_names;
  // With the adapted g*, if any, but never the seed: a seed reproduces every noise draw, so a
  // model that carried it would release its exact sums (docs/trees_training.md "Randomness").
  model.config = config_.ToJson();
  model.config.erase("seed");
  model.n_classes = data_.schema.n_classes;
  if (model.n_classes >= 2) model.classes = data_.schema.classes;  // binary: only in its schema
  model.trees.reserve(static_cast<std::size_t>(config_.n_estimators));
  const bool refine_from_root = ih_ && strategy_->RefinesCandidatesFromRootHistogram();
  for (int t = 0; t < total_trees_; ++t) {
    plan_->BeginTree();
    DrawSample();
    // Multiclass: the round's starting statistics, of the rows it reads (t = 0: the base's).
    if (classes_ && t > 0) classes_->Recompute(filter_ ? internal::RowSample() : in_sample_);
    if (filter_) ApplyFilter();
    if (ih_ && !refine_from_root && t < ih_rounds_) {
      rows_->FlushPending(node_of_.data());  // the Hessian histogram needs current statistics
      RefineCandidatesIh();
    }
    const std::vector<int> features = TreeFeatures(t);
    if (classes_) {
      TrainClassTrees(t, features, model);
      continue;
    }
    internal::SplitStrategy::RootHessian root_hessian;
    const HeapTree tree = TrainTree(t, features, &root_hessian);
    plan_->EndTree();
    model.trees.push_back(ToModelTree(tree));
    if (refine_from_root && t < ih_rounds_ && !root_hessian.empty()) {
      RefineCandidatesFromRoot(features, root_hessian);
    }
    ApplyTree(t, tree);
    // One line per tree, not per batch: a random forest (batch_size = n_estimators) would
    // otherwise be silent until its end. The CLI shows at most two lines a second.
    if (options_.progress && options_.progress_stream) {
      *options_.progress_stream << "rdpkit train: " << (t + 1) << "/" << total_trees_ << " trees\n";
    }
  }

  // The rows' state is freed before the final accounting (its PLD grids add to the peak).
  rows_.reset();
  classes_.reset();
  node_of_ = {};
  labels_->ToLabelUnits(model);
  internal::RunFacts facts{.noisy = noisy_,
                           .exponential_selections = plan_->exponential_selections(),
                           .labels_scaled = labels_->scaled(),
                           .labels_clipped = labels_->clipped(),
                           .adapted_gradient_clip = internal::AdaptedClipOf(config_)};
  if (filter_) {
    facts.filter_rounds = filter_->rounds();
    facts.records_sitting_out = filtered_out_;
    facts.active_records = filter_->NumActive();
  }
  // The event of what the run released (the plan checks it is exactly what was calibrated).
  std::optional<accountant::Event> released;
  if (noisy_) released = plan_->ReleasedEvent();
  model.privacy = internal::PrivacyBlock(data_, config_, privacy_, released);
  model.training_log = internal::TrainingLog(data_, config_, privacy_, facts);
  return model;
}

}  // namespace

Model Train(const Dataset& data, const TrainerConfig& config, const TrainOptions& options) {
  Trainer trainer(data, config, options);
  return trainer.Run();
}

}  // namespace rdpkit::trees
