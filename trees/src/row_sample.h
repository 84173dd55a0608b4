// The rows of one tree's sample (S-BDT §6.3 Poisson sampling, narrowed by the Rényi filter), one
// bit a row, so that a sample costs n/8 bytes (docs/trees.md "Large data").
#ifndef RDPKIT_TREES_SRC_ROW_SAMPLE_H_
#define RDPKIT_TREES_SRC_ROW_SAMPLE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rdpkit/mechanisms/random.h"

namespace rdpkit::trees::internal {

class RowSample {
 public:
  // Every row (no sampling).
  bool all() const noexcept { return words_.empty(); }
  void SetAll() { words_.clear(); }
  // Each of n rows as bits (Remove takes rows out).
  void SetEach(std::size_t n) { words_.assign((n + 63) / 64, ~std::uint64_t{0}); }
  void Remove(std::size_t i) { words_[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); }
  bool Has(std::size_t i) const { return all() || In(words_.data(), i); }
  // S-BDT §6.3: Poisson sampling, each row independently with probability InclusionProbability
  // (gamma) ≤ gamma (one 53-bit draw of rng per row, as Uniform01). The draws are those of rows
  // 0..total−1 in order; the sample keeps rows first..first+n−1 (this rank's rows of all ranks'
  // total).
  void DrawPoisson(mechanisms::Random& rng, double gamma, std::size_t first, std::size_t n,
                   std::size_t total);
  // The probability with which DrawPoisson takes a row: ⌊γ·2^53⌋/2^53, never above the γ the
  // accountant is given (a larger rate would amplify less than accounted); γ itself where γ·2^53
  // is whole (γ = 2^−k), and below it by less than 2^−53 otherwise. `u < γ` for u = k·2^−53, the
  // earlier rule, took ⌈γ·2^53⌉/2^53, up to 2^−53 above γ (γ = 0.1: by 7.8e-17).
  static double InclusionProbability(double gamma);
  // The bits (null when every row is in), for the fused pass.
  const std::uint64_t* bits() const { return all() ? nullptr : words_.data(); }
  static bool In(const std::uint64_t* bits, std::size_t i) {
    return (bits[i >> 6] >> (i & 63)) & 1;
  }

 private:
  std::vector<std::uint64_t> words_;
};

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_ROW_SAMPLE_H_
