// Atomic file output for the model file and prediction CSVs (DESIGN.md §6): the text goes to a
// temporary file beside the target, is flushed to disk, then renamed over the target, so a crash
// never leaves a half-written file and an existing file is either kept or fully replaced.
#ifndef RDPKIT_TREES_FILE_OUTPUT_H_
#define RDPKIT_TREES_FILE_OUTPUT_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rdpkit::trees {
namespace internal {
class SignalCleanup;
}  // namespace internal

// Writes text to path atomically. The target must be a regular file or not exist yet: a symbolic
// link, directory, FIFO, socket or device is refused (InvalidArgument naming field), never
// replaced. An existing file keeps its permission bits; a new one gets 0666 less the umask, as
// any program's output. The temporary file is named ".<name>.<pid>.rdpkit-tmp.<random>"; it is
// removed on failure and, while the write runs, on SIGINT, SIGTERM and SIGHUP (when those have
// their default action). Temporaries left by a killed process (SIGKILL, power loss) are removed by
// the next write to the same target once their process is gone.
void WriteFileAtomically(const std::string& path, const std::string& text,
                         const std::string& field = "out");

// WriteFileAtomically in parts, for output too large to hold (predictions of millions of rows):
// the constructor checks the target and creates the temporary file, Write appends, Commit makes
// the file appear whole. Destroyed without Commit (an exception while the parts were made), it
// removes the temporary, so the target is never half-written. One writer at a time per process
// (the signal cleanup knows one temporary). Errors: InvalidArgument naming field.
class AtomicFileWriter {
 public:
  AtomicFileWriter(const std::string& path, const std::string& field);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void Write(std::string_view text);
  void Commit();

 private:
  void Discard() noexcept;          // closes and removes the temporary (not committed)
  void RemoveTemporary() noexcept;  // unlinks it and ends its signal cleanup

  std::string path_;
  std::string field_;
  std::string dir_;
  std::string temp_;
  bool exists_ = false;
  mode_t mode_ = 0;  // the existing file's, copied onto the new one
  int fd_ = -1;
  std::unique_ptr<internal::SignalCleanup> cleanup_;
};

// A file that a command reads, or another file it writes, named by its flag ("data", "report").
struct OtherFile {
  std::string path;  // empty, "-" (standard input) or inline JSON ("{...}"): no file, skipped
  std::string field;
};

// Refuses up front (before hours of training, say) a target that WriteFileAtomically would
// refuse or fail on: an empty path, one that names a directory, an existing file that is not a
// regular file, or a folder that does not exist or that this process cannot write to; and a
// target that is the same file as one of `others` (the command's input, which it would replace,
// or its other output): the same device and inode, or, where one does not exist yet, the same
// real folder and name. InvalidArgument naming field. Writes nothing.
void CheckOutputPath(const std::string& path, const std::string& field = "out",
                     const std::vector<OtherFile>& others = {});

}  // namespace rdpkit::trees

#endif  // RDPKIT_TREES_FILE_OUTPUT_H_
