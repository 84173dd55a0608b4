// Bounded reading of the files rdpkit takes as input, so that no input makes a read grow without
// limit: a device such as /dev/zero (an endless line), a pipe, or a huge file given as a schema or
// model. Every refusal is an InvalidArgument naming the field and the limit.
#ifndef RDPKIT_TREES_SRC_TEXT_FILE_H_
#define RDPKIT_TREES_SRC_TEXT_FILE_H_

#include <cstddef>
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
// end). Refuses a file that cannot be opened or read, and a line longer than kMaxLineBytes, as
// soon as it has read that much of the line.
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

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_TEXT_FILE_H_
