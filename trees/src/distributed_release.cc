#include "distributed_release.h"

#include <cmath>
#include <string>

#include "rdpkit/accountant/errors.h"

namespace rdpkit::trees::internal {

mechanisms::Random RunRandom(const TrainerConfig& config, Communicator* communicator) {
  if (config.seed) return mechanisms::Random::Seeded(*config.seed);
  if (communicator == nullptr || communicator->size() == 1) return mechanisms::Random::Secure();
  // Public randomness (random splits, and under "central" the noise) must be the same on every
  // rank: rank 0 draws a ChaCha20 key and nonce from the OS and sends them to the others.
  std::array<std::uint32_t, 11> key_and_nonce{};
  if (communicator->rank() == 0) {
    mechanisms::Random os = mechanisms::Random::Secure();
    for (auto& word : key_and_nonce) word = static_cast<std::uint32_t>(os.NextU64());
  }
  communicator->Broadcast(key_and_nonce.data(), sizeof(key_and_nonce), 0);
  std::array<std::uint32_t, 8> key;
  std::array<std::uint32_t, 3> nonce;
  std::copy(key_and_nonce.begin(), key_and_nonce.begin() + 8, key.begin());
  std::copy(key_and_nonce.begin() + 8, key_and_nonce.end(), nonce.begin());
  return mechanisms::Random::FromKey(key, nonce);
}

mechanisms::Random PrivateRandom(const TrainerConfig& config, const Communicator& communicator,
                                 int stream) {
  if (!config.seed) return mechanisms::Random::Secure();
  // Distinct seeds per (rank, stream), fixed by the run's seed (reproducible simulations).
  const auto rank = static_cast<std::uint64_t>(communicator.rank());
  return mechanisms::Random::Seeded(
      *config.seed ^ (0x9e3779b97f4a7c15ULL * (2 * rank + 1)) ^
      (0xbf58476d1ce4e5b9ULL * static_cast<std::uint64_t>(stream + 1)));
}

RankRows ShareRowCounts(Communicator& communicator, std::uint64_t rows) {
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(communicator.size()), 0);
  counts[static_cast<std::size_t>(communicator.rank())] = rows;
  communicator.AllreduceSumModular(counts.data(), counts.size());
  RankRows out;
  for (int r = 0; r < communicator.size(); ++r) {
    if (r == communicator.rank()) out.offset = out.total;
    out.total += counts[static_cast<std::size_t>(r)];
  }
  return out;
}

void ValidateDistributed(const TrainerConfig& config, const Schema& schema,
                         Communicator& communicator) {
  // Every rank must run the same schedule of collectives: the same config (threads aside) and
  // schema (FNV-1a of their canonical JSON; a rank that differs stops the run instead of waiting
  // forever for collectives the others never make).
  TrainerConfig shared = config;
  shared.threads = 1;
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : shared.ToJson().dump() + schema.ToJson().dump()) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  }
  std::uint64_t root_hash = hash;
  communicator.Broadcast(&root_hash, sizeof(root_hash), 0);
  if (root_hash != hash) {
    throw InvalidArgument("config", "differs from rank 0's (or the schema does) on rank " +
                                        std::to_string(communicator.rank()) +
                                        ": every rank needs the same config and schema");
  }
  const auto refuse = [](const std::string& key, const std::string& value, const std::string& why) {
    throw InvalidArgument(key, value + " in a run over several ranks (" + why + ")");
  };
  if (config.renyi_filter) {
    refuse("renyi_filter", "given", "the individual filter is single-process only for now");
  }
  if (config.split_candidates.method == CandidateMethod::kQuantile) {
    refuse(
        "split_candidates.method", "\"quantile\"",
        "exact quantiles would need every rank's raw values; use uniform, log or uniform_and_log");
  }
  if (schema.bounds_from_data) {
    refuse("bounds-from-data", "given",
           "each rank would see other bounds; pass a schema with public bounds");
  }
  if (config.distributed_noise != DistributedNoise::kShares || config.non_private) return;
  // Only Gaussian releases split into independent shares whose sum is the accounted noise.
  if (config.initial_score) {
    refuse("initial_score", "given with distributed_noise \"shares\"",
           "its Laplace releases have no Gaussian shares; omit it or use \"central\"");
  }
  if (config.split_method == SplitMethod::kExponential) {
    refuse("split_method", "\"exponential\" with distributed_noise \"shares\"",
           "the exponential mechanism needs the exact utilities in one place; use \"central\"");
  }
}

SecureAggregation::SecureAggregation(Communicator& communicator, mechanisms::Random& private_rng)
    : communicator_(communicator), keys_(static_cast<std::size_t>(communicator.size())) {
  const int me = communicator.rank();
  for (int other = 0; other < communicator.size(); ++other) {
    if (other == me) continue;
    auto& key = keys_[static_cast<std::size_t>(other)];
    if (me < other) {
      for (auto& word : key) word = static_cast<std::uint32_t>(private_rng.NextU64());
      communicator.Send(key.data(), sizeof(key), other);
    } else {
      communicator.Receive(key.data(), sizeof(key), other);
    }
  }
}

std::vector<std::uint64_t> SecureAggregation::NextMasks(std::size_t n) const {
  std::vector<std::uint64_t> masks(n, 0);
  const int me = communicator_.rank();
  const std::array<std::uint32_t, 3> nonce = {static_cast<std::uint32_t>(round_),
                                              static_cast<std::uint32_t>(round_ >> 32), 0};
  for (int other = 0; other < communicator_.size(); ++other) {
    if (other == me) continue;
    // One ChaCha20 stream per pair and round: both parties of the pair generate the same pad.
    mechanisms::Random pad =
        mechanisms::Random::FromKey(keys_[static_cast<std::size_t>(other)], nonce);
    for (auto& mask : masks) {
      const std::uint64_t word = pad.NextU64();
      mask = me < other ? mask + word : mask - word;  // modulo 2^64
    }
  }
  return masks;
}

void SecureAggregation::Sum(std::vector<std::uint64_t>& values) {
  const std::vector<std::uint64_t> masks = NextMasks(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] += masks[i];
  ++round_;
  communicator_.AllreduceSumModular(values.data(), values.size());
}

std::uint64_t ToLattice(double value, double granularity) {
  const double steps = std::nearbyint(value / granularity);  // γ = 2^k: value/γ is exact
  RDPKIT_CHECK(std::fabs(steps) < 0x1p52);
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(steps));
}

double FromLattice(std::uint64_t sum, double granularity) {
  return static_cast<double>(static_cast<std::int64_t>(sum)) * granularity;
}

namespace {

// σ/√K rounded up: each of K shares has at least a K-th of the accounted variance (the
// correction covers the roundings of the division and the root, < 2^-51 relative).
double ShareMultiplier(double sigma, int ranks) {
  return sigma / std::sqrt(static_cast<double>(ranks)) * (1.0 + 0x1p-50);
}

// Packs the cells (a, b) into values (2 per cell, in order), or unpacks them.
void Pack(const Pair* first, std::size_t groups, std::size_t stride, std::size_t width,
          std::vector<double>& values) {
  values.clear();
  for (std::size_t g = 0; g < groups; ++g) {
    for (std::size_t c = 0; c < width; ++c) {
      values.push_back(first[g * stride + c].a);
      values.push_back(first[g * stride + c].b);
    }
  }
}
void Unpack(const std::vector<double>& values, Pair* first, std::size_t groups, std::size_t stride,
            std::size_t width) {
  std::size_t i = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    for (std::size_t c = 0; c < width; ++c, i += 2)
      first[g * stride + c] = {values[i], values[i + 1]};
  }
}

// Rows·(largest per-record statistic)/γ of every rank together must stay far inside the 2^52 of
// ToLattice (and the 2^63 of the modular sum): refuses runs whose noise is so small relative to
// the data that the lattice would overflow, naming distributed_noise.
void RequireLatticeRange(std::uint64_t n_rows, double bound, double granularity) {
  const double steps = static_cast<double>(n_rows) * bound / granularity;
  if (steps < 0x1p48) return;
  throw InvalidArgument("distributed_noise",
                        "\"shares\" with " + std::to_string(n_rows) +
                            " rows and a noise grid step " + FormatNumber(granularity),
                        "runs whose sums span fewer than 2^48 grid steps (raise epsilon's noise, "
                        "i.e. lower epsilon, or use \"central\")");
}

// fn(values, n) on the cells' (a, b) packed into one vector, written back afterwards.
template <class Fn>
void OnPacked(Pair* first, std::size_t groups, std::size_t stride, std::size_t width,
              const Fn& fn) {
  std::vector<double> values;
  Pack(first, groups, stride, width, values);
  fn(values.data(), values.size());
  Unpack(values, first, groups, stride, width);
}

}  // namespace

DistributedReleases::DistributedReleases(Communicator& communicator, const TrainerConfig& config,
                                         double sigma, const Sensitivities& s, std::uint64_t n_rows)
    : communicator_(communicator) {
  if (config.distributed_noise != DistributedNoise::kShares || sigma <= 0) return;
  const int k = communicator.size();
  const double share_sigma = ShareMultiplier(sigma, k);
  // Each rank's own generator for its noise shares and mask keys: never shared with the others.
  private_rng_.emplace(PrivateRandom(config, communicator, /*stream=*/0));
  aggregation_.emplace(communicator, *private_rng_);
  const auto gaussian_step = [&](double multiplier) {
    return [multiplier](double sensitivity) {
      return mechanisms::GaussianMechanism(sensitivity, multiplier).granularity();
    };
  };
  if (config.leaf_noise_weights.empty()) {
    // The plan's spherical mechanism: L2 sensitivity s of (a, b), noise sσ on each coordinate.
    const double inflated = InflatedShareSensitivity(s.pair(), k, gaussian_step(share_sigma));
    pair_share_.emplace(inflated, share_sigma);
    share_sensitivities_.push_back(inflated);
    RequireLatticeRange(n_rows, s.pair(), pair_share_->granularity());
  } else {
    // Coordinates (Hessian, gradient) as the plan's leaf-balanced mechanism (S-BDT §5.2).
    const std::vector<double> base = {s.b, s.a};
    std::vector<double> inflated(2);
    for (std::size_t d = 0; d < 2; ++d) {
      const double multiplier = share_sigma / std::sqrt(2 * config.leaf_noise_weights[d]) *
                                (1.0 + 0x1p-50);  // as LeafBalancedGaussianMechanism
      inflated[d] = InflatedShareSensitivity(base[d], k, gaussian_step(multiplier));
    }
    pair_balanced_share_.emplace(inflated, share_sigma, config.leaf_noise_weights);
    share_sensitivities_ = inflated;
    const std::vector<double> steps = pair_balanced_share_->granularities();
    for (std::size_t d = 0; d < 2; ++d) {
      RDPKIT_CHECK(inflated[d] >= base[d] + (k + 2) * steps[d]);
      RequireLatticeRange(n_rows, base[d], steps[d]);
    }
  }
  const double hessian = InflatedShareSensitivity(s.b, k, gaussian_step(share_sigma));
  hessian_share_.emplace(hessian, share_sigma);
  share_sensitivities_.push_back(hessian);
  RequireLatticeRange(n_rows, s.b, hessian_share_->granularity());
}

void DistributedReleases::Combine(double* values, std::size_t n) {
  communicator_.AllreduceSum(values, n);
}

void DistributedReleases::FromRoot(double* values, std::size_t n) {
  communicator_.Broadcast(values, n * sizeof(double), 0);
}

void DistributedReleases::Combine(Pair* first, std::size_t groups, std::size_t stride,
                                  std::size_t width) {
  OnPacked(first, groups, stride, width, [&](double* v, std::size_t n) { Combine(v, n); });
}

void DistributedReleases::FromRoot(Pair* first, std::size_t groups, std::size_t stride,
                                   std::size_t width) {
  OnPacked(first, groups, stride, width, [&](double* v, std::size_t n) { FromRoot(v, n); });
}

void DistributedReleases::SecureSumOfCells(std::vector<double>& values,
                                           const std::vector<double>& granularity,
                                           std::size_t width) {
  std::vector<std::uint64_t> lattice(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    lattice[i] = ToLattice(values[i], granularity[i % width]);
  }
  aggregation_->Sum(lattice);
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = FromLattice(lattice[i], granularity[i % width]);
  }
}

void DistributedReleases::ReleaseShares(Pair* first, std::size_t groups, std::size_t stride,
                                        std::size_t width) {
  RDPKIT_CHECK(shares());
  std::vector<double> values;
  Pack(first, groups, stride, width, values);
  std::vector<double> granularity;
  // Each coordinate's share: the local exact sum on the lattice plus one lattice-valued Gaussian
  // draw γ·round(Y/γ), Y ~ N(0, (s'σ)²/K) (docs/math/distributed_shares.md).
  if (pair_share_) {
    granularity = {pair_share_->granularity(), pair_share_->granularity()};
    for (double& v : values) {
      v = std::nearbyint(v / granularity[0]) * granularity[0] + pair_share_->Sample(*private_rng_);
    }
  } else {
    const std::vector<double> steps = pair_balanced_share_->granularities();  // (b, a)
    granularity = {steps[1], steps[0]};
    for (std::size_t i = 0; i < values.size(); i += 2) {
      double draw[2] = {0, 0};
      pair_balanced_share_->AddTo(draw, *private_rng_);
      values[i] = std::nearbyint(values[i] / granularity[0]) * granularity[0] + draw[1];
      values[i + 1] = std::nearbyint(values[i + 1] / granularity[1]) * granularity[1] + draw[0];
    }
  }
  SecureSumOfCells(values, granularity, 2);
  Unpack(values, first, groups, stride, width);
}

void DistributedReleases::ReleaseHessianShares(std::vector<double>& cells) {
  RDPKIT_CHECK(shares());
  const double step = hessian_share_->granularity();
  for (double& h : cells)
    h = std::nearbyint(h / step) * step + hessian_share_->Sample(*private_rng_);
  SecureSumOfCells(cells, {step}, 1);
}

}  // namespace rdpkit::trees::internal
