// rdpkit sample: draws from the mechanism of an event so that a user or an auditor can check the
// noise from outside the library (DESIGN.md §3; docs/cli.md §sample).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/event.h"
#include "rdpkit/mechanisms/from_event.h"
#include "rdpkit/mechanisms/random.h"

namespace rdpkit::tools {

struct SampleArgs {
  std::string event;                  // path, "-" or inline JSON
  double count = 0;                   // draws, whole number in [1, 1e8]
  std::optional<double> value;        // V for additive events (default 0)
  double sensitivity = 1;             // (0, inf): L2 (Gaussian), L1 (Laplace), Δ (exponential)
  std::string utilities;              // U1,U2,… for exponential events
  std::optional<std::uint64_t> seed;  // reproducible randomness; secure (OS entropy) if absent
};

// Largest --count (a run of 1e8 Gaussian draws writes about 2 GB).
constexpr double kMaxCount = 1e8;

// Writes {"samples": [...], "secure": ...} as WriteJson would, but one sample at a time through a
// buffer of about 1 MiB, so that memory does not grow with count × dimension.
class SampleWriter {
 public:
  explicit SampleWriter(std::ostream& out) : out_(out) { buffer_ = "{\"samples\":["; }
  void Add(const nlohmann::json& sample) {
    if (!first_) buffer_ += ',';
    first_ = false;
    buffer_ += sample.dump();
    if (buffer_.size() >= (std::size_t{1} << 20)) Flush();
  }
  void Finish(bool secure) {
    buffer_ += "],\"secure\":";
    buffer_ += secure ? "true" : "false";
    buffer_ += "}\n";
    Flush();
  }

 private:
  void Flush() {
    out_ << buffer_;
    buffer_.clear();
  }
  std::ostream& out_;
  std::string buffer_;
  bool first_ = true;
};

int RunSample(const SampleArgs& args, std::ostream& out) {
  const auto event = accountant::Event::FromJson(ReadEventJson(args.event));
  Require(args.count >= 1 && args.count <= kMaxCount && args.count == std::floor(args.count),
          "count", args.count, "whole numbers in [1, 1e8]");
  const auto count = static_cast<std::size_t>(args.count);
  mechanisms::Random rng =
      args.seed ? mechanisms::Random::Seeded(*args.seed) : mechanisms::Random::Secure();
  std::optional<std::vector<double>> utilities;
  std::optional<mechanisms::ExponentialMechanism> exponential;
  std::optional<mechanisms::AdditiveMechanism> additive;
  // Every refusal comes before the first byte of output (the utilities are checked by the first
  // draw, while the writer still holds its first bytes).
  if (event.get_if<accountant::ExponentialEvent>() != nullptr) {
    if (args.value) throw InvalidArgument("value", "is not accepted for an exponential event");
    if (args.utilities.empty()) {
      throw InvalidArgument("utilities", "is required for an exponential event");
    }
    utilities = ParseNumberList(args.utilities, "utilities", "finite decimal numbers");
    exponential = mechanisms::MakeExponential(event, args.sensitivity);
  } else {
    if (!args.utilities.empty()) {
      throw InvalidArgument("utilities", "is only accepted for an exponential event");
    }
    try {
      additive = mechanisms::MakeAdditive(event, args.sensitivity);
    } catch (const InvalidArgument& error) {
      if (error.field() != "event") throw;
      // MakeAdditive's refusal names its own kinds; sample also takes exponential events.
      throw InvalidArgument("event", error.value(),
                            "gaussian, leaf_balanced_gaussian, laplace or exponential (the "
                            "events sample draws from)");
    }
  }
  SampleWriter writer(out);
  if (exponential) {
    for (std::size_t i = 0; i < count; ++i) writer.Add(exponential->Select(*utilities, rng));
  } else {
    const std::size_t dimension = additive->dimension();
    std::vector<double> draw(dimension);
    for (std::size_t i = 0; i < count; ++i) {
      std::fill(draw.begin(), draw.end(), args.value.value_or(0.0));
      additive->AddTo(draw.data(), rng);
      if (dimension == 1) {
        writer.Add(JsonNumber(draw[0]));
      } else {
        nlohmann::json vector = nlohmann::json::array();
        for (double x : draw) vector.push_back(JsonNumber(x));
        writer.Add(vector);
      }
    }
  }
  writer.Finish(rng.secure());
  return 0;
}

void RegisterSample(CLI::App& app, Action& action) {
  auto args = std::make_shared<SampleArgs>();
  CLI::App* sub = app.add_subcommand(
      "sample", "draw from the mechanism of an event (noise V + Y, or exponential selections)");
  sub->add_option("--event", args->event,
                  "gaussian, leaf_balanced_gaussian, laplace or exponential event JSON: file "
                  "path, - for stdin, or inline {...}")
      ->required();
  AddNumberOption(sub, "--count", &args->count, "whole numbers in [1, 1e8]",
                  "number of draws, whole number in [1, 1e8]")
      ->required();
  AddNumberOption(sub, "--value", &args->value, "finite decimal numbers",
                  "value V the noise is added to (default 0)");
  AddNumberOption(sub, "--sensitivity", &args->sensitivity, "decimal numbers in (0, inf)",
                  "sensitivity S, in (0, inf): L2 for Gaussian, L1 for Laplace, utility "
                  "sensitivity for exponential (default 1)");
  sub->add_option("--utilities", args->utilities,
                  "comma-separated utilities U1,U2,... (exponential events only)");
  AddWholeNumberOption(sub, "--seed", &args->seed, "whole numbers in [0, 2^64)",
                       "seed for reproducible (NOT secure) randomness; default: OS entropy + "
                       "ChaCha20");
  sub->callback(
      [args, &action] { action = [args](std::ostream& out) { return RunSample(*args, out); }; });
}

}  // namespace rdpkit::tools
