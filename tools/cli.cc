#include "cli.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"

namespace rdpkit::tools {

namespace {

// At most limit + 1 bytes of the stream: enough to tell that it is over the limit without
// reading (or holding) all of a huge file.
std::string ReadAtMost(std::istream& in, std::size_t limit) {
  std::string text;
  char buffer[1 << 16];
  while (text.size() <= limit && in.read(buffer, sizeof(buffer)).gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
  }
  return text;
}

}  // namespace

nlohmann::json ReadEventJson(const std::string& source, const std::string& field) {
  const JsonLimits& limits = kEventJsonLimits;
  std::string text;
  std::string origin;
  const auto first = source.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && source[first] == '{') {
    text = source;
    origin = "inline JSON";
  } else if (source == "-") {
    text = ReadAtMost(std::cin, limits.max_bytes);
    origin = "standard input";
  } else {
    struct stat info {};
    if (stat(source.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
      throw InvalidArgument(field, "\"" + Abbreviate(source) + "\" is a directory, not a file");
    }
    origin = "file \"" + Abbreviate(source) + "\"";
    if (S_ISREG(info.st_mode) && static_cast<std::size_t>(info.st_size) > limits.max_bytes) {
      throw InputTooLong(field, origin, limits.max_bytes);  // without reading the file
    }
    std::ifstream in(source, std::ios::binary);
    if (!in) throw InvalidArgument(field, "cannot open file \"" + Abbreviate(source) + "\"");
    text = ReadAtMost(in, limits.max_bytes);
  }
  return ParseJson(text, field, origin, limits);
}

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// [+-]digits[.digits][(e|E)[+-]digits], with digits on at least one side of the point.
bool IsPlainDecimal(const std::string& text) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
  std::size_t digits = 0;
  while (i < n && IsDigit(text[i])) ++i, ++digits;
  if (i < n && text[i] == '.') {
    ++i;
    while (i < n && IsDigit(text[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
    std::size_t exponent_digits = 0;
    while (i < n && IsDigit(text[i])) ++i, ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  return i == n;
}

// Whether plain decimal text (IsPlainDecimal) denotes a whole number exactly: no digit other than
// 0 after the point once the exponent has moved it ("1.5e3" yes, "1.9999999999999999" no, though
// it rounds to 2 as a double).
bool DenotesWholeNumber(const std::string& text) {
  std::string digits;
  long long point = -1;  // digits before the point
  std::size_t i = text[0] == '+' || text[0] == '-' ? 1 : 0;
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
    if (text[i] == '.') {
      point = static_cast<long long>(digits.size());
    } else {
      digits += text[i];
    }
  }
  if (point < 0) point = static_cast<long long>(digits.size());
  long long exponent = 0;
  if (i < text.size()) {
    const std::string power = text.substr(i + 1);
    // Exponents past ±10^6 are refused (as a number of 10^6 digits would be).
    if (power.size() > 8) return false;
    exponent = std::stoll(power);
  }
  const long long whole_digits = point + exponent;  // digits that stand before the point
  for (std::size_t k = 0; k < digits.size(); ++k) {
    if (static_cast<long long>(k) >= whole_digits && digits[k] != '0') return false;
  }
  return true;
}

// Command-line text as a message value: quoted, so that "" and " 1" are visible.
std::string Quoted(const std::string& text) { return "\"" + Abbreviate(text, 60) + "\""; }

std::string FieldOfFlag(const std::string& flag) {
  return flag.substr(flag.find_first_not_of('-'));
}

}  // namespace

double ParseDecimal(const std::string& text, const std::string& field,
                    const std::string& accepted) {
  if (!IsPlainDecimal(text)) throw InvalidArgument(field, Quoted(text), accepted);
  const double value = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(value)) {
    throw InvalidArgument(field, Quoted(text), accepted + " (this one overflows a double)");
  }
  if (value == 0 && text.find_first_of("123456789") < text.find_first_of("eE")) {
    throw InvalidArgument(field, Quoted(text), accepted + " (this one underflows to 0)");
  }
  return value;
}

std::uint64_t ParseWholeNumber(const std::string& text, const std::string& field,
                               const std::string& accepted) {
  if (text.empty() || !IsDigit(text[0])) throw InvalidArgument(field, Quoted(text), accepted);
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error == std::errc() && ptr == end) return value;
  // A whole number in decimal or exponent notation (60000, 6e4, 1.5e3) up to 2^53, where every
  // whole number is a double exactly.
  if (IsPlainDecimal(text) && DenotesWholeNumber(text)) {
    const double number = std::strtod(text.c_str(), nullptr);
    if (number <= 0x1p53 && number == std::floor(number)) return static_cast<std::uint64_t>(number);
  }
  throw InvalidArgument(field, Quoted(text), accepted);
}

std::vector<double> ParseNumberList(const std::string& text, const std::string& field,
                                    const std::string& accepted) {
  std::vector<double> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!IsPlainDecimal(item)) {
      throw InvalidArgument(field, Quoted(item),
                            accepted + ", as a comma-separated list such as 1.5,2,4");
    }
    out.push_back(ParseDecimal(item, field, accepted));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

accountant::ConversionOptions ConversionOptionsFrom(const std::string& orders, bool fast,
                                                    const std::string& accountant) {
  // What --orders accepts (ConversionOptions::Validate).
  constexpr const char* kOrdersAccepted = "decimal numbers in (1, inf)";
  accountant::ConversionOptions options;
  if (!orders.empty()) options.orders = ParseNumberList(orders, "orders", kOrdersAccepted);
  options.certified = !fast;
  options.accountant = accountant::AccountantFromName(accountant);
  return options;
}

void AddAccountantOption(CLI::App* sub, std::string* target) {
  sub->add_option("--accountant", *target,
                  "best (default: the smallest certified value of those that apply), rdp, "
                  "gaussian (exact, compositions of Gaussian-type events only), or pld (privacy "
                  "loss distribution, compositions of Poisson-sampled Gaussian-type events)");
}

nlohmann::json AccountingFields(accountant::Accountant accountant, double order,
                                accountant::Conversion conversion, double mu) {
  if (accountant == accountant::Accountant::kGaussian) {
    return {{"accountant", accountant::AccountantName(accountant)}, {"mu", mu}};
  }
  if (accountant == accountant::Accountant::kPld) {
    return {{"accountant", accountant::AccountantName(accountant)}};
  }
  return {{"accountant", accountant::AccountantName(accountant)},
          {"order", JsonNumber(order)},  // "inf": the pure-DP bound (convert.h)
          {"conversion", accountant::ConversionName(conversion)}};
}

namespace {
// One definition for every number option: parse reads the flag's text (ParseDecimal or
// ParseWholeNumber) into *target (double, std::optional<double> or std::optional<uint64_t>).
template <class Target, class Parse>
CLI::Option* AddParsedOption(CLI::App* sub, const std::string& flag, Target* target,
                             const std::string& accepted, const std::string& description,
                             Parse parse, const char* type_name) {
  const std::string field = FieldOfFlag(flag);
  return sub
      ->add_option_function<std::string>(
          flag,
          [target, field, accepted, parse](const std::string& text) {
            *target = parse(text, field, accepted);
          },
          description)
      ->type_name(type_name);
}
}  // namespace

CLI::Option* AddNumberOption(CLI::App* sub, const std::string& flag, double* target,
                             const std::string& accepted, const std::string& description) {
  return AddParsedOption(sub, flag, target, accepted, description, ParseDecimal, "NUMBER");
}

CLI::Option* AddNumberOption(CLI::App* sub, const std::string& flag, std::optional<double>* target,
                             const std::string& accepted, const std::string& description) {
  return AddParsedOption(sub, flag, target, accepted, description, ParseDecimal, "NUMBER");
}

CLI::Option* AddWholeNumberOption(CLI::App* sub, const std::string& flag,
                                  std::optional<std::uint64_t>* target, const std::string& accepted,
                                  const std::string& description) {
  return AddParsedOption(sub, flag, target, accepted, description, ParseWholeNumber, "UINT");
}

CLI::Option* AddWholeNumberOption(CLI::App* sub, const std::string& flag, int* target,
                                  const std::string& accepted, const std::string& description) {
  const auto parse = [](const std::string& text, const std::string& field,
                        const std::string& accepted_text) {
    const std::uint64_t value = ParseWholeNumber(text, field, accepted_text);
    if (value > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
      throw InvalidArgument(field, Quoted(text), accepted_text);
    }
    return static_cast<int>(value);
  };
  return AddParsedOption(sub, flag, target, accepted, description, parse, "INT");
}

std::string DescribeUsageError(const CLI::App& app, const CLI::ParseError& error) {
  const std::string what = error.what();
  const CLI::App* sub = nullptr;
  for (const CLI::App* candidate : app.get_subcommands({})) {
    if (candidate->parsed()) sub = candidate;
  }
  const std::string command = sub == nullptr ? "rdpkit" : "rdpkit " + sub->get_name();
  const std::string help = " (see " + command + " --help)";
  if (sub == nullptr) return "command: " + Abbreviate(what, 300) + help;

  // The option the message is about: the longest --name it mentions as a whole word.
  const CLI::Option* option = nullptr;
  std::string flag;
  for (const CLI::Option* candidate : sub->get_options({})) {
    for (const std::string& name : candidate->get_lnames()) {
      const std::string dashed = "--" + name;
      for (auto at = what.find(dashed); at != std::string::npos; at = what.find(dashed, at + 1)) {
        const std::size_t after = at + dashed.size();
        const bool whole =
            after == what.size() || !(std::isalnum(static_cast<unsigned char>(what[after])) ||
                                      what[after] == '_' || what[after] == '-');
        if (whole && dashed.size() > flag.size()) {
          option = candidate;
          flag = dashed;
        }
      }
    }
  }
  const std::string about =
      option == nullptr ? help : " (" + flag + ": " + option->get_description() + ")";
  const std::string field = flag.empty() ? std::string() : FieldOfFlag(flag);
  // CLI11 checks required options before unknown ones; an unknown one is the likelier cause.
  const bool unknown = error.get_name() == "ExtrasError" || !sub->remaining().empty();
  if (unknown) {
    std::vector<std::string> extras = sub->remaining();
    const std::string first = extras.empty() ? what : extras.front();
    std::string accepted;
    for (const CLI::Option* candidate : sub->get_options({})) {
      if (candidate->get_lnames().empty()) continue;
      accepted += (accepted.empty() ? "" : ", ") + std::string("--") + candidate->get_lnames()[0];
    }
    return Abbreviate(first) + ": unknown option or argument (accepted: " + accepted + ")";
  }
  if (error.get_name() == "RequiredError" && option != nullptr) {
    return field + ": missing; " + flag + " is required" + about;
  }
  if (error.get_name() == "ArgumentMismatch" && option != nullptr) {
    // CLI11 reports a flag given twice as a mismatch too; its value count tells them apart.
    if (option->count() > 1) return field + ": " + flag + " given more than once" + about;
    return field + ": " + flag + " needs a value" + about;
  }
  return (field.empty() ? std::string("arguments") : field) + ": " + Abbreviate(what, 300) + about;
}

nlohmann::json JsonNumber(double value) {
  if (std::isfinite(value)) return value;
  return FormatNumber(value);
}

void WriteJson(std::ostream& out, const nlohmann::json& object) {
  // A path that is not UTF-8 (Linux allows any bytes) is shown with U+FFFD in place of the bytes
  // JSON cannot hold, instead of failing after its file was written.
  out << object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace rdpkit::tools
