// Names in data cells (DESIGN.md §4): a categorical feature's cell may be the name of its code as
// the schema's "codes" lists it, and a multiclass label's cell the name of its class ("classes"),
// instead of the integer. A cell that reads as a number is always the integer itself, so names are
// taken only where no name reads as a number or as missing (a name "1" of code 0 could not be told
// from code 1): CellNames::Of says whether a list qualifies, and if not, why.
#ifndef RDPKIT_TREES_SRC_CELL_NAMES_H_
#define RDPKIT_TREES_SRC_CELL_NAMES_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rdpkit::trees::internal {

class CellNames {
 public:
  // The lookup of names[i] → i, or null when some name cannot stand in a cell (*why then says
  // which and why, e.g. "code 0's name \"1\" reads as a number").
  static std::shared_ptr<const CellNames> Of(const std::vector<std::string>& names,
                                             const std::string& what, std::string* why);
  // The index of the name `text` (a field already trimmed of blanks and quotes), if it is one.
  bool Find(std::string_view text, double& index) const;

 private:
  std::vector<std::pair<std::string, double>> sorted_;
};

// Why `field` (a cell that is not a number) was refused, for a column whose integers are
// `integers` ("the codes 0..3, or empty or NaN for missing") and whose names are `names` (the
// schema's list under `key`, "codes" or "classes", possibly empty; `what` names one entry, "code"
// or "class"): "\"purple\" is neither ... nor ...", or why the list cannot stand in cells.
std::string NotACellText(std::string_view field, const std::string& integers,
                         const std::vector<std::string>& names, const std::string& key,
                         const std::string& what);

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_CELL_NAMES_H_
