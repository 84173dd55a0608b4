#include "cli.h"
#include "commands.h"
#include "rdpkit/accountant/curves.h"

namespace rdpkit::tools {

int RunRdp(const RdpArgs& args, std::ostream& out) {
  const auto event = accountant::Event::FromJson(ReadEventJson(args.event));
  const auto orders = ParseNumberList(args.orders, "orders", "decimal numbers in (1, inf)");
  nlohmann::json rdp = nlohmann::json::array();
  for (double order : orders) {
    rdp.push_back(JsonNumber(args.fast ? accountant::RdpFast(event, order)
                                       : accountant::RdpCertified(event, order).upper));
  }
  WriteJson(out, {{"orders", orders}, {"rdp", rdp}, {"certified", !args.fast}});
  return 0;
}

void RegisterRdp(CLI::App& app, Action& action) {
  auto args = std::make_shared<RdpArgs>();
  CLI::App* sub = app.add_subcommand("rdp", "Renyi-DP curve of an event at given orders");
  sub->add_option("--event", args->event, "event JSON: file path, - for stdin, or inline {...}")
      ->required();
  sub->add_option("--orders", args->orders, "comma-separated Renyi orders, each in (1, inf)")
      ->required();
  sub->add_flag("--fast", args->fast, "double precision only (not certified)");
  sub->callback(
      [args, &action] { action = [args](std::ostream& out) { return RunRdp(*args, out); }; });
}

}  // namespace rdpkit::tools
