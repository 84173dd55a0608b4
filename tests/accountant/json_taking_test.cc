// ParseJsonTaking: the elements of one array path go to the taker as they are parsed, with their
// indices, and stay in the document as null; the rest of the document, ParseJson's strictness and
// its messages are unchanged.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"

namespace rdpkit {
namespace {

using nlohmann::json;

struct Taken {
  std::vector<std::vector<std::size_t>> indices;
  std::vector<json> elements;
};

json ParseTaking(const std::string& text, Taken& taken) {
  const JsonArrayTaker taker{{"trees", "*", "nodes"},
                             [&](const std::vector<std::size_t>& indices, json&& element) {
                               taken.indices.push_back(indices);
                               taken.elements.push_back(std::move(element));
                             }};
  return ParseJsonTaking(text, "doc", "test", {}, taker);
}

TEST(ParseJsonTaking, HandsOverTheElementsOfThePathWithTheirIndices) {
  const std::string text =
      R"({"a": {"trees": [{"nodes": [9]}]}, "trees": [{"nodes": [{"x": 1}, 2, [3]], "k": [4]},)"
      R"( {"nodes": []}, {"other": [5]}, {"nodes": [{"y": {"nodes": [6]}}]}], "nodes": [7]})";
  Taken taken;
  const json document = ParseTaking(text, taken);
  using Indices = std::vector<std::size_t>;
  EXPECT_EQ(taken.indices, (std::vector<Indices>{{0, 0}, {0, 1}, {0, 2}, {3, 0}}));
  EXPECT_EQ(taken.elements, (std::vector<json>{{{"x", 1}}, 2, {3}, {{"y", {{"nodes", {6}}}}}}));
  // The taken elements are nulls in the document; everything else is as ParseJson reads it.
  json expected = ParseJson(text, "doc", "test");
  for (const auto& at : taken.indices) expected["trees"][at[0]]["nodes"][at[1]] = nullptr;
  EXPECT_EQ(document, expected);
}

TEST(ParseJsonTaking, KeepsParseJsonsRefusalsAndPaths) {
  for (const std::string text :
       {R"({"trees": [{"nodes": [{"a": 1, "a": 2}]}]})", R"({"trees": [{"nodes": [1e999]}]})",
        R"({"trees": [{"nodes": [{"a": 1}, ]}]})", R"({"trees": [{"nodes": [1]}]} x)"}) {
    SCOPED_TRACE(text);
    std::string expected;
    try {
      (void)ParseJson(text, "doc", "test");
    } catch (const InvalidArgument& error) {
      expected = error.what();
    }
    ASSERT_FALSE(expected.empty());
    Taken taken;
    EXPECT_THAT([&] { (void)ParseTaking(text, taken); },
                ::testing::ThrowsMessage<InvalidArgument>(::testing::StrEq(expected)));
  }
}

// A NUL byte ends nlohmann's input; raw NUL is no JSON, so the text is refused where it stands
// (after a whole document, inside a string) instead of being read up to it.
TEST(ParseJson, RefusesANulByteWhereverItStands) {
  using ::testing::HasSubstr;
  const std::string after = std::string(R"({"a": 1})") + '\0' + "garbage";
  EXPECT_THAT([&] { (void)ParseJson(after, "doc", "test"); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr(
                  "doc: malformed JSON in test: not valid JSON at line 1, column 9: a NUL byte")));
  const std::string in_string = std::string("{\n \"a\": \"x") + '\0' + "\"}";
  EXPECT_THAT([&] { (void)ParseJson(in_string, "doc", "test"); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("line 2, column 9: a NUL byte")));
  Taken taken;
  EXPECT_THAT([&] { (void)ParseTaking(after, taken); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("a NUL byte")));
  EXPECT_EQ(ParseJson(R"({"a": "\u0000"})", "doc", "test")["a"], std::string(1, '\0'));
}

}  // namespace
}  // namespace rdpkit
