// Results written one replication at a time, so that serq-sim's memory
// does not grow with the number of replications: the fields of the header
// (everything but `replication`), then each replication as it finishes,
// then the fields numbered after `replication`. The bytes are exactly
// EncodeMessage's of the whole message, in JSON and in binary (binary:
// deterministic serialization writes fields in number order; JSON: the
// printer writes them in number order too, one space of indent a level).
#ifndef SERQ_IR_RESULTS_STREAM_H_
#define SERQ_IR_RESULTS_STREAM_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "ir/io.h"
#include "proto/results.pb.h"

namespace serq {

class ResultsStream {
 public:
  using Write = std::function<absl::Status(absl::string_view)>;
  ResultsStream(Format format, Write write) : format_(format), write_(std::move(write)) {}

  // `header` without replications (any it has are ignored).
  absl::Status Begin(const results::Results& header);
  absl::Status Add(const results::Replication& replication);
  absl::Status End();

 private:
  Format format_;
  Write write_;
  std::string tail_;  // what End writes: the fields after `replication`
  size_t added_ = 0;
};

}  // namespace serq

#endif  // SERQ_IR_RESULTS_STREAM_H_
