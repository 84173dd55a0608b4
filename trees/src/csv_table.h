// Reading a CSV's lines into columns, whole or in blocks of whole lines (data.cc reads a file
// whole, data_parts.cc in parts): the header (the first non-blank line), then the data rows,
// each field converted with std::from_chars straight into preallocated columns.
#ifndef RDPKIT_TREES_SRC_CSV_TABLE_H_
#define RDPKIT_TREES_SRC_CSV_TABLE_H_

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "column_checks.h"
#include "csv_line.h"
#include "rdpkit/accountant/errors.h"
#include "text_file.h"

namespace rdpkit::trees::internal {

struct RawTable {
  std::vector<std::string> header;
  std::vector<std::vector<double>> columns;  // one per CSV column; empty vector if skipped
  std::vector<std::size_t> lines;            // 1-based line number of each data row
  std::size_t first_row = 0;                 // data rows before these (a part of a file)
};

// Where a reading in blocks stands between two blocks.
struct TableCursor {
  std::size_t line_number = 0;  // lines read so far
  std::size_t rows = 0;         // data rows read so far
  bool have_header = false;
};

// "<source> row R (line L), column \"c\"" of row `row` of table.
inline std::string RowText(const std::string& source, const RawTable& table, std::size_t row,
                           const std::string& column) {
  return source + " row " + std::to_string(table.first_row + row + 1) + " (line " +
         std::to_string(table.lines[row]) + "), column \"" + column + "\"";
}

// Reads one block of whole lines, continuing at cursor. Until the header is read, the block's
// first non-blank line is the header: table.header is set and targets = targets_of_header(header)
// decides which columns to keep. Each data row after it is appended to table; why_bad(column,
// field) says what is wrong with a field the column does not take (InvalidArgument "data").
template <class Targets, class WhyBad>
void ReadTableBlock(std::string_view text, const std::string& source, Targets&& targets_of_header,
                    std::vector<csv::ColumnTarget>& targets, WhyBad&& why_bad, TableCursor& cursor,
                    RawTable& table) {
  std::size_t pos = 0;
  auto next_line = [&](std::string_view& line) {
    if (pos >= text.size()) return false;
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    line = text.substr(pos, end - pos);
    pos = end + 1;
    ++cursor.line_number;
    return true;
  };
  std::string_view line;
  std::vector<std::string_view> fields;
  while (!cursor.have_header && next_line(line)) {
    csv::DropByteOrderMark(line, cursor.line_number);
    if (csv::IsBlankLine(line)) continue;
    csv::SplitLine(line, fields);
    for (const auto field : fields) table.header.emplace_back(csv::FieldString(field));
    targets = targets_of_header(table.header);
    table.columns.resize(table.header.size());
    cursor.have_header = true;
  }
  if (!cursor.have_header) return;
  const std::size_t n_columns = table.header.size();

  // Reserve by counting newlines once (memchr-speed) so columns never reallocate.
  const std::size_t expected_rows =
      table.lines.size() +
      static_cast<std::size_t>(
          std::count(text.begin() + static_cast<std::ptrdiff_t>(std::min(pos, text.size())),
                     text.end(), '\n')) +
      1;
  for (std::size_t c = 0; c < n_columns; ++c) {
    if (targets[c].kind != csv::ColumnTarget::kSkip) table.columns[c].reserve(expected_rows);
  }
  table.lines.reserve(expected_rows);

  while (next_line(line)) {
    if (csv::IsBlankLine(line)) continue;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t row = cursor.rows + 1;
    const csv::LineError error = csv::ParseDataLine(
        line, targets, [&](std::size_t c, double value) { table.columns[c].push_back(value); });
    if (error.kind == csv::LineError::kBadValue) {
      throw InvalidArgument("data", source + " row " + std::to_string(row) + " (line " +
                                        std::to_string(cursor.line_number) + "), column \"" +
                                        table.header[error.column] +
                                        "\": " + why_bad(error.column, error.field));
    }
    if (error.kind == csv::LineError::kRagged) {
      throw RaggedRow(source, row, cursor.line_number, line, n_columns);
    }
    table.lines.push_back(cursor.line_number);
    ++cursor.rows;
  }
}

// The next block of `blocks` read into table in place of the last block's rows (the header
// stays), continuing at cursor (ReadTableBlock); false at the end of the input.
template <class Targets, class WhyBad>
bool ReadNextTableBlock(BlockSource& blocks, const std::string& source, Targets&& targets_of_header,
                        std::vector<csv::ColumnTarget>& targets, WhyBad&& why_bad,
                        TableCursor& cursor, RawTable& table) {
  std::string_view block;
  if (!blocks.Next(block)) return false;
  table.columns.assign(table.header.size(), {});
  table.lines.clear();
  table.first_row = cursor.rows;
  ReadTableBlock(block, source, targets_of_header, targets, why_bad, cursor, table);
  return true;
}

// After the last block: InvalidArgument "data" when the input had no header or no data rows.
inline void RequireHeaderAndRows(const TableCursor& cursor, const std::string& source) {
  if (!cursor.have_header) {
    throw InvalidArgument("data", source + " is empty (expected a header row)");
  }
  if (cursor.rows == 0) throw InvalidArgument("data", source + " has a header but no data rows");
}

// A bad code or label among a block's values, and its rank in the order LoadCsv checks a whole
// file: the feature's schema index, or the number of features for a label. Of several blocks'
// faults the one of the smallest rank is the whole file's, and of equal ranks the earlier block's.
struct ValueFault {
  std::size_t rank = 0;
  InvalidArgument error;
};

// The Dataset of the rows of table (a whole file, or one part of it): the features in schema
// order, each clipped into its bounds or checked for codes, and the labels checked, with errors
// naming the rows as RowText does. The kept columns are moved out of table. The first fault in
// that order is returned in `fault` (the Dataset is then incomplete).
Dataset DatasetOfTable(RawTable& table, const Schema& schema, const LoadOptions& options,
                       const HeaderColumns& columns, const std::string& source,
                       std::optional<ValueFault>& fault);

// Appends part's rows to whole (its columns and clip counts sized for the schema): its values,
// labels and clip counts. LoadCsv joins its parts so; tests and the fuzzer join theirs to compare.
inline void AppendPart(Dataset& whole, const Dataset& part) {
  for (std::size_t f = 0; f < part.columns.size(); ++f) {
    whole.columns[f].insert(whole.columns[f].end(), part.columns[f].begin(), part.columns[f].end());
    whole.clipped[f] += part.clipped[f];
  }
  whole.labels.insert(whole.labels.end(), part.labels.begin(), part.labels.end());
}

// LoadCsvParts (data.h) over blocks (a file, or a test's tiny blocks); source names the file.
void ReadCsvParts(BlockSource& blocks, const std::string& source, const Schema& schema,
                  const LoadOptions& options, const std::function<void(Dataset&& part)>& on_part);
// SchemaFromData and DraftSchema (data.h) over blocks (a file, or the fuzzer's text in blocks).
Schema SchemaFromBlocks(BlockSource& blocks, const std::string& source, const std::string& label,
                        Task task);
Schema DraftSchemaOfBlocks(BlockSource& blocks, const std::string& source, const std::string& label,
                           const std::optional<Task>& task);

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_CSV_TABLE_H_
