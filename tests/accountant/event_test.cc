#include "rdpkit/accountant/event.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"

namespace rdpkit::accountant {
namespace {

using nlohmann::json;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(EventJson, RoundTripsEveryKind) {
  const char* texts[] = {
      R"({"gaussian":{"noise_multiplier":1.1}})",
      R"({"leaf_balanced_gaussian":{"noise_multiplier":2.0,"weights":[0.1,0.9]}})",
      R"({"leaf_balanced_gaussian":{"noise_multiplier":2.0,"sensitivity_ratios":[0.4,1.0],"weights":[0.1,0.9]}})",
      R"({"laplace":{"noise_multiplier":20.0}})",
      R"({"exponential":{"epsilon":0.05}})",
      R"({"pure_dp":{"epsilon":0.5}})",
      R"({"zcdp":{"rho":0.01}})",
      R"({"poisson_sampled":{"event":{"gaussian":{"noise_multiplier":1.1}},"sampling_probability":0.01}})",
      R"({"self_composed":{"count":1000,"event":{"laplace":{"noise_multiplier":3.0}}}})",
      R"({"composed":[{"gaussian":{"noise_multiplier":1.0}},{"exponential":{"epsilon":0.1}}]})",
  };
  for (const char* text : texts) {
    const json j = json::parse(text);
    EXPECT_EQ(Event::FromJson(j).ToJson(), j) << text;
  }
}

void ExpectRejected(const std::string& text, const std::string& field) {
  EXPECT_THAT([&] { (void)Event::FromJson(json::parse(text)); },
              ThrowsMessage<InvalidArgument>(HasSubstr(field)))
      << text;
  try {
    (void)Event::FromJson(json::parse(text));
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.field(), HasSubstr(field)) << text;
  }
}

TEST(EventJson, RejectsBadInputNamingTheField) {
  ExpectRejected(R"({"gaussian":{"noise_multiplier":-1}})", "gaussian.noise_multiplier");
  ExpectRejected(R"({"gaussian":{"noise_multiplier":0}})", "gaussian.noise_multiplier");
  ExpectRejected(R"({"gaussian":{"sigma":1}})", "gaussian.sigma");    // unknown key
  ExpectRejected(R"({"gaussian":{}})", "gaussian.noise_multiplier");  // missing
  ExpectRejected(R"({"gaussian":{"noise_multiplier":"1"}})", "gaussian.noise_multiplier");
  ExpectRejected(R"({"gaussian":{"noise_multiplier":"?"}})", "gaussian.noise_multiplier");
  ExpectRejected(R"({"gausian":{"noise_multiplier":1}})", "gausian");  // unknown event
  ExpectRejected(R"({"gaussian":{"noise_multiplier":1},"laplace":{"noise_multiplier":1}})",
                 "event");
  ExpectRejected(R"([1,2])", "event");
  ExpectRejected(R"({"self_composed":{"count":-5,"event":{"gaussian":{"noise_multiplier":1}}}})",
                 "self_composed.count");
  ExpectRejected(R"({"self_composed":{"count":2.5,"event":{"gaussian":{"noise_multiplier":1}}}})",
                 "self_composed.count");
  ExpectRejected(R"({"self_composed":{"count":3}})", "self_composed.event");
  ExpectRejected(
      R"({"poisson_sampled":{"sampling_probability":1.5,"event":{"gaussian":{"noise_multiplier":1}}}})",
      "poisson_sampled.sampling_probability");
  ExpectRejected(R"({"composed":[{"gaussian":{"noise_multiplier":1}},{"laplace":{}}]})",
                 "composed[1].laplace.noise_multiplier");
  ExpectRejected(R"({"leaf_balanced_gaussian":{"noise_multiplier":1,"weights":[0.5,0.6]}})",
                 "sum(weights)");
  ExpectRejected(R"({"leaf_balanced_gaussian":{"noise_multiplier":1,"weights":[0.5,0.5],
                    "sensitivity_ratios":[1.2,0.5]}})",
                 "sensitivity_ratios[0]");
  ExpectRejected(R"({"leaf_balanced_gaussian":{"noise_multiplier":1,"weights":[0.5,0.5],
                    "sensitivity_ratios":[1.0]}})",
                 "sensitivity_ratios");
  ExpectRejected(R"({"exponential":{"epsilon":0}})", "exponential.epsilon");
  ExpectRejected(R"({"zcdp":{"rho":-0.1}})", "zcdp.rho");
}

TEST(EventJson, NonFiniteNumbersAreRejected) {
  // JSON text has no literal for them, but a json value built in a program can hold one.
  for (double bad : {std::numeric_limits<double>::infinity(), std::nan("")}) {
    json j;
    j["gaussian"]["noise_multiplier"] = bad;
    EXPECT_THAT([&] { (void)Event::FromJson(j); },
                ThrowsMessage<InvalidArgument>(HasSubstr("gaussian.noise_multiplier")));
  }
}

TEST(EventConstructors, ValidateParameters) {
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_THAT([] { GaussianEvent(-1); },
              ThrowsMessage<InvalidArgument>(
                  AllOf(HasSubstr("noise_multiplier"), HasSubstr("-1"), HasSubstr("(0, inf)"))));
  EXPECT_THROW(GaussianEvent{nan}, InvalidArgument);
  EXPECT_THROW(GaussianEvent{inf}, InvalidArgument);
  EXPECT_THROW(LaplaceEvent{0}, InvalidArgument);
  EXPECT_THROW(PureDpEvent{nan}, InvalidArgument);
  EXPECT_THROW((PoissonSampledEvent{nan, GaussianEvent(1)}), InvalidArgument);
  EXPECT_THROW((LeafBalancedGaussianEvent{1.0, {}}), InvalidArgument);
  EXPECT_THROW((LeafBalancedGaussianEvent{1.0, {1.0, 0.0}}), InvalidArgument);
  EXPECT_NO_THROW(PureDpEvent{0});
  EXPECT_NO_THROW(ZcdpEvent{0});
}

TEST(InvalidArgument, CarriesFieldValueAndRange) {
  try {
    GaussianEvent(-1);
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.field(), "noise_multiplier");
    EXPECT_EQ(e.value(), "-1");
    EXPECT_EQ(e.accepted(), "(0, inf)");
    EXPECT_STREQ(e.what(), "noise_multiplier = -1 is outside (0, inf)");
  }
}

// The field of the InvalidArgument that f throws ("" when it throws none).
template <class F>
std::string FieldOfError(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.field();
  }
  return "";
}

TEST(StrictJson, RefusesDuplicateKeysNamingThePath) {
  EXPECT_EQ(FieldOfError([] {
              (void)ParseJson(R"({"gaussian":{"noise_multiplier":1,"noise_multiplier":0.01}})",
                              "event");
            }),
            "gaussian.noise_multiplier");
  EXPECT_EQ(FieldOfError([] {
              (void)ParseJson(
                  R"({"composed":[{"zcdp":{"rho":1}},{"zcdp":{"rho":1}, "zcdp":{"rho":2}}]})",
                  "event");
            }),
            "composed[1].zcdp");
  EXPECT_THAT([] { (void)ParseJson(R"({"a":1,"a":1})", "config"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("given twice")));
}

TEST(StrictJson, RefusesNumbersADoubleCannotHold) {
  EXPECT_EQ(FieldOfError([] {
              (void)ParseJson(R"({"features":[{"name":"a","min":0,"max":1e999}]})", "schema");
            }),
            "features[0].max");
  EXPECT_THAT([] { (void)ParseJson(R"({"x":-1e999})", "schema"); },
              ThrowsMessage<InvalidArgument>(AllOf(HasSubstr("x = -1e999"), HasSubstr("finite"))));
  // 1e-999 would silently read as 0.
  EXPECT_EQ(FieldOfError([] { (void)ParseJson(R"({"zcdp":{"rho":1e-999}})", "event"); }),
            "zcdp.rho");
  EXPECT_NO_THROW((void)ParseJson(R"({"a":0.0,"b":0e5,"c":5e-324,"d":1e308})", "x"));
}

TEST(StrictJson, RefusesMalformedText) {
  for (const std::string& text :
       {std::string(R"({"a":1} x)"), std::string(R"({"a":1} /* comment */)"),
        std::string("{\"a\":\"\xff\"}"), std::string(R"({"a":1)"), std::string(""),
        std::string(R"({"a":NaN})"), std::string(R"({"a":Infinity})"), std::string("[0x10]")}) {
    EXPECT_THROW((void)ParseJson(text, "event"), InvalidArgument) << text;
  }
  // Quoted input text is abbreviated and printable, whatever it holds.
  const std::string garbage = "{\"a\":tru" + std::string(1 << 20, 'e') + "}";
  try {
    (void)ParseJson(garbage, "event");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_LT(std::string(e.what()).size(), 1000u);
  }
}

TEST(StrictJson, BoundsDepthAndSizeBeforeAnyRecursion) {
  // 20,000 nested composed (300 KB) crashed the recursive event parser.
  std::string deep;
  for (int i = 0; i < 20000; ++i) deep += R"({"composed":[)";
  deep += R"({"gaussian":{"noise_multiplier":1}})";
  for (int i = 0; i < 20000; ++i) deep += "]}";
  EXPECT_THAT([&] { (void)ParseJson(deep, "event", "", kEventJsonLimits); },
              ThrowsMessage<InvalidArgument>(HasSubstr("nested deeper than 130")));
  EXPECT_THAT([&] { (void)ParseJson(deep, "event"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("nested deeper than 256")));
  JsonLimits small;
  small.max_bytes = 10;
  EXPECT_THAT([&] { (void)ParseJson(R"({"a": 12345678})", "event", "", small); },
              ThrowsMessage<InvalidArgument>(HasSubstr("is longer than the limit of 10 bytes")));
}

// n self_composed around a Gaussian, as JSON text.
std::string NestedSelfComposed(int n, const std::string& count) {
  std::string text;
  for (int i = 0; i < n; ++i) text += R"({"self_composed":{"count":)" + count + R"(,"event":)";
  text += R"({"gaussian":{"noise_multiplier":1}})";
  for (int i = 0; i < n; ++i) text += "}}";
  return text;
}

TEST(EventJson, NestingIsBoundedAt64Levels) {
  // 63 self_composed around a Gaussian: 64 event levels, accepted; one more is refused by name.
  EXPECT_NO_THROW(
      (void)Event::FromJson(ParseJson(NestedSelfComposed(63, "2"), "event", "", kEventJsonLimits)));
  const json too_deep = ParseJson(NestedSelfComposed(64, "2"), "event", "", kEventJsonLimits);
  EXPECT_THAT([&] { (void)Event::FromJson(too_deep); },
              ThrowsMessage<InvalidArgument>(HasSubstr("events nest deeper than 64 levels")));
  // A json value built in a program is not bounded by the reader: FromJson checks before it
  // recurses, so 100,000 levels are an error, not a stack overflow.
  json deep = {{"gaussian", {{"noise_multiplier", 1}}}};
  for (int i = 0; i < 100000; ++i) {
    json outer;
    outer["self_composed"]["count"] = 2;
    outer["self_composed"]["event"] = std::move(deep);
    deep = std::move(outer);
  }
  EXPECT_THAT([&] { (void)Event::FromJson(deep); },
              ThrowsMessage<InvalidArgument>(HasSubstr("events nest deeper than 64 levels")));
}

TEST(EventJson, NumberOfEventsIsBounded) {
  json list = json::array();
  for (int i = 0; i < 10000; ++i) list.push_back({{"zcdp", {{"rho", 0.001}}}});
  EXPECT_THAT(
      [&] {
        (void)Event::FromJson({{"composed", list}});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("more than 10000 events")));
  list.erase(list.begin());
  EXPECT_NO_THROW((void)Event::FromJson({{"composed", list}}));
}

TEST(EventJson, CountIsReadExactly) {
  const auto count_of = [](const std::string& count) {
    const Event e = Event::FromJson(ParseJson(NestedSelfComposed(1, count), "event"));
    return e.get_if<SelfComposedEvent>()->count();
  };
  EXPECT_EQ(count_of("9007199254740992"), std::uint64_t{1} << 53);
  EXPECT_EQ(count_of("1e3"), 1000u);
  EXPECT_EQ(count_of("12.0"), 12u);
  // 2^53 + 1 was silently read as 2^53; written with an exponent it cannot be told apart.
  for (const char* bad : {"9007199254740993", "9.007199254740993e15", "4503599627370496.5",
                          "18446744073709551616", "-1", "2.5", "1e300"}) {
    EXPECT_EQ(FieldOfError([&] { (void)count_of(bad); }), "self_composed.count") << bad;
  }
}

TEST(ErrorText, IsAbbreviated) {
  const std::string key(10'000'000, 'k');
  const json j = {{"gaussian", {{"noise_multiplier", 1}, {key, 1}}}};
  try {
    (void)Event::FromJson(j);
    FAIL();
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_LT(what.size(), 400u);
    EXPECT_THAT(what, HasSubstr("(10000000 bytes)"));
    EXPECT_THAT(what, HasSubstr("unknown key"));
  }
  const InvalidArgument e("field", std::string(1000, 'v'), "(0, 1)");
  EXPECT_THAT(e.value(), HasSubstr("…(1000 bytes)"));
  EXPECT_LT(e.value().size(), 100u);
  // A quoted value keeps its closing quote; the count is of the text inside the quotes.
  const InvalidArgument quoted("field", "\"" + std::string(100, 'A') + "\"", "{a, b}");
  EXPECT_EQ(quoted.value(), "\"" + std::string(78, 'A') + "…(100 bytes)\"");
  EXPECT_EQ(Abbreviate("short"), "short");
  // Cut at a character boundary: 'é' is two bytes.
  EXPECT_EQ(Abbreviate("aé", 2), "a…(3 bytes)");
}

// Messages are one printable line: a NUL (which ended the message on a terminal), a newline, an
// escape sequence or a byte that is not UTF-8 read from a user's file is written as \xNN; valid
// UTF-8 stays as it is.
TEST(ErrorText, IsPrintable) {
  EXPECT_EQ(Printable(std::string("a\0b\nc\x1b[31m\x7f", 11)), "a\\x00b\\x0Ac\\x1B[31m\\x7F");
  EXPECT_EQ(Printable("caf\xC3\xA9 \xE2\x80\xA6 \xF0\x9F\x98\x80"),
            "caf\xC3\xA9 \xE2\x80\xA6 \xF0\x9F\x98\x80");
  EXPECT_EQ(Printable("\xFF\xC3 \xED\xA0\x80"), "\\xFF\\xC3 \\xED\\xA0\\x80");
  // C1 controls (U+009B is a terminal's CSI) and the noncharacters U+FFFE/U+FFFF, byte by byte.
  EXPECT_EQ(Printable("a\xC2\x9B"
                      "2J \xC2\xA0 \xEF\xBF\xBF"),
            "a\\xC2\\x9B2J \xC2\xA0 \\xEF\\xBF\\xBF");
  const json j = {{std::string("gaussian\0x", 10), {{"noise_multiplier", 1}}}};
  try {
    (void)Event::FromJson(j);
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("gaussian\\x00x"));
  }
}

// UTF-8 as RFC 3629 defines it: what JSON text (schema and model files) may hold.
TEST(ErrorText, IsUtf8) {
  EXPECT_TRUE(IsUtf8(""));
  EXPECT_TRUE(IsUtf8("plain, ASCII\t"));
  EXPECT_TRUE(IsUtf8("caf\xC3\xA9 \xE2\x80\xA6 \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF"));
  EXPECT_FALSE(IsUtf8("\xFF"));              // never a UTF-8 byte
  EXPECT_FALSE(IsUtf8("a\xC3"));             // cut short
  EXPECT_FALSE(IsUtf8("\xC0\x80"));          // overlong NUL
  EXPECT_FALSE(IsUtf8("\xE0\x80\xAF"));      // overlong '/'
  EXPECT_FALSE(IsUtf8("\xED\xA0\x80"));      // a UTF-16 surrogate
  EXPECT_FALSE(IsUtf8("\xF4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(IsUtf8("\xE2\x80\x41"));      // a continuation byte missing
}

TEST(ErrorText, FirstControlCharacter) {
  EXPECT_EQ(FirstControlCharacter("caf\xC3\xA9 \xC2\xA0 \xE2\x80\xA6"), "");
  EXPECT_EQ(FirstControlCharacter("a\tb"), "\\x09");
  EXPECT_EQ(FirstControlCharacter("x\x7F"), "\\x7F");
  EXPECT_EQ(FirstControlCharacter("x\xC2\x9B"
                                  "2J\x1B"),
            "\\xC2\\x9B");
  EXPECT_EQ(FirstControlCharacter("\xEF\xBF\xBE"), "\\xEF\\xBF\\xBE");
  EXPECT_EQ(FirstControlCharacter(std::string("n\0", 2)), "\\x00");
}

TEST(ErrorText, PathsAreWrittenOneWay) {
  EXPECT_EQ(JsonPathOf(json::json_pointer("/composed/0/gaussian/noise_multiplier")),
            "composed[0].gaussian.noise_multiplier");
  EXPECT_EQ(JsonPathOf(json::json_pointer("")), "");
  EXPECT_EQ(JsonPathKey("features[2]", "a.b"), R"(features[2]["a.b"])");
  EXPECT_EQ(JsonPathKey("", "x"), "x");
  EXPECT_EQ(JsonPathIndex("composed", 3), "composed[3]");
  // Constructor fields that are paths themselves are appended as they are.
  ExpectRejected(R"({"composed":[{"zcdp":{"rho":1}},{"leaf_balanced_gaussian":
                    {"noise_multiplier":1,"weights":[0.5,-0.5]}}]})",
                 "composed[1].leaf_balanced_gaussian.weights[1]");
}

TEST(InternalCheck, ThrowsInternalError) {
  EXPECT_THROW(RDPKIT_CHECK(1 + 1 == 3), InternalError);
  EXPECT_NO_THROW(RDPKIT_CHECK(1 + 1 == 2));
}

}  // namespace
}  // namespace rdpkit::accountant
