// The one strict reader of JSON input (event files, trainer configs, schemas, model files) and the
// one way error messages write JSON paths and echo user text (docs/cli.md, "Inputs that are
// refused").
//
// ParseJson refuses, with rdpkit::InvalidArgument naming the JSON path of the offending value:
// malformed text, trailing garbage, invalid UTF-8, a key given twice in one object, arrays and
// objects nested deeper than a limit, input longer than a limit, and numbers that do not fit a
// double (1e999 overflows; 1e-999 would silently read as 0). It checks all of this while it reads
// (SAX), so no caller's recursive code ever sees a deeper or larger document than the limits allow.
//
// Paths are written one way everywhere: composed[0].gaussian.noise_multiplier. A key that is not
// a plain name ([A-Za-z0-9_]) is quoted: features[2]["a.b"].
#ifndef RDPKIT_ACCOUNTANT_JSON_INPUT_H_
#define RDPKIT_ACCOUNTANT_JSON_INPUT_H_

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "rdpkit/accountant/errors.h"

namespace rdpkit {

struct JsonLimits {
  // Arrays and objects nested deeper than this are refused ({} alone is depth 1).
  std::size_t max_depth = 256;
  // Longer text is refused before it is parsed.
  std::size_t max_bytes = std::size_t{1} << 30;
};

// Limits of an event document: 64 event levels are 2 JSON levels each, plus the outer object.
// The event parser (Event::FromJson) counts event levels and events itself (event.h).
inline constexpr JsonLimits kEventJsonLimits{/*max_depth=*/2 * 64 + 2,
                                             /*max_bytes=*/std::size_t{64} << 20};

// Parses text as exactly one JSON value, strictly (see above). `field` names the document in
// errors about it as a whole ("event", "schema", "model"); `origin` says where the text came from
// ("file \"x.json\"", "standard input"), may be empty.
[[nodiscard]] nlohmann::json ParseJson(std::string_view text, std::string_view field,
                                       std::string_view origin = {}, const JsonLimits& limits = {});

// Takes the elements of one array of a document as they are parsed, so that a large array (a
// model's tree nodes) is never held as JSON. path: the keys from the root to the array, "*" for
// an index of an array on the way ({"trees", "*", "nodes"}: the nodes array of every tree).
// take(indices, element) receives each element as soon as it is complete: indices holds the index
// of each "*" and then the element's own. The element is then left as null in the document.
struct JsonArrayTaker {
  std::vector<std::string> path;
  std::function<void(const std::vector<std::size_t>& indices, nlohmann::json&& element)> take;
};

// ParseJson, with the elements of taker.path handed to taker.take instead of kept. Strictness,
// limits and messages are ParseJson's.
[[nodiscard]] nlohmann::json ParseJsonTaking(std::string_view text, std::string_view field,
                                             std::string_view origin, const JsonLimits& limits,
                                             const JsonArrayTaker& taker);

// ParseJson's refusal of an input longer than max_bytes, for a reader that knows the size of a
// file before reading it.
[[nodiscard]] InvalidArgument InputTooLong(std::string_view field, std::string_view origin,
                                           std::size_t max_bytes);

// Path of a member: JsonPathKey("composed[0]", "gaussian") = "composed[0].gaussian";
// JsonPathKey("", "gaussian") = "gaussian". Keys that are not plain names are quoted and
// abbreviated (a 10 MB key is written as its first 80 bytes).
[[nodiscard]] std::string JsonPathKey(std::string_view path, std::string_view key);
// Path of an array element: JsonPathIndex("composed", 3) = "composed[3]".
[[nodiscard]] std::string JsonPathIndex(std::string_view path, std::size_t index);
// The same path style for a JSON pointer: /composed/0/gaussian -> composed[0].gaussian.
// Every token made only of digits is read as an array index.
[[nodiscard]] std::string JsonPathOf(const nlohmann::json::json_pointer& pointer);

// User text for an error message: unchanged when at most max_bytes long, else its first
// max_bytes bytes (cut at a UTF-8 character boundary) followed by "…(N bytes)".
[[nodiscard]] std::string Abbreviate(std::string_view text, std::size_t max_bytes = 80);

}  // namespace rdpkit

#endif  // RDPKIT_ACCOUNTANT_JSON_INPUT_H_
