#include "cli.h"
#include "commands.h"
#include "rdpkit/accountant/calibrate.h"

namespace rdpkit::tools {

int RunCalibrate(const CalibrateArgs& args, std::ostream& out) {
  const auto json = ReadEventJson(args.event);
  const auto solved = accountant::CalibrateJson(
      json, args.epsilon, args.delta, ConversionOptionsFrom(args.orders, false, args.accountant));
  const accountant::CalibrationResult& r = solved.result;
  nlohmann::json fields = AccountingFields(r.accountant, r.order, r.conversion, r.mu);
  fields.erase("conversion");
  fields.update({{"parameter", r.parameter},
                 {"value", r.value},
                 {"epsilon", r.epsilon},
                 {"delta", r.delta},
                 {"event", solved.event}});
  WriteJson(out, fields);
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
  AddAccountantOption(sub, &args->accountant);
  sub->callback(
      [args, &action] { action = [args](std::ostream& out) { return RunCalibrate(*args, out); }; });
}

}  // namespace rdpkit::tools
