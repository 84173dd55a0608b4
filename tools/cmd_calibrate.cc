#include "cli.h"
#include "commands.h"
#include "rdpkit/accountant/calibrate.h"

namespace rdpkit::tools {

int RunCalibrate(const CalibrateArgs& args, std::ostream& out) {
  const auto json = ReadEventJson(args.event);
  const auto solved = accountant::CalibrateJson(json, args.epsilon, args.delta,
                                                ConversionOptionsFrom(args.orders, false));
  WriteJson(out, {{"parameter", solved.result.parameter},
                  {"value", solved.result.value},
                  {"epsilon", solved.result.epsilon},
                  {"delta", solved.result.delta},
                  {"order", solved.result.order},
                  {"event", solved.event}});
  return 0;
}

void RegisterCalibrate(CLI::App& app, Action& action) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* sub = app.add_subcommand(
      "calibrate", "solve the one \"?\" field of an event for a target (epsilon, delta)");
  sub->add_option("--event", args->event, "event JSON with one field \"?\": path, - or inline")
      ->required();
  AddNumberOption(sub, "--epsilon", &args->epsilon, "decimal numbers in (0, inf)",
                  "target epsilon, in (0, inf)")
      ->required();
  AddNumberOption(sub, "--delta", &args->delta, "decimal numbers in (0, 1)",
                  "target delta, in (0, 1)")
      ->required();
  sub->add_option("--orders", args->orders, "comma-separated Renyi orders");
  sub->callback(
      [args, &action] { action = [args](std::ostream& out) { return RunCalibrate(*args, out); }; });
}

}  // namespace rdpkit::tools
