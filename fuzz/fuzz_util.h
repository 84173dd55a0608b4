// Shared pieces of the libFuzzer harnesses (docs/fuzzing.md).
//
// A harness feeds one input to one loader. Refusing an input is the loader's job: the expected
// refusals are rdpkit::InvalidArgument and rdpkit::NumericalError, which the harness swallows.
// Any other exception is left uncaught on purpose, so std::terminate fires at the throw site and
// the crash report carries the stack of the code that threw. Sanitizer findings (ASan, UBSan,
// LeakSanitizer), timeouts and out-of-memory are reported by libFuzzer itself.
#ifndef RDPKIT_FUZZ_FUZZ_UTIL_H_
#define RDPKIT_FUZZ_FUZZ_UTIL_H_

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "rdpkit/accountant/errors.h"

namespace rdpkit::fuzz {

// Runs body(); returns true when it finished, false when it refused the input as documented.
template <class Body>
bool RefusalsAllowed(Body&& body) {
  try {
    body();
    return true;
  } catch (const InvalidArgument&) {
    return false;
  } catch (const NumericalError&) {
    return false;
  }
}

// A broken invariant in what a loader accepted: prints what and where, then aborts (a crash).
[[noreturn]] inline void Fail(std::string_view what, std::string_view detail = {}) {
  std::fprintf(stderr, "rdpkit fuzz invariant failed: %.*s %.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(detail.size()), detail.data());
  std::abort();
}

inline std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A file in tmpfs (/dev/shm, else $TMPDIR or /tmp) private to this process, for loaders that only
// take a path. Overwritten by each Write; removed at exit.
class TempFile {
 public:
  explicit TempFile(std::string_view stem) {
    const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr ? dir : "/tmp") + "/rdpkit-fuzz-" + std::string(stem) + "-" +
            std::to_string(getpid());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() { std::remove(path_.c_str()); }

  const std::string& Write(std::string_view text) const {
    std::FILE* file = std::fopen(path_.c_str(), "wb");
    if (file == nullptr) Fail("cannot create the temporary file", path_);
    const bool ok = std::fwrite(text.data(), 1, text.size(), file) == text.size();
    if (std::fclose(file) != 0 || !ok) Fail("cannot write the temporary file", path_);
    return path_;
  }

 private:
  std::string path_;
};

}  // namespace rdpkit::fuzz

#endif  // RDPKIT_FUZZ_FUZZ_UTIL_H_
