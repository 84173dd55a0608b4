// Errors shared by every rdpkit module (STYLE.md §3).
//
// Exceptions, not status objects: InvalidArgument for bad input (thrown at boundaries:
// constructors, Validate(), JSON parsing), NumericalError when a certified evaluation misses its
// precision or a solver finds no bracket (UnreachableTarget when no value meets a calibration's
// target), InternalError for a broken invariant (RDPKIT_CHECK).
#ifndef RDPKIT_ACCOUNTANT_ERRORS_H_
#define RDPKIT_ACCOUNTANT_ERRORS_H_

#include <stdexcept>
#include <string>
#include <string_view>

namespace rdpkit {

// A parameter outside its accepted range. what() reads
// "sampling_probability = 1.5 is outside (0, 1]".
class InvalidArgument : public std::invalid_argument {
 public:
  InvalidArgument(std::string field, std::string value, std::string accepted);
  // A free-form message that still names the field (e.g. a JSON structure error).
  InvalidArgument(std::string field, std::string message);

  const std::string& field() const noexcept { return field_; }
  const std::string& value() const noexcept { return value_; }
  const std::string& accepted() const noexcept { return accepted_; }

 private:
  std::string field_;
  std::string value_;
  std::string accepted_;
};

// A certified evaluation missed its precision, or a solver found no bracket. Never a guess.
class NumericalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A calibration's target that no value of its domain meets (ε too small for the rest of the
// event, say): bad input at the caller's level, which names the setting at fault (the CLI's
// `calibrate` the JSON path of the "?", `train` privacy.epsilon) and exits with status 2.
class UnreachableTarget : public NumericalError {
 public:
  using NumericalError::NumericalError;
};

// An internal invariant does not hold (a bug in rdpkit). Raised by RDPKIT_CHECK.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// Shortest decimal text that reads back to the same double ("1.5", "1e-05", "inf", "nan").
std::string FormatNumber(double value);

// Whether text is valid UTF-8 (RFC 3629: no overlong forms, surrogates or code points past
// U+10FFFF), as JSON text must be: names read from a CSV go into schema and model files.
bool IsUtf8(std::string_view text);
// The first control character of UTF-8 text (C0 such as NUL, tab, newline or ESC; DEL; C1 such
// as U+009B) or noncharacter U+FFFE/U+FFFF, as "\\x1B" (Printable's form), or "" when there is
// none: names printed in CSV headers and on terminals, and text written into XML, must hold none.
std::string FirstControlCharacter(std::string_view text);

// Text for a one-line message on a terminal: control bytes (a NUL, a newline, an escape sequence
// read from a file) and bytes that are not UTF-8 are written as \xNN. InvalidArgument's messages
// are already printable.
std::string Printable(std::string_view text);

// Throws InvalidArgument(field, FormatNumber(value), accepted) unless ok.
void Require(bool ok, std::string_view field, double value, std::string_view accepted);

namespace internal {
[[noreturn]] void CheckFailed(const char* condition, const char* file, int line);
}  // namespace internal

}  // namespace rdpkit

// Guards an internal invariant; stays on in Release builds.
#define RDPKIT_CHECK(condition)                                        \
  do {                                                                 \
    if (!(condition)) {                                                \
      ::rdpkit::internal::CheckFailed(#condition, __FILE__, __LINE__); \
    }                                                                  \
  } while (false)

#endif  // RDPKIT_ACCOUNTANT_ERRORS_H_
