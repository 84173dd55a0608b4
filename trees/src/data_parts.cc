// LoadCsvParts (data.h): the CSV reader of data.cc over blocks of whole lines, one part per block,
// for prediction on files too large to hold; LoadCsv appends the parts.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
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
  // The whole file's refusal, as LoadCsv gives it: a field that is no number or a ragged row
  // (ReadTableBlock throws the file's first at once), else the bad code or label of the smallest
  // rank in the file (csv_table.h, ValueFault). Once a block holds one, the rest of the file is
  // still read, for a field or a smaller rank, and no part is handed on.
  std::optional<ValueFault> fault;
  while (ReadNextTableBlock(blocks, source, targets_of_header, targets, why_bad, cursor, table)) {
    if (table.lines.empty()) continue;  // the header alone, or blank lines
    std::optional<ValueFault> block_fault;
    Dataset part = DatasetOfTable(table, schema, options, columns, source, block_fault);
    if (block_fault && (!fault || block_fault->rank < fault->rank)) fault = std::move(block_fault);
    if (!fault) on_part(std::move(part));
  }
  RequireHeaderAndRows(cursor, source);
  if (fault) throw fault->error;
}

}  // namespace internal

// LoadCsv's blocks: smaller than LoadCsvParts', since a block's rows as doubles (about twice its
// bytes) are held beside the columns of the rows before.
constexpr std::size_t kLoadBlockBytes = std::size_t{4} << 20;

Dataset LoadCsv(const std::string& csv_path, const Schema& schema, const LoadOptions& options) {
  // In parts, appended as they come: of the file's text only one block is held at a time. The
  // columns are reserved for the rows a regular file's size promises at the first part's bytes
  // per row, so that they are not grown by doubling (up to twice the data); a wrong guess is only
  // slower.
  std::error_code no_size;
  const std::uintmax_t file_bytes = std::filesystem::is_regular_file(csv_path, no_size)
                                        ? std::filesystem::file_size(csv_path, no_size)
                                        : 0;
  Dataset data;
  internal::BlockSource blocks = internal::BlockSource::OfFile(csv_path, kLoadBlockBytes);
  internal::ReadCsvParts(blocks, "\"" + csv_path + "\"", schema, options, [&](Dataset&& part) {
    if (data.feature_names.empty()) {  // the first part
      data = std::move(part);
      if (no_size || file_bytes <= kLoadBlockBytes) return;
      const double n_blocks = static_cast<double>(file_bytes) / kLoadBlockBytes;
      const auto rows =
          static_cast<std::size_t>(1.02 * n_blocks * static_cast<double>(data.n_rows()));
      for (auto& column : data.columns) column.reserve(rows);
      if (!data.labels.empty()) data.labels.reserve(rows);
      return;
    }
    internal::AppendPart(data, part);
  });
  return data;
}

void LoadCsvParts(const std::string& csv_path, const Schema& schema, const LoadOptions& options,
                  const std::function<void(Dataset&& part)>& on_part) {
  internal::BlockSource blocks = internal::BlockSource::OfFile(csv_path);
  internal::ReadCsvParts(blocks, "\"" + csv_path + "\"", schema, options, on_part);
}

}  // namespace rdpkit::trees
