#include "serq/physics_cli.h"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ir/cli.h"
#include "ir/flags.h"
#include "ir/limits.h"
#include "net/interconnect.h"
#include "ir/output.h"
#include "serq/models/presets.h"
#include "serq/models/program_text.h"
#include "serq/models/vllm_engine.h"
#include "serq/physics/physics.h"
#include "serq/pipeline/commands.h"
#include "serq/vllm_cli.h"
#include "stats/format.h"

ABSL_FLAG(std::string, model, "",
          "physics, plan: the model, a preset's name (llama-3.1-8b, qwen3-30b-a3b, ...) or its config.json");
ABSL_FLAG(std::string, gpu, "",
          "physics, plan: the GPU, a preset's name (h100-sxm, rtx-pro-6000, ...) or a datasheet file "
          "(FILE:NAME picks one of several); with CONFIG HARDWARE given as files, the GPU of "
          "HARDWARE");
ABSL_FLAG(int32_t, tp, 1, "physics: tensor-parallel degree");
ABSL_FLAG(int32_t, dp, 1, "physics: data-parallel degree (engines)");
ABSL_FLAG(bool, ep, false, "physics: expert parallel: the experts whole over the --tp x --dp GPUs");
ABSL_FLAG(std::string, coefficients, "",
          "physics, plan: a JSON file of {alpha_coeffs, beta_coeffs} (default: BLIS's trained-physics "
          "defaults)");
ABSL_FLAG(std::string, replay, "", "physics, plan: the workload: replay this trace (any format serq reads)");
ABSL_FLAG(double, rate, 0, "physics: the workload: Poisson arrivals of this many requests a second; plan: the target rate");
ABSL_FLAG(std::string, lengths, "",
          "physics, plan: with --rate, the requests' lengths: llmservingsim-sharegpt (default), "
          "sharegpt, fixed:IN,OUT or uniform:ILO:IHI,OLO:OHI");
ABSL_FLAG(int64_t, requests, 300, "physics, plan: with --rate, how many requests arrive");
ABSL_FLAG(double, kv_tokens, 0, "physics: with --blis --replay, the KV pool's tokens (default: unbounded)");
ABSL_FLAG(std::string, columns, "",
          "physics, plan: with --replay, the trace's prompt and output columns (default: told from the "
          "file: input_toks,output_toks for a vLLM requests.jsonl; with --blis, input_tokens,output_tokens)");
ABSL_FLAG(std::optional<int64_t>, max_num_seqs, std::nullopt,
          "physics: vLLM's max_num_seqs (default: vLLM 0.19's for the GPU)");
ABSL_FLAG(std::optional<int64_t>, max_num_batched_tokens, std::nullopt,
          "physics: vLLM's max_num_batched_tokens (default: vLLM 0.19's for the GPU)");
ABSL_FLAG(int32_t, block_size, 16, "physics: vLLM's block_size (tokens a KV block)");
ABSL_FLAG(std::optional<int64_t>, max_model_len, std::nullopt,
          "physics, plan: vLLM's max_model_len (default: the model's, as vLLM derives it from its config; "
          "with physics --replay, the most the KV cache holds where the model's does not fit, as vLLM's auto)");
ABSL_FLAG(std::string, kv_cache_dtype, "auto", "physics: vLLM's kv_cache_dtype: auto (the model's), bfloat16, float16, fp8, fp8_e4m3 or fp8_e5m2");
ABSL_FLAG(std::optional<double>, link_bw, std::nullopt,
          "physics: the link between GPUs by its bandwidth, GB/s a direction (10^9 bytes), instead of "
          "a named --interconnect");
ABSL_FLAG(std::optional<double>, link_latency, std::nullopt,
          "physics: with --link-bw, the link's latency a ring step, us (default 0)");
ABSL_FLAG(bool, mixed_attention, false,
          "physics: charge the decodes of a step with a prefill at the attention kernel's padded "
          "query tile (FlashAttention 2's varlen path; docs/cli.md §serq physics)");
ABSL_FLAG(bool, blis, false,
          "physics: BLIS's own dense trained-physics form (head_dim = hidden / heads, the "
          "all-reduce at HBM bandwidth, BLIS's alphas), for conformance with BLIS");
ABSL_DECLARE_FLAG(std::string, out);
ABSL_DECLARE_FLAG(std::optional<int64_t>, kv_blocks);
ABSL_DECLARE_FLAG(std::optional<double>, gpu_memory_utilization);
ABSL_DECLARE_FLAG(std::optional<double>, gpu_memory);
ABSL_DECLARE_FLAG(bool, no_prefix_cache);
ABSL_DECLARE_FLAG(bool, enforce_eager);
ABSL_DECLARE_FLAG(std::string, interconnect);

namespace serq {

std::vector<FlagUse> PhysicsFlagUses() {
  return {
      {"model", {"physics"}},
      {"gpu", {"physics"}},
      {"tp", {"physics"}},
      {"dp", {"physics"}},
      {"ep", {"physics"}},
      {"coefficients", {"physics"}},
      {"replay", {"physics"}},
      {"rate", {"physics"}},
      {"lengths", {"physics"}},
      {"requests", {"physics"}},
      {"kv-tokens", {"physics"}},
      {"columns", {"physics"}},
      {"max-num-seqs", {"physics"}},
      {"max-num-batched-tokens", {"physics"}},
      {"block-size", {"physics"}},
      {"max-model-len", {"physics"}},
      {"kv-cache-dtype", {"physics"}},
      {"link-bw", {"physics"}},
      {"link-latency", {"physics"}},
      {"mixed-attention", {"physics"}},
      {"blis", {"physics"}},
  };
}

namespace {

int Rejected(const absl::Status& s) {
  // A file that cannot be read is misuse; one that is not right, rejected.
  if (absl::IsInvalidArgument(s)) {
    std::cerr << s.message() << "\n";
    return kExitInputRejected;
  }
  PrintToolError("serq", s.message());
  return kExitUsage;
}

// "serq physics: error: --model 'x': ..." for a name that is neither.
int RejectedFlag(const char* flag, const absl::Status& s) {
  if (absl::IsInvalidArgument(s) && absl::StartsWith(s.message(), "'")) {
    std::cerr << "serq physics: error: --" << flag << " " << s.message() << "\n";
    return kExitInputRejected;
  }
  return Rejected(s);
}

int Write(const std::string& text) {
  const std::string out = absl::GetFlag(FLAGS_out);
  absl::Status s = out.empty() ? WriteStdout(text) : WriteFile(out, text);
  if (!s.ok()) {
    PrintToolError("serq", s.message());
    return kExitUsage;
  }
  return kExitOk;
}

// The files serq physics reads, which its --out must not replace: the
// model's config and the GPU's datasheet where they are files (not preset
// names), the trace, the coefficients.
std::vector<NamedPath> PhysicsInputs(const std::string& model, const models::Gpu& gpu,
                                     const std::string& coefficients) {
  std::vector<NamedPath> inputs;
  std::error_code error;
  if (std::filesystem::exists(model, error)) inputs.push_back({"the model's config", model});
  // The file ResolveGpu read the GPU from (--gpu FILE:NAME's FILE too).
  if (!gpu.preset) inputs.push_back({"the GPU's datasheet", gpu.file});
  inputs.push_back({"--replay", absl::GetFlag(FLAGS_replay)});
  inputs.push_back({"--coefficients", coefficients});
  return inputs;
}

// BLIS's dense form (--blis): the block, or a whole program around a trace.
// --tp and --dp out of range, or "". Bounded so that a deployment's
// program stays within the language's million elements (an engine is an
// element of its stage and of its pool) and tp x dp within an int.
constexpr int kMostDegree = 4096;
std::string DegreeMisuse(int tp, int dp) {
  if (tp < 1 || tp > kMostDegree || dp < 1 || dp > kMostDegree) {
    return absl::StrCat("--tp and --dp must be from 1 to ", kMostDegree, ", not ", tp, " and ", dp);
  }
  return "";
}

int BlisMain(const models::ModelConfig& model, const std::string& model_file, const models::Gpu& gpu,
             const physics::Coefficients& coefficients) {
  absl::StatusOr<physics::ModelShape> shape = physics::BlisShape(model, model_file);
  if (!shape.ok()) return Rejected(shape.status());
  physics::BlockOptions options;
  options.tp = absl::GetFlag(FLAGS_tp);
  if (std::string m = DegreeMisuse(options.tp, 1); !m.empty()) return Usage(m);
  options.config_file = model_file;
  options.hardware_file = gpu.file == "the GPU" ? "" : gpu.file;
  options.trace = absl::GetFlag(FLAGS_replay);
  options.program_dir = models::ProgramDirOf(absl::GetFlag(FLAGS_out));
  options.kv_tokens = absl::GetFlag(FLAGS_kv_tokens);
  if (!(options.kv_tokens >= 0 && std::isfinite(options.kv_tokens))) {
    return Usage("--kv-tokens must be a finite number, at least 0");
  }
  if (options.kv_tokens > 0 && options.trace.empty()) return Usage("--kv-tokens needs --replay");
  if (const std::string columns = absl::GetFlag(FLAGS_columns); !columns.empty()) {
    std::vector<std::string> parts = absl::StrSplit(columns, ',');
    if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
      return Usage("--columns must be PROMPT,OUTPUT, e.g. input_toks,output_toks");
    }
    if (options.trace.empty()) return Usage("--columns goes with --replay");
    options.prompt_column = parts[0];
    options.output_column = parts[1];
  }
  options.seqs = static_cast<double>(absl::GetFlag(FLAGS_max_num_seqs).value_or(256));
  options.tokens = static_cast<double>(absl::GetFlag(FLAGS_max_num_batched_tokens).value_or(2048));
  // Every flag of serq's form, its own and those it shares with serq vllm:
  // BLIS's block has none of them, and one taken silently would be a
  // deployment the user did not get (--kv-blocks, an unbounded pool).
  for (const char* flag : {"dp", "ep", "rate", "lengths", "requests", "block-size", "kv-cache-dtype",
                           "link-bw", "link-latency", "mixed-attention", "enforce-eager", "kv-blocks",
                           "gpu-memory", "gpu-memory-utilization", "no-prefix-cache", "interconnect",
                           "max-model-len", "expert-balancedness"}) {
    if (FlagGiven(flag)) {
      return Usage(absl::StrCat("--", flag, " does not apply to --blis (BLIS's dense block)"));
    }
  }
  if (absl::Status s = DistinctFiles({{"--out", absl::GetFlag(FLAGS_out)}},
                                     PhysicsInputs(model_file, gpu, absl::GetFlag(FLAGS_coefficients)));
      !s.ok()) {
    return Usage(s.message());
  }
  // A whole program around a trace is held to serq's form's rules: the
  // trace read as the replay will read it (its columns, whole prompts and
  // outputs from 1), the program linked, before anything is written.
  if (!options.trace.empty()) {
    absl::StatusOr<physics::LongestRequest> longest =
        physics::ReplayLongest(options.trace, options.prompt_column, options.output_column);
    if (!longest.ok()) return Rejected(longest.status());
  }
  absl::StatusOr<std::string> block = physics::PhysicsBlock(*shape, gpu, coefficients, options);
  if (!block.ok()) {
    PrintToolError("serq", block.status().message());
    return kExitInputRejected;
  }
  if (!options.trace.empty()) {
    CommandResult linked;
    if (!LinkGenerated(absl::GetFlag(FLAGS_out), *block, &linked)) {
      std::cerr << linked.err;
      return linked.exit_code;
    }
  }
  return Write(*block);
}

}  // namespace

std::string MaxModelLenMisuse() {
  const std::optional<int64_t> v = absl::GetFlag(FLAGS_max_model_len);
  if (v && !(*v >= 2 && *v <= (int64_t{1} << 32))) {
    return absl::StrCat("--max-model-len must be a number of tokens from 2 to 4294967296, not ", *v);
  }
  return "";
}

std::optional<int64_t> MaxModelLenFlag() { return absl::GetFlag(FLAGS_max_model_len); }

int PhysicsMain(const CommandLine& line) {
  if (!line.defines.empty()) return Usage("-D does not apply to 'serq physics'");
  std::string model_name = absl::GetFlag(FLAGS_model), gpu_name = absl::GetFlag(FLAGS_gpu);
  if (line.positional.size() == 2) {
    // The older form: CONFIG.json HARDWARE.json, --gpu naming the GPU of
    // HARDWARE.
    if (!model_name.empty()) return Usage("--model and a CONFIG.json: one model or the other");
    model_name = line.positional[0];
    gpu_name = absl::StrCat(line.positional[1], gpu_name.empty() ? "" : ":" + gpu_name);
  } else if (!line.positional.empty()) {
    return Usage(absl::StrCat("serq physics: expected --model M --gpu G (or CONFIG.json HARDWARE.json), "
                              "got ", line.positional.size(), " files"));
  }
  if (model_name.empty() || gpu_name.empty()) {
    return Usage("serq physics: expected --model (a preset or a config.json) and --gpu (a preset or a "
                 "datasheet)");
  }
  const bool blis = absl::GetFlag(FLAGS_blis);
  models::ReadOptions read;
  read.latent_attention = read.quantized = true;
  // BLIS's dense form reads any config's shapes, as BLIS does.
  read.known_decoders_only = !blis;
  read.tool = "serq physics";
  std::string model_source;
  absl::StatusOr<models::ModelConfig> model = models::ResolveModel(model_name, read, &model_source);
  if (!model.ok()) return RejectedFlag("model", model.status());
  absl::StatusOr<models::Gpu> gpu = models::ResolveGpu(gpu_name);
  if (!gpu.ok()) return RejectedFlag("gpu", gpu.status());
  physics::Coefficients coefficients = physics::BlisDefaults();
  const std::string coefficients_path = absl::GetFlag(FLAGS_coefficients);
  if (!coefficients_path.empty()) {
    absl::StatusOr<std::string> text = ReadInput(coefficients_path);
    if (!text.ok()) return Rejected(text.status());
    absl::StatusOr<physics::Coefficients> read = physics::ReadCoefficients(*text, coefficients_path);
    if (!read.ok()) return Rejected(read.status());
    coefficients = *read;
  }
  // --max-num-seqs and --max-num-batched-tokens in their ranges, serq's
  // form and --blis alike: at most models::kMostMaxNumSeqs and
  // kMostMaxNumBatchedTokens (past 2^62, 2 x max_num_seqs wrapped and the
  // CUDA graphs went silently; --blis wrote `seqs -5;`).
  for (auto [flag, value, most] :
       {std::tuple{"max-num-seqs", absl::GetFlag(FLAGS_max_num_seqs), models::kMostMaxNumSeqs},
        std::tuple{"max-num-batched-tokens", absl::GetFlag(FLAGS_max_num_batched_tokens),
                   models::kMostMaxNumBatchedTokens}}) {
    if (value && (*value < 1 || *value > most)) {
      return Usage(absl::StrCat("--", flag, " must be from 1 to ", most, ", not ", *value));
    }
  }
  if (blis) return BlisMain(*model, model_name, *gpu, coefficients);

  physics::ProgramOptions options;
  physics::Deployment& d = options.deployment;
  d.tp = absl::GetFlag(FLAGS_tp);
  d.dp = absl::GetFlag(FLAGS_dp);
  // A flag's value out of its range is misuse, as every command's is.
  if (std::string m = DegreeMisuse(d.tp, d.dp); !m.empty()) return Usage(m);
  d.ep = absl::GetFlag(FLAGS_ep);
  if (std::string m = ExpertBalancednessMisuse(); !m.empty()) return Usage(m);
  d.expert_balancedness = ExpertBalancednessFlag();
  d.interconnect = absl::GetFlag(FLAGS_interconnect);
  // A link name is checked when given, whether or not the deployment uses a link.
  if (std::string m = net::UnknownInterconnect("interconnect", d.interconnect); !m.empty()) return Usage(m);
  d.link_bw_gbps = absl::GetFlag(FLAGS_link_bw);
  d.link_latency_us = absl::GetFlag(FLAGS_link_latency);
  if (d.link_latency_us && !d.link_bw_gbps) return Usage("--link-latency goes with --link-bw");
  if ((d.link_bw_gbps && !(*d.link_bw_gbps > 0 && std::isfinite(*d.link_bw_gbps))) ||
      (d.link_latency_us && !(*d.link_latency_us >= 0 && std::isfinite(*d.link_latency_us)))) {
    return Usage("--link-bw must be above 0 (GB/s) and --link-latency at least 0 (us)");
  }
  if (d.link_bw_gbps && !d.interconnect.empty()) {
    return Usage("--interconnect and --link-bw: one link or the other");
  }
  d.max_num_seqs = absl::GetFlag(FLAGS_max_num_seqs).value_or(0);
  d.max_num_batched_tokens = absl::GetFlag(FLAGS_max_num_batched_tokens).value_or(0);
  d.block_size = absl::GetFlag(FLAGS_block_size);
  if (d.block_size < 1 || d.block_size > 1024) return Usage("--block-size must be from 1 to 1024");
  if (std::string m = MaxModelLenMisuse(); !m.empty()) return Usage(m);
  d.max_model_len = absl::GetFlag(FLAGS_max_model_len);
  d.fit_max_model_len = true;  // with --replay: the replayed run started
  if (std::string m = KvFlagsMisuse(); !m.empty()) return Usage(m);
  d.gpu_memory_utilization = absl::GetFlag(FLAGS_gpu_memory_utilization).value_or(0.9);
  d.gpu_memory_gib = absl::GetFlag(FLAGS_gpu_memory);
  d.kv_blocks = absl::GetFlag(FLAGS_kv_blocks);
  d.prefix_cache = !absl::GetFlag(FLAGS_no_prefix_cache);
  d.kv_cache_dtype = absl::GetFlag(FLAGS_kv_cache_dtype);
  d.mixed_attention = absl::GetFlag(FLAGS_mixed_attention);
  d.enforce_eager = absl::GetFlag(FLAGS_enforce_eager);
  physics::Workload& w = options.workload;
  w.replay = absl::GetFlag(FLAGS_replay);
  w.rate = absl::GetFlag(FLAGS_rate);
  w.lengths = absl::GetFlag(FLAGS_lengths);
  w.requests = absl::GetFlag(FLAGS_requests);
  if (w.rate != 0 && !(w.rate > 0 && std::isfinite(w.rate))) {
    return Usage(absl::StrCat("--rate must be a number of requests a second above 0, not ",
                              report::FormatShortest(w.rate)));
  }
  if (w.replay.empty() && w.rate == 0) {
    return Usage("serq physics: a workload: --replay TRACE, or --rate R (requests a second)");
  }
  // Written into the program's `limit Requests`: a whole number a double
  // holds exactly (physics::FitWorkload says the same to a caller that
  // reads no flag).
  if (w.requests < 1 || w.requests > kMaxExactly) {
    return Usage(absl::StrCat("--requests must be from 1 to 2^53, not ", w.requests));
  }
  if (!w.replay.empty() && w.rate != 0) return Usage("--replay and --rate: one workload or the other");
  if (FlagGiven("lengths")) {
    if (absl::StatusOr<physics::LengthLines> l = physics::ParseLengthLines(w.lengths); !l.ok()) {
      return Usage(absl::StripPrefix(l.status().message(), "serq physics: error: "));
    }
  }
  if (!models::KnownKvCacheDtype(d.kv_cache_dtype)) {
    return Usage(absl::StrCat("--kv-cache-dtype ", d.kv_cache_dtype, ": expected ", models::kKvCacheDtypes));
  }
  if (!w.replay.empty() && (FlagGiven("lengths") || FlagGiven("requests"))) {
    return Usage("--lengths and --requests go with --rate, not --replay");
  }
  if (FlagGiven("kv-tokens")) return Usage("--kv-tokens goes with --blis (use --kv-blocks)");
  if (const std::string columns = absl::GetFlag(FLAGS_columns); !columns.empty()) {
    std::vector<std::string> parts = absl::StrSplit(columns, ',');
    if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
      return Usage("--columns must be PROMPT,OUTPUT, e.g. input_toks,output_toks");
    }
    if (w.replay.empty()) return Usage("--columns goes with --replay");
    w.prompt_column = parts[0];
    w.output_column = parts[1];
  }
  options.coefficients = coefficients;
  options.coefficients_file = coefficients_path;
  options.model_source = model_source;
  options.model_name = model_name;
  const std::string out = absl::GetFlag(FLAGS_out);
  options.program_dir = models::ProgramDirOf(out);
  if (absl::Status s = DistinctFiles({{"--out", out}}, PhysicsInputs(model_name, *gpu, coefficients_path));
      !s.ok()) {
    return Usage(s.message());
  }
  // The command, its flags in a fixed order, for the program's first lines:
  // a figure as the user could have typed it, to the last digit, so that
  // the command writes the program again.
  std::vector<std::string> words = {"serq physics --model", model_name, "--gpu", gpu_name};
  auto add = [&](bool given, const char* flag, const std::string& value) {
    if (given) words.push_back(value.empty() ? flag : absl::StrCat(flag, " ", value));
  };
  add(d.tp != 1, "--tp", absl::StrCat(d.tp));
  add(d.dp != 1, "--dp", absl::StrCat(d.dp));
  add(d.ep, "--ep", "");
  add(d.expert_balancedness.has_value(), "--expert-balancedness",
      report::FormatShortest(d.expert_balancedness.value_or(1)));
  add(!d.interconnect.empty(), "--interconnect", d.interconnect);
  add(d.link_bw_gbps.has_value(), "--link-bw", report::FormatShortest(d.link_bw_gbps.value_or(0)));
  add(d.link_latency_us.has_value(), "--link-latency", report::FormatShortest(d.link_latency_us.value_or(0)));
  add(d.max_num_seqs != 0, "--max-num-seqs", absl::StrCat(d.max_num_seqs));
  add(d.max_num_batched_tokens != 0, "--max-num-batched-tokens", absl::StrCat(d.max_num_batched_tokens));
  add(d.block_size != 16, "--block-size", absl::StrCat(d.block_size));
  add(d.kv_cache_dtype != "auto", "--kv-cache-dtype", d.kv_cache_dtype);
  add(absl::GetFlag(FLAGS_gpu_memory_utilization).has_value(), "--gpu-memory-utilization",
      report::FormatShortest(d.gpu_memory_utilization));
  add(d.gpu_memory_gib.has_value(), "--gpu-memory", report::FormatShortest(d.gpu_memory_gib.value_or(0)));
  add(d.kv_blocks.has_value(), "--kv-blocks", absl::StrCat(d.kv_blocks.value_or(0)));
  add(!d.prefix_cache, "--no-prefix-cache", "");
  add(d.mixed_attention, "--mixed-attention", "");
  add(d.enforce_eager, "--enforce-eager", "");
  add(!coefficients_path.empty(), "--coefficients", coefficients_path);
  add(!w.replay.empty(), "--replay", w.replay);
  add(!w.prompt_column.empty(), "--columns", absl::StrCat(w.prompt_column, ",", w.output_column));
  add(w.rate != 0, "--rate", report::FormatShortest(w.rate));
  add(!w.lengths.empty(), "--lengths", w.lengths);
  add(w.replay.empty() && w.requests != 300, "--requests", absl::StrCat(w.requests));
  options.command = absl::StrJoin(words, " ");
  std::vector<std::string> warnings;
  absl::StatusOr<std::string> program = physics::GenerateProgram(*model, *gpu, options, &warnings);
  if (!program.ok()) return Rejected(program.status());
  // A flag that changes nothing of this program is said, not dropped
  // (serq vllm's rule).
  std::vector<std::string> unused;
  if (!physics::ExchangesOverLink(*model, d)) {
    for (const char* flag : {"interconnect", "link-bw", "link-latency"}) {
      if (FlagGiven(flag)) {
        unused.push_back(absl::StrCat("--", flag, " changes nothing: the GPUs exchange nothing (tensor parallel 1, ",
                                      model->moe() ? "one engine" : "a dense model", ")"));
      }
    }
  }
  if (d.ep && d.tp * d.dp == 1) unused.push_back("--ep changes nothing: the experts are on one GPU (--tp x --dp 1)");
  if (d.expert_balancedness && !(d.ep && model->moe() && d.tp * d.dp > 1)) {
    unused.push_back("--expert-balancedness changes nothing: the experts are not spread whole over GPUs (--ep on "
                     "more than one GPU)");
  }
  if (d.kv_blocks && FlagGiven("gpu-memory-utilization")) {
    unused.push_back("--gpu-memory-utilization changes nothing: --kv-blocks gives the KV cache's count");
  }
  if (d.kv_blocks && d.gpu_memory_gib && d.max_num_seqs > 0 && d.max_num_batched_tokens > 0) {
    unused.push_back("--gpu-memory changes nothing: --kv-blocks gives the KV cache's count, and --max-num-seqs and "
                     "--max-num-batched-tokens vLLM's limits");
  }
  for (const std::string& u : unused) std::cerr << ToolWarning("serq physics", u);
  for (const std::string& w : warnings) std::cerr << ToolWarning("serq physics", w);
  // The program links as written, or nothing is written (serq vllm's rule).
  CommandResult linked;
  if (!LinkGenerated(out, *program, &linked)) {
    std::cerr << linked.err;
    return linked.exit_code;
  }
  return Write(*program);
}

}  // namespace serq
