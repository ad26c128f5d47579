// The Mooncake traces (FAST'25; conversation_trace.jsonl,
// toolagent_trace.jsonl, mooncake_trace.jsonl): one JSON object a line,
//   {"timestamp": 27482, "input_length": 6955, "output_length": 52,
//    "hash_ids": [46, 47, 48]}
// timestamp is in milliseconds from the start of the trace. The lines are
// parsed by protobuf's JSON parser into a google.protobuf.Struct, so no JSON
// is parsed by hand here.
//
// Columns (session variables): every numeric field of the first row but
// timestamp (input_length, output_length, ...), and, when the rows have
// hash_ids (the hashes of the prompt's KV blocks, each hash covering its
// whole prefix), `hash_ids` = the number of blocks and `cached_blocks` =
// how many leading blocks appeared in earlier rows: the blocks an
// unbounded prefix cache shared by every instance would hold when the
// request arrives (docs/traces.md). The ids themselves become the session's
// block list (Trace::block_ids), one 512-token block each, for pools with a
// prefix cache (docs/simulation.md §Prefix caches).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/struct.pb.h"
#include "ir/limits.h"
#include "serq-sim/workload/trace.h"
#include "serq-sim/workload/vllm_record.h"
#include "text/json_row.h"

namespace serq::sim {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

constexpr char kTimestamp[] = "timestamp";
constexpr char kHashIds[] = "hash_ids";
constexpr char kCachedBlocks[] = "cached_blocks";
// Mooncake's block: each hash id covers 512 tokens (the FAST'25 paper).
constexpr double kMooncakeBlock = 512;
// Every row has these; every other field is optional (the first row decides).
constexpr const char* kRequired[] = {kTimestamp, "input_length", "output_length"};
constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

class Reader {
 public:
  explicit Reader(Trace* out) : out_(out) {}

  absl::Status Row(absl::string_view line) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line.front() != '{') {
      return absl::InvalidArgumentError(
          "expected a JSON object '{...}' (one request a line)");
    }
    row_.Clear();  // (nested deeper than kMaxDataJsonDepth: refused)
    if (absl::Status s = text::ParseJsonRow(line, &row_); !s.ok()) return s;
    const auto& fields = row_.fields();
    for (const char* name : kRequired) {
      if (absl::Status s = CheckNumber(name); !s.ok()) return s;
    }
    for (const char* name : {"input_length", "output_length"}) {
      const double v = row_.fields().at(name).number_value();
      if (!IsTokenCount(v)) {
        return absl::InvalidArgumentError(absl::StrCat(name, " ", text::ShortestText(v),
                                                       " is not a whole number of tokens from 0 to ",
                                                       kMaxTokens));
      }
    }
    if (out_->times.empty()) {
      if (absl::Status s = Columns(); !s.ok()) return s;
    }
    double ms = fields.at(kTimestamp).number_value();
    if (ms < 0) {
      return absl::InvalidArgumentError(absl::StrCat("timestamp ", text::ShortestText(ms), " is negative"));
    }
    if (!out_->times.empty() && ms < previous_ms_) {
      return absl::InvalidArgumentError(
          absl::StrCat("timestamp ", text::ShortestText(ms), " is before the previous row's ",
                       text::ShortestText(previous_ms_), " (rows must be in time order)"));
    }
    // Every field a number must be a column: a trace is a table.
    std::vector<std::string> extra;
    for (const auto& [name, value] : fields) {
      bool numeric = value.kind_case() == Value::kNumberValue || name == kHashIds;
      if (numeric && name != kTimestamp &&
          !column_set_.contains(name)) {
        extra.push_back(name);
      }
    }
    if (!extra.empty()) {
      std::sort(extra.begin(), extra.end());
      bool in_first = std::binary_search(first_fields_.begin(), first_fields_.end(), extra[0]);
      return absl::InvalidArgumentError(absl::StrCat(
          "field '", extra[0], "' is ",
          in_first ? "a number here but not in the first row" : "not in the first row",
          " (every row must have the same numeric fields)"));
    }
    for (const std::string& column : out_->columns) {
      if (column == kCachedBlocks) continue;  // with hash_ids
      if (column == kHashIds) {
        if (absl::Status s = HashIds(fields); !s.ok()) return s;
        continue;
      }
      if (absl::Status s = CheckNumber(column.c_str()); !s.ok()) return s;
      out_->values.push_back(fields.at(column).number_value());
    }
    // ms / 1000: one rounding, so whole milliseconds give the double
    // nearest the decimal (27482 -> 27.482).
    out_->times.push_back(ms / 1000);
    previous_ms_ = ms;
    return absl::OkStatus();
  }

 private:
  absl::Status CheckNumber(const char* name) const {
    auto it = row_.fields().find(name);
    if (it == row_.fields().end()) {
      return absl::InvalidArgumentError(absl::StrCat("missing field '", name, "'"));
    }
    if (it->second.kind_case() != Value::kNumberValue) {
      return absl::InvalidArgumentError(absl::StrCat("field '", name, "' is not a number (found ",
                                                     text::JsonKind(it->second), ")"));
    }
    return absl::OkStatus();
  }

  // The first row decides the columns: its numeric fields but timestamp,
  // by name, then hash_ids and cached_blocks when it has hash_ids.
  absl::Status Columns() {
    bool hashes = false;
    for (const auto& [name, value] : row_.fields()) {
      first_fields_.push_back(name);
      if (name == kHashIds) {
        hashes = true;
      } else if (name != kTimestamp && value.kind_case() == Value::kNumberValue) {
        out_->columns.push_back(name);
      }
    }
    std::sort(out_->columns.begin(), out_->columns.end());
    std::sort(first_fields_.begin(), first_fields_.end());
    if (hashes) {
      if (row_.fields().count(kCachedBlocks)) {
        return absl::InvalidArgumentError(
            "field 'cached_blocks' clashes with the variable serq computes from hash_ids");
      }
      out_->columns.push_back(kHashIds);
      out_->columns.push_back(kCachedBlocks);
      out_->block_units = kMooncakeBlock;
      out_->block_starts.push_back(0);
    }
    // Looked up for every field of every row: a set, not a scan of the
    // columns (which made a header of 10^5 columns take seconds a row).
    column_set_.insert(out_->columns.begin(), out_->columns.end());
    return absl::OkStatus();
  }

  // hash_ids: its length, then how many leading ids earlier rows had.
  absl::Status HashIds(const google::protobuf::Map<std::string, Value>& fields) {
    auto it = fields.find(kHashIds);
    if (it == fields.end()) return absl::InvalidArgumentError("missing field 'hash_ids'");
    if (it->second.kind_case() != Value::kListValue) {
      return absl::InvalidArgumentError(absl::StrCat(
          "field 'hash_ids' is not a list of numbers (found ", text::JsonKind(it->second), ")"));
    }
    const auto& ids = it->second.list_value().values();
    ids_.clear();
    for (int i = 0; i < ids.size(); ++i) {
      double id = ids[i].number_value();
      if (ids[i].kind_case() != Value::kNumberValue || id != std::floor(id) ||
          std::abs(id) > kMaxExactInteger) {
        return absl::InvalidArgumentError(absl::StrCat("hash_ids[", i, "] is not a whole number"));
      }
      ids_.push_back(static_cast<int64_t>(id));
    }
    size_t cached = 0;
    while (cached < ids_.size() && seen_.contains(ids_[cached])) ++cached;
    seen_.insert(ids_.begin(), ids_.end());
    out_->block_ids.insert(out_->block_ids.end(), ids_.begin(), ids_.end());
    out_->block_starts.push_back(out_->block_ids.size());
    out_->values.push_back(static_cast<double>(ids_.size()));
    out_->values.push_back(static_cast<double>(cached));
    return absl::OkStatus();
  }

  Trace* out_;
  Struct row_;
  double previous_ms_ = 0;
  std::vector<std::string> first_fields_;  // sorted
  absl::flat_hash_set<std::string> column_set_;  // out_->columns
  std::vector<int64_t> ids_;
  absl::flat_hash_set<int64_t> seen_;  // every hash id of the rows so far
};

class MooncakeFormat final : public TraceFormat {
 public:
  absl::string_view name() const override { return "Mooncake JSON lines"; }
  absl::string_view looks() const override { return "a JSON object '{...}' a line"; }
  // A JSON object that is not a vLLM record (input_toks): those are
  // trace_vllm.cc's.
  bool Recognizes(absl::string_view first) const override {
    first = absl::StripLeadingAsciiWhitespace(first);
    return !first.empty() && first.front() == '{' && !LooksLikeVllmRecord(first);
  }
  absl::Status Read(absl::string_view first, TraceLines* lines, Trace* out) const override {
    Reader reader(out);
    absl::string_view line = first;
    do {
      if (absl::Status s = reader.Row(line); !s.ok()) return s;
    } while (lines->NextNonBlank(&line));
    return absl::OkStatus();
  }
};

}  // namespace

const TraceFormat& MooncakeTraceFormat() {
  static const MooncakeFormat* format = new MooncakeFormat();
  return *format;
}

}  // namespace serq::sim
