// Reading a training CSV straight into bins (docs/trees.md "Large data"): when the split
// candidates follow from the schema alone, each value is clipped into its public bounds (counted),
// binned and kept as one byte; the file is read in blocks by several threads and the raw table is
// never held, neither as text nor as numbers. Same acceptance, errors and clipping counts as
// LoadCsv, and the trainer gives the same model for the same seed.
#ifndef RDPKIT_TREES_BINNED_CSV_H_
#define RDPKIT_TREES_BINNED_CSV_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"

namespace rdpkit::trees {

// Whether split candidates are fixed by the schema alone and fit a byte: method uniform, log or
// uniform_and_log and count ≤ 253. (iterative_hessian re-bins raw values; quantile reads them.)
bool CandidatesFromSchemaAlone(const TrainerConfig::SplitCandidates& candidates);

// Which data rows a rank reads of one file: rows [⌊r·N/K⌋, ⌊(r+1)·N/K⌋) of the N data rows.
struct RowRange {
  int rank = 0;
  int ranks = 1;
};

// LoadCsv for training: Dataset::binned instead of columns, on `threads` threads (1..256). A
// binary schema's labels are kept as bytes in binned->binary_labels (Dataset::LabelValues()).
// candidates must satisfy CandidatesFromSchemaAlone (else InvalidArgument "split_candidates").
// With several errors in a file the one LoadCsv reports is reported. Row and line numbers in
// messages count the whole file, whichever range is read.
Dataset LoadCsvBinned(const std::string& csv_path, const Schema& schema,
                      const TrainerConfig::SplitCandidates& candidates, int threads,
                      const LoadOptions& options = {}, RowRange range = {});
// Same, from text in memory (source names it in messages).
Dataset ParseCsvBinned(std::string_view text, const Schema& schema,
                       const TrainerConfig::SplitCandidates& candidates, int threads,
                       const LoadOptions& options = {}, const std::string& source = "data");

}  // namespace rdpkit::trees

#endif  // RDPKIT_TREES_BINNED_CSV_H_
