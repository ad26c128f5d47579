#include "serq/plan/result_file.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace serq::plan {

namespace {

constexpr const char* kStatuses[] = {"ok", "none", "stopped", "error"};

// The Values a result carries, by key, in the order written.
std::vector<std::pair<std::string, Value*>> Values(CandidateResult* r) {
  std::vector<std::pair<std::string, Value*>> out = {
      {"tokens", &r->tokens},     {"tokens_per_gpu", &r->tokens_per_gpu}, {"tokens_per_user", &r->tokens_per_user},
      {"goodput", &r->goodput},   {"cost_per_mtok", &r->cost_per_mtok},
  };
  for (int k = 0; k < 3; ++k) {
    out.push_back({absl::StrCat("ttft_", kPercentiles[k]), &r->ttft[k]});
    out.push_back({absl::StrCat("tpot_", kPercentiles[k]), &r->tpot[k]});
    out.push_back({absl::StrCat("itl_", kPercentiles[k]), &r->itl[k]});
  }
  return out;
}

// %.17g: the shortest format every double reads back from exactly.
std::string Exact(double x) { return absl::StrFormat("%.17g", x); }

bool ReadDouble(absl::string_view text, double* out) {
  const std::string s(text);
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size();
}

}  // namespace

std::string ResultText(const Candidate& candidate, const CandidateResult& result) {
  CandidateResult r = result;
  std::string out = absl::StrCat("serq plan result ", candidate.Slug(), "\n");
  absl::StrAppend(&out, "status ", kStatuses[r.status], "\n");
  absl::StrAppend(&out, "why ", absl::CEscape(r.why), "\n");
  absl::StrAppend(&out, "rate ", Exact(r.rate), "\n");
  absl::StrAppend(&out, "at_top ", r.at_top ? 1 : 0, "\n");
  absl::StrAppend(&out, "replications ", r.replications, "\n");
  for (const auto& [key, v] : Values(&r)) {
    absl::StrAppend(&out, key, " ", v->defined ? 1 : 0, " ", Exact(v->value), " ", Exact(v->half_width), "\n");
  }
  return out;
}

absl::StatusOr<CandidateResult> ParseResult(absl::string_view text, const std::string& path,
                                            const Candidate& candidate) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  auto bad = [&](size_t line, absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":", line + 1, ": error: ", what));
  };
  const std::string head = absl::StrCat("serq plan result ", candidate.Slug());
  if (lines.empty() || !absl::StartsWith(lines[0], "serq plan result ")) {
    return bad(0, "not a serq plan result file");
  }
  if (lines[0] != head) {
    return bad(0, absl::StrCat("the result of '", lines[0].substr(17), "', not of candidate ", candidate.Slug(),
                               " (a result of another plan?)"));
  }
  std::map<std::string, std::pair<size_t, std::string>> fields;
  for (size_t i = 1; i < lines.size(); ++i) {
    const size_t space = lines[i].find(' ');
    if (space == absl::string_view::npos) return bad(i, "expected `key value`");
    fields[std::string(lines[i].substr(0, space))] = {i, std::string(lines[i].substr(space + 1))};
  }
  CandidateResult r;
  auto field = [&](const std::string& key, std::string* value, size_t* line) -> absl::Status {
    auto it = fields.find(key);
    if (it == fields.end()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": error: no '", key, "' line"));
    }
    *line = it->second.first;
    *value = it->second.second;
    return absl::OkStatus();
  };
  std::string value;
  size_t line = 0;
  if (absl::Status s = field("status", &value, &line); !s.ok()) return s;
  bool known = false;
  for (int k = 0; k < 4; ++k) {
    if (value == kStatuses[k]) {
      r.status = static_cast<CandidateResult::Status>(k);
      known = true;
    }
  }
  if (!known) return bad(line, absl::StrCat("unknown status '", value, "'"));
  if (absl::Status s = field("why", &value, &line); !s.ok()) return s;
  if (!absl::CUnescape(value, &r.why)) return bad(line, "a 'why' that does not unescape");
  if (absl::Status s = field("rate", &value, &line); !s.ok()) return s;
  if (!ReadDouble(value, &r.rate)) return bad(line, absl::StrCat("rate: not a number: '", value, "'"));
  // A searched rate, requests a second: what a task writes is finite and
  // at least 0 (nan would reach the merge as no workload at all).
  if (!(std::isfinite(r.rate) && r.rate >= 0)) {
    return bad(line, absl::StrCat("rate: expected requests a second, finite and at least 0, not '", value, "'"));
  }
  if (absl::Status s = field("at_top", &value, &line); !s.ok()) return s;
  if (value != "0" && value != "1") return bad(line, "at_top: expected 0 or 1");
  r.at_top = value == "1";
  if (absl::Status s = field("replications", &value, &line); !s.ok()) return s;
  if (!absl::SimpleAtoi(value, &r.replications)) return bad(line, "replications: not a whole number");
  for (const auto& [key, v] : Values(&r)) {
    if (absl::Status s = field(key, &value, &line); !s.ok()) return s;
    std::vector<absl::string_view> parts = absl::StrSplit(value, ' ');
    if (parts.size() != 3 || (parts[0] != "0" && parts[0] != "1") || !ReadDouble(parts[1], &v->value) ||
        !ReadDouble(parts[2], &v->half_width)) {
      return bad(line, absl::StrCat(key, ": expected DEFINED VALUE HALF_WIDTH"));
    }
    v->defined = parts[0] == "1";
  }
  return r;
}

}  // namespace serq::plan
