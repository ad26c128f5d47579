// Diagnostics as data: every phase (parse, link, the IR reader, the
// simulator's runtime checks) appends Diagnostic values and they are
// rendered once, sorted, in one format:
//
//   file:line:col: error: message          (a source location)
//     <the source line>
//     <caret under the column>
//   file:ir.path[3]: error: message        (IR from a tool: its IR path)
//   file: error: message                   (the whole input)
//   other.csv:7: error: message            (a line of another file the
//                                          input names, e.g. a trace)
#ifndef SERQ_IR_DIAGNOSTICS_H_
#define SERQ_IR_DIAGNOSTICS_H_

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "ir/limits.h"
#include "proto/ir.pb.h"

namespace serq {

struct Diagnostic {
  uint32_t line = 0;    // 1-based; 0 when there is no source location
  uint32_t column = 0;  // 1-based byte column in the line
  std::string ir_path;  // e.g. session[0].body[3].run.also[0]; used when line == 0
  std::string message;  // lowercase, no trailing period
  // Non-empty: the error is in this other file (a trace the program reads),
  // at `line` (0: the file as a whole); no column, no source line.
  std::string other_file;
};

class Diagnostics {
 public:
  // `file` is the name printed in front of every diagnostic; `source` the
  // text the locations point into (may be empty: then no source line is
  // printed).
  explicit Diagnostics(std::string file = "-", std::string source = "")
      : file_(std::move(file)), source_(std::move(source)) {}

  void Error(uint32_t line, uint32_t column, std::string message);
  void Error(const ir::Location& loc, std::string message) {
    Error(loc.line(), loc.column(), std::move(message));
  }
  // Located by source position when `loc` has one, else by `ir_path`.
  void Error(const ir::Location& loc, absl::string_view ir_path, std::string message);
  void ErrorAtPath(absl::string_view ir_path, std::string message);
  void ErrorInFile(std::string message) { ErrorAtPath("", std::move(message)); }
  // An error in another file that the input names (a trace): rendered
  // `other:line: error: message`, after the input's located diagnostics.
  void ErrorInOtherFile(std::string other, uint32_t line, std::string message);

  // Counted with the errors dropped past kMaxErrors (ir/limits.h), so that
  // `size() != before` still says an error was reported.
  bool empty() const { return size() == 0; }
  size_t size() const { return list_.size() + dropped_; }
  // Errors reported past the first kMaxErrors: counted, not kept (a
  // tool-made IR of 10^7 bad stages would otherwise keep gigabytes).
  size_t dropped() const { return dropped_; }
  void AddDropped(size_t n);
  // True once the first kMaxErrors errors are kept: nothing more would be
  // shown. A reader that can stop there (the lexer, the parser) does, and
  // says so with StopAtLimit().
  bool full() const { return list_.size() >= kMaxErrors; }
  void StopAtLimit() { stopped_ = true; }
  bool stopped() const { return stopped_; }
  // "file: error: too many errors: stopped after the first 20" when a
  // reader stopped, else "file: error: too many errors: N more after the
  // first 20 not shown" when errors were dropped, and a newline; "" when
  // neither. Render() ends with it.
  std::string TooMany() const;
  const std::vector<Diagnostic>& list() const { return list_; }
  const std::string& file() const { return file_; }
  void set_file(std::string file) { file_ = std::move(file); }
  void set_source(std::string source) { source_ = std::move(source); }

  // Every diagnostic, sorted by position (IR-path and file-level ones after
  // the located ones, in the order they were reported), duplicates dropped.
  std::string Render() const;

 private:
  std::string file_;
  std::string source_;
  std::vector<Diagnostic> list_;
  size_t dropped_ = 0;
  bool stopped_ = false;
  void Add(Diagnostic d);
};

// One diagnostic rendered: the header line, then (when `source` holds the
// line) the source line and a caret line.
std::string RenderDiagnostic(const Diagnostic& d, absl::string_view file,
                             absl::string_view source);

}  // namespace serq

#endif  // SERQ_IR_DIAGNOSTICS_H_
