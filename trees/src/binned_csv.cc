// The binning CSV reader (binned_csv.h). A file is read in blocks of whole lines; each block is
// cut at line starts into one span per thread. Pass 1 counts every span's lines and rows (the
// rows of the file, hence each rank's range and the size of the byte columns); pass 2 counts
// again, so that every span knows its first row and line, then parses, clips, checks and bins
// its rows in parallel straight into the columns. Memory: the byte columns, the labels (a byte a
// row for a binary schema) and one block; never the table.
#include "rdpkit/trees/binned_csv.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "binned_matrix.h"
#include "candidates.h"
#include "column_checks.h"
#include "config_keys.h"
#include "csv_line.h"
#include "parallel.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"
#include "text_file.h"

namespace rdpkit::trees {
namespace {

using namespace internal::csv;  // NOLINT: the CSV line pieces shared with data.cc
using internal::BlockSource;

// The first position at or after `pos` where a line starts.
std::size_t LineStart(std::string_view block, std::size_t pos) {
  if (pos == 0 || pos >= block.size()) return std::min(pos, block.size());
  const std::size_t newline = block.find('\n', pos - 1);
  return newline == std::string_view::npos ? block.size() : newline + 1;
}

// Calls fn(line) for each line of block[begin, end) (lines start at begin).
template <class Fn>
void ForEachLine(std::string_view block, std::size_t begin, std::size_t end, Fn&& fn) {
  while (begin < end) {
    std::size_t stop = block.find('\n', begin);
    if (stop == std::string_view::npos || stop > end) stop = end;
    fn(block.substr(begin, stop - begin));
    begin = stop + 1;
  }
}

// BinOf for candidates spread evenly over [min, max] on a linear (uniform) or log1p (log) scale:
// the scale gives a guess of the bin, and exact comparisons with the candidates move it to the
// number of candidates c with x ≥ c — BinOf's answer whatever the guess (GoesLeft: x < c). The
// union of both grids (uniform_and_log) has no one scale: its bin is BinOf's binary search.
class FeatureBinner {
 public:
  FeatureBinner(const FeatureSpec& spec, const std::vector<double>& candidates,
                CandidateMethod method)
      : c_(candidates),
        min_(spec.min),
        log_(method == CandidateMethod::kLog && !spec.categorical),
        search_(method == CandidateMethod::kUniformAndLog && !spec.categorical) {
    const double width = log_ ? std::log1p(spec.max - spec.min) : spec.max - spec.min;
    scale_ = width > 0 && std::isfinite(width) ? static_cast<double>(c_.size()) / width : 0;
  }
  std::uint8_t Bin(double x) const {
    if (std::isnan(x)) return internal::kMissingByte;
    if (search_) return static_cast<std::uint8_t>(internal::BinOf(c_, 0, x));
    const double t = log_ ? std::log1p(x - min_) : x - min_;
    const double guess = t * scale_;
    std::size_t j = guess > 0 ? static_cast<std::size_t>(std::min(guess, 255.0)) : 0;
    j = std::min(j, c_.size());
    while (j < c_.size() && !(x < c_[j])) ++j;
    while (j > 0 && x < c_[j - 1]) --j;
    return static_cast<std::uint8_t>(j);
  }

 private:
  const std::vector<double>& c_;
  double min_;
  bool log_;
  bool search_;
  double scale_ = 0;
};

// A category code 0..n_codes−1 or missing (internal::CodeProblem says why not).
bool IsCode(double value, int n_codes) {
  return std::isnan(value) || (value == std::floor(value) && value >= 0 && value < n_codes);
}

// One thread's part of a block.
struct Span {
  std::size_t begin = 0, end = 0;
  std::uint64_t lines = 0, rows = 0;            // in the span
  std::uint64_t first_line = 0, first_row = 0;  // before the span (file-wide)
};

// A refusal found while reading: the data row (0-based) it belongs to and the exception.
struct Found {
  std::uint64_t row = 0;
  std::optional<InvalidArgument> error;
  void Keep(std::uint64_t at, InvalidArgument e) {
    if (!error || at < row) {
      row = at;
      error = std::move(e);
    }
  }
  void Merge(const Found& other) {
    if (other.error) Keep(other.row, *other.error);
  }
};

class BinningReader {
 public:
  BinningReader(const Schema& schema, const TrainerConfig::SplitCandidates& sc, int threads,
                const LoadOptions& options, RowRange range, std::string source)
      : schema_(schema),
        options_(options),
        range_(range),
        source_(std::move(source)),
        pool_(threads) {
    if (schema.features.empty()) throw InvalidArgument("schema", "has no features");
    if (!CandidatesFromSchemaAlone(sc)) {
      throw InvalidArgument(
          "split_candidates",
          "method \"" + ToString(sc.method) + "\", count " + std::to_string(sc.count) +
              ", categorical_count " + std::to_string(sc.categorical_count),
          "methods uniform, log or uniform_and_log with count and categorical_count ≤ 253 for a "
          "binned read");
    }
    auto binned = std::make_shared<BinnedFeatures>();
    binned->method = ToString(sc.method);
    binned->count = sc.count;
    binned->categorical_count = sc.categorical_count;
    for (std::size_t f = 0; f < schema.features.size(); ++f) {
      const FeatureSpec& feature = schema.features[f];
      binned->candidates.push_back(internal::InitialCandidates(
          feature, f, sc.method, internal::CandidateCount(sc, feature), {}));
    }
    binned_ = std::move(binned);
    for (std::size_t f = 0; f < schema.features.size(); ++f) {
      binners_.emplace_back(schema.features[f], binned_->candidates[f], sc.method);
    }
  }

  Dataset Read(BlockSource& source);

 private:
  // Pass 1 or 2 over the data lines of one block from `start`: spans and their counts.
  std::vector<Span> CountSpans(std::string_view block, std::size_t start);
  void ReadHeader(BlockSource& source, std::string_view& block, std::size_t& start);
  // Parses the rows of one span; returns false after a parse error (kept in found.parse).
  struct ThreadState {
    Found parse, label;
    std::vector<Found> feature;
    std::vector<std::size_t> clipped;
    std::vector<std::uint8_t> missing;
  };
  bool ParseSpan(std::string_view block, const Span& span, ThreadState& state);
  std::string Where(std::uint64_t row, std::uint64_t line, const std::string& column) const {
    return source_ + " row " + std::to_string(row + 1) + " (line " + std::to_string(line) +
           "), column \"" + column + "\"";
  }

  const Schema& schema_;
  const LoadOptions& options_;
  RowRange range_;
  std::string source_;
  internal::WorkerPool pool_;
  std::shared_ptr<BinnedFeatures> binned_;
  std::vector<FeatureBinner> binners_;
  internal::HeaderColumns header_;
  std::vector<std::string> header_names_;
  std::uint64_t header_line_ = 0;
  std::uint64_t lo_ = 0, hi_ = 0;  // this rank's data rows
  std::vector<double> labels_;
};

void BinningReader::ReadHeader(BlockSource& source, std::string_view& block, std::size_t& start) {
  std::uint64_t line_number = 0;
  while (source.Next(block)) {
    start = 0;
    while (start < block.size()) {
      std::size_t stop = block.find('\n', start);
      if (stop == std::string_view::npos) stop = block.size();
      std::string_view line = block.substr(start, stop - start);
      start = std::min(block.size(), stop + 1);
      ++line_number;
      DropByteOrderMark(line, line_number);
      if (IsBlankLine(line)) continue;
      std::vector<std::string_view> fields;
      SplitLine(line, fields);
      header_names_.clear();
      for (const auto field : fields) header_names_.emplace_back(FieldString(field));
      header_ = internal::MatchHeader(header_names_, schema_, options_, source_);
      header_line_ = line_number;
      return;
    }
  }
  throw InvalidArgument("data", source_ + " is empty (expected a header row)");
}

std::vector<Span> BinningReader::CountSpans(std::string_view block, std::size_t start) {
  const std::size_t n = block.size() - start;
  std::vector<Span> spans(static_cast<std::size_t>(pool_.Chunks(n)));
  pool_.ParallelFor(n, [&](std::size_t begin, std::size_t end, int w) {
    Span& span = spans[static_cast<std::size_t>(w)];
    span.begin = LineStart(block, start + begin);
    span.end = LineStart(block, start + end);
    ForEachLine(block, span.begin, span.end, [&](std::string_view line) {
      ++span.lines;
      if (!IsBlankLine(line)) ++span.rows;
    });
  });
  return spans;
}

bool BinningReader::ParseSpan(std::string_view block, const Span& span, ThreadState& state) {
  const std::size_t n_local = hi_ - lo_;
  std::uint8_t* bins = binned_->bins.data();
  std::uint64_t line_number = span.first_line;
  std::uint64_t row = span.first_row;  // 0-based data row of the file
  bool ok = true;
  ForEachLine(block, span.begin, span.end, [&](std::string_view line) {
    ++line_number;
    if (!ok || IsBlankLine(line)) return;
    const std::uint64_t this_row = row++;
    if (this_row < lo_ || this_row >= hi_) return;  // another rank's row
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t local = this_row - lo_;
    const LineError error = ParseDataLine(line, header_.targets, [&](std::size_t c, double value) {
      const ColumnTarget& target = header_.targets[c];
      if (target.kind == ColumnTarget::kLabel) {
        if (schema_.task == Task::kBinary) {
          binned_->binary_labels[local] = value == 1 ? 1 : 0;
          if (value == 0 || value == 1) return;
        } else {
          labels_[local] = value;
        }
        const std::string problem = internal::LabelProblem(schema_, value);
        if (!problem.empty() && !state.label.error) {
          state.label.Keep(this_row,
                           InvalidArgument("label", Where(this_row, line_number, options_.label) +
                                                        ": " + problem));
        }
        return;
      }
      const auto f = static_cast<std::size_t>(target.feature);
      const FeatureSpec& spec = schema_.features[f];
      if (spec.categorical) {
        if (!IsCode(value, spec.n_codes) && !state.feature[f].error) {
          state.feature[f].Keep(
              this_row, InvalidArgument("data", Where(this_row, line_number, spec.name) + ": " +
                                                    internal::CodeProblem(spec, value)));
        }
      } else if (internal::ClipValue(spec, value)) {
        ++state.clipped[f];
      }
      const std::uint8_t bin = binners_[f].Bin(value);
      if (bin == internal::kMissingByte) state.missing[f] = 1;
      bins[f * n_local + local] = bin;
    });
    if (error.kind == LineError::kBadValue) {
      state.parse.Keep(
          this_row,
          InvalidArgument("data", source_ + " row " + std::to_string(this_row + 1) + " (line " +
                                      std::to_string(line_number) + "), column \"" +
                                      header_names_[error.column] + "\": " +
                                      internal::BadFieldText(schema_, header_.targets[error.column],
                                                             error.field)));
      ok = false;
    } else if (error.kind == LineError::kRagged) {
      state.parse.Keep(this_row, internal::RaggedRow(source_, this_row + 1, line_number, line,
                                                     header_names_.size()));
      ok = false;
    }
  });
  return ok;
}

Dataset BinningReader::Read(BlockSource& source) {
  std::string_view block;
  std::size_t start = 0;
  ReadHeader(source, block, start);
  // Pass 1: the file's rows.
  std::uint64_t total_rows = 0;
  {
    std::string_view b = block;
    std::size_t s = start;
    do {
      for (const Span& span : CountSpans(b, s)) total_rows += span.rows;
      s = 0;
    } while (source.Next(b));
  }
  if (total_rows == 0) throw InvalidArgument("data", source_ + " has a header but no data rows");
  const auto ranks = static_cast<std::uint64_t>(range_.ranks);
  const auto rank = static_cast<std::uint64_t>(range_.rank);
  lo_ = total_rows * rank / ranks;
  hi_ = total_rows * (rank + 1) / ranks;
  if (hi_ == lo_) {
    throw InvalidArgument("data", source_ + " has " + std::to_string(total_rows) +
                                      " data rows, fewer than the " + std::to_string(ranks) +
                                      " ranks that share it");
  }
  const std::size_t m = schema_.features.size();
  binned_->n_rows = hi_ - lo_;
  binned_->bins.assign(m * binned_->n_rows, 0);
  const bool labelled = header_.label_column >= 0 && options_.read_label;
  // Binary labels as bytes (a double each would be 8 bytes a row), others as numbers.
  const bool binary = schema_.task == Task::kBinary;
  binned_->binary_labels.assign(labelled && binary ? binned_->n_rows : 0, 0);
  labels_.assign(labelled && !binary ? binned_->n_rows : 0, 0.0);
  // Pass 2.
  std::vector<ThreadState> states(static_cast<std::size_t>(pool_.threads()));
  for (auto& state : states) {
    state.feature.resize(m);
    state.clipped.assign(m, 0);
    state.missing.assign(m, 0);
  }
  source.Rewind();
  std::uint64_t line_number = 0, row = 0;
  ReadHeader(source, block, start);  // the same header again
  line_number = header_line_;
  bool ok = true;
  do {
    std::vector<Span> spans = CountSpans(block, start);
    for (Span& span : spans) {
      span.first_line = line_number;
      span.first_row = row;
      line_number += span.lines;
      row += span.rows;
    }
    std::vector<std::uint8_t> span_ok(spans.size(), 1);
    pool_.ParallelFor(block.size() - start, [&](std::size_t, std::size_t, int w) {
      const auto i = static_cast<std::size_t>(w);
      span_ok[i] = ParseSpan(block, spans[i], states[i]) ? 1 : 0;
    });
    ok = std::find(span_ok.begin(), span_ok.end(), 0) == span_ok.end();
    start = 0;
  } while (ok && row < hi_ && source.Next(block));

  ThreadState all;
  all.feature.resize(m);
  all.clipped.assign(m, 0);
  all.missing.assign(m, 0);
  for (const auto& state : states) {
    all.parse.Merge(state.parse);
    all.label.Merge(state.label);
    for (std::size_t f = 0; f < m; ++f) {
      all.feature[f].Merge(state.feature[f]);
      all.clipped[f] += state.clipped[f];
      all.missing[f] = all.missing[f] || state.missing[f];
    }
  }
  // LoadCsv's order: a value that is no number, then each feature's codes, then the labels.
  if (all.parse.error) throw *all.parse.error;
  for (const auto& found : all.feature) {
    if (found.error) throw *found.error;
  }
  if (all.label.error) throw *all.label.error;
  Dataset data;
  data.schema = schema_;
  for (const auto& spec : schema_.features) data.feature_names.push_back(spec.name);
  data.clipped = all.clipped;
  binned_->has_missing = all.missing;
  data.labels = std::move(labels_);
  data.binned = std::move(binned_);
  return data;
}

}  // namespace

bool CandidatesFromSchemaAlone(const TrainerConfig::SplitCandidates& candidates) {
  return (candidates.method == CandidateMethod::kUniform ||
          candidates.method == CandidateMethod::kLog ||
          candidates.method == CandidateMethod::kUniformAndLog) &&
         candidates.widest() <= internal::kMaxCompactCandidates;
}

Dataset LoadCsvBinned(const std::string& csv_path, const Schema& schema,
                      const TrainerConfig::SplitCandidates& candidates, int threads,
                      const LoadOptions& options, RowRange range) {
  const std::string source_name = "\"" + csv_path + "\"";
  if (!internal::IsRegularFile(csv_path)) {  // a pipe or device cannot be read twice
    const std::string text = internal::ReadDataText(csv_path, "data");
    BlockSource blocks = BlockSource::OfText(text);
    return BinningReader(schema, candidates, threads, options, range, source_name).Read(blocks);
  }
  BlockSource source = BlockSource::OfFile(csv_path);
  return BinningReader(schema, candidates, threads, options, range, source_name).Read(source);
}

Dataset ParseCsvBinned(std::string_view text, const Schema& schema,
                       const TrainerConfig::SplitCandidates& candidates, int threads,
                       const LoadOptions& options, const std::string& source) {
  BlockSource blocks = BlockSource::OfText(text);
  return BinningReader(schema, candidates, threads, options, {}, source).Read(blocks);
}

}  // namespace rdpkit::trees
