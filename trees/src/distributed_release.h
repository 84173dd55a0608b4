// The distributed side of the query plan (docs/distributed.md): how the per-rank sums of one
// release are combined and where its noise is drawn, for distributed_noise "central" and "shares".
//
// central: exact sums are combined with Allreduce; every rank runs the same random stream (public
//   randomness and noise), so the noise of a release is drawn once, as the single-process trainer
//   draws it, and rank 0's noisy values are broadcast (every rank then holds the same bits).
// shares:  each rank encodes its exact local sums on the lattice γ·Z of a share mechanism with
//   noise multiplier σ/√K and an inflated sensitivity (docs/math/distributed_shares.md), adds one
//   lattice-valued Gaussian share from its private generator and hands the integer vector, masked
//   by pairwise one-time pads that cancel modulo 2^64, to an exact modular sum. No rank sees
//   another's sums; the released sum carries noise of variance σ²·s'² ≥ σ²·s².
#ifndef RDPKIT_TREES_SRC_DISTRIBUTED_RELEASE_H_
#define RDPKIT_TREES_SRC_DISTRIBUTED_RELEASE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "rdpkit/mechanisms/gaussian.h"
#include "rdpkit/mechanisms/random.h"
#include "rdpkit/trees/accounting.h"
#include "rdpkit/trees/communicator.h"
#include "rdpkit/trees/config.h"
#include "statistics.h"

namespace rdpkit::trees::internal {

// The run's shared random stream: Seeded(seed) when a seed is given (as single-process), else a
// ChaCha20 key drawn by rank 0 and broadcast (communicator given) or Random::Secure().
mechanisms::Random RunRandom(const TrainerConfig& config, Communicator* communicator);

// A generator of this rank's own (stream 0: noise shares and mask keys, 1: Poisson sampling under
// "shares"): Seeded from the seed, the rank and the stream when a seed is given, else Secure().
mechanisms::Random PrivateRandom(const TrainerConfig& config, const Communicator& communicator,
                                 int stream);

// Every rank's row count: the total over the ranks and this rank's first row in their
// concatenation (rank order).
struct RankRows {
  std::uint64_t total = 0;
  std::uint64_t offset = 0;
};
RankRows ShareRowCounts(Communicator& communicator, std::uint64_t rows);

// Refuses, naming the key, what a run over several ranks does not support (communicator size > 1),
// and a config or schema that differs from rank 0's.
void ValidateDistributed(const TrainerConfig& config, const Schema& schema,
                         Communicator& communicator);

// The smallest sensitivity s' ≥ s + (K + 2)·γ(s') of a share mechanism, where γ(s') is the lattice
// step of GaussianMechanism(s', σ/√K) (docs/math/distributed_shares.md, Lemma 1): shares on that
// lattice sum to a release at least as private as the Gaussian mechanism with (s, σ).
// granularity(s') must be the step of the mechanism built from s'.
template <class Granularity>
[[nodiscard]] double InflatedShareSensitivity(double sensitivity, int ranks,
                                              const Granularity& granularity) {
  double inflated = sensitivity;
  // γ(s') grows with s' by powers of two: a few steps reach the fixed point.
  for (int step = 0; step < 64; ++step) {
    const double needed = sensitivity + (ranks + 2) * granularity(inflated);
    if (inflated >= needed) return inflated;
    inflated = needed;
  }
  return inflated;  // not reached: γ(s') < s'·2^-19, so each step adds less than the previous
}

// Sums of integer vectors over the ranks, each rank's vector hidden by pairwise masks
// (Bonawitz et al. 2017 §4, without dropouts): rank i adds PRG(k_ij, round) for every j > i and
// subtracts it for every j < i, all modulo 2^64, so the masks cancel exactly in the sum.
class SecureAggregation {
 public:
  // Rank i draws k_ij for every j > i from its private generator and sends it to j (in a
  // deployment: a key agreement between the two parties).
  SecureAggregation(Communicator& communicator, mechanisms::Random& private_rng);
  // values (two's complement) become their sum over the ranks, exactly modulo 2^64.
  void Sum(std::vector<std::uint64_t>& values);
  // The masks this rank adds in the next Sum of n values (tests: they cancel over the ranks).
  std::vector<std::uint64_t> NextMasks(std::size_t n) const;

 private:
  Communicator& communicator_;
  std::vector<std::array<std::uint32_t, 8>> keys_;  // per other rank; own entry unused
  std::uint64_t round_ = 0;
};

// Encodes value/γ (γ a power of two) as a two's-complement integer for the modular sum.
// InternalError when |value/γ| ≥ 2^52 (the plan's range check makes that unreachable).
std::uint64_t ToLattice(double value, double granularity);
// The summed lattice integer back to a number: γ·(signed) sum.
double FromLattice(std::uint64_t sum, double granularity);

// The releases of a query plan over K > 1 ranks; the plan calls it around its own noise.
class DistributedReleases {
 public:
  // sigma: the plan's noise multiplier (0: a non-private run); sensitivities and
  // leaf_noise_weights as the plan's own mechanisms; n_rows: the rows of all ranks (the lattice
  // range check); seed: the run's seed (the private generators of "shares" derive from it).
  DistributedReleases(Communicator& communicator, const TrainerConfig& config, double sigma,
                      const Sensitivities& sensitivities, std::uint64_t n_rows);

  // Whether noise is added as shares (distributed_noise "shares" in a noisy run).
  bool shares() const noexcept { return pair_share_ || pair_balanced_share_; }
  int ranks() const noexcept { return communicator_.size(); }
  Communicator& communicator() noexcept { return communicator_; }

  // central: exact sums of the cells first[g·stride + c], g < groups, c < width, over the ranks.
  void Combine(Pair* first, std::size_t groups, std::size_t stride, std::size_t width);
  void Combine(double* values, std::size_t n);
  // central: rank 0's values of the same cells on every rank.
  void FromRoot(Pair* first, std::size_t groups, std::size_t stride, std::size_t width);
  void FromRoot(double* values, std::size_t n);
  // shares: every cell's (a, b) becomes the sum over ranks of the local sums plus one noise
  // share per rank, through secure aggregation.
  void ReleaseShares(Pair* first, std::size_t groups, std::size_t stride, std::size_t width);
  void ReleaseHessianShares(std::vector<double>& cells);

  // The share mechanisms' sensitivities s' (tests, docs/math/distributed_shares.md): the pair's
  // (spherical: one; leaf-balanced: Hessian, gradient), then the Hessian histogram's.
  const std::vector<double>& share_sensitivities() const { return share_sensitivities_; }

 private:
  void SecureSumOfCells(std::vector<double>& values, const std::vector<double>& granularity,
                        std::size_t width);

  Communicator& communicator_;
  std::optional<mechanisms::Random> private_rng_;
  std::optional<SecureAggregation> aggregation_;
  std::optional<mechanisms::GaussianMechanism> pair_share_;
  std::optional<mechanisms::LeafBalancedGaussianMechanism> pair_balanced_share_;
  std::optional<mechanisms::GaussianMechanism> hessian_share_;
  std::vector<double> share_sensitivities_;
};

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_DISTRIBUTED_RELEASE_H_
