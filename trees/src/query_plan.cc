#include "query_plan.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "distributed_release.h"
#include "rdpkit/accountant/errors.h"
#include "rounding.h"
#include "split_strategy.h"
#include "statistics.h"

namespace rdpkit::trees::internal {
namespace {

using accountant::ComposedEvent;
using accountant::Event;
using accountant::GaussianEvent;
using accountant::LeafBalancedGaussianEvent;
using accountant::PoissonSampledEvent;
using accountant::SelfComposedEvent;

void AddRepeated(std::vector<Event>& parts, std::uint64_t count, const Event& event) {
  if (count == 0) return;
  parts.push_back(count == 1 ? event : SelfComposedEvent(count, event));
}

Event Compose(std::vector<Event> parts) {
  RDPKIT_CHECK(!parts.empty());
  if (parts.size() == 1) return parts.front();
  return ComposedEvent(std::move(parts));
}

// count queries of a Gaussian-type event have the RDP curve α·c with c = count·D·Σr_d c_d²/(2σ²)
// (Mironov 2017 for the Gaussian, scale 1; S-BDT Thm 16 for the leaf-balanced Gaussian).
double LinearSlope(const Event& event, std::uint64_t count) {
  double scale = 1;
  double sigma = 0;
  if (const auto* g = event.get_if<GaussianEvent>()) {
    sigma = g->noise_multiplier();
  } else if (const auto* b = event.get_if<LeafBalancedGaussianEvent>()) {
    sigma = b->noise_multiplier();
    scale = b->EffectiveScale();
  } else {
    RDPKIT_CHECK(false);  // only Gaussian-type queries are merged
  }
  return static_cast<double>(count) * scale / (2 * sigma * sigma);
}

std::uint64_t TreeQueries::*Counter(Release release) {
  switch (release) {
    case Release::kHessianHistogram:
      return &TreeQueries::candidate;
    case Release::kHistogram:
    case Release::kPartiallyRandom:
    case Release::kExponentialSplit:
      return &TreeQueries::split;
    case Release::kLeaf:
      return &TreeQueries::leaf;
  }
  RDPKIT_CHECK(false);  // a value outside the enumeration
  return nullptr;
}

// Runs build, which makes mechanisms whose noise scales follow from config keys, and rethrows a
// mechanism's refusal of its scale (a gradient_clip of 1e308 gave "stddev (sensitivity ×
// noise_multiplier) = inf is outside [2^-900, 2^900]", naming no key) naming those keys.
template <class Build>
void NameKeysOfScale(const std::string& keys, const std::string& values, Build&& build) {
  try {
    build();
  } catch (const InvalidArgument& error) {
    throw InvalidArgument(keys, "with " + values + ", " + error.what() +
                                    "; choose values that give noise of a usual size");
  }
}

}  // namespace

const char* NoiseLogName(Release release) {
  switch (release) {
    case Release::kHessianHistogram:
      return "hessian_histogram";
    case Release::kHistogram:
      return "histogram";
    case Release::kPartiallyRandom:
      return "partially_random";
    case Release::kExponentialSplit:
      return "exponential_split";
    case Release::kLeaf:
      return "leaf";
  }
  RDPKIT_CHECK(false);  // a value outside the enumeration
  return "";
}

QuerySchedule QuerySchedule::Of(const TrainerConfig& config, const QueryShape& shape) {
  QuerySchedule s;
  const bool noisy = !config.non_private && config.privacy.has_value();
  s.initial_score = noisy && config.initial_score.has_value();
  s.exponential_splits = config.split_method == SplitMethod::kExponential;
  const int k = std::min(FeaturesPerTree(config, shape.n_features), shape.n_splittable_features);
  const auto strategy = MakeSplitStrategy(config, k);
  TreeQueries tree = strategy->QueriesPerTree(config.max_depth);
  if (TaskOfObjective(config.objective) == Task::kMulticlass) {
    RDPKIT_CHECK(shape.n_classes >= 2);
    s.classes = shape.n_classes;
    s.joint_classes = config.objective == Objective::kMultiSoftprob;
    if (!s.joint_classes) {
      // multi:ovr: K binary class trees per round, composed.
      const auto classes = static_cast<std::uint64_t>(s.classes);
      tree = TreeQueries{tree.candidate * classes, tree.split * classes, tree.leaf * classes};
    }
  }
  const auto trees = static_cast<std::uint64_t>(config.n_estimators) +
                     (config.renyi_filter ? config.renyi_filter->extra_rounds : 0);
  std::uint64_t ih_rounds = 0;
  if (config.split_candidates.method == CandidateMethod::kIterativeHessian &&
      !strategy->RefinesCandidatesFromRootHistogram()) {
    // Maddock §4.5.2: one Hessian histogram per numeric feature in each of the first s trees
    // (κ_c = s·m); with histogram splits the root histogram refines them (κ_c = 0).
    ih_rounds = std::min<std::uint64_t>(static_cast<std::uint64_t>(config.split_candidates.rounds),
                                        static_cast<std::uint64_t>(config.n_estimators));
  }
  TreeQueries refining = tree;
  refining.candidate = static_cast<std::uint64_t>(shape.n_refinable_features);
  s.AddTrees(ih_rounds, refining);
  s.AddTrees(trees - ih_rounds, tree);
  return s;
}

void QuerySchedule::AddTrees(std::uint64_t count, const TreeQueries& queries) {
  if (count == 0) return;
  if (!runs.empty() && runs.back().second == queries) {
    runs.back().first += count;
  } else {
    runs.emplace_back(count, queries);
  }
}

std::uint64_t QuerySchedule::trees() const {
  std::uint64_t n = 0;
  for (const auto& [count, tree] : runs) n += count;
  return n;
}

TreeQueries QuerySchedule::Totals() const {
  TreeQueries t;
  for (const auto& [count, tree] : runs) {
    t.candidate += count * tree.candidate;
    t.split += count * tree.split;
    t.leaf += count * tree.leaf;
  }
  return t;
}

TreeQueries QuerySchedule::PerClass(const TreeQueries& round) const {
  if (joint_classes || classes == 1) return round;
  const auto k = static_cast<std::uint64_t>(classes);
  RDPKIT_CHECK(round.candidate % k == 0 && round.split % k == 0 && round.leaf % k == 0);
  return TreeQueries{round.candidate / k, round.split / k, round.leaf / k};
}

std::optional<Event> QueryPlan::InitialScoreEvent(const TrainerConfig& config) {
  QuerySchedule schedule;
  schedule.initial_score = true;
  if (!config.initial_score || config.non_private || !config.privacy) return std::nullopt;
  // σ is irrelevant to the initial score; 1 builds valid mechanisms.
  return QueryPlan(config, schedule, 1.0).EventOf(schedule);
}

QueryPlan::QueryPlan(const TrainerConfig& config, QuerySchedule schedule, double noise_multiplier,
                     mechanisms::Random* rng, std::vector<NoiseRecord>* noise_log)
    : schedule_(std::move(schedule)),
      sampling_probability_(config.subsample),
      noisy_(noise_multiplier > 0),
      noise_multiplier_(noise_multiplier),
      sensitivities_(StatisticSensitivities(config, schedule_.classes)),
      leaf_noise_weights_(config.leaf_noise_weights),
      rng_(rng),
      noise_log_(noise_log) {
  released_.exponential_splits = schedule_.exponential_splits;
  released_.classes = schedule_.classes;
  released_.joint_classes = schedule_.joint_classes;
  if (!noisy_) {
    RDPKIT_CHECK(!schedule_.initial_score);
    return;
  }
  std::string clips = "gradient_clip = " + FormatNumber(config.gradient_clip) +
                      ", hessian_clip = " + FormatNumber(config.hessian_clip);
  if (!leaf_noise_weights_.empty()) {
    clips += ", leaf_noise_weights = [" + FormatNumber(leaf_noise_weights_[0]) + ", " +
             FormatNumber(leaf_noise_weights_[1]) + "]";
  }
  NameKeysOfScale(leaf_noise_weights_.empty() ? "gradient_clip/hessian_clip"
                                              : "gradient_clip/hessian_clip/leaf_noise_weights",
                  clips, [this] { BuildStatisticMechanisms(); });
  if (schedule_.initial_score) {
    // S-BDT §6.2 / Alg. 3: a noisy count and a noisy sum of clipped labels, each a Laplace release
    // with half of the initial-score budget (noise multiplier 1/(ε_init/2)). L1 sensitivities: 1
    // for the count, the label bound for the sum (binary: min(m*, 1)).
    const double initial_epsilon = config.initial_score->epsilon_share * config.privacy->epsilon;
    const double laplace_multiplier = 2 / initial_epsilon;
    const bool binary = TaskOfObjective(config.objective) == Task::kBinary;
    const double clip = config.initial_score->label_clip;
    NameKeysOfScale("initial_score.label_clip/epsilon_share",
                    "initial_score.label_clip = " + FormatNumber(clip) +
                        ", epsilon_share = " + FormatNumber(config.initial_score->epsilon_share),
                    [&] {
                      initial_count_.emplace(1, laplace_multiplier);
                      initial_sum_.emplace(binary ? std::min(clip, 1.0) : clip, laplace_multiplier);
                    });
  }
}

void QueryPlan::BuildStatisticMechanisms() {
  const double sigma = noise_multiplier_;
  const Sensitivities& s = sensitivities_;
  if (leaf_noise_weights_.empty()) {
    // Spherical Gaussian on (a, b): L2 sensitivity √(s_a² + s_b²) (Maddock §4.2: √17/4 for BCE).
    pair_gaussian_.emplace(s.pair(), sigma);
  } else {
    // S-BDT §5.2: coordinates ordered (Hessian, gradient) like the weights [r1, r2].
    pair_balanced_.emplace(std::vector<double>{s.b, s.a}, sigma, leaf_noise_weights_);
  }
  // Iterative Hessian: each record in one bin of a feature's histogram, sensitivity s_b.
  hessian_gaussian_.emplace(s.b, sigma);
  if (schedule_.exponential_splits) {
    // Utility Σ_children G²/(n + λ) has sensitivity 3·s_a² (Revisiting DP-XGBoost §4.2, Li et
    // al. 2022 Lemma 2; add/remove derivation in docs/trees_training.md).
    const TreeQueries totals = schedule_.Totals();
    QueryCounts counts;
    counts.split = totals.split;
    counts.leaf = totals.leaf;
    exponential_epsilon_ = ExponentialEpsilon(counts, sigma);
    // Δ_U rounded up, plus the margin for the utilities' rounding (statistics.h SplitUtility).
    exponential_.emplace(exponential_epsilon_,
                         RoundedUp(RoundedUp(3 * s.a * s.a, 2) * (1 + kSplitUtilityMargin), 1));
  }
}

std::pair<double, double> QueryPlan::InitialScoreNoiseScales() const {
  RDPKIT_CHECK(initial_count_ && initial_sum_);
  return {initial_count_->scale(), initial_sum_->scale()};
}

void QueryPlan::AdaptGradientClip(double gradient_clip) {
  RDPKIT_CHECK(noisy_ && next_tree_ == 0 && !tree_open_);
  RDPKIT_CHECK(gradient_clip > 0 && std::isfinite(gradient_clip));
  // Share mechanisms are built once from the sensitivities (initial scores are refused there).
  RDPKIT_CHECK(!distributed_ || !distributed_->shares());
  const std::string before = ScheduledEvent().ToJson().dump();
  sensitivities_.a = gradient_clip;
  BuildStatisticMechanisms();
  // Every statistic's noise is σ times its own sensitivity: the event is σ's alone.
  RDPKIT_CHECK(ScheduledEvent().ToJson().dump() == before);
}

QueryPlan::~QueryPlan() = default;
QueryPlan::QueryPlan(QueryPlan&&) noexcept = default;

void QueryPlan::UseCommunicator(Communicator& communicator, const TrainerConfig& config,
                                std::uint64_t n_rows) {
  if (communicator.size() == 1) return;
  // The share mechanisms come from the same σ and sensitivities as this plan's own.
  distributed_ = std::make_unique<DistributedReleases>(
      communicator, config, noisy_ ? noise_multiplier_ : 0.0, sensitivities_, n_rows);
}

void QueryPlan::CombineExact(std::vector<Pair>& cells) {
  if (!distributed_) return;
  RDPKIT_CHECK(!distributed_->shares());
  distributed_->Combine(cells.data(), 1, cells.size(), cells.size());
}

void QueryPlan::UseRenyiFilter(double order, double budget) {
  RDPKIT_CHECK(noisy_ && schedule_.Totals().candidate == 0 && schedule_.Totals().split == 0);
  renyi_filter_ = std::make_pair(order, budget);
}

double QueryPlan::hessian_noise_stddev() const {
  if (!noisy_) return 0;
  return pair_balanced_ ? pair_balanced_->stddevs()[0] : pair_gaussian_->stddev();
}

Event QueryPlan::PairEvent() const {
  return pair_balanced_ ? pair_balanced_->event() : pair_gaussian_->event();
}

Event QueryPlan::TreeEvent(const TreeQueries& tree) const {
  const Event pair = PairEvent();
  const Event hessian = hessian_gaussian_->event();
  if (schedule_.exponential_splits) {
    std::vector<Event> parts;
    AddRepeated(parts, tree.candidate, hessian);
    AddRepeated(parts, tree.split, exponential_->event());
    AddRepeated(parts, tree.leaf, pair);
    return Compose(std::move(parts));
  }
  // Only Gaussian-type queries: their composition is again a curve α·c, written as one Gaussian
  // with σ_eff = 1/√(2c) so that the accountant can use the tight Zhu–Wang bound (S-BDT Lem. 15).
  const std::uint64_t queries = tree.candidate + tree.split + tree.leaf;
  RDPKIT_CHECK(queries > 0);
  if (queries == 1) return tree.candidate == 1 ? hessian : pair;
  const double slope = LinearSlope(hessian, tree.candidate) + LinearSlope(pair, tree.split) +
                       LinearSlope(pair, tree.leaf);
  return GaussianEvent(1 / std::sqrt(2 * slope));
}

Event QueryPlan::EventOf(const QuerySchedule& ledger) const {
  RDPKIT_CHECK(noisy_);
  std::vector<Event> parts;
  if (renyi_filter_) {
    // Feldman & Zrnic 2021 Thm 4.5: every tree's leaf query under the filter at (α̂, budget).
    RDPKIT_CHECK(ledger.Totals().leaf == ledger.trees());
    const Event leaf = PairEvent();
    parts.push_back(accountant::RenyiFilterEvent(renyi_filter_->first, renyi_filter_->second,
                                                 ledger.trees(),
                                                 PoissonSampledEvent(sampling_probability_, leaf)));
  }
  if (ledger.initial_score) {
    const Event count = initial_count_->event();
    const Event sum = initial_sum_->event();
    if (count.ToJson() == sum.ToJson()) {
      parts.push_back(SelfComposedEvent(2, count));
    } else {
      parts.push_back(ComposedEvent({count, sum}));
    }
  }
  if (renyi_filter_) return ComposedEvent(std::move(parts));
  if (sampling_probability_ < 1) {
    // S-BDT §6.3: each tree's queries on its own Poisson sample.
    for (const auto& [count, tree] : ledger.runs) {
      AddRepeated(parts, count, PoissonSampledEvent(sampling_probability_, TreeEvent(tree)));
    }
    return Compose(std::move(parts));
  }
  const TreeQueries totals = ledger.Totals();
  const Event pair = PairEvent();
  AddRepeated(parts, totals.candidate, hessian_gaussian_->event());
  AddRepeated(parts, totals.split, exponential_ ? exponential_->event() : pair);
  AddRepeated(parts, totals.leaf, pair);
  return Compose(std::move(parts));
}

Event QueryPlan::ScheduledEvent() const { return EventOf(schedule_); }

Event QueryPlan::ReleasedEvent() const {
  // A scheduled query the run did not release would make the event larger than the truth; one it
  // released beyond the schedule was refused when it happened.
  RDPKIT_CHECK(!tree_open_);
  RDPKIT_CHECK(released_ == schedule_);
  return EventOf(released_);
}

void QueryPlan::BeginTree() {
  RDPKIT_CHECK(!tree_open_);
  RDPKIT_CHECK(next_tree_ < schedule_.trees());
  if (next_tree_ == 0 || trees_in_run_ == schedule_.runs[schedule_run_].first) {
    schedule_run_ = next_tree_ == 0 ? 0 : schedule_run_ + 1;
    trees_in_run_ = 0;
  }
  ++next_tree_;
  ++trees_in_run_;
  tree_open_ = true;
  open_class_ = 0;
  open_classes_.assign(static_cast<std::size_t>(schedule_.classes), TreeQueries{});
}

void QueryPlan::BeginClass(int k) {
  RDPKIT_CHECK(tree_open_ && k >= 0 && k < schedule_.classes);
  open_class_ = k;
}

void QueryPlan::EndTree() {
  RDPKIT_CHECK(tree_open_);
  const TreeQueries& round = schedule_.runs[schedule_run_].second;
  const TreeQueries per_class = schedule_.PerClass(round);
  for (const TreeQueries& made : open_classes_) RDPKIT_CHECK(made == per_class);
  released_.AddTrees(1, round);
  tree_open_ = false;
}

void QueryPlan::Count(Release release) {
  RDPKIT_CHECK(tree_open_);
  std::uint64_t TreeQueries::*counter = Counter(release);
  const TreeQueries per_class = schedule_.PerClass(schedule_.runs[schedule_run_].second);
  TreeQueries& made = open_classes_[static_cast<std::size_t>(open_class_)];
  RDPKIT_CHECK(made.*counter < per_class.*counter);
  ++(made.*counter);
}

void QueryPlan::Log(Release release, int coordinate, double exact, double noisy) {
  if (noise_log_) noise_log_->push_back({NoiseLogName(release), coordinate, exact, noisy});
}

std::pair<double, double> QueryPlan::ReleaseInitialScore(double count, double label_sum) {
  RDPKIT_CHECK(schedule_.initial_score && !released_.initial_score && next_tree_ == 0);
  released_.initial_score = true;
  double exact[2] = {count, label_sum};
  if (distributed_) {
    RDPKIT_CHECK(!distributed_->shares());  // Laplace has no shares (ValidateDistributed)
    distributed_->Combine(exact, 2);
  }
  count = exact[0];
  label_sum = exact[1];
  double noisy[2] = {initial_count_->Add(count, *rng_), initial_sum_->Add(label_sum, *rng_)};
  if (distributed_) distributed_->FromRoot(noisy, 2);
  const double noisy_count = noisy[0];
  const double noisy_sum = noisy[1];
  if (noise_log_) {
    noise_log_->push_back({"initial_score_count", 1, count, noisy_count});
    noise_log_->push_back({"initial_score_sum", 0, label_sum, noisy_sum});
  }
  return {noisy_count, noisy_sum};
}

void QueryPlan::AddNoise(Release release, Pair& cell) {
  const Pair exact = cell;
  if (pair_balanced_) {
    double values[2] = {cell.b, cell.a};
    pair_balanced_->AddTo(values, *rng_);
    cell.b = values[0];
    cell.a = values[1];
  } else {
    cell.a = pair_gaussian_->Add(cell.a, *rng_);
    cell.b = pair_gaussian_->Add(cell.b, *rng_);
  }
  if (noise_log_) {
    Log(release, 0, exact.a, cell.a);
    Log(release, 1, exact.b, cell.b);
  }
}

void QueryPlan::ReleaseSums(Release release, Pair* first, std::size_t groups, std::size_t stride,
                            std::size_t width) {
  RDPKIT_CHECK(release != Release::kHessianHistogram && release != Release::kExponentialSplit);
  Count(release);
  if (distributed_ && distributed_->shares()) {
    distributed_->ReleaseShares(first, groups, stride, width);
    return;
  }
  if (distributed_) distributed_->Combine(first, groups, stride, width);
  if (!noisy_) return;
  RDPKIT_CHECK(rng_ != nullptr);
  for (std::size_t g = 0; g < groups; ++g) {
    for (std::size_t c = 0; c < width; ++c) AddNoise(release, first[g * stride + c]);
  }
  if (distributed_) distributed_->FromRoot(first, groups, stride, width);
}

void QueryPlan::ReleaseHessianHistogram(std::vector<double>& cells) {
  Count(Release::kHessianHistogram);
  if (distributed_ && distributed_->shares()) {
    distributed_->ReleaseHessianShares(cells);
    return;
  }
  if (distributed_) distributed_->Combine(cells.data(), cells.size());
  if (!noisy_) return;
  RDPKIT_CHECK(rng_ != nullptr);
  for (double& h : cells) {
    const double exact = h;
    h = hessian_gaussian_->Add(h, *rng_);
    Log(Release::kHessianHistogram, 1, exact, h);
  }
  if (distributed_) distributed_->FromRoot(cells.data(), cells.size());
}

std::vector<std::size_t> QueryPlan::SelectSplits(
    const std::vector<std::vector<double>>& utilities) {
  Count(Release::kExponentialSplit);
  std::vector<std::size_t> picks;
  picks.reserve(utilities.size());
  for (const std::vector<double>& u : utilities) {
    if (noisy_) {
      RDPKIT_CHECK(rng_ != nullptr);
      picks.push_back(exponential_->Select(u, *rng_));
      ++exponential_selections_;
    } else {
      picks.push_back(static_cast<std::size_t>(std::max_element(u.begin(), u.end()) - u.begin()));
    }
  }
  if (distributed_) {
    // Rank 0's choices everywhere (utilities may differ in the last bits between ranks).
    std::vector<std::uint64_t> chosen(picks.begin(), picks.end());
    distributed_->communicator().Broadcast(chosen.data(), chosen.size() * sizeof(std::uint64_t), 0);
    picks.assign(chosen.begin(), chosen.end());
  }
  return picks;
}

}  // namespace rdpkit::trees::internal
