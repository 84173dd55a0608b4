// The pieces of CSV parsing shared by the reader that keeps values (data.cc) and the one that keeps
// only their bins (binned_csv.cc), so that both accept, refuse and convert exactly the same text.
#ifndef RDPKIT_TREES_SRC_CSV_LINE_H_
#define RDPKIT_TREES_SRC_CSV_LINE_H_

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cell_names.h"

namespace rdpkit::trees::internal::csv {

inline bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// text without the blanks and carriage returns at its ends.
inline std::string_view TrimBlanks(std::string_view text) {
  while (!text.empty() && (IsBlank(text.front()) || text.front() == '\r')) text.remove_prefix(1);
  while (!text.empty() && (IsBlank(text.back()) || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

inline bool IsQuoted(std::string_view text) {
  return text.size() >= 2 && text.front() == '"' && text.back() == '"';
}

// A field without its end blanks and, when it is then enclosed in double quotes, without them: the
// text of a number. Names take FieldText, which also reads the doubled quotes inside.
inline std::string_view Trim(std::string_view text) {
  text = TrimBlanks(text);
  return IsQuoted(text) ? text.substr(1, text.size() - 2) : text;
}

// The text a field stands for: Trim's, where inside a field enclosed in double quotes each doubled
// quote stands for one (RFC 4180 §2.7: "a ""b""" is a "b"). Points into the field, or into
// scratch when a doubled quote was read.
inline std::string_view FieldText(std::string_view field, std::string& scratch) {
  field = TrimBlanks(field);
  if (!IsQuoted(field)) return field;
  field = field.substr(1, field.size() - 2);
  if (field.find("\"\"") == std::string_view::npos) return field;
  scratch.clear();
  for (std::size_t i = 0; i < field.size(); ++i) {
    scratch += field[i];
    if (field[i] == '"' && i + 1 < field.size() && field[i + 1] == '"') ++i;
  }
  return scratch;
}

// FieldText's text as a string of its own.
inline std::string FieldString(std::string_view field) {
  std::string scratch;
  return std::string(FieldText(field, scratch));
}

// A line of blanks (spaces, tabs, carriage returns) only: skipped, never a row.
inline bool IsBlankLine(std::string_view line) {
  for (char c : line) {
    if (!IsBlank(c) && c != '\r') return false;
  }
  return true;
}

// Removes a UTF-8 byte-order mark from the file's first line (line_number 1), before it is tested
// for blanks: a mark followed by a blank line is a blank line.
inline void DropByteOrderMark(std::string_view& line, std::size_t line_number) {
  if (line_number == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
}

// The words that mean "missing" besides the empty field.
inline bool IsMissingWord(std::string_view text) {
  return text == "NaN" || text == "nan" || text == "NAN" || text == "NA" || text == "?";
}

// Outcome of converting one field.
enum class Parsed { kNumber, kMissing, kBad };

inline Parsed ParseField(std::string_view field, double& value) {
  field = Trim(field);
  if (field.empty() || IsMissingWord(field)) {
    value = std::numeric_limits<double>::quiet_NaN();
    return Parsed::kMissing;
  }
  const char* first = field.data();
  const char* last = first + field.size();
  if (*first == '+') {  // from_chars does not take a leading '+'; "+-1" is no number either
    ++first;
    if (first != last && *first == '-') return Parsed::kBad;
  }
  const auto result = std::from_chars(first, last, value);
  if (result.ec != std::errc() || result.ptr != last || !std::isfinite(value)) {
    return Parsed::kBad;
  }
  return Parsed::kNumber;
}

// A field that from_chars did not take whole: a number, a missing value or, where the column has
// names (cell_names.h), one of them. False when it is none of these.
inline bool ReadSlowField(std::string_view field, const CellNames* names, double& value) {
  if (ParseField(field, value) != Parsed::kBad) return true;
  std::string scratch;
  return names != nullptr && names->Find(FieldText(field, scratch), value);
}

// The end of the field that begins at p, in a line that ends at end: the next comma, or end. A
// field whose first character is a double quote runs to the next double quote that is not doubled,
// and only then to a comma, so a quoted field may hold commas and quotes (RFC 4180 §2.5-2.7); a
// quote anywhere else is a character of the field. One rule for headers, data lines and drafts.
inline const char* FieldEnd(const char* p, const char* end) {
  const char* from = p;
  if (p != end && *p == '"') {
    from = end;  // a quote left open runs to the end of the line
    for (const char* q = p + 1; q < end;) {
      const char* close =
          static_cast<const char*>(std::memchr(q, '"', static_cast<std::size_t>(end - q)));
      if (close == nullptr) break;
      if (close + 1 != end && close[1] == '"') {
        q = close + 2;  // a doubled quote inside the field
        continue;
      }
      from = close + 1;
      break;
    }
  }
  if (from == end) return end;
  const void* comma = std::memchr(from, ',', static_cast<std::size_t>(end - from));
  return comma == nullptr ? end : static_cast<const char*>(comma);
}

// Splits a header or data line into fields at FieldEnd. Appends views into line to fields.
inline void SplitLine(std::string_view line, std::vector<std::string_view>& fields) {
  fields.clear();
  const char* p = line.data();
  const char* const end = p + line.size();
  while (true) {
    const char* field_end = FieldEnd(p, end);
    fields.emplace_back(p, static_cast<std::size_t>(field_end - p));
    if (field_end == end) return;
    p = field_end + 1;
  }
}

inline std::string Quote(std::string_view text) {
  constexpr std::size_t kMaxShown = 40;
  std::string shown(text.substr(0, kMaxShown));
  if (text.size() > kMaxShown) shown += "...";
  return "\"" + shown + "\"";
}

// Where a CSV column goes.
struct ColumnTarget {
  enum Kind { kFeature, kLabel, kSkip } kind = kSkip;
  int feature = -1;
  // The names its cells may hold instead of integers (cell_names.h), or null.
  std::shared_ptr<const CellNames> names;
};

// What is wrong with a data line, if anything.
struct LineError {
  enum Kind { kNone, kBadValue, kRagged } kind = kNone;
  std::size_t column = 0;  // kBadValue: the column and its text
  std::string_view field;
};

// One data line (no '\n'; a trailing '\r' removed): walks it once, converting each kept column's
// field with from_chars in place (only a field it does not consume entirely — spaces, quotes, NaN,
// junk — takes the slow ParseField, then the column's names) and calls store(column, value). Stops
// at the first bad field; kRagged when the line has another number of fields than targets.
template <class Store>
LineError ParseDataLine(std::string_view line, const std::vector<ColumnTarget>& targets,
                        Store&& store) {
  const char* p = line.data();
  const char* const end = p + line.size();
  const std::size_t n_columns = targets.size();
  for (std::size_t c = 0; c < n_columns; ++c) {
    if (c > 0) {
      if (p == end) return {LineError::kRagged, 0, {}};
      ++p;  // the comma
    }
    const char* const field_end = FieldEnd(p, end);
    if (targets[c].kind != ColumnTarget::kSkip) {
      double value = 0;
      const auto result = std::from_chars(p, field_end, value);
      if (result.ec != std::errc() || result.ptr != field_end || !std::isfinite(value)) {
        const std::string_view field(p, static_cast<std::size_t>(field_end - p));
        if (!ReadSlowField(field, targets[c].names.get(), value)) {
          return {LineError::kBadValue, c, field};
        }
      }
      store(c, value);
    }
    p = field_end;
  }
  if (p != end) return {LineError::kRagged, 0, {}};
  return {};
}

}  // namespace rdpkit::trees::internal::csv

#endif  // RDPKIT_TREES_SRC_CSV_LINE_H_
