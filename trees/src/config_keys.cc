// Enum spellings and the docs key table, from the declaration in config_keys.h.
#include "config_keys.h"

#include <cstdio>
#include <string>

#include "rdpkit/accountant/errors.h"

namespace rdpkit::trees {
namespace internal {
namespace {

std::string Bound(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", x);
  return text;
}

template <class Enum>
std::string Spelling(Enum value) {
  const auto name = EnumToString(value);
  RDPKIT_CHECK(name.has_value());  // a value outside the enumeration
  return std::string(*name);
}

// Default text of a member (the default-constructed TrainerConfig's value).
std::string DefaultText(int value) { return std::to_string(value); }
std::string DefaultText(std::uint64_t value) { return std::to_string(value); }
std::string DefaultText(double value) {
  return std::isinf(value) ? "`\"inf\"`" : FormatNumber(value);
}
std::string DefaultText(bool value) { return value ? "true" : "false"; }
template <class Enum, class = std::enable_if_t<std::is_enum_v<Enum>>>
std::string DefaultText(Enum value) {
  // Appended piece by piece: GCC 12's -Wrestrict misreads "`" + s + "`" here (a false positive).
  std::string out = "`";
  out += Spelling(value);
  out += '`';
  return out;
}
template <class T>
std::string DefaultText(const std::optional<T>& value) {
  return value ? DefaultText(*value) : "absent";
}
std::string DefaultText(const std::vector<double>& value) {
  std::string out;
  for (double x : value) out += (out.empty() ? "" : ", ") + FormatNumber(x);
  return value.empty() ? "absent" : "[" + out + "]";
}

// Accepted values when the declaration gives no text: the range, or the enum's spellings.
template <class T>
std::string AcceptedText(const T&, const KeySpec& spec) {
  if constexpr (std::is_enum_v<T>) {
    std::string out;
    for (const auto& value : EnumSpellings<T>::kValues) {
      out += (out.empty() ? "`" : ", `") + std::string(value.second) + "`";
    }
    return out;
  } else if constexpr (std::is_same_v<T, bool>) {
    return "true, false";
  } else {
    return spec.range ? spec.range->Text() : "";
  }
}

class TableWriter {
 public:
  template <class T>
  void Key(std::string_view path, const T& member, const KeySpec& spec) {
    std::string default_text = DefaultText(member);
    if (spec.required) default_text = "required";
    if (spec.absent != nullptr && default_text == "absent") default_text = spec.absent;
    if (spec.default_text != nullptr) default_text = spec.default_text;
    Row(path, default_text, spec.accepted != nullptr ? spec.accepted : AcceptedText(member, spec),
        spec);
  }
  template <class G, class Body>
  void Group(std::string_view name, std::optional<G>&, const KeySpec& spec, Body body) {
    Row(name, spec.absent != nullptr ? spec.absent : "absent", "an object of the keys below", spec);
    G group{};
    body(group);
  }
  template <class F>
  void Rule(F&&) {}
  std::string Take() { return std::move(out_); }

 private:
  void Row(std::string_view path, const std::string& default_text, const std::string& accepted,
           const KeySpec& spec) {
    out_ += "| `" + std::string(path) + "` | " + default_text + " | " + accepted + " | " +
            spec.what + " | " + spec.paper + " |\n";
  }
  std::string out_ =
      "| key | default | accepted | meaning | paper |\n| --- | --- | --- | --- | --- |\n";
};

}  // namespace

std::string Range::Text() const {
  std::string text(lo_open ? "(" : "[");
  text += Bound(lo);
  text += ", ";
  text += Bound(hi);
  text += hi_open ? ")" : "]";
  return text;
}

void RequireMeaningfulScopes(const TrainerConfig& c) {
  // Only these splits are drawn from the candidates at random (split_random.cc); partially
  // random with k ≥ 2 picks the best noisy gain, histogram and exponential score every candidate.
  const bool random_splits =
      c.split_method == SplitMethod::kTotallyRandom ||
      (c.split_method == SplitMethod::kPartiallyRandom &&
       c.feature_interaction.method != InteractionMethod::kAll && c.feature_interaction.k == 1);
  // A tree's depth sets the number of a greedy tree's split queries (the query plan's schedule),
  // so only trees of random splits may take their depth from their features.
  if (c.categorical_depth > 0 && !random_splits) {
    throw InvalidArgument(
        "categorical_depth",
        std::to_string(c.categorical_depth) + " (split_method = \"" + ToString(c.split_method) +
            "\", feature_interaction.k = " + std::to_string(c.feature_interaction.k) + ")",
        "0 unless split_method is totally_random, or partially_random with "
        "feature_interaction.k = 1");
  }
  if (c.split_scope == SplitScope::kAll) {
    if (!random_splits) {
      throw InvalidArgument(
          "split_scope",
          "\"all\" (split_method = \"" + ToString(c.split_method) +
              "\", feature_interaction.k = " + std::to_string(c.feature_interaction.k) + ")",
          "{\"node\"} unless split_method is totally_random, or "
          "partially_random with feature_interaction.k = 1");
    }
  }
  if (c.negative_hessian_leaf == NegativeHessianLeaf::kZero &&
      c.leaf_update == LeafUpdate::kAveraging) {
    throw InvalidArgument("negative_hessian_leaf", "\"zero\" (leaf_update = \"averaging\")",
                          "{\"floor\"} with averaging leaves (they use no Hessian)");
  }
}

}  // namespace internal

std::string ToString(Objective value) { return internal::Spelling(value); }
std::string ToString(SplitMethod value) { return internal::Spelling(value); }
std::string ToString(LeafUpdate value) { return internal::Spelling(value); }
std::string ToString(CandidateMethod value) { return internal::Spelling(value); }
std::string ToString(InteractionMethod value) { return internal::Spelling(value); }
std::string ToString(SplitScope value) { return internal::Spelling(value); }
std::string ToString(NegativeHessianLeaf value) { return internal::Spelling(value); }
std::string ToString(Defaults value) { return internal::Spelling(value); }
std::string ToString(DistributedNoise value) { return internal::Spelling(value); }

Task TaskOfObjective(Objective objective) {
  switch (objective) {
    case Objective::kBinaryLogistic:
      return Task::kBinary;
    case Objective::kRegSquaredError:
      return Task::kRegression;
    case Objective::kMultiSoftprob:
    case Objective::kMultiOvr:
      return Task::kMulticlass;
  }
  RDPKIT_CHECK(false);  // a value outside the enumeration
  return Task::kBinary;
}

std::string ConfigKeyTable() {
  internal::TableWriter writer;
  TrainerConfig defaults;
  internal::DeclareTrainerKeys(writer, defaults);
  return writer.Take();
}

}  // namespace rdpkit::trees
