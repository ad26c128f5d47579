#include "serq-report/throughput.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace serq::report {

void AddThroughput(const MergedResults& merged, Report* report) {
  Throughput t;
  // The seconds of every replication's window, as the observations' rates
  // divide by (docs/report.md §observe, rate/s).
  double seconds = 0;
  for (const results::Replication* r : merged.replications) seconds += merged.Window(*r);
  if (!(seconds > 0)) return;
  t.set_seconds(seconds);
  // Requests: the sessions that ended in the window, when the results
  // record the window's counts (every session of the report has them).
  bool windowed = report->session_size() > 0;
  uint64_t requests = 0;
  for (const Session& s : report->session()) {
    windowed &= s.has_ended_window();
    requests += s.ended_window();
  }
  uint64_t prefills = 0;
  double prompt = 0, decode = 0;
  for (const results::Replication* r : merged.replications) {
    for (const results::SessionStats& s : r->session()) {
      prefills += s.prefills_window();
      prompt += s.prefill_tokens_window();
      decode += s.decode_tokens_window();
    }
  }
  const uint32_t gpus = merged.first->gpus();
  if (gpus > 0) t.set_gpus(gpus);
  if (windowed) {
    t.set_requests(requests);
    t.set_request_rate(static_cast<double>(requests) / seconds);
    if (gpus > 0) t.set_request_rate_per_gpu(t.request_rate() / gpus);
  }
  // Tokens only where the program has prefill or decode runs that
  // completed: a program of plain runs has no tokens to count.
  if (prefills > 0 || decode > 0) {
    // vLLM's output tokens include the first, which the prefill's last
    // step samples: a prefill run makes one, its decode run the rest.
    double output = decode + static_cast<double>(prefills);
    t.set_prefills(prefills);
    t.set_prompt_tokens(prompt);
    t.set_decode_tokens(decode);
    t.set_output_tokens(output);
    t.set_output_token_rate(output / seconds);
    t.set_total_token_rate((prompt + output) / seconds);
    if (gpus > 0) {
      t.set_output_token_rate_per_gpu(t.output_token_rate() / gpus);
      t.set_total_token_rate_per_gpu(t.total_token_rate() / gpus);
    }
  }
  if (t.has_request_rate() || t.has_output_token_rate()) *report->mutable_throughput() = t;
}

std::string ThroughputLine(const Report& report) {
  if (!report.has_throughput()) return "";
  const Throughput& t = report.throughput();
  // As the tables print their figures: 4 decimals.
  auto figures = [&](bool has_requests, double requests, bool has_tokens, double output,
                     double total) {
    std::vector<std::string> parts;
    if (has_requests) parts.push_back(absl::StrFormat("%.4f requests/s", requests));
    if (has_tokens) {
      parts.push_back(absl::StrFormat("%.4f output tokens/s", output));
      parts.push_back(absl::StrFormat("%.4f total tokens/s", total));
    }
    return absl::StrJoin(parts, ", ");
  };
  std::string line = absl::StrCat(
      "throughput: ", figures(t.has_request_rate(), t.request_rate(), t.has_output_token_rate(),
                              t.output_token_rate(), t.total_token_rate()));
  if (t.has_gpus()) {
    absl::StrAppend(&line, "; per GPU (", t.gpus(), t.gpus() == 1 ? " GPU): " : " GPUs): ",
                    figures(t.has_request_rate_per_gpu(), t.request_rate_per_gpu(),
                            t.has_output_token_rate_per_gpu(), t.output_token_rate_per_gpu(),
                            t.total_token_rate_per_gpu()));
  }
  return line;
}

std::optional<ThroughputFigure> ParseThroughputFigure(absl::string_view word) {
  ThroughputFigure f;
  f.per_gpu = absl::ConsumeSuffix(&word, "_per_gpu");
  if (word == "request_throughput") {
    f.kind = ThroughputKind::kRequests;
  } else if (word == "output_throughput") {
    f.kind = ThroughputKind::kOutputTokens;
  } else if (word == "total_token_throughput") {
    f.kind = ThroughputKind::kTotalTokens;
  } else {
    return std::nullopt;
  }
  return f;
}

std::string ThroughputFigureWords() {
  return "request_throughput, output_throughput, total_token_throughput (each also _per_gpu)";
}

std::vector<std::optional<double>> ThroughputByReplication(const MergedResults& merged,
                                                           ThroughputFigure figure) {
  std::vector<std::optional<double>> out;
  const uint32_t gpus = merged.first->gpus();
  for (const results::Replication* r : merged.replications) {
    double seconds = merged.Window(*r);
    uint64_t requests = 0, prefills = 0;
    double prompt = 0, decode = 0;
    bool windowed = r->session_size() > 0;
    for (const results::SessionStats& s : r->session()) {
      windowed &= s.in_progress_third_size() == 3 || merged.first->drained();
      requests += s.ended_window();
      prefills += s.prefills_window();
      prompt += s.prefill_tokens_window();
      decode += s.decode_tokens_window();
    }
    std::optional<double> v;
    const bool tokens = prefills > 0 || decode > 0;
    if (!(seconds > 0) || (figure.per_gpu && gpus == 0)) {
      // no figure
    } else if (figure.kind == ThroughputKind::kRequests) {
      if (windowed) v = static_cast<double>(requests) / seconds;
    } else if (tokens) {
      double output = decode + static_cast<double>(prefills);
      v = (figure.kind == ThroughputKind::kOutputTokens ? output : prompt + output) / seconds;
    }
    if (v && figure.per_gpu) *v /= gpus;
    out.push_back(v);
  }
  return out;
}

std::optional<double> ThroughputValue(const Report& report, ThroughputFigure figure) {
  if (!report.has_throughput()) return std::nullopt;
  const Throughput& t = report.throughput();
  switch (figure.kind) {
    case ThroughputKind::kRequests:
      if (figure.per_gpu) {
        return t.has_request_rate_per_gpu() ? std::optional(t.request_rate_per_gpu()) : std::nullopt;
      }
      return t.has_request_rate() ? std::optional(t.request_rate()) : std::nullopt;
    case ThroughputKind::kOutputTokens:
      if (figure.per_gpu) {
        return t.has_output_token_rate_per_gpu() ? std::optional(t.output_token_rate_per_gpu())
                                                 : std::nullopt;
      }
      return t.has_output_token_rate() ? std::optional(t.output_token_rate()) : std::nullopt;
    case ThroughputKind::kTotalTokens:
      if (figure.per_gpu) {
        return t.has_total_token_rate_per_gpu() ? std::optional(t.total_token_rate_per_gpu())
                                                : std::nullopt;
      }
      return t.has_total_token_rate() ? std::optional(t.total_token_rate()) : std::nullopt;
  }
  return std::nullopt;
}

}  // namespace serq::report
