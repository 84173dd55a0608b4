// The progress lines of long commands (train, plot) on stderr.
#ifndef RDPKIT_TOOLS_PROGRESS_LINES_H_
#define RDPKIT_TOOLS_PROGRESS_LINES_H_

#include <chrono>
#include <cstdio>
#include <ostream>
#include <streambuf>
#include <string>

namespace rdpkit::tools {

// Appends the elapsed wall time to the lines a command writes to its progress stream:
// "rdpkit train: 40/100 trees" becomes "rdpkit train: 40/100 trees (2.1 s elapsed)". At most one
// line per kEvery is shown; the last line (the finished count) is always shown.
class ElapsedLines : public std::streambuf {
 public:
  ElapsedLines(std::ostream& sink, std::chrono::steady_clock::time_point start)
      : sink_(sink), start_(start), shown_(start) {}
  ~ElapsedLines() override {
    if (!held_.empty()) sink_ << held_ << std::flush;
    if (!line_.empty()) sink_ << line_ << std::flush;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    const char c = traits_type::to_char_type(ch);
    if (c != '\n') {
      line_.push_back(c);
      return ch;
    }
    const auto now = std::chrono::steady_clock::now();
    char elapsed[48];
    std::snprintf(elapsed, sizeof(elapsed), " (%.1f s elapsed)\n",
                  std::chrono::duration<double>(now - start_).count());
    held_ = line_ + elapsed;
    line_.clear();
    if (now - shown_ >= kEvery) {
      sink_ << held_ << std::flush;
      held_.clear();
      shown_ = now;
    }
    return ch;
  }
  std::streamsize xsputn(const char* text, std::streamsize count) override {
    for (std::streamsize i = 0; i < count; ++i) overflow(traits_type::to_int_type(text[i]));
    return count;
  }

 private:
  static constexpr std::chrono::milliseconds kEvery{500};
  std::ostream& sink_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point shown_;  // when the last line was shown
  std::string line_;                             // the line being written
  std::string held_;                             // the latest complete line not yet shown
};

// The stream a command writes its progress lines to, over ElapsedLines. Held in a std::optional
// (empty: --quiet); resetting it writes the last line, before anything else goes to the sink.
class ProgressStream {
 public:
  ProgressStream(std::ostream& sink, std::chrono::steady_clock::time_point start)
      : lines_(sink, start), stream_(&lines_) {}
  ProgressStream(const ProgressStream&) = delete;
  ProgressStream& operator=(const ProgressStream&) = delete;
  std::ostream& stream() { return stream_; }

 private:
  ElapsedLines lines_;  // declared first: destroyed after the stream that writes to it
  std::ostream stream_;
};

}  // namespace rdpkit::tools

#endif  // RDPKIT_TOOLS_PROGRESS_LINES_H_
