#include <rdpkit/accountant/convert.h>
#include <rdpkit/accountant/event.h>

#include <cstdio>

int main() {
  namespace acc = rdpkit::accountant;
  // 1000 rounds, each a Gaussian (noise multiplier 1.1) on a Poisson sample of 1% of the records.
  const acc::Event event = acc::SampledGaussian(/*sampling_probability=*/0.01,
                                                /*noise_multiplier=*/1.1, /*count=*/1000);
  const acc::EpsilonResult result = acc::Epsilon(event, /*delta=*/1e-5);
  std::printf("epsilon = %.6g at delta = %g (accountant %s)\n", result.epsilon, result.delta,
              acc::AccountantName(result.accountant).c_str());
}
