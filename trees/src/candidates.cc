#include "candidates.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <string>

#include "config_keys.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/model.h"

namespace rdpkit::trees::internal {
namespace {

// Keeps `count` of the sorted values, evenly spaced by index (all of them if there are fewer).
std::vector<double> EvenSubset(const std::vector<double>& values, int count) {
  const std::size_t n = values.size();
  const auto q = static_cast<std::size_t>(count);
  if (n <= q) return values;
  std::vector<double> out;
  out.reserve(q);
  for (std::size_t j = 0; j < q; ++j) {
    // Index round((j + 1)·(n + 1)/(q + 1)) − 1 spreads the kept values over the whole range.
    const std::size_t index = std::min(n - 1, ((j + 1) * (n + 1)) / (q + 1) - 1);
    if (out.empty() || values[index] > out.back()) out.push_back(values[index]);
  }
  return out;
}

// The code boundaries j + 1/2, j = 0..n_codes − 2, thinned to `count` as EvenSubset would, without
// materialising all n_codes − 1 of them (n_codes may be 2^24).
std::vector<double> CategoricalCandidates(const FeatureSpec& feature, int count) {
  const std::size_t n = feature.n_codes > 1 ? static_cast<std::size_t>(feature.n_codes) - 1 : 0;
  const auto q = static_cast<std::size_t>(count);
  std::vector<double> out;
  out.reserve(std::min(n, q));
  if (n <= q) {
    for (std::size_t code = 0; code < n; ++code) out.push_back(static_cast<double>(code) + 0.5);
    return out;
  }
  for (std::size_t j = 0; j < q; ++j) {
    // The index of EvenSubset; strictly increasing in j because n > q.
    const std::size_t index = std::min(n - 1, ((j + 1) * (n + 1)) / (q + 1) - 1);
    out.push_back(static_cast<double>(index) + 0.5);
  }
  return out;
}

// Sorts, removes duplicates and values outside (min, max].
std::vector<double> Clean(const FeatureSpec& feature, std::vector<double> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  std::vector<double> out;
  for (double v : values) {
    if (std::isfinite(v) && v > feature.min && v <= feature.max) out.push_back(v);
  }
  return out;
}

// The lowest candidate is the smallest double above min, so that its split is x ≤ min vs
// x > min: sparse features (word counts, amounts) hold most values at the bound itself. This is
// the split Maddock's grid min + j·(max − min)/Q, j = 0..Q−1 with the test x ≤ c makes at j = 0.
double AboveLowerBound(const FeatureSpec& feature) {
  return std::nextafter(feature.min, std::numeric_limits<double>::infinity());
}

// (a + b)/2 for a ≤ b without overflow: b − a may exceed the largest double when the bounds are
// huge and of opposite signs, a/2 + b/2 cannot (halving is exact except for subnormals, where the
// difference form is exact instead).
double Midpoint(double a, double b) {
  const double width = b - a;
  return std::isfinite(width) ? a + width / 2 : a / 2 + b / 2;
}

}  // namespace

std::vector<double> UniformCandidates(const FeatureSpec& feature, int count) {
  if (feature.categorical) return CategoricalCandidates(feature, count);
  std::vector<double> out = {AboveLowerBound(feature)};
  const double width = feature.max - feature.min;
  for (int j = 1; j < count; ++j) {
    // Maddock §4.5.1: c_j = min + j·(max − min)/Q. j·width may overflow when the width is near the
    // largest double; (width/Q)·j cannot (it is below the width).
    const double scaled = width * j;
    out.push_back(feature.min + (std::isfinite(scaled) ? scaled / count : width / count * j));
  }
  return Clean(feature, out);
}

std::vector<double> LogCandidates(const FeatureSpec& feature, int count) {
  if (feature.categorical) return CategoricalCandidates(feature, count);
  std::vector<double> out = {AboveLowerBound(feature)};
  const double log_width = std::log1p(feature.max - feature.min);
  for (int j = 1; j < count; ++j) {
    // Uniform on the log(1 + x − min) scale (Maddock §4.5.1, log candidates).
    out.push_back(feature.min + std::expm1(log_width * j / count));
  }
  return Clean(feature, out);
}

std::vector<double> UniformAndLogCandidates(const FeatureSpec& feature, int count) {
  if (feature.categorical) return CategoricalCandidates(feature, count);
  // At least 2 uniform candidates, so that Q = 2 still gives 2 distinct thresholds.
  std::vector<double> out = UniformCandidates(feature, std::max(2, count - count / 2));
  const std::vector<double> log = LogCandidates(feature, count / 2);
  out.insert(out.end(), log.begin(), log.end());
  return Clean(feature, std::move(out));
}

std::vector<double> QuantileCandidates(const FeatureSpec& feature,
                                       const std::vector<double>& column, int count) {
  if (feature.categorical) return CategoricalCandidates(feature, count);
  std::vector<double> values;
  values.reserve(column.size());
  for (double v : column) {
    if (!std::isnan(v)) values.push_back(v);
  }
  if (values.empty()) return UniformCandidates(feature, count);
  std::sort(values.begin(), values.end());
  std::vector<double> out;
  for (int j = 1; j <= count; ++j) {
    const auto index = static_cast<std::size_t>(
        std::floor(static_cast<double>(j) * static_cast<double>(values.size()) / (count + 1)));
    out.push_back(values[std::min(index, values.size() - 1)]);
  }
  return Clean(feature, out);
}

std::vector<double> RefineIterativeHessian(const FeatureSpec& feature,
                                           const std::vector<double>& candidates,
                                           const std::vector<double>& hessian, int count) {
  if (feature.categorical) return candidates;
  RDPKIT_CHECK(hessian.size() == candidates.size() + 1);
  const std::size_t q = candidates.size();
  // A NaN or negative (noisy) mass counts as none.
  const auto positive = [](double h) { return h > 0 && std::isfinite(h) ? h : 0.0; };
  double total = 0;
  for (double h : hessian) total += positive(h);
  std::vector<double> out;
  if (total > 0) {
    const double target = total / count;
    double accumulated = 0;
    for (std::size_t j = 0; j <= q; ++j) {
      const double left = j == 0 ? feature.min : candidates[j - 1];
      const double right = j == q ? feature.max : candidates[j];
      const double mass = positive(hessian[j]);
      accumulated += mass;
      // A heavy bin is refined at its midpoint (Maddock §4.5.2: "split bins that have large
      // Hessian value").
      if (mass > target) out.push_back(Midpoint(left, right));
      // A light bin is merged with the next one: its right boundary is dropped.
      if (j < q && accumulated >= target) {
        out.push_back(right);
        accumulated = 0;
      }
    }
  }
  out = Clean(feature, out);
  out = EvenSubset(out, count);
  // Fill up to Q candidates by halving the widest gap (Maddock §4.5.2: "fill the remaining bins by
  // uniformly splitting"), the leftmost of equally wide gaps first. A max-heap of gaps keeps this
  // O(Q log Q) (Q may be 65534); a gap without a representable midpoint is dropped for good.
  struct Gap {
    double width, left, right;
    bool operator<(const Gap& o) const {
      return width < o.width || (width == o.width && left > o.left);
    }
  };
  std::priority_queue<Gap> gaps;
  const auto add_gap = [&](double left, double right) {
    // A width that overflows is ordered as the widest (it is).
    if (right > left) gaps.push({right - left, left, right});
  };
  double previous = feature.min;
  for (double c : out) {
    add_gap(previous, c);
    previous = c;
  }
  add_gap(previous, feature.max);
  std::vector<double> added;
  while (static_cast<int>(out.size() + added.size()) < count && !gaps.empty()) {
    const Gap gap = gaps.top();
    gaps.pop();
    const double mid = Midpoint(gap.left, gap.right);
    if (!(mid > gap.left && mid < gap.right)) continue;  // no representable midpoint is left
    added.push_back(mid);
    add_gap(gap.left, mid);
    add_gap(mid, gap.right);
  }
  out.insert(out.end(), added.begin(), added.end());
  std::sort(out.begin(), out.end());
  // Nothing kept and nothing representable to add (the bounds are adjacent doubles): keep the
  // input rather than leave the feature without a split.
  if (out.empty()) return candidates;
  return out;
}

std::vector<double> InitialCandidates(const FeatureSpec& feature, std::size_t index,
                                      CandidateMethod method, int count,
                                      const std::vector<double>& column) {
  RDPKIT_CHECK(EnumToString(method).has_value());  // not a value outside the enumeration
  std::vector<double> out;
  switch (method) {
    case CandidateMethod::kQuantile:
      return QuantileCandidates(feature, column, count);
    case CandidateMethod::kLog:
      out = LogCandidates(feature, count);
      break;
    case CandidateMethod::kUniformAndLog:
      out = UniformAndLogCandidates(feature, count);
      break;
    case CandidateMethod::kUniform:
    case CandidateMethod::kIterativeHessian:  // starts from uniform
      out = UniformCandidates(feature, count);
      break;
  }
  if (!feature.categorical && out.size() < 2) {
    // Public bounds so narrow (a few ulps) or so far from the origin of the log scale that the grid
    // collapses: a feature with one threshold would train silently with almost no splits.
    const std::string field = "features[" + std::to_string(index) + "].min/max";
    throw InvalidArgument(
        field,
        "[" + FormatNumber(feature.min) + ", " + FormatNumber(feature.max) + "] (feature \"" +
            feature.name + "\", " + std::to_string(out.size()) + " distinct \"" + ToString(method) +
            "\" split candidate" + (out.size() == 1 ? "" : "s") + ")",
        std::string("the bounds that give at least 2 distinct split candidates (widen max − min") +
            (method == CandidateMethod::kLog
                 ? ", raise split_candidates.count or use split_candidates.method \"uniform\")"
                 : ")"));
  }
  return out;
}

std::uint16_t BinOf(const std::vector<double>& candidates, int feature, double x) {
  if (std::isnan(x)) return kMissingBin;
  // The bin is the number of candidates at which x does NOT go left, decided by the one routing
  // rule of the model (GoesLeft), so training and prediction agree on every tie.
  Node node;
  node.feature = feature;
  const auto it = std::partition_point(candidates.begin(), candidates.end(), [&](double c) {
    node.threshold = c;
    return !GoesLeft(node, x);
  });
  return static_cast<std::uint16_t>(it - candidates.begin());
}

}  // namespace rdpkit::trees::internal
