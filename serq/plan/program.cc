#include "serq/plan/program.h"

#include <algorithm>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "net/interconnect.h"
#include "serq/models/program_text.h"

namespace serq::plan {
namespace {

absl::Status Internal(absl::string_view what) {
  // The generator's form changed under the planner: a bug, said plainly.
  return absl::InternalError(absl::StrCat("serq plan: the generated program has no ", what,
                                          " (serq/plan/program.cc expects serq physics's form)"));
}

std::string Number(double x) { return absl::StrFormat("%.6g", x); }

// The engines from the run folder's profile (serq vllm's generator) under
// the workload of the settings, in serq physics's words (param Rate,
// param Requests, the Poisson workload, the lengths set in the session).
absl::StatusOr<std::string> FromRunFolder(int tp, int dp, models::EngineRole role, const Candidate& c,
                                          const ProgramSettings& s, std::vector<std::string>* warnings) {
  vllm::Options o = s.run;
  o.role = role;
  o.program_dir = s.base.program_dir;
  o.command = s.base.command.empty() ? absl::StrCat("serq plan --run ", s.run_dir) : s.base.command;
  o.redeploy.tp = tp;
  o.redeploy.dp = dp;
  if (c.max_num_seqs > 0) o.redeploy.max_num_seqs = c.max_num_seqs;
  if (c.max_num_batched_tokens > 0) o.redeploy.max_num_batched_tokens = c.max_num_batched_tokens;
  const physics::Workload& w = s.base.workload;
  vllm::Options::Requests requests;
  if (!w.replay.empty()) {
    std::string prompt = w.prompt_column, output = w.output_column;
    if (absl::Status st = physics::ReplayColumns(w.replay, &prompt, &output); !st.ok()) return st;
    requests.what = absl::StrCat("The requests: the arrivals of ", w.replay, ", each with its tokens.");
    requests.declare = {absl::StrCat("workload requests { arrive trace(",
                                     models::Quoted(models::PathFor(w.replay, s.base.program_dir)), "); }")};
    if (prompt != "input_toks") requests.session.push_back(absl::StrCat("set input_toks = ", prompt, ";"));
    if (output != "output_toks") requests.session.push_back(absl::StrCat("set output_toks = ", output, ";"));
  } else {
    absl::StatusOr<physics::LengthLines> lengths = physics::ParseLengthLines(w.lengths);
    if (!lengths.ok()) return lengths.status();
    requests.what = absl::StrCat("The requests: ", s.requests, " arriving as a Poisson process of ",
                                 Number(w.rate), " a second, their lengths ", lengths->what, ".");
    requests.declare = {absl::StrCat("param Rate = ", Number(w.rate), ";  // requests a second"),
                        absl::StrCat("param Requests = ", s.requests, ";  // how many arrive"),
                        "workload requests { arrive poisson(Rate); limit Requests; }"};
    requests.session = lengths->lines;
  }
  o.requests = requests;
  absl::StatusOr<vllm::Generated> g = vllm::GenerateProgram(s.run_dir, o);
  if (!g.ok()) return g.status();
  warnings->insert(warnings->end(), g->warnings.begin(), g->warnings.end());
  return g->program;
}

// The program of `dp` engines of `tp` GPUs, from the run folder's profile
// (its generator's warnings appended to `warnings`) or from physics.
absl::StatusOr<std::string> Generate(const models::ModelConfig& model, const models::Gpu& gpu, int tp, int dp,
                                     const Candidate& c, const ProgramSettings& s, std::vector<std::string>* warnings,
                                     models::EngineRole role = models::EngineRole::kWhole) {
  if (!s.run_dir.empty()) return FromRunFolder(tp, dp, role, c, s, warnings);
  physics::ProgramOptions o = s.base;
  o.deployment.role = role;
  o.deployment.tp = tp;
  o.deployment.dp = dp;
  o.deployment.max_num_seqs = c.max_num_seqs;
  o.deployment.max_num_batched_tokens = c.max_num_batched_tokens;
  o.workload.requests = s.requests;
  if (!o.workload.replay.empty()) o.workload.rate = 0;  // the trace's arrivals, scaled by RateParam
  // No warnings: a plan's candidates derive their KV counts from each
  // deployment's GPUs, and a count the trace can fill is what the search
  // measures (its preemptions), not a doubt about the count.
  return physics::GenerateProgram(model, gpu, o);
}

// The generator's run block, `run { seed 1; gpus G; }`, with `options`
// (its horizon and warm-up) put before its seed, the seed the plan's
// (--seed); its gpus kept, so that the report of a candidate's program
// gives its figures per GPU.
absl::StatusOr<std::string> WithHorizon(std::string text, absl::string_view options,
                                        const ProgramSettings& s) {
  const std::string run = "run { seed 1; gpus ";
  size_t at = text.rfind(run);
  if (at == std::string::npos) return Internal("run block `run { seed 1; gpus G; }`");
  const std::string seed = absl::StrCat("seed ", s.seed.value_or(1), "; ");
  text.replace(at, run.size(), absl::StrCat("run { ", options, seed, "gpus "));
  return text;
}

// The workload's rate a param and the run's horizon about Requests
// arrivals: the search sets Rate (-D), and every point then costs about
// the same, whatever its rate.
absl::StatusOr<std::string> RateParam(std::string text, const ProgramSettings& s) {
  if (!s.base.workload.replay.empty()) {
    // `workload requests { arrive trace("PATH"); }`: every arrival at
    // TraceRate / Rate x its trace time, the run as long as the scaled
    // trace, its warm-up at most a quarter of that.
    // The string as Quoted writes it: \" and \\ its escapes.
    static const std::regex kTrace(R"(workload requests \{ arrive trace\(("(?:[^"\\]|\\.)*")\); \})");
    std::smatch m;
    if (!std::regex_search(text, m, kTrace)) return Internal("trace workload");
    const std::string file = m[1].str();
    text.replace(
        m.position(0), m.length(0),
        absl::StrCat("// serq plan: the trace's arrivals at the rate a param the search moves (-D Rate=...):\n",
                     "//   every arrival at TraceRate / Rate x its trace time, TraceRate the trace's mean\n",
                     "//   rate (", s.trace_rows, " arrivals, one a 1 / TraceRate s on average up to the last\n",
                     "//   at TraceLast s, measured by serq plan: programs/trace-arrivals.sq);\n",
                     "//   the run ends at the last arrival, after a warm-up of Warmup seconds (at most a\n",
                     "//   quarter of the run).\n",
                     "param Rate = ", Number(s.base.workload.rate), ";  // requests a second\n",
                     "param TraceRate = ", absl::StrFormat("%.17g", s.trace_rate), ";  // requests a second\n",
                     "param TraceLast = ", absl::StrFormat("%.17g", s.trace_last), ";  // seconds\n",
                     "param Warmup = ", Number(s.warmup), ";\n",
                     "workload requests { arrive trace(", file, ", TraceRate / Rate); }"));
    return WithHorizon(std::move(text),
                       "horizon TraceLast * TraceRate / Rate; warmup min(Warmup, TraceLast * TraceRate / Rate / 4); ", s);
  }
  // serq physics writes `param Rate = R;`, `param Requests = N;` and
  // `workload requests { arrive poisson(Rate); limit Requests; }`.
  static const std::regex kWorkload(
      R"(param Rate = ([^;]*);[^\n]*\nparam Requests = [^;]*;[^\n]*\n)"
      R"(workload requests \{ arrive poisson\(Rate\); limit Requests; \})");
  std::smatch m;
  if (!std::regex_search(text, m, kWorkload)) return Internal("Poisson workload with a limit");
  const std::string rate = m[1].str();
  text.replace(m.position(0), m.length(0),
               absl::StrCat("// serq plan: the rate a param the search moves (-D Rate=...), and a run of\n",
                            "//   a window of about Requests arrivals at any rate, but at least MinHorizon\n",
                            "//   seconds (many requests' lifetimes, so that a steady state shows), after a\n",
                            "//   warm-up of Warmup seconds (the engines filling to their level: a few\n",
                            "//   requests' lifetimes).\n",
                            "param Rate = ", rate, ";\n", "param Requests = ", s.requests, ";\n",
                            "param MinHorizon = ", Number(s.min_horizon), ";\n", "param Warmup = ",
                            Number(s.warmup), ";\n", "workload requests { arrive poisson(Rate); }"));
  return WithHorizon(std::move(text), "horizon Warmup + max(Requests / Rate, MinHorizon); warmup Warmup; ", s);
}

// The lines of `text` from the first that starts with `first` up to (not
// including) the first line after it that starts with `end` ("" : a blank
// line).
absl::StatusOr<std::string> Section(const std::string& text, absl::string_view first, absl::string_view end) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  std::string out;
  bool in = false;
  for (const std::string& line : lines) {
    if (!in && absl::StartsWith(line, first)) in = true;
    else if (in && (end.empty() ? line.empty() : absl::StartsWith(line, end))) break;
    if (in) absl::StrAppend(&out, line, "\n");
  }
  if (!in) return Internal(first);
  return out;
}

// `block` with the role's names: an engine's params and its stage (a
// mixture of experts' group: serq physics's MoeGroup, serq vllm's Ep, and
// the experts' Balancedness over it).
std::string Rename(std::string block, const std::string& role) {
  const std::string n = role == "P" ? "NP" : "ND";
  block = std::regex_replace(block, std::regex(R"(stage E(\[Engines\])? :)"), absl::StrCat("stage ", role, "[", n, "] :"));
  for (const char* name : {"Tp", "Seqs", "Tokens", "GraphMax", "KvBlocks", "MoeGroup", "Ep", "Balancedness"}) {
    block = std::regex_replace(block, std::regex(absl::StrCat("\\b", name, "\\b")), absl::StrCat(name, role));
  }
  return std::regex_replace(block, std::regex(R"(\bEngines\b)"), n);
}

// The lines of `section` that are not a `param NAME` line of `drop`, nor
// the comment lines under one.
std::string DropParams(const std::string& section, const std::vector<std::string>& drop) {
  std::string out;
  bool dropping = false;
  for (absl::string_view line : absl::StrSplit(section, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "param ")) {
      dropping = false;
      for (const std::string& d : drop) dropping = dropping || absl::StartsWith(line, absl::StrCat("param ", d, " "));
    } else if (!absl::StartsWith(line, "//   ")) {
      dropping = false;
    }
    if (!dropping) absl::StrAppend(&out, line, "\n");
  }
  return out;
}

// A run folder's role (serq vllm's program at the role's degree): the step
// time's declarations, from the skew fit's AlphaDefault through the
// profile's tables to the KV cache, bear the same names at every degree
// (`table attn` is profile/tp1's in one role and profile/tp2's in the
// other), so each role's get its letter where declared (`table attnP`) and
// in its stage (`attnP(...)`); the tables' files and filters, strings, stay.
struct ProfileRole {
  std::string declarations, stage;
};
absl::StatusOr<ProfileRole> ProfileStepTime(const std::string& text, const std::string& role) {
  absl::StatusOr<std::string> declared = Section(text, "// Attention", "// The KV cache");
  if (!declared.ok()) return declared.status();
  absl::StatusOr<std::string> stage = Section(text, "stage E", "}");
  if (!stage.ok()) return stage.status();
  ProfileRole out;
  std::vector<std::string> names;
  static const std::regex kDeclaration(R"(^(param|table) ([A-Za-z_][A-Za-z0-9_]*)\b)");
  for (absl::string_view line : absl::StrSplit(*declared, '\n')) {
    std::string l(line);
    std::smatch m;
    if (std::regex_search(l, m, kDeclaration)) {
      names.push_back(m[2].str());
      l.replace(m.position(2), names.back().size(), names.back() + role);
    }
    absl::StrAppend(&out.declarations, l, "\n");
  }
  // The stage's code, not its comments.
  for (absl::string_view line : absl::StrSplit(*stage, '\n', absl::SkipEmpty())) {
    const size_t comment = line.find("//");
    std::string code(line.substr(0, comment));
    for (const std::string& name : names) {
      code = std::regex_replace(code, std::regex(absl::StrCat("\\b", name, "\\b")), name + role);
    }
    absl::StrAppend(&out.stage, code, comment == absl::string_view::npos ? "" : line.substr(comment), "\n");
  }
  return out;
}

// The pieces of a disaggregated candidate's program cut from its two
// roles' programs (each the one-engine, or for a mixture of experts the
// role's data-parallel, program of its degree).
struct Roles {
  std::string shared;              // the model's and the GPU's params
  std::string engine_p, engine_d;  // each role's engine params
  std::string step_time;           // the corrections, or each role's profile
  std::string stage_p, stage_d;    // each role's stage, renamed to P and D
  std::string session;             // the prefill role's session, for its lengths
  std::string links;               // the collectives' link, if a role has one
};

absl::StatusOr<Roles> CutRoles(const models::ModelConfig& model, const models::Gpu& gpu, const Candidate& c,
                               const ProgramSettings& s, std::vector<std::string>* warnings) {
  // From a run folder, each role's step time is its degree's profile.
  const bool profiled = !s.run_dir.empty();
  const bool moe = model.experts > 0;
  // A mixture of experts' role of more than one engine is serq physics's
  // data-parallel engines of that role (`stage E[Engines]`, `lockstep`, the
  // experts over the role's GPUs, their exchange among them): vLLM runs
  // every data-parallel rank of a MoE model as a DPEngineCoreProc, stepping
  // with its group, whatever its kv_transfer_config (vllm-project/vllm
  // 00080ee, vllm/v1/engine/core.py, EngineCoreProc.run_engine_core: `if
  // data_parallel and vllm_config.model_config.is_moe:` DPEngineCoreProc,
  // the P/D connector's engine_id only suffixed with the rank), so the
  // prefill server's ranks step together and the decode server's together,
  // each server its own group. A dense model's engines are independent,
  // and one engine is plain: each role is then the one-engine program.
  const int p_engines = moe ? c.prefills : 1, d_engines = moe ? c.decodes : 1;
  absl::StatusOr<std::string> p = Generate(model, gpu, c.prefill_tp, p_engines, c, s, warnings);
  if (!p.ok()) return p.status();
  // The decode role's engines get their requests' prompt KV over the link
  // (no full-prompt reservation, a preemption recomputes the last token).
  absl::StatusOr<std::string> d =
      Generate(model, gpu, c.decode_tp, d_engines, c, s, warnings, models::EngineRole::kDecode);
  if (!d.ok()) return d.status();
  // The shared params: the model's and the GPU's (from the first param to
  // the engine's), the corrections (both roles', each once).
  // The model's params from the role of the larger TP (its collectives
  // read Vocab, which a one-GPU engine does not).
  absl::StatusOr<std::string> shared =
      Section(c.decode_tp > c.prefill_tp ? *d : *p, "// The model", "// The engine");
  if (!shared.ok()) return shared.status();
  // serq vllm's engine section ends at a blank line; serq physics's, at
  // the next section.
  absl::StatusOr<std::string> engine_p = Section(*p, "// The engine", profiled ? "" : "// The ");
  absl::StatusOr<std::string> engine_d = Section(*d, "// The engine", profiled ? "" : "// The ");
  absl::StatusOr<std::string> phys_p, phys_d, stage_p, stage_d;
  if (profiled) {
    absl::StatusOr<ProfileRole> role_p = ProfileStepTime(*p, "P");
    absl::StatusOr<ProfileRole> role_d = ProfileStepTime(*d, "D");
    if (!role_p.ok()) return role_p.status();
    if (!role_d.ok()) return role_d.status();
    phys_p = absl::StrCat("// The prefill engines' step time, the profile at tensor parallel ", c.prefill_tp, ".\n",
                          role_p->declarations);
    phys_d = absl::StrCat("// The decode engines' step time, the profile at tensor parallel ", c.decode_tp, ".\n",
                          role_d->declarations);
    stage_p = role_p->stage;
    stage_d = role_d->stage;
    // The roles' degrees, whether or not a one-GPU engine names its own.
    for (auto [engine, role, tp] : {std::tuple{&engine_p, "P", c.prefill_tp}, std::tuple{&engine_d, "D", c.decode_tp}}) {
      if (engine->ok() && !absl::StrContains(**engine, "param Tp ")) {
        *engine = absl::StrCat(**engine, "param Tp = ", tp, ";  // tensor_parallel_size\n");
      }
    }
  } else {
    phys_p = Section(*p, "// The corrections", "");
    phys_d = Section(*d, "// The corrections", "");
    stage_p = Section(*p, "stage E", "}");
    stage_d = Section(*d, "stage E", "}");
  }
  absl::StatusOr<std::string> session = Section(*p, "session requests {", "  prefix");
  for (const auto* x : {&engine_p, &engine_d, &phys_p, &phys_d, &stage_p, &stage_d, &session}) {
    if (!x->ok()) return x->status();
  }
  Roles out;
  out.shared = *shared;
  out.engine_p = *engine_p;
  out.engine_d = *engine_d;
  out.stage_p = Rename(*stage_p, "P");
  out.stage_d = Rename(*stage_d, "D");
  out.session = *session;
  out.step_time = profiled ? absl::StrCat(*phys_p, "\n", *phys_d) : *phys_p;
  if (!profiled && !absl::StrContains(out.step_time, "param PHYS_B4 ")) {
    // The decode role's collectives (its TP above the prefill's).
    for (absl::string_view line : absl::StrSplit(*phys_d, '\n')) {
      if (absl::StartsWith(line, "param PHYS_B4 ")) {
        out.step_time = absl::StrReplaceAll(out.step_time, {{"param PHYS_B5 ", absl::StrCat(line, "\nparam PHYS_B5 ")}});
      }
    }
  }
  for (const std::string* text : {&*p, &*d}) {
    absl::StatusOr<std::string> l = Section(*text, "// The link", "");
    if (l.ok()) {
      out.links = *l;
      break;
    }
  }
  return out;
}

// The link the prompt's KV crosses: --kv-link, else the deployment's
// interconnect, else the GPU's.
absl::StatusOr<const net::Interconnect*> KvLink(const models::Gpu& gpu, const ProgramSettings& s) {
  std::string link_name = s.kv_link.empty() ? s.base.deployment.interconnect : s.kv_link;
  if (link_name.empty()) link_name = gpu.interconnect;
  const net::Interconnect* link = net::FindInterconnect(link_name);
  if (link == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "disaggregated candidates need the link the KV cache crosses: give --kv-link NAME (",
        net::InterconnectNames(), ")", link_name.empty() ? "" : absl::StrCat("; '", link_name, "' is none of them")));
  }
  return link;
}

// The KV transfer's params: a token's KV bytes and the tokens a second the
// link moves.
std::string KvTransfer(const models::ModelConfig& model, const Candidate& c, const ProgramSettings& s,
                       const net::Interconnect& link) {
  const bool profiled = !s.run_dir.empty();
  // The GPUs a token's KV moves over at once: each GPU of the smaller
  // engine holds its own share of the KV heads, but no more shares than
  // heads (a head replicated over several GPUs is one share), and latent
  // attention's latent is whole on every GPU: one share.
  const int senders =
      model.mla() ? 1 : std::max(1, std::min({c.prefill_tp, c.decode_tp, model.kv_heads}));
  return absl::StrCat(
      "// The KV transfer: a token's KV over the whole model, over ", link.name, " (",
      Number(link.bandwidth / 1e9), " GB/s a\n//   direction a GPU; ", link.source,
      "), each GPU of the smaller engine sending its share at once",
      model.mla() ? " (latent attention: every GPU holds\n//   the whole latent, and each sends or receives all of it)"
      : senders < std::min(c.prefill_tp, c.decode_tp)
          ? absl::StrCat(" (the ", model.kv_heads, " KV heads replicated\n//   over more GPUs: ", senders,
                         " distinct shares)")
          : "",
      ".\n",
      profiled ? absl::StrCat("param KvTokenBytes = ",
                              Number(models::KvBytesPerToken(model, 1, s.kv_dtype_bytes > 0 ? s.kv_dtype_bytes
                                                                                             : model.dtype_bytes)),
                              ";  // 2 (K, V) x layers x KV heads x head_dim x the KV cache's bytes\n")
      : model.mla() ? "param KvTokenBytes = Layers * (KvLoraRank + QkRope) * KvBytes;\n"
                    : "param KvTokenBytes = 2 * Layers * KvHeads * HeadDim * KvBytes;\n",
      "param XferTokens = ", senders, " * ", Number(link.bandwidth), " / KvTokenBytes;  // tokens a second\n\n");
}

// The program's first lines: what the candidate is and where it came from.
std::string Heading(const models::ModelConfig& model, const models::Gpu& gpu, const Candidate& c,
                    const ProgramSettings& s, const net::Interconnect& link) {
  const bool profiled = !s.run_dir.empty();
  const bool moe = model.experts > 0;
  return absl::StrCat(
      "// ", s.base.model_name, " on ", c.Gpus(), " x ", gpu.what.empty() ? gpu.name : gpu.what, ", disaggregated: ",
      c.prefills, " prefill engine", c.prefills == 1 ? "" : "s", " of tensor parallel ", c.prefill_tp, ", ",
      c.decodes, " decode engine", c.decodes == 1 ? "" : "s", " of tensor parallel ", c.decode_tp,
      profiled ? absl::StrCat(".\n// Written by `serq plan --run ", s.run_dir,
                              "` from serq vllm's programs of the two roles (each\n"
                              "//   one its degree's GPU profile, vLLM 0.19's scheduler and KV cache); the prompt's KV\n"
                              "//   moves from the prefill engine to the decode engine over ")
               : ".\n// Written by `serq plan` from serq physics's programs of the two roles (its step time, vLLM\n"
                 "//   0.19's scheduler and KV cache for each); the prompt's KV moves from the prefill engine to\n"
                 "//   the decode engine over ",
      link.what, ", which then decodes every output token (vLLM's NIXL\n"
      "//   connector, as examples/pd-disaggregation/llmd_nixl_push_vllm.sq models it).\n",
      moe ? "// A mixture of experts: each role's engines are one vLLM server's data-parallel ranks, stepping\n"
            "//   in lockstep within the role (P[NP] together, D[ND] together), the experts spread over the\n"
            "//   role's GPUs and exchanged among them every MoE layer; a role of one engine steps alone.\n\n"
          : "\n");
}

// The workload's declarations, and the session's lengths (`set input_toks
// = ...`) in `lengths`: the trace's columns, or the prefill role's draws.
absl::StatusOr<std::string> Workload(const ProgramSettings& s, const std::string& session, std::string* lengths) {
  const physics::Workload& w = s.base.workload;
  std::string out;
  if (!w.replay.empty()) {
    // The trace's own lengths, in the session's words.
    std::string prompt = w.prompt_column, output = w.output_column;
    if (absl::Status st = physics::ReplayColumns(w.replay, &prompt, &output); !st.ok()) return st;
    absl::StrAppend(&out, "workload requests { arrive trace(",
                    models::Quoted(models::PathFor(w.replay, s.base.program_dir)), "); }\n");
    if (prompt != "input_toks") absl::StrAppend(lengths, "  set input_toks = ", prompt, ";\n");
    if (output != "output_toks") absl::StrAppend(lengths, "  set output_toks = ", output, ";\n");
    return out;
  }
  absl::StrAppend(&out, "param Rate = ", Number(w.rate), ";  // requests a second\nparam Requests = ", s.requests,
                  ";  // how many arrive\nworkload requests { arrive poisson(Rate); limit Requests; }\n");
  for (absl::string_view line : absl::StrSplit(session, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "  set input_toks") || absl::StartsWith(line, "  set output_toks")) {
      absl::StrAppend(lengths, line, "\n");
    }
  }
  if (lengths->empty()) return Internal("lengths (set input_toks, set output_toks)");
  return out;
}

// The session: the proxy's choice of engines, the prefill, the KV's
// transfer, the decode, the observations; then the run line.
std::string Session(const models::ModelConfig& model, const Candidate& c, const std::string& lengths) {
  const bool moe = model.experts > 0;
  // A role of a mixture of experts' data-parallel engines is one server to
  // the proxy, whose own balancer picks the rank, as a colocated one's
  // (serq/models DataParallelRouting: least 4 x waiting + running on the
  // counts its coordinator publishes every 100 ms).
  auto balancer = [](const char* role, const char* k) {
    return absl::StrCat("  choose ", k, " in ", role, " by (4 * waiting(", role, "[", k, "]) + running(", role, "[", k,
                        "])) every 0.1;\n");
  };
  std::string choose;
  if (moe && (c.prefills > 1 || c.decodes > 1)) {
    absl::StrAppend(&choose,
                    "  // vLLM's disaggregated proxy sends a request to the prefill server, then to the decode\n"
                    "  // server; a server of data-parallel ranks hands it to the rank of least 4 x waiting +\n"
                    "  // running on the counts its coordinator last published (every 100 ms); a lone engine\n"
                    "  // takes it.\n",
                    c.prefills > 1 ? balancer("P", "i") : "  set i = 0;\n",
                    c.decodes > 1 ? balancer("D", "j") : "  set j = 0;\n");
  } else {
    choose = "  // The least loaded engines: vLLM's disaggregated proxy picks a prefill and a decode engine.\n"
             "  choose i in P by (queue(P[i]), work(P[i]));\n"
             "  choose j in D by (queue(D[j]), free(kvD[j]) * -1);\n";
  }
  return absl::StrCat(
      "session requests {\n", lengths, choose,
      "  hold kvD[j] (0) {\n"
      "    hold kvP[i] (0) {\n"
      "      run P[i] prefill (input_toks) growing kvP[i];\n"
      "      set taken = queued;  // when the prefill engine took it in (vLLM's TTFT counts from then)\n"
      "    } lease kvP[i] (inf);\n"
      "    transfer on egress[i], ingress[j] (input_toks) from kvP[i] to kvD[j] (input_toks);\n"
      "    run D[j] decode (1) growing kvD[j];\n"
      "    observe ttft = now - taken;\n"
      "    set first = now;\n"
      "    run D[j] decode (output_toks - 1) growing kvD[j] observe itl;\n"
      "    if (output_toks > 1) { observe tpot = (now - first) / (output_toks - 1); }\n"
      "    observe e2e = now - taken;\n"
      "  }\n"
      "}\n\n"
      "// The deployment's GPUs, the prefill engines' and the decode engines' (NP x TpP + ND x TpD):\n"
      "//   the report's per-GPU figures.\n"
      "run { seed 1; gpus NP * TpP + ND * TpD; }\n");
}

// A disaggregated candidate: its roles' pieces put together, the KV's
// transfer between them, the workload and the session.
absl::StatusOr<std::string> Disaggregated(const models::ModelConfig& model, const models::Gpu& gpu,
                                          const Candidate& c, const ProgramSettings& s,
                                          std::vector<std::string>* warnings) {
  absl::StatusOr<Roles> roles = CutRoles(model, gpu, c, s, warnings);
  if (!roles.ok()) return roles.status();
  absl::StatusOr<const net::Interconnect*> link = KvLink(gpu, s);
  if (!link.ok()) return link.status();
  std::string lengths;
  absl::StatusOr<std::string> workload = Workload(s, roles->session, &lengths);
  if (!workload.ok()) return workload.status();
  return absl::StrCat(
      Heading(model, gpu, c, s, **link), roles->shared, "\n// The prefill engines.\nparam NP = ", c.prefills, ";\n",
      DropParams(Rename(roles->engine_p, "P"), {"NP"}), "\n// The decode engines.\nparam ND = ", c.decodes, ";\n",
      DropParams(Rename(roles->engine_d, "D"), {"ND", "Block"}), "\n",
      roles->links.empty() ? "" : absl::StrCat(roles->links, "\n"), KvTransfer(model, c, s, **link),
      roles->step_time, "\n",
      "pool kvP[NP] { cap KvBlocksP * Block; block Block; }\n",
      "pool kvD[ND] { cap KvBlocksD * Block; block Block; }\n\n", roles->stage_p, "}\n\n", roles->stage_d,
      "}\n\n",
      "stage egress[NP] : ps(XferTokens);   // a prefill engine's sending side\n",
      "stage ingress[ND] : ps(XferTokens);  // a decode engine's receiving side\nshare maxmin;  // a transfer at the rate of its slower side\n\n",
      *workload, Session(model, c, lengths));
}

// The session's choice of engine as the candidate's router: the generator's
// routing (serq/models DataParallelRouting: its comment lines and its
// `set i` or `choose i`, with or without its `every` copy) replaced.
absl::StatusOr<std::string> Route(std::string text, const Candidate& c) {
  static const std::regex kRouting(
      R"((  //[^\n]*\n)*  (set i = serial % Engines;|choose i in E by \(4 \* waiting\(E\[i\]\) \+ running\(E\[i\]\)\)( every [0-9.e+-]+)?;)\n)");
  std::smatch m;
  if (!std::regex_search(text, m, kRouting)) return Internal("data-parallel routing");
  const std::string lines =
      c.router == "round-robin"
          ? "  // serq plan's router round-robin: the engines in turn.\n  set i = serial % Engines;\n"
          : "  // serq plan's router least-loaded: the engine of least 4 x waiting + running (vLLM's\n"
            "  // data-parallel balancer's score).\n  choose i in E by (4 * waiting(E[i]) + running(E[i]));\n";
  text.replace(m.position(0), m.length(0), lines);
  return text;
}

}  // namespace

absl::StatusOr<std::string> CandidateProgram(const models::ModelConfig& model, const models::Gpu& gpu,
                                             const Candidate& c, const ProgramSettings& s,
                                             std::vector<std::string>* warnings) {
  std::vector<std::string> dropped;
  if (warnings == nullptr) warnings = &dropped;
  absl::StatusOr<std::string> text = c.disaggregated ? Disaggregated(model, gpu, c, s, warnings)
                                                     : Generate(model, gpu, c.tp, c.replicas, c, s, warnings);
  if (!text.ok()) return text.status();
  if (!c.disaggregated && c.replicas > 1 && !c.router.empty()) {
    text = Route(*std::move(text), c);
    if (!text.ok()) return text.status();
  }
  return RateParam(*std::move(text), s);
}

absl::Status Fits(const models::ModelConfig& model, const models::Gpu& gpu, int tp, const ProgramSettings& s) {
  Candidate c;
  c.tp = tp;
  std::vector<std::string> warnings;  // a candidate's program says them
  return Generate(model, gpu, tp, 1, c, s, &warnings).status();
}

}  // namespace serq::plan
