// Writes the fine-grid reference of the PLD accountant (tests/data/pld_fine_reference.json): ε of
// Poisson-subsampled Gaussian self-compositions over q ∈ [1e-6, 1], σ ∈ [0.3, 100],
// T ∈ [1, 10⁶], δ ∈ [1e-12, 1e-2], each computed with the finest grid the accountant allows
// (2^20 points whatever the resolution rule says; minutes in all). The test
// PldFineReference.DefaultGridIsWithinItsBound compares the default grid with it.
//
//   pld_fine_reference > tests/data/pld_fine_reference.json
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/event.h"
#include "rdpkit/accountant/pld.h"

int main() {
  using rdpkit::accountant::PldEpsilon;
  using rdpkit::accountant::PldOptions;
  nlohmann::json cases = nlohmann::json::array();
  const PldOptions finest{20, 20};
  for (const double q : {1e-6, 1e-4, 1e-2, 0.3, 1.0}) {
    for (const double sigma : {0.3, 1.0, 5.0, 100.0}) {
      for (const std::uint64_t count : {1ULL, 100ULL, 10000ULL, 1000000ULL}) {
        for (const double delta : {1e-12, 1e-8, 1e-5, 1e-2}) {
          const auto event = rdpkit::accountant::SampledGaussian(q, sigma, count);
          nlohmann::json c = {{"q", q}, {"sigma", sigma}, {"count", count}, {"delta", delta}};
          try {
            c["fine_epsilon"] = PldEpsilon(event, delta, finest);
          } catch (const rdpkit::NumericalError& e) {
            c["declined"] = e.what();
          }
          std::fprintf(stderr, "%s\n", c.dump().c_str());
          cases.push_back(c);
        }
      }
    }
  }
  std::cout
      << nlohmann::json{{"description",
                         "epsilon of self_composed(count, poisson_sampled(q, gaussian(sigma))) "
                         "by rdpkit's PLD accountant at its finest grid, PldOptions{20, 20} "
                         "(bench/pld_fine_reference.cc); declined: the grid would not fit"},
                        {"cases", cases}}
             .dump(1)
      << "\n";
}
