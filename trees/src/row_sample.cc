#include "row_sample.h"

#include <algorithm>

namespace rdpkit::trees::internal {

void RowSample::DrawPoisson(mechanisms::Random& rng, double gamma, std::size_t first, std::size_t n,
                            std::size_t total) {
  words_.assign((n + 63) / 64, 0);
  for (std::size_t i = 0; i < first; ++i) rng.Uniform01();  // the rows of the ranks before
  // The draws go straight into the bits, without a branch.
  for (std::size_t w = 0; w < words_.size(); ++w) {
    const std::size_t rows = std::min<std::size_t>(64, n - 64 * w);
    std::uint64_t bits = 0;
    for (std::size_t j = 0; j < rows; ++j) {
      bits |= static_cast<std::uint64_t>(rng.Uniform01() < gamma) << j;
    }
    words_[w] = bits;
  }
  for (std::size_t i = first + n; i < total; ++i) rng.Uniform01();  // the ranks after
}

}  // namespace rdpkit::trees::internal
