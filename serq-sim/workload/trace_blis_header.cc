// The YAML header of BLIS's TraceV2 (`w1.trace.yaml`), as BLIS writes it
// (yaml.v3 marshalling sim/workload/tracev2.go's TraceHeader):
//
//   trace_version: 3
//   time_unit: microseconds
//   mode: generated
//   warm_up_requests: 0
//   workload_seed: 42
//   server:
//       type: vllm
//
// Not a YAML parser: a reader of that shape, which refuses what it does
// not read rather than guess (trace_blis.h says what).
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "ir/utf8.h"
#include "serq-sim/workload/trace_blis.h"

namespace serq::sim {
namespace {

// TraceHeader's scalar fields and its blocks (whose contents serq skips).
constexpr absl::string_view kScalars[] = {
    "trace_version", "time_unit",     "created_at", "mode", "warm_up_requests",
    "workload_seed", "workload_spec", "session_context_growth",
};
constexpr absl::string_view kBlocks[] = {
    "server", "network", "goodput_slo_targets", "kv_offload", "observed_kv_metrics",
};

bool In(absl::string_view name, absl::Span<const absl::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool IsKeyChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }

absl::Status Error(absl::string_view message) { return absl::InvalidArgumentError(message); }

// The value after `key:`, its comment (` #...` outside quotes) removed.
absl::string_view WithoutComment(absl::string_view value) {
  char quote = 0;
  for (size_t i = 0; i < value.size(); ++i) {
    char c = value[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      if (i == 0) quote = c;
    } else if (c == '#' && (i == 0 || value[i - 1] == ' ')) {
      return absl::StripTrailingAsciiWhitespace(value.substr(0, i));
    }
  }
  return value;
}

// A scalar serq reads: plain, or in single or double quotes (the quotes
// themselves and `''` in single quotes; no escapes). `quoted` says which.
absl::Status Scalar(absl::string_view key, absl::string_view value, std::string* out,
                    bool* quoted) {
  *quoted = false;
  if (value.empty()) {
    *out = "";
    return absl::OkStatus();
  }
  char c = value.front();
  if (c == '"' || c == '\'') {
    if (value.size() < 2 || value.back() != c) {
      return Error(absl::StrCat(key, ": a quoted value must end with its quote on the same line"));
    }
    absl::string_view inner = value.substr(1, value.size() - 2);
    out->clear();
    for (size_t i = 0; i < inner.size(); ++i) {
      if (c == '\'' && inner[i] == '\'') {
        if (i + 1 < inner.size() && inner[i + 1] == '\'') {
          out->push_back('\'');
          ++i;
          continue;
        }
        return Error(absl::StrCat(key, ": a lone ' inside single quotes"));
      }
      if (c == '"' && (inner[i] == '\\' || inner[i] == '"')) {
        return Error(absl::StrCat(key, ": an escape or a quote inside double quotes (serq reads "
                                       "quoted values without escapes)"));
      }
      out->push_back(inner[i]);
    }
    *quoted = true;
    return absl::OkStatus();
  }
  if (absl::StrContains("&*!|>{[%@`", c)) {
    return Error(absl::StrCat(key, ": '", value,
                              "' is a YAML anchor, alias, tag, block scalar or flow collection "
                              "(serq reads plain and quoted values only)"));
  }
  if (absl::StrContains(value, ": ")) {
    return Error(absl::StrCat(key, ": a value with ': ' in it (a mapping inside a value is not "
                                   "read)"));
  }
  *out = std::string(value);
  return absl::OkStatus();
}

// A whole number written plainly (YAML's decimal integer).
bool WholeNumber(absl::string_view text, int64_t* out) {
  if (text.empty()) return false;
  size_t start = text[0] == '-' || text[0] == '+' ? 1 : 0;
  if (start == text.size()) return false;
  for (size_t i = start; i < text.size(); ++i) {
    if (!absl::ascii_isdigit(text[i])) return false;
  }
  return absl::SimpleAtoi(text, out);
}

}  // namespace

std::string BlisHeaderPath(absl::string_view data_path) {
  if (absl::EndsWith(data_path, ".csv")) {
    data_path.remove_suffix(4);
  }
  return absl::StrCat(data_path, ".yaml");
}

absl::Status ParseBlisTraceHeader(absl::string_view text, BlisTraceHeader* out, int* line) {
  *out = BlisTraceHeader();
  *line = 0;
  if (text.size() > kMaxBlisHeader) {
    return Error(absl::StrCat("a header of ", text.size(), " bytes: a TraceV2 header is a few "
                              "lines, at most ",
                              kMaxBlisHeader >> 20, " MB"));
  }
  SkipByteOrderMark(&text);
  std::vector<std::pair<std::string, int>> seen;  // key, line
  bool in_block = false;  // the lines under a block key (skipped)
  bool content = false;   // a key was read (a later '---' is a second document)
  bool version = false, unit = false;
  int number = 0;
  while (!text.empty()) {
    size_t end = text.find('\n');
    absl::string_view raw = text.substr(0, end);
    text.remove_prefix(end == absl::string_view::npos ? text.size() : end + 1);
    ++number;
    *line = number;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    absl::string_view stripped = absl::StripAsciiWhitespace(raw);
    if (stripped.empty() || stripped.front() == '#') continue;
    if (absl::StrContains(raw.substr(0, raw.find_first_not_of(" \t")), '\t')) {
      return Error("a tab in the indentation (YAML allows spaces only)");
    }
    if (raw.front() == ' ' || absl::StartsWith(raw, "- ") || raw == "-") {
      if (in_block) continue;
      return Error("an indented line outside a block (the header's fields are top-level "
                   "'key: value' lines; only server, network, goodput_slo_targets, kv_offload "
                   "and observed_kv_metrics hold others)");
    }
    in_block = false;
    if (raw == "---" || absl::StartsWith(raw, "--- ")) {
      if (content) return Error("a second YAML document ('---'): a TraceV2 header is one");
      continue;
    }
    if (raw == "...") return Error("'...' (the end of a YAML document): a TraceV2 header is one");
    size_t colon = raw.find(':');
    absl::string_view key = raw.substr(0, colon);
    if (colon == absl::string_view::npos ||
        (colon + 1 < raw.size() && raw[colon + 1] != ' ') || key.empty() ||
        !std::all_of(key.begin(), key.end(), IsKeyChar)) {
      return Error("expected 'key: value' (a field of the TraceV2 header)");
    }
    content = true;
    std::string name(key);
    for (const auto& [other, at] : seen) {
      if (other == name) {
        return Error(absl::StrCat("'", name, "' appears twice (first on line ", at, ")"));
      }
    }
    seen.emplace_back(name, number);
    absl::string_view value =
        WithoutComment(absl::StripAsciiWhitespace(raw.substr(colon + 1)));
    if (In(key, kBlocks)) {
      in_block = true;  // its contents, inline or below, are not read
      continue;
    }
    if (!In(key, kScalars)) {
      return Error(absl::StrCat("unknown field '", key,
                                "' (BLIS reads its header strictly, and so does serq: "
                                "trace_version, time_unit, created_at, mode, warm_up_requests, "
                                "workload_seed, workload_spec, session_context_growth, server, "
                                "network, goodput_slo_targets, kv_offload, observed_kv_metrics)"));
    }
    std::string scalar;
    bool quoted;
    if (absl::Status s = Scalar(key, value, &scalar, &quoted); !s.ok()) return s;
    if (key == "trace_version") {
      int64_t v;
      if (quoted || !WholeNumber(scalar, &v)) {
        return Error(absl::StrCat("trace_version '", scalar, "' is not a whole number"));
      }
      if (v != 2 && v != 3) {
        return Error(absl::StrCat("trace_version ", v, ": serq reads TraceV2 versions 2 and 3"));
      }
      out->version = static_cast<int>(v);
      version = true;
    } else if (key == "time_unit") {
      if (scalar != "microseconds" && scalar != "us") {
        return Error(absl::StrCat("time_unit '", scalar,
                                  "': the TraceV2 columns are in microseconds (time_unit "
                                  "microseconds, or us)"));
      }
      out->time_unit = scalar;
      unit = true;
    } else if (key == "warm_up_requests") {
      int64_t v = 0;
      if (!scalar.empty() && (quoted || !WholeNumber(scalar, &v) || v < 0)) {
        return Error(
            absl::StrCat("warm_up_requests '", scalar, "' is not a whole number >= 0"));
      }
      out->warm_up_requests = v;
    } else if (key == "workload_seed") {
      int64_t v;
      if (!scalar.empty() && scalar != "null" && scalar != "~" &&
          (quoted || !WholeNumber(scalar, &v))) {
        return Error(absl::StrCat("workload_seed '", scalar, "' is not a whole number"));
      }
    } else if (key == "mode") {
      out->mode = scalar;
    }
  }
  *line = 0;
  if (!version) return Error("the header has no trace_version");
  if (!unit) return Error("the header has no time_unit");
  return absl::OkStatus();
}

}  // namespace serq::sim
