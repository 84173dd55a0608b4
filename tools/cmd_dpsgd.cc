// rdpkit dpsgd: the DP-SGD question in its own words (like Opacus's get_noise_multiplier):
// dataset size, batch size and epochs instead of a sampling rate and a step count.
#include <cmath>
#include <optional>
#include <string>

#include "cli.h"
#include "commands.h"
#include "rdpkit/accountant/calibrate.h"
#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::tools {
namespace {

// The event of `steps` steps of DP-SGD with Poisson sampling rate q (Abadi et al. 2016; each step
// a Gaussian of noise multiplier σ on a Poisson sample, Mironov, Talwar & Zhang 2019).
nlohmann::json DpsgdEvent(std::uint64_t steps, double q, const nlohmann::json& sigma) {
  const nlohmann::json step = {
      {"poisson_sampled",
       {{"sampling_probability", q}, {"event", {{"gaussian", {{"noise_multiplier", sigma}}}}}}}};
  if (steps == 1) return step;
  return {{"self_composed", {{"count", steps}, {"event", step}}}};
}

}  // namespace

int RunDpsgd(const DpsgdArgs& args, std::ostream& out) {
  if (!args.dataset_size) throw InvalidArgument("dataset-size", "missing (--dataset-size N)");
  if (!args.batch_size) throw InvalidArgument("batch-size", "missing (--batch-size B)");
  const std::uint64_t n = *args.dataset_size;
  const std::uint64_t b = *args.batch_size;
  // Whole numbers echoed as they were given (a double would print 2^64 − 1 as 2^64).
  if (n < 1 || n > (std::uint64_t{1} << 53)) {
    throw InvalidArgument("dataset-size", std::to_string(n), "[1, 2^53]");
  }
  if (b < 1 || b > n) {
    throw InvalidArgument("batch-size", std::to_string(b),
                          "[1, dataset-size = " + std::to_string(n) + "]");
  }
  Require(std::isfinite(args.epochs) && args.epochs > 0 && args.epochs <= 1e9, "epochs",
          args.epochs, "(0, 1e9]");
  if (args.noise_multiplier.has_value() == args.epsilon.has_value()) {
    throw InvalidArgument("noise-multiplier",
                          "give exactly one of --noise-multiplier (to get "
                          "epsilon) and --epsilon (to get the noise multiplier)");
  }
  if (args.noise_multiplier) {
    Require(*args.noise_multiplier > 0, "noise-multiplier", *args.noise_multiplier, "(0, inf)");
  }
  // The expected batch is B, so each record is in a step's sample with probability q = B/N; an
  // epoch is N/B steps, and the run ⌈E·N/B⌉ steps (rounded up: never fewer than trained).
  const double q = static_cast<double>(b) / static_cast<double>(n);
  const double exact_steps = args.epochs * static_cast<double>(n) / static_cast<double>(b);
  const auto steps = static_cast<std::uint64_t>(std::ceil(exact_steps));
  Require(steps >= 1 && steps <= (std::uint64_t{1} << 53), "epochs", args.epochs,
          "a run of at most 2^53 steps");
  const accountant::ConversionOptions options = ConversionOptionsFrom("", false, args.accountant);
  nlohmann::json result = {{"sampling_probability", q}, {"steps", steps}, {"delta", args.delta}};
  if (args.noise_multiplier) {
    const nlohmann::json event = DpsgdEvent(steps, q, *args.noise_multiplier);
    const auto eps = accountant::Epsilon(accountant::Event::FromJson(event), args.delta, options);
    result.update(AccountingFields(eps.accountant, eps.order, eps.conversion, eps.mu));
    result["epsilon"] = JsonNumber(eps.epsilon);
    result["certified"] = eps.certified;
    result["noise_multiplier"] = *args.noise_multiplier;
    result["event"] = event;
  } else {
    const auto solved =
        accountant::CalibrateJson(DpsgdEvent(steps, q, "?"), *args.epsilon, args.delta, options);
    const accountant::CalibrationResult& r = solved.result;
    result.update(AccountingFields(r.accountant, r.order, r.conversion, r.mu));
    result["epsilon"] = r.epsilon;
    result["certified"] = true;  // calibration re-checks its answer on the certified path
    result["noise_multiplier"] = r.value;
    result["event"] = solved.event;
  }
  WriteJson(out, result);
  return 0;
}

void RegisterDpsgd(CLI::App& app, Action& action) {
  auto args = std::make_shared<DpsgdArgs>();
  CLI::App* sub = app.add_subcommand(
      "dpsgd", "epsilon of a DP-SGD run, or the noise multiplier for a target epsilon");
  AddWholeNumberOption(sub, "--dataset-size", &args->dataset_size, "whole numbers in [1, 2^53]",
                       "N, records in the training set")
      ->required();
  AddWholeNumberOption(sub, "--batch-size", &args->batch_size, "whole numbers in [1, dataset-size]",
                       "B, expected batch size")
      ->required();
  AddNumberOption(sub, "--epochs", &args->epochs, "decimal numbers in (0, 1e9]", "E, epochs")
      ->required();
  AddNumberOption(sub, "--noise-multiplier", &args->noise_multiplier, "decimal numbers in (0, inf)",
                  "sigma: answer epsilon");
  AddNumberOption(sub, "--epsilon", &args->epsilon, "decimal numbers in (0, inf)",
                  "target epsilon: answer the noise multiplier");
  AddNumberOption(sub, "--delta", &args->delta, "decimal numbers in (0, 1)", "delta, in (0, 1)")
      ->required();
  AddAccountantOption(sub, &args->accountant);
  sub->callback(
      [args, &action] { action = [args](std::ostream& out) { return RunDpsgd(*args, out); }; });
}

}  // namespace rdpkit::tools
