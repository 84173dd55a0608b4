// LoadCsvParts (data.h): the CSV reader of data.cc over blocks of whole lines, one part per block,
// for prediction on files too large to hold.
#include <string>
#include <utility>
#include <vector>

#include "column_checks.h"
#include "csv_table.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/data.h"
#include "text_file.h"

namespace rdpkit::trees {
namespace internal {

void ReadCsvParts(BlockSource& blocks, const std::string& source, const Schema& schema,
                  const LoadOptions& options, const std::function<void(Dataset&& part)>& on_part) {
  if (schema.features.empty()) throw InvalidArgument("schema", "has no features");
  HeaderColumns columns;
  auto targets_of_header = [&](const std::vector<std::string>& header) {
    columns = MatchHeader(header, schema, options, source);
    return columns.targets;
  };
  std::vector<csv::ColumnTarget> targets;
  auto why_bad = [&](std::size_t c, std::string_view field) {
    return BadFieldText(schema, targets[c], field);
  };
  TableCursor cursor;
  RawTable table;  // the header stays; each block's rows replace the last block's
  std::string_view block;
  while (blocks.Next(block)) {
    table.columns.assign(table.header.size(), {});
    table.lines.clear();
    table.first_row = cursor.rows;
    ReadTableBlock(block, source, targets_of_header, targets, why_bad, cursor, table);
    if (table.lines.empty()) continue;  // the header alone, or blank lines
    on_part(DatasetOfTable(table, schema, options, columns, source));
  }
  if (!cursor.have_header) {
    throw InvalidArgument("data", source + " is empty (expected a header row)");
  }
  if (cursor.rows == 0) throw InvalidArgument("data", source + " has a header but no data rows");
}

}  // namespace internal

void LoadCsvParts(const std::string& csv_path, const Schema& schema, const LoadOptions& options,
                  const std::function<void(Dataset&& part)>& on_part) {
  internal::BlockSource blocks = internal::BlockSource::OfFile(csv_path);
  internal::ReadCsvParts(blocks, "\"" + csv_path + "\"", schema, options, on_part);
}

}  // namespace rdpkit::trees
