// Bounded reading of the files rdpkit takes as input, so that no input makes a read grow without
// limit: a device such as /dev/zero (an endless line), a pipe, or a huge file given as a schema or
// model. Every refusal is an InvalidArgument naming the field and the limit.
#ifndef RDPKIT_TREES_SRC_TEXT_FILE_H_
#define RDPKIT_TREES_SRC_TEXT_FILE_H_

#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

namespace rdpkit::trees::internal {

// A CSV line longer than this is refused. A row of 100 000 columns of 20-character numbers is 2
// MB; a line without a line break after 64 MiB is not a CSV row (/dev/zero, a binary file).
inline constexpr std::size_t kMaxLineBytes = std::size_t{64} << 20;
// A schema file longer than this is refused (the shared insteval schema, 4 126 code names, is
// under 100 KB; 256 MiB holds millions of names).
inline constexpr std::size_t kMaxSchemaBytes = std::size_t{256} << 20;
// The largest model file rdpkit writes and reads (Model::Save refuses to write a larger one).
inline constexpr std::size_t kMaxModelBytes = std::size_t{1} << 30;

// The whole text of a CSV file, which may be a regular file, a pipe or a device (read to its
// end): for the binning reader of a pipe, which reads its text twice. Refuses a file that cannot be
// opened or read, and a line longer than kMaxLineBytes, as soon as it has read that much of the
// line.
[[nodiscard]] std::string ReadDataText(const std::string& path, const std::string& field);

// The whole text of a JSON document (schema, model) of at most max_bytes; refuses a longer one
// after reading at most max_bytes + 1 bytes of it. `what` names the document ("a schema file").
[[nodiscard]] std::string ReadDocumentText(const std::string& path, const std::string& field,
                                           std::size_t max_bytes, const std::string& what);

// True when path names a regular file (after symbolic links); false for a pipe, device, socket or
// a path that does not exist.
[[nodiscard]] bool IsRegularFile(const std::string& path);

// The refusal of a line longer than kMaxLineBytes in `source` (a quoted path).
[[noreturn]] void ThrowLineTooLong(const std::string& field, const std::string& source);

// Index one past the last '\n' in text[from, end), or `none` when there is none.
[[nodiscard]] std::size_t AfterLastNewline(std::string_view text, std::size_t from,
                                           std::size_t none);

// Closes a std::FILE owned by a std::unique_ptr.
struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

// Blocks of whole lines, of a file or of text in memory, so that a CSV of any size is read in
// bounded memory (the binning reader, LoadCsvParts). Each block but the file's last ends with
// '\n'. Blocks are about kBlockBytes; a line longer than a block makes the block grow to hold it,
// up to kMaxLineBytes (then ThrowLineTooLong). Rewind starts again, which a pipe or device cannot:
// a reader that rewinds needs a regular file.
class BlockSource {
 public:
  static constexpr std::size_t kBlockBytes = std::size_t{16} << 20;

  // Text in memory (kept by the caller): one block of all of it, or blocks of whole lines of
  // about block_bytes (the text's last line whole, however long).
  static BlockSource OfText(std::string_view text, std::size_t block_bytes = 0);
  // A file; InvalidArgument "data" when path cannot be opened. block_bytes: the size a block
  // starts from (tests read in tiny blocks).
  static BlockSource OfFile(const std::string& path, std::size_t block_bytes = kBlockBytes);

  void Rewind();
  // The next block (valid until the next call); false at the end. InvalidArgument "data" on a
  // read error or a line longer than kMaxLineBytes.
  bool Next(std::string_view& block);

 private:
  BlockSource() = default;

  std::string_view text_;
  std::size_t text_block_bytes_ = 0;  // 0: the whole text at once
  std::size_t text_pos_ = 0;          // where the next block of text_ starts
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::string path_;
  std::string buffer_;
  std::size_t consumed_ = 0;
  bool eof_ = false;
  std::size_t block_bytes_ = kBlockBytes;
};

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_TEXT_FILE_H_
