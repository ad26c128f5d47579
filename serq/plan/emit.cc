#include "serq/plan/emit.h"

#include <cstdlib>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "serq/sweep/emit.h"

namespace serq::plan {

namespace {

constexpr absl::string_view kHead = "serq plan flags 1";


bool ReadDouble(absl::string_view text, double* out) {
  const std::string s(text);
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size();
}

}  // namespace

std::string FlagsPath(const std::string& dir) { return absl::StrCat(dir, "/plan.flags"); }
std::string ResultPath(const std::string& dir, int candidate) {
  return absl::StrCat(dir, "/results/candidate-", candidate, ".txt");
}

std::string EmittedText(const Emitted& e) {
  std::string out = absl::StrCat(kHead, "\n");
  absl::StrAppend(&out, "cwd ", absl::CEscape(e.cwd), "\n");
  absl::StrAppend(&out, "command ", absl::CEscape(e.command), "\n");
  absl::StrAppend(&out, "candidates ", e.candidates, "\n");
  if (e.has_trace) {
    // 17 digits: the same doubles back, so the programs are the same bytes.
    absl::StrAppend(&out, absl::StrFormat("trace %d %.17g %.17g\n", e.trace.rows, e.trace.first, e.trace.last));
  }
  for (const auto& [name, value] : e.flags) absl::StrAppend(&out, "flag ", name, " ", absl::CEscape(value), "\n");
  return out;
}

absl::StatusOr<Emitted> ParseEmitted(absl::string_view text, const std::string& path) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  auto bad = [&](size_t line, absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":", line + 1, ": error: ", what));
  };
  if (lines.empty() || lines[0] != kHead) return bad(0, absl::StrCat("not a serq plan's flags (expected '", kHead, "')"));
  Emitted e;
  bool has_cwd = false, has_command = false, has_count = false;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<absl::string_view> parts = absl::StrSplit(lines[i], absl::MaxSplits(' ', 1));
    const absl::string_view key = parts[0];
    const absl::string_view rest = parts.size() > 1 ? parts[1] : "";
    if (key == "cwd") {
      if (!absl::CUnescape(rest, &e.cwd)) return bad(i, "cwd: does not unescape");
      has_cwd = true;
    } else if (key == "command") {
      if (!absl::CUnescape(rest, &e.command)) return bad(i, "command: does not unescape");
      has_command = true;
    } else if (key == "candidates") {
      if (!absl::SimpleAtoi(rest, &e.candidates) || e.candidates < 1) return bad(i, "candidates: expected a count");
      has_count = true;
    } else if (key == "trace") {
      std::vector<absl::string_view> v = absl::StrSplit(rest, ' ');
      if (v.size() != 3 || !absl::SimpleAtoi(v[0], &e.trace.rows) || !ReadDouble(v[1], &e.trace.first) ||
          !ReadDouble(v[2], &e.trace.last)) {
        return bad(i, "trace: expected ROWS FIRST LAST");
      }
      e.has_trace = true;
    } else if (key == "flag") {
      std::vector<absl::string_view> v = absl::StrSplit(rest, absl::MaxSplits(' ', 1));
      std::string value;
      if (v.size() != 2 || v[0].empty() || !absl::CUnescape(v[1], &value)) return bad(i, "flag: expected NAME VALUE");
      e.flags.emplace_back(std::string(v[0]), value);
    } else {
      return bad(i, absl::StrCat("unknown line '", key, "'"));
    }
  }
  if (!has_cwd || !has_command || !has_count) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": error: lacks its cwd, command or candidates line"));
  }
  return e;
}

std::string EmitParallel(const std::string& self, const std::string& dir, int candidates) {
  std::string out;
  for (int k = 0; k < candidates; ++k) {
    absl::StrAppend(&out, ShellQuote(self), " plan --out ", ShellQuote(dir), " --candidate ", k, "\n");
  }
  return out;
}

std::string EmitSlurm(const std::string& self, const std::string& dir, int candidates) {
  return SlurmArrayScript(
      absl::StrCat("serq plan: ", candidates, candidates == 1 ? " candidate" : " candidates",
                   " (each its whole search on one core)"),
      "serq-plan", self, "plan", dir, "--candidate", static_cast<uint64_t>(candidates));
}

}  // namespace serq::plan
