#include "cell_names.h"

#include <algorithm>

#include "csv_line.h"

namespace rdpkit::trees::internal {
namespace {

// A few names of a list, for a message.
std::string SomeNames(const std::vector<std::string>& names) {
  constexpr std::size_t kShown = 5;
  std::string out;
  for (std::size_t i = 0; i < std::min(names.size(), kShown); ++i) {
    out += (i == 0 ? "" : ", ") + csv::Quote(names[i]);
  }
  if (names.size() > kShown) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

}  // namespace

std::shared_ptr<const CellNames> CellNames::Of(const std::vector<std::string>& names,
                                               const std::string& what, std::string* why) {
  auto table = std::make_shared<CellNames>();
  table->sorted_.reserve(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    const std::string whose = what + " " + std::to_string(i) + "'s name " + csv::Quote(name);
    std::string problem;
    double ignored = 0;
    // A schema's names hold no line break (NameProblem refuses control characters), and a quote
    // stands in a quoted cell doubled (RFC 4180), so blanks at the ends are all a cell loses.
    if (csv::TrimBlanks(name) != name) {
      problem = whose + " begins or ends with a blank, which a cell loses";
    } else if (const csv::Parsed parsed = csv::ParseField(name, ignored);
               parsed != csv::Parsed::kBad) {
      problem = whose + (parsed == csv::Parsed::kMissing ? " reads as a missing value"
                                                         : " reads as a number");
    }
    if (!problem.empty()) {
      if (why != nullptr) *why = problem;
      return nullptr;
    }
    table->sorted_.emplace_back(name, static_cast<double>(i));
  }
  std::sort(table->sorted_.begin(), table->sorted_.end());
  return table;
}

bool CellNames::Find(std::string_view text, double& index) const {
  const auto it =
      std::lower_bound(sorted_.begin(), sorted_.end(), text,
                       [](const std::pair<std::string, double>& entry, std::string_view key) {
                         return std::string_view(entry.first) < key;
                       });
  if (it == sorted_.end() || it->first != text) return false;
  index = it->second;
  return true;
}

std::string NotACellText(std::string_view field, const std::string& integers,
                         const std::vector<std::string>& names, const std::string& key,
                         const std::string& what) {
  std::string why_not_names;
  if (!names.empty()) CellNames::Of(names, what, &why_not_names);
  const std::string shown = csv::Quote(csv::FieldString(field));
  if (names.empty()) {
    return shown + " is not a number (" + integers + "; list their names in the schema's \"" + key +
           "\" to write the names instead)";
  }
  if (!why_not_names.empty()) {
    return shown + " is not a number (" + integers + "; the schema's \"" + key +
           "\" cannot stand for them in the data: " + why_not_names + ")";
  }
  return shown + " is neither a number (" + integers + ") nor one of the names of the schema's \"" +
         key + "\" (" + SomeNames(names) + ")";
}

}  // namespace rdpkit::trees::internal
