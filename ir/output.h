// Checked output: every byte a tool writes (stdout, --trace, a file) goes
// through here, so a full disk or a closed pipe is an error with its reason
// ("cannot write output: No space left on device", exit 2), never lost
// output and exit 0. stdio's fwrite/fflush and std::ofstream lose errno or
// report a failure only when their buffer happens to be flushed; these
// write with write(2), retry short writes and keep the first error.
#ifndef SERQ_IR_OUTPUT_H_
#define SERQ_IR_OUTPUT_H_

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace serq {

// Writes all of `bytes` to file descriptor `fd` (retrying short writes and
// EINTR). The error names the reason: "No space left on device".
absl::Status WriteAll(int fd, absl::string_view bytes);

// Creates (truncates) `path` and writes all of `bytes`, every write and
// the close checked: the error is "cannot write '<path>': <reason>".
absl::Status WriteFile(const std::string& path, absl::string_view bytes);

// A std::ostream over a file descriptor that keeps the first write error.
// Writes are buffered (64 KB); Close() flushes and returns the first error.
class OutputFile {
 public:
  OutputFile();
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Creates (truncates) `path`; "-" is stdout (not closed by Close).
  absl::Status Open(const std::string& path);
  std::ostream& stream() { return stream_; }
  // True once a write has failed (the stream then drops what it is given).
  bool failed() const;
  // Flushes and closes; the first error of any write, flush or close.
  absl::Status Close();

 private:
  class Buffer;
  std::unique_ptr<Buffer> buffer_;
  std::ostream stream_;
};

}  // namespace serq

#endif  // SERQ_IR_OUTPUT_H_
