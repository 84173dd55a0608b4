#include "rdpkit/accountant/json_input.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "rdpkit/accountant/errors.h"

namespace rdpkit {
namespace {

using nlohmann::json;

bool IsPlainName(std::string_view key) {
  if (key.empty()) return false;
  for (const char c : key) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

bool IsIndex(std::string_view token) {
  if (token.empty() || token.size() > 18) return false;
  for (const char c : token) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// True when the number text has a non-zero digit before its exponent: such a number read as 0
// has underflowed (1e-999), which would silently turn a tiny value into zero.
bool HasNonZeroDigit(const std::string& text) {
  for (const char c : text) {
    if (c == 'e' || c == 'E') return false;
    if (c >= '1' && c <= '9') return true;
  }
  return false;
}

// Text quoted from the input in JSON string escaping (without the outer quotes): abbreviated,
// control characters escaped and bytes that are not UTF-8 replaced. (rdpkit::Printable, which
// every InvalidArgument applies, then finds nothing left to escape.)
std::string JsonEscapedExcerpt(const std::string& text) {
  const std::string quoted =
      json(Abbreviate(text, 300)).dump(-1, ' ', false, json::error_handler_t::replace);
  return quoted.substr(1, quoted.size() - 2);
}

// Builds the document like nlohmann's own DOM parser, but refuses what ParseJson's contract
// refuses at the token where it happens, naming the JSON path of that token.
class StrictSax {
 public:
  StrictSax(json& root, std::string_view field, std::string_view origin, const JsonLimits& limits,
            const JsonArrayTaker* taker = nullptr)
      : root_(root), field_(field), origin_(origin), limits_(limits), taker_(taker) {}

  bool null() { return Add(nullptr); }
  bool boolean(bool value) { return Add(value); }
  bool number_integer(json::number_integer_t value) { return Add(value); }
  bool number_unsigned(json::number_unsigned_t value) { return Add(value); }
  bool number_float(json::number_float_t value, const json::string_t& text) {
    if (value == 0 && HasNonZeroDigit(text)) {
      throw InvalidArgument(Where(), text,  // abbreviated by InvalidArgument, its length kept
                            "the numbers a double holds (0 or magnitude >= 4.9e-324); this one "
                            "underflows to 0");
    }
    return Add(value);
  }
  bool string(json::string_t& value) { return Add(std::move(value)); }
  bool binary(json::binary_t& /*value*/) {
    throw InvalidArgument(Where(), "binary values are not JSON text");
  }

  bool start_object(std::size_t /*elements*/) {
    Open(json::value_t::object);
    return true;
  }
  bool key(json::string_t& key) {
    auto& object = frames_.back().container->get_ref<json::object_t&>();
    const auto [it, inserted] = object.emplace(std::move(key), nullptr);
    if (!inserted) {
      throw InvalidArgument(
          JsonPathKey(PathOfFrames(frames_.size() - 1), it->first),
          "key given twice in one object (each key may appear once; rdpkit never picks one)");
    }
    frames_.back().key = &it->first;
    member_ = &it->second;
    return true;
  }
  bool end_object() {
    frames_.pop_back();
    ValueDone();
    return true;
  }
  bool start_array(std::size_t /*elements*/) {
    Open(json::value_t::array);
    return true;
  }
  bool end_array() {
    frames_.pop_back();
    ValueDone();
    return true;
  }

  bool parse_error(std::size_t /*position*/, const std::string& last_token,
                   const nlohmann::detail::exception& error) {
    if (error.id == 406) {                        // number overflow: 1e999
      throw InvalidArgument(Where(), last_token,  // abbreviated by InvalidArgument
                            "the finite numbers (magnitude below 1.8e308)");
    }
    std::string message = error.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: …" -> "line 1, …"
    const std::string marker = "parse error at ";
    const auto at = message.find(marker);
    if (at != std::string::npos) message.erase(0, at + marker.size());
    const std::string where = origin_.empty() ? std::string() : " in " + origin_;
    throw InvalidArgument(
        Where(), "malformed JSON" + where + ": not valid JSON at " + JsonEscapedExcerpt(message));
  }

 private:
  struct Frame {
    json* container;
    const std::string* key;  // last key read (objects)
  };

  // Path of the value being read: frames [0, count) each add the member key or element index.
  std::string PathOfFrames(std::size_t count) const {
    std::string path;
    for (std::size_t i = 0; i < count; ++i) {
      const Frame& frame = frames_[i];
      if (frame.container->is_object()) {
        if (frame.key != nullptr) path = JsonPathKey(path, *frame.key);
      } else {
        // The element of a deeper frame is already in the array; the innermost one is not yet.
        const std::size_t size = frame.container->size();
        path = JsonPathIndex(path, i + 1 < frames_.size() ? size - 1 : size);
      }
    }
    return path;
  }

  std::string Where() const {
    std::string path = PathOfFrames(frames_.size());
    return path.empty() ? field_ : path;
  }

  template <class Value>
  json* Place(Value&& value) {
    if (frames_.empty()) {
      root_ = json(std::forward<Value>(value));
      return &root_;
    }
    json& parent = *frames_.back().container;
    if (parent.is_array()) {
      auto& array = parent.get_ref<json::array_t&>();
      array.emplace_back(std::forward<Value>(value));
      return &array.back();
    }
    *member_ = json(std::forward<Value>(value));
    return member_;
  }

  template <class Value>
  bool Add(Value&& value) {
    Place(std::forward<Value>(value));
    ValueDone();
    return true;
  }

  // A value is complete: an element of the taker's array goes to the taker.
  void ValueDone() {
    if (taker_ != nullptr && frames_.size() == taker_->path.size() + 1 && TakerArrayIsOpen()) {
      taken_indices_.clear();  // reused: one taken element per tree node of a model
      for (std::size_t i = 0; i <= taker_->path.size(); ++i) {
        if (frames_[i].container->is_array()) {
          taken_indices_.push_back(frames_[i].container->size() - 1);
        }
      }
      json& element = frames_.back().container->get_ref<json::array_t&>().back();
      taker_->take(taken_indices_, std::move(element));
      element = nullptr;
    }
    MemberDone();
  }

  // Whether the innermost open container is the taker's array: each frame on the way is the
  // object member or array the taker's path names.
  bool TakerArrayIsOpen() const {
    if (!frames_.back().container->is_array()) return false;
    for (std::size_t i = 0; i < taker_->path.size(); ++i) {
      const Frame& frame = frames_[i];
      if (taker_->path[i] == "*") {
        if (!frame.container->is_array()) return false;
      } else if (!frame.container->is_object() || frame.key == nullptr ||
                 *frame.key != taker_->path[i]) {
        return false;
      }
    }
    return true;
  }

  // After a member's value, errors until the next key belong to the object, not to that member.
  void MemberDone() {
    if (!frames_.empty() && frames_.back().container->is_object()) frames_.back().key = nullptr;
  }

  void Open(json::value_t type) {
    if (frames_.size() >= limits_.max_depth) {
      throw InvalidArgument(Where(), "arrays and objects nested deeper than " +
                                         std::to_string(limits_.max_depth) +
                                         " levels (the limit for this input)");
    }
    json* container = Place(type);
    frames_.push_back(Frame{container, nullptr});
  }

  json& root_;
  std::string field_;
  std::string origin_;
  const JsonLimits& limits_;
  const JsonArrayTaker* taker_;
  std::vector<std::size_t> taken_indices_;  // the indices handed to taker_->take
  std::vector<Frame> frames_;
  json* member_ = nullptr;  // the object member whose value comes next
};

}  // namespace

InvalidArgument InputTooLong(std::string_view field, std::string_view origin,
                             std::size_t max_bytes) {
  return InvalidArgument(std::string(field),
                         (origin.empty() ? std::string("the input") : std::string(origin)) +
                             " is longer than the limit of " + std::to_string(max_bytes) +
                             " bytes for this input");
}

namespace {

json Parse(std::string_view text, std::string_view field, std::string_view origin,
           const JsonLimits& limits, const JsonArrayTaker* taker) {
  if (text.size() > limits.max_bytes) {
    // The text may be the first max_bytes + 1 bytes of a longer input (a reader stops there).
    throw InputTooLong(field, origin, limits.max_bytes);
  }
  // nlohmann's lexer takes a NUL byte for the end of the input and would accept whatever follows
  // it; raw NUL is no JSON anywhere (in a string it must be written \u0000).
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const std::string_view before = text.substr(0, nul);
    const std::size_t line =
        1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    const std::size_t line_start = before.rfind('\n');
    const std::size_t column =
        nul - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
    throw InvalidArgument(std::string(field),
                          "malformed JSON" +
                              (origin.empty() ? std::string() : " in " + std::string(origin)) +
                              ": not valid JSON at line " + std::to_string(line) + ", column " +
                              std::to_string(column) + ": a NUL byte, which JSON text cannot hold");
  }
  json root;
  StrictSax sax(root, field, origin, limits, taker);
  // Strict: one value, nothing but whitespace after it. Comments are not JSON.
  (void)json::sax_parse(text.begin(), text.end(), &sax, json::input_format_t::json,
                        /*strict=*/true, /*ignore_comments=*/false);
  return root;
}

}  // namespace

json ParseJson(std::string_view text, std::string_view field, std::string_view origin,
               const JsonLimits& limits) {
  return Parse(text, field, origin, limits, nullptr);
}

json ParseJsonTaking(std::string_view text, std::string_view field, std::string_view origin,
                     const JsonLimits& limits, const JsonArrayTaker& taker) {
  return Parse(text, field, origin, limits, &taker);
}

std::string JsonPathKey(std::string_view path, std::string_view key) {
  std::string out(path);
  if (IsPlainName(key) && key.size() <= 80) {
    if (!out.empty()) out += '.';
    out += key;
  } else {
    // Quoted as a JSON string, so dots, brackets and control characters cannot mislead.
    out += '[';
    std::string abbreviated = Abbreviate(key);
    out += json(abbreviated).dump(-1, ' ', false, json::error_handler_t::replace);
    out += ']';
  }
  return out;
}

std::string JsonPathIndex(std::string_view path, std::size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

std::string JsonPathOf(const json::json_pointer& pointer) {
  std::string path;
  std::string rest = pointer.to_string();
  // Tokens are separated by '/'; "~1" is an escaped '/', "~0" an escaped '~'.
  std::size_t at = 0;
  while (at < rest.size()) {
    const std::size_t next = rest.find('/', at + 1);
    std::string token = rest.substr(at + 1, next == std::string::npos ? next : next - at - 1);
    std::string unescaped;
    for (std::size_t i = 0; i < token.size(); ++i) {
      if (token[i] == '~' && i + 1 < token.size()) {
        unescaped += token[i + 1] == '1' ? '/' : '~';
        ++i;
      } else {
        unescaped += token[i];
      }
    }
    path = IsIndex(unescaped) ? JsonPathIndex(path, std::stoull(unescaped))
                              : JsonPathKey(path, unescaped);
    if (next == std::string::npos) break;
    at = next;
  }
  return path;
}

std::string Abbreviate(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = max_bytes;
  // Back up to the start of a UTF-8 character (continuation bytes are 10xxxxxx).
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "\u2026(" + std::to_string(text.size()) + " bytes)";
}

}  // namespace rdpkit
