// The workload of serq physics's program: a trace's columns, a named
// length distribution (physics.h, ReplayColumns and ParseLengthLines).
#include "serq/physics/physics.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ir/limits.h"
#include "serq/models/program_text.h"
#include "serq/models/vllm_engine.h"
#include "serq/physics/text.h"
#include "serq-sim/workload/trace.h"
#include "text/csv.h"
#include "text/lines.h"

namespace serq::physics {

// A trace's prompt and output columns are told from its first non-blank
// line as the trace readers tell the formats apart (docs/traces.md).
absl::Status ReplayColumns(const std::string& trace, std::string* prompt, std::string* output) {
  // The program names the trace in a string, which cannot hold a control
  // character (serq physics and serq plan alike read the trace here).
  if (const std::string c = models::ControlCharacter(trace); !c.empty()) {
    return Invalid(absl::StrCat("--replay ", absl::CHexEscape(trace), ": the path holds a control character (", c,
                                "), which the program's strings cannot hold: rename the file"));
  }
  std::ifstream in(trace, std::ios::binary);
  // A trace that cannot be read is misuse (not InvalidArgument: exit 2).
  if (!in) return absl::NotFoundError(absl::StrCat("--replay ", trace, ": cannot be read"));
  text::Lines lines(&in);
  absl::string_view first;
  if (!lines.NextNonBlank(&first)) {
    if (in.bad()) {
      return absl::DataLossError(absl::StrCat("--replay ", trace, ": cannot be read: ", std::strerror(errno)));
    }
    return Invalid(absl::StrCat("--replay ", trace, ": no line to tell its columns from"));
  }
  if (!prompt->empty() && !output->empty()) {
    // Named columns (--columns): the first line names them (a CSV header,
    // a JSON line's keys), or the program would fail at its first row.
    const bool json = absl::StartsWith(absl::StripLeadingAsciiWhitespace(first), "{");
    std::vector<absl::string_view> header;
    if (!json) text::CsvFields(first, &header);
    for (const std::string* c : {prompt, output}) {
      const bool named = json ? absl::StrContains(first, absl::StrCat("\"", *c, "\""))
                              : std::find(header.begin(), header.end(), *c) != header.end();
      if (!named) {
        return Invalid(absl::StrCat("--columns: the first line of ", trace, " names no column '", *c, "'"));
      }
    }
    return absl::OkStatus();
  }
  struct Format {
    const char* marker;
    const char* prompt;
    const char* output;
  };
  for (const Format& f : {Format{"input_toks", "input_toks", "output_toks"},
                          Format{"input_length", "input_length", "output_length"},
                          Format{"ContextTokens", "ContextTokens", "GeneratedTokens"},
                          Format{"input_tokens", "input_tokens", "output_tokens"}}) {
    if (absl::StrContains(first, f.marker)) {
      *prompt = f.prompt;
      *output = f.output;
      return absl::OkStatus();
    }
  }
  return Invalid(absl::StrCat("--replay ", trace, ": no prompt and output columns serq knows "
                              "(input_toks, input_length, ContextTokens, input_tokens): name them "
                              "with --columns PROMPT,OUTPUT"));
}

absl::StatusOr<LongestRequest> ReplayLongest(const std::string& trace, const std::string& prompt,
                                             const std::string& output) {
  sim::Trace t;
  sim::TraceError error;
  if (!sim::ReadTrace(trace, &t, &error)) {
    if (!error.opened) return absl::NotFoundError(absl::StrCat("--replay ", trace, ": cannot be read"));
    return absl::InvalidArgumentError(sim::TraceErrorText(trace, error));
  }
  int columns[2] = {-1, -1};
  const std::string* names[2] = {&prompt, &output};
  for (int c = 0; c < 2; ++c) {
    for (size_t i = 0; i < t.columns.size(); ++i) {
      if (t.columns[i] == *names[c]) columns[c] = static_cast<int>(i);
    }
    if (columns[c] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(trace, ": error: no column '", *names[c], "' in its rows (", t.format, ": ",
                       absl::StrJoin(t.columns, ", "), "); name them with --columns PROMPT,OUTPUT"));
    }
  }
  if (t.times.empty()) return absl::InvalidArgumentError(absl::StrCat(trace, ": error: no request to replay"));
  LongestRequest out;
  const size_t width = t.columns.size();
  for (size_t row = 0; row < t.times.size(); ++row) {
    auto which = [&] {
      return absl::StrCat("row ", row + 1, " in arrival order, ", N(t.times[row]), " s after the first arrival");
    };
    int64_t tokens = 0, prompt_tokens = 0;
    for (int c = 0; c < 2; ++c) {
      const double x = t.values[row * width + columns[c]];
      if (!(x >= 1 && x <= (1 << 30) && x == std::floor(x))) {
        return absl::InvalidArgumentError(absl::StrCat(
            trace, ": error: ", which(), ": ", *names[c], " ", N(x), ": expected a whole ",
            "number of tokens from 1 to 2^30 (vLLM refuses an empty prompt and makes at least one token a "
            "request)"));
      }
      tokens += static_cast<int64_t>(x);
      if (c == 0) prompt_tokens = static_cast<int64_t>(x);
    }
    out.request_tokens.push_back(tokens);
    if (tokens > out.tokens) {
      out.tokens = tokens;
      out.which = which();
    }
    if (prompt_tokens > out.prompt) {
      out.prompt = prompt_tokens;
      out.prompt_which = which();
    }
  }
  return out;
}

absl::StatusOr<LongestRequest> ReplayRequests(const Workload& w, std::string* prompt, std::string* output) {
  *prompt = w.prompt_column;
  *output = w.output_column;
  if (absl::Status s = ReplayColumns(w.replay, prompt, output); !s.ok()) return s;
  return ReplayLongest(w.replay, *prompt, *output);
}

absl::StatusOr<WorkloadFit> FitWorkload(const models::ModelConfig& m, const Deployment& d, const Workload& w) {
  WorkloadFit fit;
  fit.max_len = d.max_model_len.value_or(m.max_model_len);
  fit.max_len_from = !d.max_model_len                ? absl::StrCat("the model's, ", m.max_model_len_from)
                     : d.max_model_len_from.empty() ? std::string("--max-model-len")
                                                    : d.max_model_len_from;
  if (d.max_model_len && *d.max_model_len > m.max_model_len_limit) {
    return Invalid(absl::StrCat("--max-model-len ", *d.max_model_len, " is more than the model's ",
                                m.max_model_len_limit, " (", m.max_model_len_limit_from, "), which vLLM refuses"));
  }
  auto refused = [&](int64_t prompt) { return models::PromptPastMaxModelLen(prompt, fit.max_len, fit.max_len_from); };
  if (!w.replay.empty()) {
    if (w.rate > 0) return Invalid("--replay and --rate: one workload or the other");
    absl::StatusOr<LongestRequest> r = ReplayRequests(w, &fit.prompt, &fit.output);
    if (!r.ok()) return r.status();
    if (r->prompt >= fit.max_len) {
      return absl::InvalidArgumentError(absl::StrCat(w.replay, ": error: ", r->prompt_which, ": ", refused(r->prompt)));
    }
    fit.longest = r->tokens;
    fit.longest_which = r->which;
    fit.request_tokens = std::move(r->request_tokens);
    // vLLM stops a request at max_model_len, so none holds more.
    for (int64_t& t : fit.request_tokens) t = std::min(t, fit.max_len);
    return fit;
  }
  if (!(w.rate > 0) || !std::isfinite(w.rate)) {
    return Invalid("a workload: --replay TRACE, or --rate R (requests a second, above 0)");
  }
  // Written into the program's `limit Requests`: a whole number a double
  // holds exactly.
  if (w.requests < 1 || w.requests > kMaxExactly) {
    return Invalid(absl::StrCat("--requests must be from 1 to 2^53, not ", w.requests));
  }
  absl::StatusOr<LengthLines> l = ParseLengthLines(w.lengths);
  if (!l.ok()) return l.status();
  fit.lengths = *l;
  fit.longest = l->longest;
  fit.longest_which = absl::StrCat("--lengths ", w.lengths.empty() ? "llmservingsim-sharegpt" : w.lengths);
  if (l->longest_prompt >= fit.max_len) {
    return Invalid(absl::StrCat(fit.longest_which, ": it draws ", refused(l->longest_prompt)));
  }
  return fit;
}

absl::StatusOr<LengthLines> ParseLengthLines(const std::string& given) {
  // No name: the default, the runs' own mix.
  const std::string name = given.empty() ? "llmservingsim-sharegpt" : given;
  LengthLines out;
  auto whole = [](absl::string_view s, double* x) {
    return absl::SimpleAtod(s, x) && *x >= 1 && *x <= (1 << 24) && *x == std::floor(*x);
  };
  const std::string usage =
      "expected sharegpt, fixed:IN,OUT, uniform:ILO:IHI,OLO:OHI or llmservingsim-sharegpt (token "
      "counts, whole numbers from 1)";
  if (name == "sharegpt") {
    // The language's named lengths (docs/language.md §Named lengths): the
    // same 600 requests' quantile function, which follows the outputs'
    // bunching that the lognormal below does not.
    out.lines = {"set input_toks = sharegpt_input();", "set output_toks = sharegpt_output();"};
    out.what = "sharegpt: sharegpt_input() and sharegpt_output(), the quantile functions of the 600 "
               "requests of examples/vllm/runs (ShareGPT as LLMServingSim's bench samples it)";
    out.longest = 4570 + 1224;  // the two functions' largest values (docs/language.md §Named lengths)
    out.longest_prompt = 4570;
    return out;
  }
  if (name == "llmservingsim-sharegpt") {
    // The 600 requests of examples/vllm/runs (ShareGPT as LLMServingSim's
    // bench samples it: prompts of 257 to 4570 tokens, outputs forced to
    // 512 to 1224): the mean and standard deviation of the logs of each,
    // a lognormal within the observed range; prompt and output drawn apart
    // (their logs' correlation there is 0.16).
    out.lines = {"set input_toks = round(min(max(lognormal(6.595, 0.561), 257), 4570));",
                 "set output_toks = round(min(max(lognormal(6.478, 0.159), 512), 1224));"};
    out.what = "llmservingsim-sharegpt: lognormal prompts (log mean 6.595, sd 0.561, 257 to 4570 "
               "tokens) and outputs (6.478, 0.159, 512 to 1224), the 600 requests of "
               "examples/vllm/runs (ShareGPT as LLMServingSim's bench samples it)";
    out.longest = 4570 + 1224;
    out.longest_prompt = 4570;
    return out;
  }
  if (absl::StartsWith(name, "fixed:")) {
    std::vector<std::string> parts = absl::StrSplit(name.substr(6), ',');
    double in = 0, o = 0;
    if (parts.size() != 2 || !whole(parts[0], &in) || !whole(parts[1], &o)) {
      return Invalid(absl::StrCat("--lengths ", name, ": ", usage));
    }
    out.lines = {absl::StrCat("set input_toks = ", N(in), ";"),
                 absl::StrCat("set output_toks = ", N(o), ";")};
    out.what = absl::StrCat("fixed: prompts of ", N(in), " tokens, outputs of ", N(o));
    out.longest = static_cast<int64_t>(in + o);
    out.longest_prompt = static_cast<int64_t>(in);
    return out;
  }
  if (absl::StartsWith(name, "uniform:")) {
    std::vector<std::string> parts = absl::StrSplit(name.substr(8), ',');
    double lo[2], hi[2];
    bool ok = parts.size() == 2;
    for (int i = 0; ok && i < 2; ++i) {
      std::vector<std::string> range = absl::StrSplit(parts[i], ':');
      ok = range.size() == 2 && whole(range[0], &lo[i]) && whole(range[1], &hi[i]) && lo[i] <= hi[i];
    }
    if (!ok) return Invalid(absl::StrCat("--lengths ", name, ": ", usage));
    out.lines = {absl::StrCat("set input_toks = floor(uniform(", N(lo[0]), ", ", N(hi[0] + 1), "));"),
                 absl::StrCat("set output_toks = floor(uniform(", N(lo[1]), ", ", N(hi[1] + 1), "));")};
    out.what = absl::StrCat("uniform: prompts of ", N(lo[0]), " to ", N(hi[0]), " tokens, outputs of ",
                            N(lo[1]), " to ", N(hi[1]));
    out.longest = static_cast<int64_t>(hi[0] + hi[1]);
    out.longest_prompt = static_cast<int64_t>(hi[0]);
    return out;
  }
  return Invalid(absl::StrCat("--lengths ", name, ": ", usage));
}

}  // namespace serq::physics
