#include "serq/plan/render.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "chart/chart.h"
#include "chart/xml.h"
#include "serq-report/render.h"
#include "serq/models/vllm_engine.h"
#include "serq-report/table.h"
#include "serq/sweep/metrics.h"
#include "stats/format.h"

namespace serq::plan {
namespace {

using view::XmlEscape;


// A figure for people: "12.34 ± 0.56", to the decimal its ± supports
// (two digits of the half-width, as every serq table rounds: 6983.5 ±
// 312.7 is 6984 ± 313, 0.055 ± 0.057 is 0.055 ± 0.057), `digits` where the
// ± says nothing (0).
std::string PlusMinus(const Value& v, int digits) {
  if (!v.defined) return "-";
  const int decimals = FigureDecimals(v.half_width, digits);
  return absl::StrCat(report::FormatFixed(v.value, decimals), " ± ", report::FormatFixed(v.half_width, decimals));
}

std::string Status(const CandidateResult& r) {
  switch (r.status) {
    case CandidateResult::kOk: return r.on_front ? "front" : "ok";
    case CandidateResult::kNone: return "none";
    case CandidateResult::kStopped: return "stopped";
    case CandidateResult::kError: return "error";
  }
  return "";
}

std::string Num(const Value& v, int digits) { return v.defined ? report::FormatFixed(v.value, digits) : ""; }
std::string Hw(const Value& v, int digits) { return v.defined ? report::FormatFixed(v.half_width, digits) : ""; }

// The configuration in a line, for the hover and the tables.
std::string Describe(const Candidate& c, const CandidateResult& r) {
  std::string out = absl::StrCat(c.Label(), ", ", c.Gpus(), " GPUs");
  if (r.status == CandidateResult::kOk) {
    absl::StrAppend(&out, ": ", report::FormatFixed(r.rate, 3), " req/s", r.at_top ? " (the search's top)" : "",
                    "; ", PlusMinus(r.tokens_per_gpu, 1), " tok/s/GPU; ", PlusMinus(r.tokens_per_user, 1),
                    " tok/s/user; p99 TTFT ", PlusMinus(r.ttft[2], 3), " s; p99 TPOT ", PlusMinus(r.tpot[2], 4),
                    " s");
    if (r.cost_per_mtok.defined) absl::StrAppend(&out, "; $", PlusMinus(r.cost_per_mtok, 3), "/M tok");
  }
  return out;
}

}  // namespace

std::string CandidatesCsv(const PlanSpec& spec, const Plan& plan, bool front_only) {
  std::string out =
      "candidate,kind,gpus,tp,replicas,prefills,prefill_tp,decodes,decode_tp,max_num_seqs,"
      "max_num_batched_tokens,status,rate,rate_at_top,replications,tokens_s,tokens_s_hw,tokens_s_gpu,"
      "tokens_s_gpu_hw,tokens_s_user,tokens_s_user_hw,goodput,goodput_hw";
  for (const char* o : {"ttft", "tpot", "itl"}) {
    for (const char* p : kPercentiles) absl::StrAppend(&out, ",", o, "_", p, ",", o, "_", p, "_hw");
  }
  absl::StrAppend(&out, ",cost_per_mtok,cost_per_mtok_hw,why\n");
  std::vector<int> rows;
  if (front_only) {
    rows = plan.front;
  } else {
    for (int i = 0; i < static_cast<int>(plan.results.size()); ++i) rows.push_back(i);
  }
  for (int i : rows) {
    const Candidate& c = spec.candidates[i];
    const CandidateResult& r = plan.results[i];
    const bool ok = r.status == CandidateResult::kOk;
    std::vector<std::string> f = {
        c.Slug(), c.disaggregated ? "disaggregated" : "colocated", absl::StrCat(c.Gpus()),
        c.disaggregated ? "" : absl::StrCat(c.tp), c.disaggregated ? "" : absl::StrCat(c.replicas),
        c.disaggregated ? absl::StrCat(c.prefills) : "", c.disaggregated ? absl::StrCat(c.prefill_tp) : "",
        c.disaggregated ? absl::StrCat(c.decodes) : "", c.disaggregated ? absl::StrCat(c.decode_tp) : "",
        c.max_num_seqs > 0 ? absl::StrCat(c.max_num_seqs) : "default",
        c.max_num_batched_tokens > 0 ? absl::StrCat(c.max_num_batched_tokens) : "default", Status(r),
        ok ? report::FormatShortest(r.rate) : "", ok ? (r.at_top ? "1" : "0") : "",
        ok ? absl::StrCat(r.replications) : ""};
    for (const Value* v : {&r.tokens, &r.tokens_per_gpu, &r.tokens_per_user, &r.goodput}) {
      f.push_back(ok ? Num(*v, 3) : "");
      f.push_back(ok ? Hw(*v, 3) : "");
    }
    for (const Value* set : {r.ttft, r.tpot, r.itl}) {
      for (int k = 0; k < 3; ++k) {
        f.push_back(ok ? Num(set[k], 6) : "");
        f.push_back(ok ? Hw(set[k], 6) : "");
      }
    }
    f.push_back(ok ? Num(r.cost_per_mtok, 4) : "");
    f.push_back(ok ? Hw(r.cost_per_mtok, 4) : "");
    // One line a candidate: a failure's diagnostics (source line, caret)
    // joined by spaces.
    f.push_back(report::CsvField(absl::StrReplaceAll(r.why, {{"\n", " "}})));
    absl::StrAppend(&out, absl::StrJoin(f, ","), "\n");
  }
  return out;
}

std::string FrontSvg(const PlanSpec& spec, const Plan& plan, const Context& context) {
  // As wide as every serq chart (chart.h kChartWidth); the title on two
  // lines, so that a long GPU name ("NVIDIA RTX PRO 6000 Blackwell Server
  // Edition") stays inside it.
  const int width = view::kChartWidth, height = 500, left = 70, right = 170, top = 56, bottom = 56;
  const int pw = width - left - right, ph = height - top - bottom;
  double xmax = 0, ymax = 0;
  std::vector<int> shown;
  for (int i = 0; i < static_cast<int>(plan.results.size()); ++i) {
    const CandidateResult& r = plan.results[i];
    if (r.status != CandidateResult::kOk) continue;
    shown.push_back(i);
    xmax = std::max(xmax, r.tokens_per_gpu.value + r.tokens_per_gpu.half_width);
    ymax = std::max(ymax, r.tokens_per_user.value + r.tokens_per_user.half_width);
  }
  std::string out = absl::StrCat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", width, "\" height=\"", height, "\" viewBox=\"0 0 ",
      width, " ", height, "\" font-family=\"sans-serif\" font-size=\"12\">\n",
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", "<text x=\"", left, "\" y=\"20\" font-size=\"14\">",
      XmlEscape(absl::StrCat(context.model, " on up to ", context.gpus, " x ", context.gpu)), "</text>\n",
      "<text x=\"", left, "\" y=\"38\">each candidate at the largest rate meeting the SLOs</text>\n");
  if (shown.empty()) {
    absl::StrAppend(&out, "<text x=\"", left, "\" y=\"", top + ph / 2,
                    "\">No candidate meets the SLOs in a steady state: nothing to plot.</text>\n</svg>\n");
    return out;
  }
  const std::vector<double> xt = view::NiceTicks(0, xmax, 6), yt = view::NiceTicks(0, ymax, 6);
  const double x1 = xt.back(), y1 = yt.back();
  auto X = [&](double x) { return left + pw * x / x1; };
  auto Y = [&](double y) { return top + ph - ph * y / y1; };
  auto P = [](double v) { return absl::StrFormat("%.1f", v); };
  absl::StrAppend(&out, "<g stroke=\"#ccc\">\n");
  for (double t : xt) absl::StrAppend(&out, "<line x1=\"", P(X(t)), "\" y1=\"", top, "\" x2=\"", P(X(t)), "\" y2=\"", top + ph, "\"/>\n");
  for (double t : yt) absl::StrAppend(&out, "<line x1=\"", left, "\" y1=\"", P(Y(t)), "\" x2=\"", left + pw, "\" y2=\"", P(Y(t)), "\"/>\n");
  absl::StrAppend(&out, "</g>\n");
  const double xs = xt.size() > 1 ? xt[1] - xt[0] : 1, ys = yt.size() > 1 ? yt[1] - yt[0] : 1;
  for (double t : xt) {
    absl::StrAppend(&out, "<text x=\"", P(X(t)), "\" y=\"", top + ph + 16, "\" text-anchor=\"middle\">",
                    view::TickLabel(t, xs), "</text>\n");
  }
  for (double t : yt) {
    absl::StrAppend(&out, "<text x=\"", left - 6, "\" y=\"", P(Y(t) + 4), "\" text-anchor=\"end\">",
                    view::TickLabel(t, ys), "</text>\n");
  }
  absl::StrAppend(&out, "<text x=\"", left + pw / 2, "\" y=\"", height - 14,
                  "\" text-anchor=\"middle\">output tokens/s per GPU (all the candidate's GPUs)</text>\n",
                  "<text transform=\"translate(16,", top + ph / 2,
                  ") rotate(-90)\" text-anchor=\"middle\">output tokens/s per user (1 / mean TPOT)</text>\n");
  // The front, joined.
  std::vector<std::string> pts;
  for (int i : plan.front) {
    pts.push_back(absl::StrCat(P(X(plan.results[i].tokens_per_gpu.value)), ",",
                               P(Y(plan.results[i].tokens_per_user.value))));
  }
  absl::StrAppend(&out, "<polyline class=\"front\" fill=\"none\" stroke=\"#555\" stroke-dasharray=\"4 3\" points=\"",
                  absl::StrJoin(pts, " "), "\"/>\n");
  for (int i : shown) {
    const Candidate& c = spec.candidates[i];
    const CandidateResult& r = plan.results[i];
    const double x = X(r.tokens_per_gpu.value), y = Y(r.tokens_per_user.value);
    const std::string color = c.disaggregated ? "#d95f02" : "#1b9e77";
    absl::StrAppend(&out, "<g class=\"point ", c.disaggregated ? "disaggregated" : "colocated",
                    r.on_front ? " on-front" : "", "\" data-candidate=\"", c.Slug(), "\">\n<title>",
                    XmlEscape(Describe(c, r)), "</title>\n");
    // The 95% intervals.
    absl::StrAppend(&out, "<line stroke=\"", color, "\" x1=\"", P(X(r.tokens_per_gpu.value - r.tokens_per_gpu.half_width)),
                    "\" y1=\"", P(y), "\" x2=\"", P(X(r.tokens_per_gpu.value + r.tokens_per_gpu.half_width)), "\" y2=\"",
                    P(y), "\"/>\n", "<line stroke=\"", color, "\" x1=\"", P(x), "\" y1=\"",
                    P(Y(r.tokens_per_user.value - r.tokens_per_user.half_width)), "\" x2=\"", P(x), "\" y2=\"",
                    P(Y(r.tokens_per_user.value + r.tokens_per_user.half_width)), "\"/>\n");
    const std::string fill = r.on_front ? color : "white";
    if (c.disaggregated) {
      absl::StrAppend(&out, "<path d=\"M", P(x), " ", P(y - 6), " L", P(x + 6), " ", P(y), " L", P(x), " ", P(y + 6),
                      " L", P(x - 6), " ", P(y), " Z\" fill=\"", fill, "\" stroke=\"", color, "\" stroke-width=\"2\"/>\n");
    } else {
      absl::StrAppend(&out, "<circle cx=\"", P(x), "\" cy=\"", P(y), "\" r=\"5\" fill=\"", fill, "\" stroke=\"", color,
                      "\" stroke-width=\"2\"/>\n");
    }
    absl::StrAppend(&out, "</g>\n");
  }
  // The legend.
  const int lx = left + pw + 16;
  absl::StrAppend(&out, "<circle cx=\"", lx, "\" cy=\"", top + 8, "\" r=\"5\" fill=\"#1b9e77\"/>",
                  "<text x=\"", lx + 12, "\" y=\"", top + 12, "\">colocated</text>\n", "<path d=\"M", lx, " ", top + 22,
                  " L", lx + 6, " ", top + 28, " L", lx, " ", top + 34, " L", lx - 6, " ", top + 28,
                  " Z\" fill=\"#d95f02\"/>", "<text x=\"", lx + 12, "\" y=\"", top + 32, "\">disaggregated</text>\n",
                  "<text x=\"", lx - 6, "\" y=\"", top + 56, "\">filled: on the front</text>\n", "<text x=\"", lx - 6,
                  "\" y=\"", top + 72, "\">bars: 95% intervals</text>\n", "</svg>\n");
  return out;
}

std::string FrontHtml(const PlanSpec& spec, const Plan& plan, const Context& context) {
  std::string out = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>",
      XmlEscape(absl::StrCat("serq plan: ", context.model, " on ", context.gpu)), "</title>\n",
      "<style>body{font-family:sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td.l,th.l{text-align:left}"
      "g.point:hover circle,g.point:hover path{stroke-width:4}</style>\n</head>\n<body>\n",
      "<h1>", XmlEscape(absl::StrCat("serq plan: ", context.model, " on up to ", context.gpus, " x ", context.gpu)),
      "</h1>\n<p>Workload: ", XmlEscape(context.workload), ". SLOs: <code>", XmlEscape(context.condition),
      "</code>. Each candidate at the largest rate that meets them (serq search's bisection, a point judged by "
      "the 95% intervals of its figures over replications, one not in a steady state failing). Hover a point "
      "for its configuration.</p>\n<p id=\"step-time\"><b>Step time:</b> ",
      XmlEscape(context.step_time), "</p>\n<figure>\n", FrontSvg(spec, plan, context), "</figure>\n");
  absl::StrAppend(&out, "<h2>The front</h2>\n<table id=\"front\">\n<tr><th class=\"l\">candidate</th><th>GPUs</th>"
                        "<th>req/s</th><th>tok/s/GPU</th><th>tok/s/user</th><th>p99 TTFT (s)</th>"
                        "<th>p99 TPOT (s)</th><th>p99 ITL (s)</th><th>$/M tok</th></tr>\n");
  for (int i : plan.front) {
    const CandidateResult& r = plan.results[i];
    absl::StrAppend(&out, "<tr><td class=\"l\">", XmlEscape(spec.candidates[i].Label()), "</td><td>",
                    spec.candidates[i].Gpus(), "</td><td>", report::FormatFixed(r.rate, 3), r.at_top ? "+" : "", "</td><td>",
                    PlusMinus(r.tokens_per_gpu, 1), "</td><td>", PlusMinus(r.tokens_per_user, 1), "</td><td>",
                    PlusMinus(r.ttft[2], 3), "</td><td>", PlusMinus(r.tpot[2], 4), "</td><td>", PlusMinus(r.itl[2], 4),
                    "</td><td>", PlusMinus(r.cost_per_mtok, 3), "</td></tr>\n");
  }
  absl::StrAppend(&out, "</table>\n<h2>Not plotted</h2>\n<ul id=\"not-plotted\">\n");
  int n = 0;
  for (int i = 0; i < static_cast<int>(plan.results.size()); ++i) {
    const CandidateResult& r = plan.results[i];
    if (r.status == CandidateResult::kOk) continue;
    ++n;
    absl::StrAppend(&out, "<li>", XmlEscape(spec.candidates[i].Label()), " (", spec.candidates[i].Gpus(),
                    " GPUs): ", Status(r), ": ", XmlEscape(r.why), "</li>\n");
  }
  if (n == 0) absl::StrAppend(&out, "<li>none: every candidate is on the chart</li>\n");
  absl::StrAppend(&out, "</ul>\n<p>All candidates: <a href=\"candidates.csv\">candidates.csv</a>; the front: "
                        "<a href=\"pareto.csv\">pareto.csv</a>. ",
                  XmlEscape(context.command), "</p>\n</body>\n</html>\n");
  return out;
}

// The run's engine arguments that its plan's programs keep and vLLM
// 0.19's defaults differ from, as `vllm serve` flags, so that the server
// launched is the engine planned: its KV cache's (block size, dtype,
// bytes or share of the GPU, a block count), prefix caching off, the
// chunk cap, async scheduling or full-prompt reservation off,
// max_model_len, NCCL for every all-reduce.
std::string ServeOptionsOfRun(const vllm::EngineArgs& a) {
  std::string out;
  if (a.block_size != 16) absl::StrAppend(&out, " --block-size ", a.block_size);
  if (a.kv_cache_dtype != "auto") absl::StrAppend(&out, " --kv-cache-dtype ", a.kv_cache_dtype);
  if (a.kv_cache_memory_bytes) absl::StrAppend(&out, " --kv-cache-memory-bytes ", *a.kv_cache_memory_bytes);
  if (a.gpu_memory_utilization != 0.9) {
    absl::StrAppend(&out, " --gpu-memory-utilization ", report::FormatShortest(a.gpu_memory_utilization));
  }
  if (a.num_gpu_blocks_override) absl::StrAppend(&out, " --num-gpu-blocks-override ", *a.num_gpu_blocks_override);
  if (!a.prefix_caching) absl::StrAppend(&out, " --no-enable-prefix-caching");
  if (a.long_prefill_token_threshold > 0) {
    absl::StrAppend(&out, " --long-prefill-token-threshold ", a.long_prefill_token_threshold);
  }
  if (!a.async_scheduling) absl::StrAppend(&out, " --no-async-scheduling");
  if (!a.reserve_full_isl) absl::StrAppend(&out, " --no-scheduler-reserve-full-isl");
  // The run's own limit, not the one vLLM resolved from the model's.
  if (a.max_model_len && a.max_model_len_from == "engine_kwargs.max_model_len") {
    absl::StrAppend(&out, " --max-model-len ", *a.max_model_len);
  }
  if (a.disable_custom_all_reduce) absl::StrAppend(&out, " --disable-custom-all-reduce");
  if (a.expert_parallel) absl::StrAppend(&out, " --enable-expert-parallel");
  // CUDA graphs other than vLLM 0.19's for the run's limits: the mode
  // (decode-only steps alone), and sizes of no default rule.
  std::vector<std::string> graphs;
  if (a.graph_decode_only) graphs.push_back("\"cudagraph_mode\": \"FULL_DECODE_ONLY\"");
  if (!a.graph_sizes.empty() && a.graph_sizes != models::VllmCudaGraphSizes(a.max_num_seqs, a.max_num_batched_tokens)) {
    graphs.push_back(absl::StrCat("\"cudagraph_capture_sizes\": [", absl::StrJoin(a.graph_sizes, ", "), "]"));
  }
  if (!graphs.empty()) absl::StrAppend(&out, " --compilation-config '{", absl::StrJoin(graphs, ", "), "}'");
  return out;
}

std::string VllmServe(const Candidate& c, const Context& context) {
  const std::string model = context.model_id.empty() ? context.model : context.model_id;
  std::string options;
  if (c.max_num_seqs > 0) absl::StrAppend(&options, " --max-num-seqs ", c.max_num_seqs);
  if (c.max_num_batched_tokens > 0) absl::StrAppend(&options, " --max-num-batched-tokens ", c.max_num_batched_tokens);
  if (context.enforce_eager) absl::StrAppend(&options, " --enforce-eager");
  absl::StrAppend(&options, context.engine_options);
  if (!c.disaggregated) {
    return absl::StrCat("# ", c.Label(), ": one vLLM server, ", c.replicas, " data-parallel engine",
                        c.replicas == 1 ? "" : "s", " of ", c.tp, " GPU", c.tp == 1 ? "" : "s", "\n",
                        "vllm serve ", model, " --tensor-parallel-size ", c.tp,
                        c.replicas > 1 ? absl::StrCat(" --data-parallel-size ", c.replicas) : "", options, "\n");
  }
  // A mixture of experts' role of several engines is one server of as
  // many data-parallel ranks (they step together: serq/plan/program.cc).
  const int p_servers = context.moe ? 1 : c.prefills, d_servers = context.moe ? 1 : c.decodes;
  std::string out = absl::StrCat("# ", c.Label(), ": ", p_servers + d_servers,
                                 " vLLM servers exchanging the KV cache through the NIXL connector, and a proxy\n"
                                 "# in front that sends each request to a prefill server, then to a decode server\n"
                                 "# (vLLM's examples/online_serving/disaggregated_serving).\n");
  int gpu = 0, port = 8100;
  auto server = [&](const char* role, int tp, int ranks) {
    std::vector<std::string> ids;
    for (int k = 0; k < tp * ranks; ++k) ids.push_back(absl::StrCat(gpu++));
    absl::StrAppend(&out, "CUDA_VISIBLE_DEVICES=", absl::StrJoin(ids, ","), " vllm serve ", model,
                    " --port ", port++, " --tensor-parallel-size ", tp,
                    ranks > 1 ? absl::StrCat(" --data-parallel-size ", ranks) : "", options,
                    " --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}' &  # ",
                    role, "\n");
  };
  for (int k = 0; k < p_servers; ++k) server("prefill", c.prefill_tp, c.prefills / p_servers);
  for (int k = 0; k < d_servers; ++k) server("decode", c.decode_tp, c.decodes / d_servers);
  std::vector<std::string> p, d;
  for (int k = 0; k < p_servers; ++k) p.push_back(absl::StrCat("localhost:", 8100 + k));
  for (int k = 0; k < d_servers; ++k) d.push_back(absl::StrCat("localhost:", 8100 + p_servers + k));
  absl::StrAppend(&out, "python3 toy_proxy_server.py --port 8000 --prefiller-hosts-ports ", absl::StrJoin(p, " "),
                  " --decoder-hosts-ports ", absl::StrJoin(d, " "), "\n");
  return out;
}

std::string Summary(const PlanSpec& spec, const Plan& plan, const Context& context) {
  int ok = 0, none = 0, stopped = 0, errors = 0;
  for (const CandidateResult& r : plan.results) {
    ok += r.status == CandidateResult::kOk;
    none += r.status == CandidateResult::kNone;
    stopped += r.status == CandidateResult::kStopped;
    errors += r.status == CandidateResult::kError;
  }
  std::string out = absl::StrCat(
      "plan for ", context.model, " on up to ", context.gpus, " x ", context.gpu, ", ", context.workload,
      ", SLOs ", context.condition, "\n", "step time: ", context.step_time, "\n", plan.results.size(),
      " candidates: ", ok, " meet the SLOs in a steady state, ", none, " at no rate, ", stopped,
      " stopped early (cannot reach the front), ", errors, " failed\n\n");
  auto table = [&](const std::vector<int>& rows) {
    report::Table t({{"candidate", report::Align::kLeft, 0},
                     {"GPUs", report::Align::kRight, 0},
                     {"req/s", report::Align::kRight, 0},
                     {"tok/s/GPU", report::Align::kRight, 0},
                     {"tok/s/user", report::Align::kRight, 0},
                     {"p99 TTFT", report::Align::kRight, 0},
                     {"p99 TPOT", report::Align::kRight, 0},
                     {"$/M tok", report::Align::kRight, 0}});
    for (int i : rows) {
      const CandidateResult& r = plan.results[i];
      t.AddRow({spec.candidates[i].Label(), absl::StrCat(spec.candidates[i].Gpus()),
                absl::StrCat(report::FormatFixed(r.rate, 3), r.at_top ? "+" : ""), PlusMinus(r.tokens_per_gpu, 1),
                PlusMinus(r.tokens_per_user, 1), PlusMinus(r.ttft[2], 3), PlusMinus(r.tpot[2], 4),
                PlusMinus(r.cost_per_mtok, 3)});
    }
    return t.RenderText();
  };
  absl::StrAppend(&out, "the Pareto front (tokens/s/GPU against tokens/s/user), by tokens/s/GPU:\n", table(plan.front));
  std::vector<int> top(plan.ranked.begin(), plan.ranked.begin() + std::min<size_t>(context.top, plan.ranked.size()));
  absl::StrAppend(&out, "\nthe top ", top.size(), " by tokens/s/GPU:\n", table(top));
  if (spec.target_rate > 0) {
    absl::StrAppend(&out, "\nfewest GPUs for ", report::FormatShortest(spec.target_rate), " req/s: ",
                    plan.min_gpus < 0 ? "none of the candidates reaches it"
                                      : absl::StrCat(spec.candidates[plan.min_gpus].Gpus(), " (",
                                                     spec.candidates[plan.min_gpus].Label(), ", ",
                                                     MetRate(plan.results[plan.min_gpus]), ")"),
                    "\n");
  }
  absl::StrAppend(&out, "\n(req/s: the largest rate meeting the SLOs, + at the search's top; ± the 95% interval "
                        "over replications)\n");
  return out;
}

}  // namespace serq::plan
