#include "cli.h"
#include "commands.h"
#include "rdpkit/accountant/convert.h"

namespace rdpkit::tools {

int RunDelta(const DeltaArgs& args, std::ostream& out) {
  const auto event = accountant::Event::FromJson(ReadEventJson(args.event));
  const auto result = accountant::Delta(
      event, args.epsilon, ConversionOptionsFrom(args.orders, args.fast, args.accountant));
  nlohmann::json json =
      AccountingFields(result.accountant, result.order, result.conversion, result.mu);
  json.update(
      {{"delta", result.delta}, {"epsilon", result.epsilon}, {"certified", result.certified}});
  if (!result.note.empty()) json["note"] = result.note;
  WriteJson(out, json);
  return 0;
}

void RegisterDelta(CLI::App& app, Action& action) {
  auto args = std::make_shared<DeltaArgs>();
  CLI::App* sub = app.add_subcommand("delta", "smallest delta of an event at a given epsilon");
  sub->add_option("--event", args->event, "event JSON: file path, - for stdin, or inline {...}")
      ->required();
  AddNumberOption(sub, "--epsilon", &args->epsilon, "decimal numbers in [0, inf)",
                  "target epsilon, in [0, inf)")
      ->required();
  sub->add_option("--orders", args->orders, "comma-separated Renyi orders");
  sub->add_flag("--fast", args->fast, "double precision only (not certified)");
  AddAccountantOption(sub, &args->accountant);
  sub->callback(
      [args, &action] { action = [args](std::ostream& out) { return RunDelta(*args, out); }; });
}

}  // namespace rdpkit::tools
