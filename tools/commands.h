// Arguments and runners of the accountant subcommands (DESIGN.md §3).
#ifndef RDPKIT_TOOLS_COMMANDS_H_
#define RDPKIT_TOOLS_COMMANDS_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace rdpkit::tools {

struct EpsilonArgs {
  std::string event;                // path, "-" or inline JSON
  double delta = 0;                 // (0, 1)
  std::string orders;               // comma-separated, empty: default grid + refinement
  bool fast = false;                // double precision only (not certified)
  std::string accountant = "best";  // best, rdp or gaussian
};
int RunEpsilon(const EpsilonArgs& args, std::ostream& out);

struct DeltaArgs {
  std::string event;
  double epsilon = 0;  // [0, inf)
  std::string orders;
  bool fast = false;
  std::string accountant = "best";
};
int RunDelta(const DeltaArgs& args, std::ostream& out);

struct RdpArgs {
  std::string event;
  std::string orders;  // required
  bool fast = false;
};
int RunRdp(const RdpArgs& args, std::ostream& out);

struct CalibrateArgs {
  std::string event;  // exactly one numeric field is "?"
  double epsilon = 0;
  double delta = 0;
  std::string orders;
  std::string accountant = "best";
};
int RunCalibrate(const CalibrateArgs& args, std::ostream& out);

// DP-SGD with Poisson sampling rate q = B/N for ⌈E·N/B⌉ steps (docs/cli.md "dpsgd").
struct DpsgdArgs {
  std::optional<std::uint64_t> dataset_size;  // N ≥ 1
  std::optional<std::uint64_t> batch_size;    // B in [1, N]
  double epochs = 0;                          // E in (0, 1e9]
  std::optional<double> noise_multiplier;     // σ: answer ε
  std::optional<double> epsilon;              // target ε: answer σ
  double delta = 0;                           // (0, 1)
  std::string accountant = "best";
};
int RunDpsgd(const DpsgdArgs& args, std::ostream& out);

// ε at δ against steps as an SVG file (docs/cli.md "plot"; accountant/privacy_curve.h).
struct PlotArgs {
  std::string event;                   // one step (with steps), or a self_composed event
  double delta = 0;                    // (0, 1)
  std::optional<std::uint64_t> steps;  // absent: the count of a self_composed event
  int points = 30;                     // [2, 1000]
  std::string out;                     // the SVG file
  std::string title;                   // UTF-8 without control characters
  std::string orders;
  bool fast = false;
  std::string accountant = "best";
  bool quiet = false;           // --quiet: no progress line
  std::ostream* err = nullptr;  // progress lines (RegisterPlot: std::cerr)
};
int RunPlot(const PlotArgs& args, std::ostream& out);

}  // namespace rdpkit::tools

#endif  // RDPKIT_TOOLS_COMMANDS_H_
