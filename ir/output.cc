#include "ir/output.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "absl/strings/str_cat.h"

namespace serq {
namespace {

// The temporary files being written, for the signal handler, which may
// interrupt any thread at any point: fixed slots, each a path and a word
// (generation << 2 | state) changed only by atomic operations, so the
// handler takes no lock and allocates nothing. A writer claims a free slot
// (state 1), writes the path, and arms it with a new generation (state 2);
// it frees the slot (state 0) after its rename or removal. The handler
// copies an armed slot's path and removes the file only if the word is the
// same after the copy, so a path half-rewritten by another thread is never
// used. A file written while every slot is taken is still written whole;
// only a signal would leave its temporary file behind.
constexpr int kSlots = 64;
constexpr size_t kPathMax = 4096;
constexpr uint64_t kFree = 0, kClaimed = 1, kArmed = 2;

struct Slot {
  std::atomic<uint64_t> word{0};
  char path[kPathMax];
};
Slot g_slots[kSlots];

// The signals whose default action ends the process and that a user or a
// pipe or a file size limit (ulimit -f) sends; the faults (SIGSEGV,
// SIGABRT) are bugs, not interruptions.
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ};

extern "C" void RemoveTemporaryFiles(int sig) {
  const int saved_errno = errno;
  RemoveTemporaryOutputs();
  errno = saved_errno;
  // SA_RESETHAND put back the default action; the signal, blocked while
  // this runs, is delivered again when it returns, and ends the process.
  ::raise(sig);
}

}  // namespace

void RemoveTemporaryOutputs() {
  char path[kPathMax];
  for (Slot& slot : g_slots) {
    const uint64_t before = slot.word.load(std::memory_order_acquire);
    if ((before & 3) != kArmed) continue;
    size_t i = 0;
    for (; i + 1 < kPathMax && slot.path[i] != '\0'; ++i) path[i] = slot.path[i];
    path[i] = '\0';
    if (slot.word.load(std::memory_order_acquire) == before) ::unlink(path);
  }
}

namespace {

// Installed on the first temporary file, for the signals whose action is
// still the default: a signal the process ignores (nohup, a background
// job's SIGINT) or handles itself is left alone.
void InstallSignalHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kSignals) {
      struct sigaction old;
      if (::sigaction(sig, nullptr, &old) != 0) continue;
      if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction action;
      std::memset(&action, 0, sizeof(action));
      action.sa_handler = RemoveTemporaryFiles;
      sigemptyset(&action.sa_mask);
      action.sa_flags = SA_RESETHAND;
      ::sigaction(sig, &action, nullptr);
    }
  });
}

// The slot armed with `path`, or -1 when none is free (or the path is too long).
int Arm(const std::string& path) {
  if (path.size() >= kPathMax) return -1;
  InstallSignalHandlers();
  for (int i = 0; i < kSlots; ++i) {
    Slot& slot = g_slots[i];
    uint64_t word = slot.word.load(std::memory_order_relaxed);
    if ((word & 3) != kFree) continue;
    if (!slot.word.compare_exchange_strong(word, (word & ~uint64_t{3}) | kClaimed,
                                           std::memory_order_acq_rel)) {
      continue;
    }
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.word.store(((word >> 2) + 1) << 2 | kArmed, std::memory_order_release);
    return i;
  }
  return -1;
}

void Disarm(int i) {
  if (i < 0) return;
  Slot& slot = g_slots[i];
  slot.word.store(slot.word.load(std::memory_order_relaxed) & ~uint64_t{3},
                  std::memory_order_release);
}

absl::Status ErrnoError(absl::string_view what = "") {
  const int e = errno;
  return absl::ResourceExhaustedError(absl::StrCat(std::strerror(e), what));
}

// Where a file `path` is written: `*in_place` when it exists and is not a
// regular file (a device, a FIFO, a directory: opened as it is, so that
// /dev/null stays a device and a directory is refused by open); otherwise
// `*target`, the absolute path the rename replaces (a symbolic link's
// file), and `*mode`, the permissions of the file there (0 when there is
// none), which the new file keeps.
absl::Status Resolve(const std::string& path, bool* in_place, std::string* target, mode_t* mode) {
  struct stat st;
  *in_place = false;
  *mode = 0;
  *target = path;
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      *in_place = true;
      return absl::OkStatus();
    }
    // A file the user may not write stays so: the rename would replace it.
    if (::access(path.c_str(), W_OK) != 0) return ErrnoError();
    *mode = st.st_mode & 07777;
    if (char* real = ::realpath(path.c_str(), nullptr); real != nullptr) {
      *target = real;
      std::free(real);
    }
  }
  if (target->empty() || target->back() == '/') {
    *in_place = true;  // no file name: open says why
    return absl::OkStatus();
  }
  if (target->front() != '/') {
    char* cwd = ::getcwd(nullptr, 0);
    if (cwd == nullptr) return ErrnoError();
    *target = absl::StrCat(cwd, "/", *target);
    std::free(cwd);
  }
  return absl::OkStatus();
}

// Creates the temporary file of `target` (absolute), trying the next name
// when one is taken (a killed run's, or another writer's of the same path).
int CreateTemporary(const std::string& target, mode_t mode, std::string* temporary) {
  for (int attempt = 0; attempt < kTemporaryAttempts; ++attempt) {
    *temporary = TemporaryPath(target, attempt);
    int fd = ::open(temporary->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      if (mode != 0) (void)::fchmod(fd, mode);
      return fd;
    }
    if (errno != EEXIST) return -1;
  }
  return -1;
}

}  // namespace

std::string TemporaryPath(const std::string& path, int attempt, int pid) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string out = absl::StrCat(dir, ".", name, ".tmp-", pid != 0 ? pid : ::getpid());
  if (attempt > 0) absl::StrAppend(&out, "-", attempt);
  return out;
}

absl::Status WriteAll(int fd, absl::string_view bytes) {
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::ResourceExhaustedError(std::strerror(errno));
    }
    if (n == 0) return absl::ResourceExhaustedError("wrote nothing");
    p += n;
    left -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

class OutputFile::Buffer : public std::streambuf {
 public:
  Buffer() : data_(kSize) { Drop(); }
  void set_fd(int fd, bool owned) {
    fd_ = fd;
    owned_ = owned;
  }
  int fd() const { return fd_; }
  bool owned() const { return owned_; }
  const absl::Status& status() const { return status_; }
  void Fail(absl::Status s) {
    if (status_.ok()) status_ = std::move(s);
  }
  void Reset() { status_ = absl::OkStatus(); }
  // Forgets what is buffered.
  void Drop() { setp(data_.data(), data_.data() + data_.size()); }
  int sync() override { return Drain() ? 0 : -1; }
  int_type overflow(int_type c) override {
    if (!Drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }

 private:
  static constexpr size_t kSize = 64 * 1024;
  bool Drain() {
    size_t n = pptr() - pbase();
    Drop();
    if (!status_.ok()) return false;  // drop what comes after a failure
    if (fd_ < 0) {
      Fail(absl::FailedPreconditionError("not open"));
      return false;
    }
    if (n > 0) Fail(WriteAll(fd_, absl::string_view(data_.data(), n)));
    return status_.ok();
  }
  std::vector<char> data_;
  int fd_ = -1;
  bool owned_ = false;
  absl::Status status_;
};

OutputFile::OutputFile() : buffer_(std::make_unique<Buffer>()), stream_(buffer_.get()) {}

OutputFile::~OutputFile() { Discard(); }

namespace {

// Whether `path` is compared (DistinctFiles): named, not "-", and a regular
// file or nothing yet.
bool Compared(const std::string& path) {
  if (path.empty() || path == "-") return false;
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  return !std::filesystem::exists(status) || std::filesystem::is_regular_file(status);
}

}  // namespace

bool SameFile(const std::string& a, const std::string& b) {
  std::error_code error;
  if (std::filesystem::exists(a, error) && std::filesystem::exists(b, error)) {
    return std::filesystem::equivalent(a, b, error);
  }
  return std::filesystem::weakly_canonical(std::filesystem::absolute(a, error), error) ==
         std::filesystem::weakly_canonical(std::filesystem::absolute(b, error), error);
}

absl::Status DistinctFiles(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!Compared(outputs[i].path)) continue;
    for (size_t j = 0; j < i; ++j) {
      if (Compared(outputs[j].path) && SameFile(outputs[i].path, outputs[j].path)) {
        return absl::InvalidArgumentError(absl::StrCat(outputs[j].what, " and ", outputs[i].what, " name one file, '",
                                                       outputs[i].path, "': each would replace the other's"));
      }
    }
    for (const NamedPath& in : inputs) {
      if (Compared(in.path) && SameFile(outputs[i].path, in.path)) {
        return absl::InvalidArgumentError(absl::StrCat(outputs[i].what, " names ", in.what, ", '", in.path,
                                                       "': writing it would destroy what is read"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status WriteFile(const std::string& path, absl::string_view bytes) {
  OutputFile file;
  absl::Status status = file.Open(path);
  if (status.ok()) {
    file.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    status = file.Commit();
  }
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat("cannot write '", path, "': ", status.message()));
}

absl::Status OutputFile::Open(const std::string& path) {
  Discard();
  buffer_->Reset();
  stream_.clear();
  if (path == "-") {
    buffer_->set_fd(STDOUT_FILENO, false);
    return absl::OkStatus();
  }
  bool in_place = false;
  std::string target;
  mode_t mode = 0;
  if (absl::Status s = Resolve(path, &in_place, &target, &mode); !s.ok()) return s;
  if (in_place) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) return absl::NotFoundError(std::strerror(errno));
    buffer_->set_fd(fd, true);
    return absl::OkStatus();
  }
  std::string temporary;
  int fd = CreateTemporary(target, mode, &temporary);
  if (fd < 0) {
    const int e = errno;
    // A directory the user cannot write, beside a file they can: say why a
    // write needs the directory.
    if (e == EACCES || e == EPERM || e == EROFS) {
      return absl::NotFoundError(absl::StrCat(std::strerror(e), " (creating the temporary file '",
                                              temporary, "' to rename over it)"));
    }
    return absl::NotFoundError(std::strerror(e));
  }
  // Armed before the first byte: a signal from here on removes it.
  slot_ = Arm(temporary);
  target_ = std::move(target);
  temporary_ = std::move(temporary);
  buffer_->set_fd(fd, true);
  return absl::OkStatus();
}

bool OutputFile::failed() const { return !buffer_->status().ok() || stream_.fail(); }

void OutputFile::CloseDescriptor() {
  if (buffer_->owned() && ::close(buffer_->fd()) != 0) {
    buffer_->Fail(absl::ResourceExhaustedError(std::strerror(errno)));
  }
  buffer_->set_fd(-1, false);
}

absl::Status OutputFile::Commit() {
  if (buffer_->fd() < 0) return buffer_->status();
  stream_.flush();
  CloseDescriptor();
  if (buffer_->status().ok() && stream_.fail()) {
    buffer_->Fail(absl::InternalError("the output stream failed"));
  }
  if (!temporary_.empty()) {
    if (buffer_->status().ok() && ::rename(temporary_.c_str(), target_.c_str()) != 0) {
      buffer_->Fail(ErrnoError(" (renaming the temporary file over it)"));
    }
    if (!buffer_->status().ok()) ::unlink(temporary_.c_str());
    Disarm(slot_);
    slot_ = -1;
    temporary_.clear();
    target_.clear();
  }
  return buffer_->status();
}

void OutputFile::Discard() {
  if (buffer_->fd() < 0) return;
  if (temporary_.empty()) {
    // In place (stdout, a device): what was written is out already; the
    // rest goes out too, as a stream would have it.
    stream_.flush();
    CloseDescriptor();
    return;
  }
  buffer_->Drop();
  CloseDescriptor();
  ::unlink(temporary_.c_str());
  Disarm(slot_);
  slot_ = -1;
  temporary_.clear();
  target_.clear();
}

}  // namespace serq
