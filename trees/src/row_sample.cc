#include "row_sample.h"

#include <algorithm>
#include <cmath>

#include "rdpkit/accountant/errors.h"

namespace rdpkit::trees::internal {

void RowSample::DrawPoisson(mechanisms::Random& rng, double gamma, std::size_t first, std::size_t n,
                            std::size_t total) {
  words_.assign((n + 63) / 64, 0);
  // A row is in when its draw k, uniform on [0, 2^53), is below ⌊γ·2^53⌋ (exact: γ·2^53 only
  // scales the exponent), so that P = ⌊γ·2^53⌋/2^53 ≤ γ (InclusionProbability).
  const auto below = static_cast<std::uint64_t>(InclusionProbability(gamma) * 0x1p53);
  const auto draw = [&rng] { return rng.NextU53(); };  // the draw under Uniform01
  for (std::size_t i = 0; i < first; ++i) draw();      // the rows of the ranks before
  // The draws go straight into the bits, without a branch.
  for (std::size_t w = 0; w < words_.size(); ++w) {
    const std::size_t rows = std::min<std::size_t>(64, n - 64 * w);
    std::uint64_t bits = 0;
    for (std::size_t j = 0; j < rows; ++j) {
      bits |= static_cast<std::uint64_t>(draw() < below) << j;
    }
    words_[w] = bits;
  }
  for (std::size_t i = first + n; i < total; ++i) draw();  // the ranks after
}

double RowSample::InclusionProbability(double gamma) {
  RDPKIT_CHECK(gamma >= 0 && gamma <= 1);
  return std::floor(gamma * 0x1p53) * 0x1p-53;
}

}  // namespace rdpkit::trees::internal
