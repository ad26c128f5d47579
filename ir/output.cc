#include "ir/output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace serq {

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
  Buffer() : data_(kSize) { setp(data_.data(), data_.data() + data_.size()); }
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
    setp(data_.data(), data_.data() + data_.size());
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

OutputFile::~OutputFile() { (void)Close(); }

absl::Status WriteFile(const std::string& path, absl::string_view bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  absl::Status status = fd < 0 ? absl::NotFoundError(std::strerror(errno)) : WriteAll(fd, bytes);
  if (fd >= 0 && ::close(fd) != 0 && status.ok()) status = absl::ResourceExhaustedError(std::strerror(errno));
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat("cannot write '", path, "': ", status.message()));
}

absl::Status OutputFile::Open(const std::string& path) {
  if (path == "-") {
    buffer_->set_fd(STDOUT_FILENO, false);
    return absl::OkStatus();
  }
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return absl::NotFoundError(std::strerror(errno));
  buffer_->set_fd(fd, true);
  return absl::OkStatus();
}

bool OutputFile::failed() const { return !buffer_->status().ok() || stream_.fail(); }

absl::Status OutputFile::Close() {
  if (buffer_->fd() < 0) return buffer_->status();
  stream_.flush();
  if (buffer_->owned() && ::close(buffer_->fd()) != 0) {
    buffer_->Fail(absl::ResourceExhaustedError(std::strerror(errno)));
  }
  buffer_->set_fd(-1, false);
  if (buffer_->status().ok() && stream_.fail()) {
    return absl::InternalError("the output stream failed");
  }
  return buffer_->status();
}

}  // namespace serq
