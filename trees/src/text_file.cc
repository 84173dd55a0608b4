#include "text_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"

namespace rdpkit::trees::internal {
namespace {

using File = std::unique_ptr<std::FILE, FileCloser>;

std::string Quoted(const std::string& path) {
  std::string quoted = "\"";
  quoted += Abbreviate(path);
  quoted += '"';
  return quoted;
}

File Open(const std::string& path, const std::string& field) {
  File file(std::fopen(path.c_str(), "rb"));
  if (!file) throw InvalidArgument(field, "cannot open file " + Quoted(path));
  // A folder opens for reading on Linux, and its "size" is no size to reserve.
  struct stat info {};
  if (fstat(fileno(file.get()), &info) == 0 && S_ISDIR(info.st_mode)) {
    throw InvalidArgument(field, Quoted(path) + " is a directory, not a file");
  }
  return file;
}

std::string MiB(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

bool IsRegularFile(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

void ThrowLineTooLong(const std::string& field, const std::string& source) {
  throw InvalidArgument(field, source + " has a line longer than " + MiB(kMaxLineBytes) +
                                   " (the limit of a CSV row; is it a CSV text file?)");
}

std::size_t AfterLastNewline(std::string_view text, std::size_t from, std::size_t none) {
  const std::size_t last = text.substr(from).rfind('\n');
  return last == std::string_view::npos ? none : from + last + 1;
}

std::string ReadDataText(const std::string& path, const std::string& field) {
  const File file = Open(path, field);
  std::string text;
  // One allocation of the file's size when it is known (a regular file), chunks otherwise.
  if (std::fseek(file.get(), 0, SEEK_END) == 0) {
    const long size = std::ftell(file.get());
    if (size > 0) text.reserve(static_cast<std::size_t>(size));
    std::rewind(file.get());
  }
  char buffer[1 << 16];
  std::size_t got = 0;
  std::size_t line_start = 0;  // where the line being read begins
  while ((got = std::fread(buffer, 1, sizeof(buffer), file.get())) > 0) {
    const std::size_t from = text.size();
    text.append(buffer, got);
    line_start = AfterLastNewline(text, from, line_start);
    if (text.size() - line_start > kMaxLineBytes) {
      ThrowLineTooLong(field, Quoted(path));
    }
  }
  if (std::ferror(file.get()) != 0) {
    throw InvalidArgument(field, "cannot read file " + Quoted(path));
  }
  return text;
}

std::string ReadDocumentText(const std::string& path, const std::string& field,
                             std::size_t max_bytes, const std::string& what) {
  const File file = Open(path, field);
  const auto too_long = [&] {
    return InvalidArgument(
        field, Quoted(path) + " is longer than " + MiB(max_bytes) + ", the limit of " + what);
  };
  std::string text;
  // A regular file's size is known before it is read.
  struct stat info {};
  if (fstat(fileno(file.get()), &info) == 0 && S_ISREG(info.st_mode)) {
    if (static_cast<std::size_t>(info.st_size) > max_bytes) throw too_long();
    text.reserve(static_cast<std::size_t>(info.st_size));
  }
  char buffer[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof(buffer), file.get())) > 0) {
    // Refused before more than the limit is held; a pipe or device of unknown length grows its
    // capacity by doubling up to the limit (appending past it held ~2 GiB under a 1 GiB limit).
    if (got > max_bytes - text.size()) throw too_long();
    if (text.size() + got > text.capacity()) {
      text.reserve(std::min(std::max(2 * text.capacity(), text.size() + got), max_bytes));
    }
    text.append(buffer, got);
  }
  if (std::ferror(file.get()) != 0) {
    throw InvalidArgument(field, "cannot read file " + Quoted(path));
  }
  return text;
}

BlockSource BlockSource::OfText(std::string_view text, std::size_t block_bytes) {
  BlockSource blocks;
  blocks.text_ = text;
  blocks.text_block_bytes_ = block_bytes;
  return blocks;
}

BlockSource BlockSource::OfFile(const std::string& path, std::size_t block_bytes) {
  BlockSource blocks;
  blocks.file_ = Open(path, "data");
  blocks.path_ = path;
  blocks.block_bytes_ = std::max<std::size_t>(1, block_bytes);
  return blocks;
}

void BlockSource::Rewind() {
  text_pos_ = 0;
  if (file_ == nullptr) return;
  std::rewind(file_.get());
  buffer_.clear();
  consumed_ = 0;
  eof_ = false;
}

bool BlockSource::Next(std::string_view& block) {
  if (file_ == nullptr) {
    if (text_pos_ >= text_.size()) return false;
    std::size_t end = text_.size();
    if (text_block_bytes_ > 0 && text_.size() - text_pos_ > text_block_bytes_) {
      // The last line break inside the block, else the first one after it.
      std::size_t cut = text_.rfind('\n', text_pos_ + text_block_bytes_ - 1);
      if (cut == std::string_view::npos || cut < text_pos_) {
        cut = text_.find('\n', text_pos_ + text_block_bytes_);
      }
      end = cut == std::string_view::npos ? text_.size() : cut + 1;
    }
    block = text_.substr(text_pos_, end - text_pos_);
    text_pos_ = end;
    return true;
  }
  buffer_.erase(0, consumed_);
  consumed_ = 0;
  // The buffer starts at a line start and grows until it holds a whole line, up to one byte past
  // the longest line allowed.
  for (std::size_t want = block_bytes_;; want = std::min(2 * want, kMaxLineBytes + 1)) {
    if (!eof_ && buffer_.size() < want) {
      const std::size_t have = buffer_.size();
      buffer_.resize(want);
      const std::size_t got = std::fread(buffer_.data() + have, 1, want - have, file_.get());
      buffer_.resize(have + got);
      if (got < want - have) {
        if (std::ferror(file_.get()) != 0) {
          throw InvalidArgument("data", "cannot read file " + Quoted(path_));
        }
        eof_ = true;
      }
    }
    if (buffer_.empty()) return false;
    const std::size_t first = buffer_.find('\n');
    if ((first == std::string::npos ? buffer_.size() : first) > kMaxLineBytes) {
      ThrowLineTooLong("data", Quoted(path_));
    }
    const std::size_t last = buffer_.rfind('\n');
    if (eof_ || last != std::string::npos) {
      consumed_ = eof_ ? buffer_.size() : last + 1;
      block = std::string_view(buffer_).substr(0, consumed_);
      return true;
    }
  }
}

}  // namespace rdpkit::trees::internal
