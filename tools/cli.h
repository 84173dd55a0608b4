// Shared pieces of the rdpkit command line (STYLE.md §9): each subcommand registers its flags on
// a CLI11 sub-app and a runner `int Run…(const …Args&, std::ostream& out)` that is testable
// without a process. main() holds the only try/catch.
#ifndef RDPKIT_TOOLS_CLI_H_
#define RDPKIT_TOOLS_CLI_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "rdpkit/accountant/convert.h"

namespace rdpkit::tools {

// The action of the subcommand the user chose; set by the sub-app's callback.
using Action = std::function<int(std::ostream& out)>;

// Subcommand registration, one function per cmd_<name>.cc.
void RegisterEpsilon(CLI::App& app, Action& action);
void RegisterDelta(CLI::App& app, Action& action);
void RegisterRdp(CLI::App& app, Action& action);
void RegisterCalibrate(CLI::App& app, Action& action);
void RegisterDpsgd(CLI::App& app, Action& action);
void RegisterSample(CLI::App& app, Action& action);
void RegisterSchema(CLI::App& app, Action& action);
void RegisterTrain(CLI::App& app, Action& action);
void RegisterPredict(CLI::App& app, Action& action);
void RegisterEvaluate(CLI::App& app, Action& action);
void RegisterPlot(CLI::App& app, Action& action);

// --event: a file path, "-" for standard input, or inline JSON (starts with '{').
nlohmann::json ReadEventJson(const std::string& source, const std::string& field = "event");
// A number given on the command line, as plain decimal text only: [+-]digits[.digits][e[+-]digits].
// Empty text, spaces, hex (0x10), inf, nan and numbers that overflow or underflow a double are
// InvalidArgument(field, text, accepted); `accepted` states the range ("the numbers in (0, 1)").
double ParseDecimal(const std::string& text, const std::string& field, const std::string& accepted);
// A whole number in [0, 2^64) as plain decimal digits, or up to 2^53 in decimal or exponent
// notation whose value is whole (6e4, 1.5e3); no sign, hex, or fraction.
std::uint64_t ParseWholeNumber(const std::string& text, const std::string& field,
                               const std::string& accepted);
// A comma-separated list of ParseDecimal numbers ("1.5,2,4"); names field on error.
std::vector<double> ParseNumberList(const std::string& text, const std::string& field,
                                    const std::string& accepted = "decimal numbers");
// Conversion options of epsilon, delta and calibrate: --orders (ParseNumberList, empty for the
// default grid), --fast (certified = !fast) and --accountant (best, rdp, gaussian or pld).
accountant::ConversionOptions ConversionOptionsFrom(const std::string& orders, bool fast,
                                                    const std::string& accountant);
// Registers --accountant on a subcommand (default "best").
void AddAccountantOption(CLI::App* sub, std::string* target);
// The output fields that say how a value was accounted: "accountant", then "order" and
// "conversion" for rdp, "mu" for gaussian, nothing more for pld.
nlohmann::json AccountingFields(accountant::Accountant accountant, double order,
                                accountant::Conversion conversion, double mu);

// --flag options read by ParseDecimal / ParseWholeNumber instead of CLI11's lenient conversion
// (which reads "" as 0 and 0x10 as 16). The field in messages is the flag without its dashes;
// `target` must outlive the parse (subcommands keep their arguments alive in their callback).
CLI::Option* AddNumberOption(CLI::App* sub, const std::string& flag, double* target,
                             const std::string& accepted, const std::string& description);
CLI::Option* AddNumberOption(CLI::App* sub, const std::string& flag, std::optional<double>* target,
                             const std::string& accepted, const std::string& description);
CLI::Option* AddWholeNumberOption(CLI::App* sub, const std::string& flag,
                                  std::optional<std::uint64_t>* target, const std::string& accepted,
                                  const std::string& description);
// The same into an int (a number above INT_MAX is refused with `accepted`).
CLI::Option* AddWholeNumberOption(CLI::App* sub, const std::string& flag, int* target,
                                  const std::string& accepted, const std::string& description);

// CLI11's own errors (unknown option, missing value, missing required option) in rdpkit's one
// error style: "<field>: <what is wrong> (<the flag's help, which states its accepted range>)".
std::string DescribeUsageError(const CLI::App& app, const CLI::ParseError& error);
// One JSON object on its own line; non-finite numbers are written as the strings "inf"/"nan".
void WriteJson(std::ostream& out, const nlohmann::json& object);
// A double for JSON output: finite numbers as numbers, others as "inf"/"-inf"/"nan".
nlohmann::json JsonNumber(double value);

}  // namespace rdpkit::tools

#endif  // RDPKIT_TOOLS_CLI_H_
