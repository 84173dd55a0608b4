#include "rdpkit/trees/file_output.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>

#include "rdpkit/accountant/errors.h"

namespace rdpkit::trees {
namespace {

constexpr const char* kTempTag = ".rdpkit-tmp.";
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

// The temporary file being written, for the signal handler (a fixed buffer: the handler may only
// call async-signal-safe functions, and unlink and raise are).
char pending_temp[4096];
volatile std::sig_atomic_t have_pending_temp = 0;

extern "C" void RemoveTempAndReraise(int signal_number) {
  if (have_pending_temp != 0) unlink(pending_temp);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

}  // namespace

namespace internal {

// Installs the cleanup handler for each signal whose action is the default, and restores those
// on destruction. Signals the program handles itself are left alone. One temporary at a time.
class SignalCleanup {
 public:
  explicit SignalCleanup(const std::string& temp) {
    if (temp.size() >= sizeof(pending_temp)) return;
    std::memcpy(pending_temp, temp.c_str(), temp.size() + 1);
    have_pending_temp = 1;
    for (std::size_t i = 0; i < std::size(kCleanupSignals); ++i) {
      struct sigaction current {};
      if (sigaction(kCleanupSignals[i], nullptr, &current) != 0) continue;
      if (current.sa_handler != SIG_DFL) continue;
      struct sigaction cleanup {};
      cleanup.sa_handler = RemoveTempAndReraise;
      sigemptyset(&cleanup.sa_mask);
      installed_[i] = sigaction(kCleanupSignals[i], &cleanup, nullptr) == 0;
    }
  }
  ~SignalCleanup() {
    for (std::size_t i = 0; i < std::size(kCleanupSignals); ++i) {
      if (installed_[i]) std::signal(kCleanupSignals[i], SIG_DFL);
    }
    have_pending_temp = 0;
  }
  SignalCleanup(const SignalCleanup&) = delete;
  SignalCleanup& operator=(const SignalCleanup&) = delete;

 private:
  bool installed_[std::size(kCleanupSignals)] = {};
};

}  // namespace internal

namespace {

const char* KindOf(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

// How the target's temporaries' names begin: ".<stem>.", the stem being the name cut so that
// ".<stem>.<pid>.rdpkit-tmp.<8 hex>" stays within the 255 bytes of a file name (a target name of
// 230 bytes is legal, its temporary would not be). Targets that share the first bytes share the
// stem; only the pid and suffix tell their temporaries apart, which is all that is needed.
std::string TemporaryPrefix(const std::string& name) {
  constexpr std::size_t kMaxStemBytes = 200;
  std::string prefix(1, '.');
  prefix.append(name, 0, kMaxStemBytes);
  prefix += '.';
  return prefix;
}

// Removes ".<stem>.<pid>.rdpkit-tmp.*" files in dir whose process no longer exists.
void RemoveStaleTemporaries(const std::string& dir, const std::string& name) {
  DIR* listing = opendir(dir.c_str());
  if (listing == nullptr) return;
  const std::string prefix = TemporaryPrefix(name);
  while (const dirent* entry = readdir(listing)) {
    const std::string file = entry->d_name;
    if (file.compare(0, prefix.size(), prefix) != 0) continue;
    const std::size_t tag = file.find(kTempTag, prefix.size());
    if (tag == std::string::npos || tag == prefix.size()) continue;
    const std::string pid_text = file.substr(prefix.size(), tag - prefix.size());
    if (pid_text.find_first_not_of("0123456789") != std::string::npos || pid_text.size() > 9) {
      continue;
    }
    const long pid = std::strtol(pid_text.c_str(), nullptr, 10);
    if (pid <= 0 || pid == static_cast<long>(getpid())) continue;
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive or unknown
    const std::string stale = dir + "/" + file;
    struct stat info {};
    if (lstat(stale.c_str(), &info) == 0 && S_ISREG(info.st_mode)) unlink(stale.c_str());
  }
  closedir(listing);
}

bool WriteAll(int fd, std::string_view text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// "a/b/c.json" → "a/b" and "c.json"; "c.json" → "." and "c.json"; "/c.json" → "/" and "c.json".
void SplitPath(const std::string& path, std::string& dir, std::string& name) {
  const std::size_t slash = path.find_last_of('/');
  dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  name = slash == std::string::npos ? path : path.substr(slash + 1);
}

// A target path split into its folder and file name, after the checks both entry points share.
struct Target {
  std::string dir;
  std::string name;
  bool exists = false;
  struct stat existing {};
};

Target CheckedTarget(const std::string& path, const std::string& field) {
  if (path.empty()) throw InvalidArgument(field, "empty path");
  Target target;
  SplitPath(path, target.dir, target.name);
  if (target.name.empty() || target.name == "." || target.name == "..") {
    throw InvalidArgument(field, "\"" + path + "\" names a directory, not a file");
  }
  // Checked here, before any work: the rename onto a longer name would fail only at the end.
  const long name_max = pathconf(target.dir.c_str(), _PC_NAME_MAX);  // -1: unknown
  if (name_max > 0 && target.name.size() > static_cast<std::size_t>(name_max)) {
    throw InvalidArgument(
        field, "\"" + path + "\": its file name is " + std::to_string(target.name.size()) +
                   " bytes, longer than the " + std::to_string(name_max) + " its folder allows");
  }
  target.exists = lstat(path.c_str(), &target.existing) == 0;
  if (target.exists && !S_ISREG(target.existing.st_mode)) {
    throw InvalidArgument(field, "\"" + path + "\" is " + KindOf(target.existing.st_mode) +
                                     "; rdpkit writes only to a regular file or a new path "
                                     "(give the real file's path)");
  }
  return target;
}

// A path with its folder resolved (symbolic links, "..", "."): the same text for two spellings
// of one place, whether or not the file itself exists. The path itself when the folder does not
// resolve.
std::string ResolvedPath(const std::string& path) {
  std::string dir;
  std::string name;
  SplitPath(path, dir, name);
  char* real = realpath(dir.c_str(), nullptr);
  if (real == nullptr) return path;
  std::string resolved = real;
  std::free(real);
  return resolved + "/" + name;
}

bool SameFile(const std::string& a, const std::string& b) {
  struct stat first {};
  struct stat second {};
  if (stat(a.c_str(), &first) == 0 && stat(b.c_str(), &second) == 0) {
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino;
  }
  return ResolvedPath(a) == ResolvedPath(b);
}

bool IsFilePath(const std::string& path) {
  const std::size_t first = path.find_first_not_of(" \t\r\n");
  return !path.empty() && path != "-" && !(first != std::string::npos && path[first] == '{');
}

}  // namespace

void CheckOutputPath(const std::string& path, const std::string& field,
                     const std::vector<OtherFile>& others) {
  const Target target = CheckedTarget(path, field);
  for (const OtherFile& other : others) {
    if (!IsFilePath(other.path) || !SameFile(path, other.path)) continue;
    throw InvalidArgument(field, "\"" + path + "\" is the same file as --" + other.field + " (\"" +
                                     other.path + "\"); --" + field +
                                     " needs a file of its own, or one would overwrite the other");
  }
  struct stat folder {};
  if (stat(target.dir.c_str(), &folder) != 0 || !S_ISDIR(folder.st_mode)) {
    throw InvalidArgument(field, "\"" + path + "\": its folder \"" + target.dir +
                                     "\" does not exist (create it first)");
  }
  // The temporary file and the rename both need write and search permission on the folder.
  if (access(target.dir.c_str(), W_OK | X_OK) != 0) {
    throw InvalidArgument(
        field, "cannot create a file in \"" + target.dir + "\": " + std::strerror(errno));
  }
}

AtomicFileWriter::AtomicFileWriter(const std::string& path, const std::string& field)
    : path_(path), field_(field) {
  const Target target = CheckedTarget(path, field);
  dir_ = target.dir;
  exists_ = target.exists;
  mode_ = target.existing.st_mode;
  RemoveStaleTemporaries(dir_, target.name);

  std::random_device entropy;
  // The cleanup signals wait while the file is created and registered, so that no signal can
  // leave a temporary behind that the handler does not know of.
  sigset_t cleanup_signals;
  sigset_t previous;
  sigemptyset(&cleanup_signals);
  for (const int signal_number : kCleanupSignals) sigaddset(&cleanup_signals, signal_number);
  sigprocmask(SIG_BLOCK, &cleanup_signals, &previous);
  for (int attempt = 0; attempt < 16 && fd_ < 0; ++attempt) {
    char suffix[20];
    std::snprintf(suffix, sizeof(suffix), "%08x", static_cast<unsigned>(entropy()));
    temp_ =
        dir_ + "/" + TemporaryPrefix(target.name) + std::to_string(getpid()) + kTempTag + suffix;
    // 0666 less the umask, as for any new output file; an existing file's mode is copied below.
    fd_ = open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  const int open_errno = errno;
  if (fd_ >= 0) cleanup_ = std::make_unique<internal::SignalCleanup>(temp_);
  sigprocmask(SIG_SETMASK, &previous, nullptr);
  if (fd_ < 0) {
    throw InvalidArgument(field,
                          "cannot create a file in \"" + dir_ + "\": " + std::strerror(open_errno));
  }
}

AtomicFileWriter::~AtomicFileWriter() { Discard(); }

void AtomicFileWriter::Discard() noexcept {
  if (fd_ < 0) return;
  close(fd_);
  fd_ = -1;
  RemoveTemporary();
}

void AtomicFileWriter::RemoveTemporary() noexcept {
  unlink(temp_.c_str());
  cleanup_.reset();
}

void AtomicFileWriter::Write(std::string_view text) {
  if (fd_ < 0) throw std::logic_error("AtomicFileWriter::Write after Commit");
  if (!WriteAll(fd_, text)) {
    const int write_errno = errno;
    Discard();
    throw InvalidArgument(field_, "cannot write \"" + path_ + "\": " + std::strerror(write_errno));
  }
}

void AtomicFileWriter::Commit() {
  if (fd_ < 0) throw std::logic_error("AtomicFileWriter::Commit twice");
  bool ok = !exists_ || fchmod(fd_, mode_ & 07777) == 0;
  ok = ok && fsync(fd_) == 0;
  const int write_errno = errno;
  ok = close(fd_) == 0 && ok;
  fd_ = -1;
  if (!ok) {
    RemoveTemporary();
    throw InvalidArgument(field_, "cannot write \"" + path_ + "\": " + std::strerror(write_errno));
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    const int rename_errno = errno;
    RemoveTemporary();
    throw InvalidArgument(field_,
                          "cannot rename onto \"" + path_ + "\": " + std::strerror(rename_errno));
  }
  cleanup_.reset();
  // Make the rename itself durable.
  const int dir_fd = open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    (void)fsync(dir_fd);
    close(dir_fd);
  }
}

void WriteFileAtomically(const std::string& path, const std::string& text,
                         const std::string& field) {
  AtomicFileWriter writer(path, field);
  writer.Write(text);
  writer.Commit();
}

}  // namespace rdpkit::trees
