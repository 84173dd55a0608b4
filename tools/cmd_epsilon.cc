#include "cli.h"
#include "commands.h"
#include "rdpkit/accountant/convert.h"

namespace rdpkit::tools {

int RunEpsilon(const EpsilonArgs& args, std::ostream& out) {
  const auto event = accountant::Event::FromJson(ReadEventJson(args.event));
  const auto result = accountant::Epsilon(
      event, args.delta, ConversionOptionsFrom(args.orders, args.fast, args.accountant));
  nlohmann::json json =
      AccountingFields(result.accountant, result.order, result.conversion, result.mu);
  json.update({{"epsilon", JsonNumber(result.epsilon)},
               {"delta", result.delta},
               {"certified", result.certified}});
  if (!result.note.empty()) json["note"] = result.note;
  WriteJson(out, json);
  return 0;
}

void RegisterEpsilon(CLI::App& app, Action& action) {
  auto args = std::make_shared<EpsilonArgs>();
  CLI::App* sub = app.add_subcommand("epsilon", "smallest epsilon of an event at a given delta");
  sub->add_option("--event", args->event, "event JSON: file path, - for stdin, or inline {...}")
      ->required();
  AddNumberOption(sub, "--delta", &args->delta, "decimal numbers in (0, 1)",
                  "target delta, in (0, 1)")
      ->required();
  sub->add_option("--orders", args->orders,
                  "comma-separated Renyi orders (default: grid + "
                  "refinement over (1, 1e5])");
  sub->add_flag("--fast", args->fast, "double precision only (not certified)");
  AddAccountantOption(sub, &args->accountant);
  sub->callback(
      [args, &action] { action = [args](std::ostream& out) { return RunEpsilon(*args, out); }; });
}

}  // namespace rdpkit::tools
