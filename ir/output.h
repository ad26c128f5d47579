// Checked output: every byte a tool writes (stdout, --trace, a file) goes
// through here, so a full disk or a closed pipe is an error with its reason
// ("cannot write output: No space left on device", exit 2), never lost
// output and exit 0. stdio's fwrite/fflush and std::ofstream lose errno or
// report a failure only when their buffer happens to be flushed; these
// write with write(2), retry short writes and keep the first error.
//
// Writes that never destroy: a file is written to a temporary file in the
// same directory, `.NAME.tmp-PID` (`.NAME.tmp-PID-K` when that name is
// taken), and renamed over NAME once every byte is written, so NAME is
// either its old self or the whole new file, never empty or cut short. A
// write that fails, or a tool that stops without committing, removes the
// temporary file; SIGINT, SIGTERM, SIGHUP, SIGPIPE and SIGXFSZ remove it
// too, before the process dies of the signal as it would have, and so does
// running out of memory (ir/cli.h ExitOnOutOfMemory). SIGKILL cannot be
// caught: the temporary file stays, and its name says what it is. A path
// that exists and is not a regular file (/dev/null, /dev/full, a FIFO,
// /dev/stdout) is written in place, as a stream; so is "-", stdout. A
// symbolic link is written through: the file it names is replaced. The
// rename makes the file whole against a killed process, not against a
// power loss (nothing is fsync'ed).
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

// Removes the temporary files being written, as the signals above do, for
// a handler that ends the process without unwinding (ir/cli.h
// ExitOnOutOfMemory's terminate hook). Async-signal-safe: it takes no lock and allocates
// nothing.
void RemoveTemporaryOutputs();

// Writes `bytes` as the whole of file `path` (through a temporary file and
// a rename, as OutputFile does); every write, the close and the rename
// checked: the error is "cannot write '<path>': <reason>", and `path` is
// then as it was.
absl::Status WriteFile(const std::string& path, absl::string_view bytes);

// A file a tool reads or writes, and the flag or argument that names it
// ("--series", "the program").
struct NamedPath {
  std::string what;
  std::string path;
};

// Every output a file of its own, and none of them a file the tool reads:
// two outputs on one file keep only the one written last (--results and
// --series both r.json), and an output over an input destroys it (--series
// x.sq, the program itself). Files are the same when they are one file on
// disk (a link to it included) or, not there yet, the same absolute path.
// Empty paths, "-" (stdout, stdin) and files that are there but not
// regular (/dev/null, a FIFO) are not compared. InvalidArgument: "--series
// and --results name one file, 'r.json': each would replace the other's".
absl::Status DistinctFiles(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

// Whether `a` and `b` name one file: one file on disk (through a link, or
// spelled `./x`, `d/../x`), or, not both there yet, the same absolute path.
bool SameFile(const std::string& a, const std::string& b);

// The temporary file OutputFile and WriteFile write `path` to:
// `.NAME.tmp-PID` beside it (`attempt` > 0: `.NAME.tmp-PID-attempt`), PID
// this process's, or `pid`'s when given (a child's, to clean up after it).
// A writer tries attempts from 0 up to kTemporaryAttempts - 1.
inline constexpr int kTemporaryAttempts = 100;
std::string TemporaryPath(const std::string& path, int attempt = 0, int pid = 0);

// A std::ostream over a file that keeps the first write error. Writes are
// buffered (64 KB). Nothing is at `path` until Commit().
class OutputFile {
 public:
  OutputFile();
  // Discard()s what was not committed.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Opens the temporary file of `path` (or `path` itself in place, when it
  // is not a regular file); "-" is stdout (never closed). The error is the
  // reason: "No such file or directory".
  absl::Status Open(const std::string& path);
  std::ostream& stream() { return stream_; }
  // True once a write has failed (the stream then drops what it is given).
  bool failed() const;
  // Flushes, closes, and renames the temporary file over the path. The
  // first error of any write, the flush, the close or the rename; on an
  // error the temporary file is removed and the path is as it was.
  absl::Status Commit();
  // Closes and removes the temporary file: the path stays as it was. (A
  // file written in place keeps what was written.)
  void Discard();

 private:
  class Buffer;
  void CloseDescriptor();
  std::unique_ptr<Buffer> buffer_;
  std::ostream stream_;
  std::string target_;     // what the rename replaces ("" in place)
  std::string temporary_;  // what is written ("" in place)
  int slot_ = -1;          // the temporary file's entry for the signal handler
};

}  // namespace serq

#endif  // SERQ_IR_OUTPUT_H_
