#include "rdpkit/accountant/errors.h"

#include <charconv>
#include <cmath>
#include <string>

#include "rdpkit/accountant/json_input.h"

namespace rdpkit {

namespace {

// Bounds of what an error carries: user text (an unknown 10 MB key, a value read from a file)
// is echoed abbreviated, so a message stays readable and never costs memory of its own.
constexpr std::size_t kMaxFieldBytes = 2000;  // a path 64 events deep still fits
constexpr std::size_t kMaxValueBytes = 80;
constexpr std::size_t kMaxTextBytes = 2000;  // accepted ranges, free-form messages

}  // namespace

InvalidArgument::InvalidArgument(std::string field, std::string value, std::string accepted)
    : std::invalid_argument(Abbreviate(field, kMaxFieldBytes) + " = " +
                            Abbreviate(value, kMaxValueBytes) + " is outside " +
                            Abbreviate(accepted, kMaxTextBytes)),
      field_(Abbreviate(field, kMaxFieldBytes)),
      value_(Abbreviate(value, kMaxValueBytes)),
      accepted_(Abbreviate(accepted, kMaxTextBytes)) {}

InvalidArgument::InvalidArgument(std::string field, std::string message)
    : std::invalid_argument(Abbreviate(field, kMaxFieldBytes) + ": " +
                            Abbreviate(message, kMaxTextBytes)),
      field_(Abbreviate(field, kMaxFieldBytes)) {}

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

void Require(bool ok, std::string_view field, double value, std::string_view accepted) {
  if (!ok) throw InvalidArgument(std::string(field), FormatNumber(value), std::string(accepted));
}

namespace internal {
void CheckFailed(const char* condition, const char* file, int line) {
  throw InternalError(std::string("internal check failed: ") + condition + " at " + file + ":" +
                      std::to_string(line));
}
}  // namespace internal

}  // namespace rdpkit
