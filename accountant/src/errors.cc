#include "rdpkit/accountant/errors.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>

#include "rdpkit/accountant/json_input.h"

namespace rdpkit {

namespace {

// Bounds of what an error carries: user text (an unknown 10 MB key, a value read from a file)
// is echoed abbreviated, so a message stays readable and never costs memory of its own.
constexpr std::size_t kMaxFieldBytes = 2000;  // a path 64 events deep still fits
constexpr std::size_t kMaxValueBytes = 80;
constexpr std::size_t kMaxTextBytes = 2000;  // accepted ranges, free-form messages

// The length of the valid UTF-8 character at text[i] (2 to 4 bytes), or 0 when there is none.
std::size_t Utf8Length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range (RFC 3629 §4)
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;  // no UTF-16 surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  }
  if (length == 0 || i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  return length;
}

// A value for a message, cut to kMaxValueBytes; a quoted one keeps its closing quote and its
// count is of the text inside the quotes.
std::string AbbreviatedValue(const std::string& value) {
  if (value.size() > kMaxValueBytes && value.size() >= 2 && value.front() == '"' &&
      value.back() == '"') {
    return '"' +
           Abbreviate(std::string_view(value).substr(1, value.size() - 2), kMaxValueBytes - 2) +
           '"';
  }
  return Abbreviate(value, kMaxValueBytes);
}

}  // namespace

InvalidArgument::InvalidArgument(std::string field, std::string value, std::string accepted)
    : std::invalid_argument(Printable(Abbreviate(field, kMaxFieldBytes)) + " = " +
                            Printable(AbbreviatedValue(value)) + " is outside " +
                            Printable(Abbreviate(accepted, kMaxTextBytes))),
      field_(Abbreviate(field, kMaxFieldBytes)),
      value_(AbbreviatedValue(value)),
      accepted_(Abbreviate(accepted, kMaxTextBytes)) {}

InvalidArgument::InvalidArgument(std::string field, std::string message)
    : std::invalid_argument(Printable(Abbreviate(field, kMaxFieldBytes)) + ": " +
                            Printable(Abbreviate(message, kMaxTextBytes))),
      field_(Abbreviate(field, kMaxFieldBytes)) {}

bool IsUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
    } else if (const std::size_t length = Utf8Length(text, i); length > 0) {
      i += length;
    } else {
      return false;
    }
  }
  return true;
}

namespace {
// Whether the valid UTF-8 character at text[i] of `length` bytes is a C1 control (U+0080 to
// U+009F: C2 80 to C2 9F) or a noncharacter U+FFFE or U+FFFF (EF BF BE, EF BF BF).
bool IsC1OrNoncharacter(std::string_view text, std::size_t i, std::size_t length) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  if (length == 2) return byte(0) == 0xC2 && byte(1) <= 0x9F;
  return length == 3 && byte(0) == 0xEF && byte(1) == 0xBF && byte(2) >= 0xBE;
}
}  // namespace

std::string FirstControlCharacter(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t length = 1;
    bool control = c < 0x20 || c == 0x7F;
    if (c >= 0x80) {
      length = std::max<std::size_t>(1, Utf8Length(text, i));
      control = length > 1 && IsC1OrNoncharacter(text, i, length);
    }
    if (control) return Printable(text.substr(i, length));
    i += length;
  }
  return "";
}

// Text for a one-line message on a terminal: control bytes (a NUL, a newline, an escape
// sequence read from a file) and bytes that are not UTF-8 are written as \xNN.
std::string Printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += text[i++];
      continue;
    }
    static constexpr char kHex[] = "0123456789ABCDEF";
    const std::size_t length = c >= 0x80 ? Utf8Length(text, i) : 0;
    if (length > 0 && !IsC1OrNoncharacter(text, i, length)) {
      out.append(text.substr(i, length));
      i += length;
      continue;
    }
    // A control byte, a byte that is not UTF-8, or each byte of a C1 control (U+009B is a
    // terminal's CSI) or noncharacter.
    for (std::size_t k = 0; k < std::max<std::size_t>(1, length); ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 0xF];
    }
    i += std::max<std::size_t>(1, length);
  }
  return out;
}

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
