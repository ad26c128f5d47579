// serq vllm's reading of a run folder: what vLLM resolved, the bench's newer
// meta.json, redeployed engines, and every bad folder's located error.
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "serq/vllm/generate.h"
#include "serq/vllm/run_folder.h"
#include "serq/vllm/test_folders.h"

namespace serq::vllm {

namespace {

namespace fs = std::filesystem;

// meta.json as LLMServingSim's bench writes it since 2026-08: kv_cache with
// its null fields, the GPU torch saw (hardware) and vLLM's whole resolved
// configuration (resolved_config, a key a sub-config). What vLLM ran with
// fills in for vLLM 0.19's defaults, and must agree with engine_kwargs.
TEST(RunFolder, WhatVllmResolved) {
  const std::string dir = Copy(kLlama, "resolved");
  const std::string meta = dir + "/meta.json";
  const std::string original = Read(meta);
  // The sizes vLLM 0.19 captures for max_num_seqs 128 and 2048 tokens:
  // 1, 2, 4, 8, 16, ..., 248 and 256 (min(2 x 128, 512, 2048) = 256).
  std::string sizes = "[1, 2, 4";
  for (int s = 8; s <= 256; s += 8) sizes += absl::StrCat(", ", s);
  sizes += "]";
  auto with = [&](const std::string& compilation, const std::string& scheduler = "\"async_scheduling\": true",
                  const std::string& hardware = "") {
    Write(meta, AddToMeta(original,
                          absl::StrCat("\"kv_cache\": {\"num_gpu_blocks\": 36000, "
                                       "\"num_cpu_blocks\": null, \"block_size\": 16, \"gpu_memory_utilization\": 0.9, "
                                       "\"enable_prefix_caching\": true, \"kv_cache_memory_bytes\": null, "
                                       "\"num_kv_tokens\": 576000}, \"hardware\": {\"torch_version\": \"2.10.0\", "
                                       "\"device_count\": 1, \"device_name\": \"NVIDIA RTX PRO 6000 Blackwell Server "
                                       "Edition\", \"device_total_memory_bytes\": 102005473280",
                                       hardware, "}, \"resolved_config\": {\"lora_config\": null, \"instance_id\": "
                                       "\"a1\", \"cache_config\": {\"block_size\": 16, \"num_gpu_blocks\": 36000, "
                                       "\"cache_dtype\": \"auto\", \"enable_prefix_caching\": true}, "
                                       "\"model_config\": {\"enforce_eager\": false, \"max_model_len\": 131072, "
                                       "\"dtype\": \"torch.bfloat16\"}, \"scheduler_config\": {\"max_num_seqs\": 128, "
                                       "\"max_num_batched_tokens\": 2048, \"enable_chunked_prefill\": true, "
                                       "\"policy\": \"fcfs\", \"long_prefill_token_threshold\": 0, ",
                                       scheduler, "}, \"compilation_config\": {\"mode\": 3, ", compilation, "}},")));
  };
  auto program = [&]() {
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    EXPECT_TRUE(g.ok()) << g.status();
    if (g.ok()) {
      EXPECT_EQ(g->warnings, std::vector<std::string>{});
    }
    return g.ok() ? g->program : std::string();
  };
  const auto line = [](const std::string& p, const std::string& start) {
    const size_t at = p.find(start);
    return at == std::string::npos ? "(no " + start + ")" : p.substr(at, p.find('\n', at) - at);
  };
  const std::string plain = GenerateProgram(kLlama, {})->program;
  // vLLM 0.19's defaults, recorded: the same steps as the defaults assumed.
  with("\"cudagraph_mode\": [2, 1], \"cudagraph_capture_sizes\": " + sizes + ", \"max_cudagraph_capture_size\": 256");
  std::string p = program();
  EXPECT_EQ(line(p, "param GraphMax = "),
            "param GraphMax = 256;        // the largest CUDA graph, tokens (meta.json "
            "resolved_config.compilation_config.cudagraph_capture_sizes)");
  EXPECT_EQ(line(p, "  let padded = "), line(plain, "  let padded = "));
  EXPECT_EQ(line(p, "  let graphed = "), "  let graphed = tokens <= GraphMax;");
  EXPECT_EQ(line(p, "param KvBlocks = "), "param KvBlocks = 35999;      // KV blocks an engine holds requests in:");
  EXPECT_NE(p.find("  seqs Seqs; tokens Tokens; preempt by (-since); reserve prompt; async;"), std::string::npos);
  // Other sizes, as a user's compilation_config captures them: a step runs
  // at the first size at or above its tokens, 1 + each gap it passes: 3
  // tokens at 1 + 1 + 2 = 4, 64 at 1 + 1 + 2 + 4 + 8 + 16 + 32 = 64, 65 at
  // 128.
  with("\"cudagraph_capture_sizes\": [128, 1, 2, 4, 8, 16, 32, 64, 64]");
  p = program();
  EXPECT_EQ(line(p, "param GraphMax = "),
            "param GraphMax = 128;        // the largest CUDA graph, tokens (meta.json "
            "resolved_config.compilation_config.cudagraph_capture_sizes)");
  EXPECT_EQ(line(p, "  let padded = "),
            "  let padded = graphed * (1 + (tokens > 1) * 1 + (tokens > 2) * 2 + (tokens > 4) * 4 + (tokens > 8) * 8 "
            "+ (tokens > 16) * 16 + (tokens > 32) * 32 + (tokens > 64) * 64) + (1 - graphed) * tokens;");
  Diagnostics diags("gen.sq");
  ir::Program parsed;
  ASSERT_TRUE(ParseProgram("gen.sq", p, &parsed, &diags)) << diags.Render();
  // 64 sizes of no pattern vLLM's rule makes (1, 3, 5, ..., 127): a sum
  // of 64 terms, grouped so that the program stays inside the IR's 64
  // levels (a flat sum of more than about 25 was refused by the link).
  std::string odd = "[1";
  for (int s = 3; s <= 127; s += 2) odd += absl::StrCat(", ", s);
  with("\"cudagraph_capture_sizes\": " + odd + "]");
  p = program();
  EXPECT_EQ(line(p, "param GraphMax = ").substr(0, 31), "param GraphMax = 127;        //");
  EXPECT_NE(line(p, "  let padded = ").find("((1 + (tokens > 1) * 2 + (tokens > 3) * 2"), std::string::npos)
      << line(p, "  let padded = ");
  EXPECT_EQ(LinkErrors(p), "");
  // The largest size recorded without the list: vLLM's rule up to it (8:
  // 1, 2, 4, 8).
  with("\"max_cudagraph_capture_size\": 8");
  EXPECT_EQ(line(program(), "param GraphMax = ").substr(0, 29), "param GraphMax = 8;          ");
  // Sizes past max_num_batched_tokens (2048), which vLLM never captures:
  // dropped and said; 1, 2, 4 and 8 are left, the default rule's form.
  with("\"cudagraph_capture_sizes\": [1, 2, 4, 8, 4096, 8192]");
  {
    absl::StatusOr<Generated> past = GenerateProgram(dir, {});
    ASSERT_TRUE(past.ok()) << past.status();
    EXPECT_EQ(line(past->program, "param GraphMax = ").substr(0, 29), "param GraphMax = 8;          ");
    EXPECT_EQ(past->warnings,
              std::vector<std::string>{meta + ": resolved_config.compilation_config.cudagraph_capture_sizes: 2 of "
                                              "its sizes pass max_num_batched_tokens 2048, a step's most tokens, the "
                                              "largest 8192: vLLM captures none of them, and the program pads to "
                                              "none"});
  }
  // FULL_DECODE_ONLY: a step with a prefill runs eagerly; by value or name.
  for (const char* mode : {"[2, 0]", "\"FULL_DECODE_ONLY\"", "\"CUDAGraphMode.FULL_DECODE_ONLY\""}) {
    with(std::string("\"cudagraph_mode\": ") + mode);
    EXPECT_EQ(line(program(), "  let graphed = "), "  let graphed = (tokens <= GraphMax) * (prefill == 0);") << mode;
  }
  // NONE, or nothing captured: every step at its own tokens, as enforce_eager.
  for (const char* none : {"\"cudagraph_mode\": 0", "\"cudagraph_capture_sizes\": []"}) {
    with(none);
    p = program();
    EXPECT_EQ(p.find("GraphMax"), std::string::npos) << none;
    EXPECT_NE(p.find("let us = embedding(tokens) + final_layernorm(tokens)"), std::string::npos) << none;
  }
  // A form the recorder left as a tag is said, and the default kept.
  with("\"cudagraph_mode\": \"<CUDAGraphMode>\", \"cudagraph_capture_sizes\": \"<list len=70>\"");
  absl::StatusOr<Generated> g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(line(g->program, "  let padded = "), line(plain, "  let padded = "));
  EXPECT_EQ(g->warnings,
            (std::vector<std::string>{
                meta + ": resolved_config.compilation_config.cudagraph_capture_sizes: \"<list len=70>\" is not a "
                       "list of sizes: vLLM 0.19's default sizes are assumed",
                meta + ": resolved_config.compilation_config.cudagraph_mode (\"<CUDAGraphMode>\") is the recorder's "
                       "tag for a value it could not write: read as not recorded"}));
  // A tag with the largest size recorded: vLLM's rule up to it (600: 1, 2,
  // 4, 8 to 248 by 8, 256 to 592 by 16, 56 sizes, more than the 64 the
  // recorder keeps only with other sizes; the rule's own list, written as
  // the rule).
  with("\"cudagraph_capture_sizes\": \"<list len=70>\", \"max_cudagraph_capture_size\": 600");
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(line(g->program, "param GraphMax = "),
            "param GraphMax = 592;        // the largest CUDA graph, tokens (meta.json "
            "resolved_config.compilation_config.max_cudagraph_capture_size)");
  EXPECT_NE(line(g->program, "  let padded = ").find("+ (tokens > 256) * (256 + 16 * ceil((tokens - 256) / 16))"),
            std::string::npos)
      << line(g->program, "  let padded = ");
  EXPECT_EQ(g->warnings,
            (std::vector<std::string>{meta + ": resolved_config.compilation_config.cudagraph_capture_sizes: "
                                             "\"<list len=70>\" is not a list of sizes: vLLM's default sizes up to "
                                             "resolved_config.compilation_config.max_cudagraph_capture_size 600 "
                                             "are assumed"}));
  with("\"cudagraph_mode\": [2, 2], \"cudagraph_capture_sizes\": [1, 2.5, 4]");
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->warnings,
            (std::vector<std::string>{
                meta + ": resolved_config.compilation_config.cudagraph_mode [2, 2] is not a mode serq vllm knows: "
                       "vLLM 0.19's default, FULL_AND_PIECEWISE, is assumed",
                meta + ": resolved_config.compilation_config.cudagraph_capture_sizes: element 1, 2.5, is not a "
                       "size (a whole number from 1 to 2^20): vLLM 0.19's default sizes are assumed"}));
  // The scheduler as it ran: no async scheduling, no `async`.
  with("\"backend\": \"inductor\"", "\"async_scheduling\": false");
  EXPECT_EQ(program().find("async;"), std::string::npos);
  // Records that disagree, or a schedule serq does not model: refused.
  with("\"backend\": \"inductor\"", "\"async_scheduling\": true, \"max_num_seqs\": 256");
  Edit(meta, "\"max_num_seqs\": 128, \"max_num_batched_tokens\": 2048, \"enable",
       "\"max_num_batched_tokens\": 2048, \"enable");
  EXPECT_EQ(Error(dir), meta + ": error: resolved_config.scheduler_config.max_num_seqs: 256, where "
                               "engine_kwargs.max_num_seqs is 128: the run's two records of the engine disagree");
  with("\"backend\": \"inductor\"", "\"policy\": \"priority\"");
  Edit(meta, "\"policy\": \"fcfs\", ", "");
  EXPECT_EQ(Error(dir), meta + ": error: resolved_config.scheduler_config.policy: 'priority': the requests carry "
                               "no priority; serq vllm models fcfs");
  with("\"backend\": \"inductor\"");
  Edit(meta, "\"block_size\": 16, \"num_gpu_blocks\": 36000", "\"block_size\": 16, "
       "\"num_gpu_blocks\": 35000");
  EXPECT_EQ(Error(dir), meta + ": error: resolved_config.cache_config.num_gpu_blocks: 35000, where "
                               "kv_cache.num_gpu_blocks is 36000: the run's two records of the engine disagree");
  Write(meta, AddToMeta(original, "\"resolved_config\": [],"));
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: resolved_config: expected an object");
  // What changes the schedule and serq does not model: refused, as
  // engine_kwargs refuses it. Full-prompt admission off: no `reserve prompt`.
  with("\"backend\": \"inductor\"", "\"scheduler_reserve_full_isl\": false");
  p = program();
  EXPECT_NE(p.find("  seqs Seqs; tokens Tokens; preempt by (-since); async;"), std::string::npos);
  EXPECT_EQ(p.find("reserve prompt"), std::string::npos);
  with("\"backend\": \"inductor\"", "\"max_num_partial_prefills\": 4");
  EXPECT_EQ(Error(dir), meta + ": error: resolved_config.scheduler_config.max_num_partial_prefills: 4: "
                               "concurrent partial prefills: serq vllm models one");
  with("\"backend\": \"inductor\"");
  Edit(meta, "\"lora_config\": null", "\"lora_config\": \"<LoRAConfig>\"");
  EXPECT_EQ(Error(dir), meta + ": error: resolved_config.lora_config: \"<LoRAConfig>\": LoRA adapters: serq "
                               "vllm does not model it");
  with("\"backend\": \"inductor\"");
  Edit(meta, "\"lora_config\": null", "\"speculative_config\": {\"method\": \"eagle\"}");
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: resolved_config.speculative_config: an object: "
                                              "speculative decoding");
  // The limits from resolved_config alone, and said so.
  with("\"backend\": \"inductor\"");
  Write(meta, Replace(Replace(Read(meta), "\"max_num_seqs\": 128,\n", ""), "\"max_num_batched_tokens\": 2048,\n",
                      ""));
  p = program();
  EXPECT_EQ(line(p, "param Seqs = "),
            "param Seqs = 128;            // meta.json resolved_config.scheduler_config.max_num_seqs");
  EXPECT_EQ(line(p, "param Tokens = "),
            "param Tokens = 2048;         // meta.json resolved_config.scheduler_config.max_num_batched_tokens");
  // The KV dtype's disagreement names the field that gave the other one.
  with("\"backend\": \"inductor\"");
  Write(meta, Replace(Replace(Read(meta), "\"cache_dtype\": \"auto\"", "\"cache_dtype\": \"bfloat16\""),
                      "\"num_kv_tokens\": 576000", "\"num_kv_tokens\": 576000, \"cache_dtype\": \"fp8\""));
  EXPECT_EQ(Error(dir), meta + ": error: resolved_config.cache_config.cache_dtype: 'bfloat16', where "
                               "kv_cache.cache_dtype is 'fp8': the run's two records of the engine disagree");
  // Python's json writes NaN and Infinity for such floats: read as null,
  // and said with the place of the first.
  with("\"backend\": \"inductor\"");
  Edit(meta, "\"lora_config\": null", "\"lora_config\": NaN, \"x\": [Infinity, -Infinity]");
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->warnings.size(), 1u);
  EXPECT_PRED2(StartsWith, g->warnings[0], meta + ":2:");
  EXPECT_NE(g->warnings[0].find(": 3 NaN or Infinity (Python's; JSON has no such number) read as null"),
            std::string::npos)
      << g->warnings[0];
  // A string holding NaN is a string.
  with("\"backend\": \"NaN\"");
  EXPECT_NE(program(), "");

  // The GPU's memory as torch reports it derives the count --gpu-memory
  // derives from the same GiB (102005473280 bytes = 95.0 GiB), where the
  // run logs no count; a run on another GPU than the profile's is said.
  Write(meta, AddToMeta(original,
                        "\"hardware\": {\"device_name\": \"NVIDIA GeForce RTX 4090\", "
                        "\"device_total_memory_bytes\": 102005473280},"));
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("GPU memory 95 GiB (meta.json\n//     hardware.device_total_memory_bytes) x 0.9"),
            std::string::npos)
      << g->program.substr(0, 3000);
  EXPECT_EQ(g->warnings, std::vector<std::string>{
                             dir + "/profile/meta.yaml: the profile was taken on 'NVIDIA RTX PRO 6000 Blackwell Server "
                                   "Edition', the run (meta.json hardware.device_name) on 'NVIDIA GeForce RTX 4090': "
                                   "the step times are that GPU's kernels"});
  Options ninety_five;
  ninety_five.kv.gpu_memory_gib = 102005473280.0 / 1073741824.0;
  absl::StatusOr<Generated> flagged = GenerateProgram(kLlama, ninety_five);
  ASSERT_TRUE(flagged.ok()) << flagged.status();
  EXPECT_EQ(line(g->program, "param KvBlocks = "), line(flagged->program, "param KvBlocks = "));
  EXPECT_NE(line(g->program, "param KvBlocks = "), line(plain, "param KvBlocks = "));
  // Without meta.json's hardware, the cluster file's names the run's GPU
  // as meta.yaml's hardware names the profile's (RTXPRO6000 in both runs):
  // another is said; the same in another spelling is not.
  const std::string cluster = dir + "/llmservingsim-config.json";
  const std::string cluster_text = Read(cluster);
  Write(meta, original);
  absl::StatusOr<Generated> other;
  const std::vector<std::string> on_4090 = {dir + "/profile/meta.yaml: the profile was taken on 'RTXPRO6000', the "
                                                  "run (llmservingsim-config.json hardware) on 'RTX4090': the step "
                                                  "times are that GPU's kernels"};
  Write(cluster, Replace(cluster_text, "\"hardware\": \"RTXPRO6000\"", "\"hardware\": \"RTX4090\""));
  other = GenerateProgram(dir, {});
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->warnings, on_4090);
  Write(cluster, Replace(cluster_text, "\"hardware\": \"RTXPRO6000\"", "\"hardware\": \"rtx-pro-6000\""));
  other = GenerateProgram(dir, {});
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->warnings, std::vector<std::string>{});
  // A device named, but a profile without its gpu: the keys compared.
  const std::string yaml = dir + "/profile/meta.yaml";
  const std::string yaml_text = Read(yaml);
  Write(yaml, Replace(yaml_text, "gpu: NVIDIA RTX PRO 6000 Blackwell Server Edition\n", ""));
  Write(cluster, Replace(cluster_text, "\"hardware\": \"RTXPRO6000\"", "\"hardware\": \"RTX4090\""));
  Write(meta, AddToMeta(original, "\"hardware\": {\"device_name\": \"NVIDIA GeForce RTX 4090\"},"));
  other = GenerateProgram(dir, {});
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->warnings, on_4090);
  Write(yaml, yaml_text);
  Write(meta, original);
  Write(cluster, cluster_text);
  Write(meta, AddToMeta(original, "\"hardware\": {\"device_total_memory_bytes\": \"96 GB\"},"));
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: hardware.device_total_memory_bytes: ");
  Write(meta, AddToMeta(original, "\"hardware\": \"RTX 4090\","));
  EXPECT_EQ(Error(dir), meta + ": error: hardware: expected an object (the GPU: device_name, "
                               "device_total_memory_bytes, ...), not \"RTX 4090\"");
  Write(meta, original);
}

// The meta.json of testdata/vllm, whole as the bench writes it, on the
// Llama run's folder: read without a warning, each record where it fills in.
TEST(RunFolder, TheBenchsNewerMetaJson) {
  const std::string dir = Copy(kLlama, "bench-meta");
  Write(dir + "/meta.json", Read("testdata/vllm/meta-resolved.json"));
  absl::StatusOr<Generated> g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->warnings, std::vector<std::string>{});
  EXPECT_NE(g->program.find("param KvBlocks = 35999;"), std::string::npos);
  EXPECT_NE(g->program.find("(meta.json resolved_config.compilation_config.cudagraph_capture_sizes)"),
            std::string::npos);
  EXPECT_NE(g->program.find("param Block = 16;            // meta.json kv_cache.block_size (the run's log)"),
            std::string::npos);
  // With the limit from resolved_config alone, said; a plan's engine at 64
  // sequences has its own limit, not the run's record.
  Write(dir + "/meta.json", Replace(Read("testdata/vllm/meta-resolved.json"), "\"max_num_seqs\": 128,\n    \"max",
                                    "\"max"));
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param Seqs = 128;            // meta.json resolved_config.scheduler_config.max_num_seqs"),
            std::string::npos);
  Options plan;
  plan.redeploy.max_num_seqs = 64;
  g = GenerateProgram(dir, plan);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param Seqs = 64;             // max_num_seqs\n"), std::string::npos);
  // Without the cluster file, the GPU is the one torch named.
  fs::remove(dir + "/llmservingsim-config.json");
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("on 1 x NVIDIA RTX PRO 6000 Blackwell\n//   Server Edition: tensor parallel 1"),
            std::string::npos)
      << g->program.substr(0, 800);
}

// A value the bench could not record it writes as a tag in angle brackets
// ("<unreadable: AttributeError>", "<dict len=30>"): in what vLLM resolved,
// such a value is not recorded, said once a path, never a refused folder.
// Both KV counts tagged: the KV cache derived from the GPU's memory, as
// with no count (35,810 usable blocks on the Llama run: docs/cli.md
// §serq vllm's derivation; the same figure as the run without a count);
// a whole sub-config tagged: each of its fields at its default, one
// warning for it; a tagged sub-config that turns on what serq does not
// model (speculative_config) still refused.
TEST(RunFolder, TheRecordersTags) {
  const std::string dir = Copy(kLlama, "bench-tags");
  const std::string resolved = Read("testdata/vllm/meta-resolved.json");
  const std::string meta = dir + "/meta.json";
  std::string tagged = Replace(resolved, "\"num_gpu_blocks\": 36000,\n    \"num_cpu",
                               "\"num_gpu_blocks\": \"<unreadable: AttributeError>\",\n    \"num_cpu");
  tagged = Replace(tagged, "\"num_gpu_blocks\": 36000,", "\"num_gpu_blocks\": \"<unreadable: AttributeError>\",");
  Write(meta, tagged);
  absl::StatusOr<Generated> g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->warnings,
            (std::vector<std::string>{
                meta + ": kv_cache.num_gpu_blocks (\"<unreadable: AttributeError>\") is the recorder's tag for a "
                       "value it could not write: read as not recorded",
                meta + ": resolved_config.cache_config.num_gpu_blocks (\"<unreadable: AttributeError>\") is the "
                       "recorder's tag for a value it could not write: read as not recorded",
                meta + ": kv_cache has no num_gpu_blocks: the KV cache is derived from the GPU's memory, not "
                       "vLLM's count"}));
  EXPECT_NE(g->program.find("Derived as vLLM 0.19 derives it"), std::string::npos);
  EXPECT_EQ(g->program.find("param KvBlocks = 35999;"), std::string::npos);
  // The scheduler's whole record a tag: its fields at their defaults.
  const size_t from = resolved.find("\"scheduler_config\": {");
  ASSERT_NE(from, std::string::npos);
  const size_t to = resolved.find("}", from);
  Write(meta, resolved.substr(0, from) + "\"scheduler_config\": \"<dict len=30>\"" + resolved.substr(to + 1));
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->warnings, (std::vector<std::string>{meta + ": resolved_config.scheduler_config (\"<dict len=30>\") is "
                                                          "the recorder's tag for a value it could not write: read "
                                                          "as not recorded"}));
  EXPECT_NE(g->program.find("param KvBlocks = 35999;"), std::string::npos);
  EXPECT_NE(g->program.find("async;"), std::string::npos);
  // A feature's whole sub-config tagged: it is on, and refused.
  Write(meta, Replace(resolved, "\"speculative_config\": null", "\"speculative_config\": \"<SpeculativeConfig>\""));
  EXPECT_EQ(Error(dir), meta + ": error: resolved_config.speculative_config: \"<SpeculativeConfig>\": speculative "
                               "decoding: serq vllm does not model it");
}

// The sizes the run captured at other limits (a plan's engine): vLLM's
// default sizes follow the limits, so they are the new limits' defaults;
// sizes the run chose stay, but for those above the new token limit, which
// vLLM drops; none left is no graphs.
TEST(RunFolder, RedeployedEnginesAndTheCapturedSizes) {
  const std::string dir = Copy(kLlama, "redeploy-graphs");
  const std::string meta = Read(dir + "/meta.json");
  auto with = [&](const std::string& sizes) {
    Write(dir + "/meta.json", AddToMeta(meta,
                                        "\"resolved_config\": {\"compilation_config\": "
                                        "{\"cudagraph_capture_sizes\": " + sizes + "}},"));
  };
  auto read = [&](std::optional<int64_t> seqs, std::optional<int64_t> tokens) {
    Redeployment as;
    as.max_num_seqs = seqs;
    as.max_num_batched_tokens = tokens;
    absl::StatusOr<RunFolder> r = ReadRunFolder(dir, as);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : RunFolder();
  };
  with("[1, 2, 4, 8, 16, 32, 64, 128]");
  EXPECT_EQ(read({}, {}).args.graph_sizes, (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128}));
  EXPECT_EQ(read(64, {}).args.graph_sizes, (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128}));
  EXPECT_EQ(read({}, 100).args.graph_sizes, (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(read({}, 1).args.graph_sizes, (std::vector<int64_t>{1}));
  with("[8, 16]");
  EXPECT_TRUE(read({}, 4).args.enforce_eager);
  // vLLM's own sizes for 128 sequences and 2048 tokens (up to 256): at 64
  // sequences vLLM captures up to 128, its default again.
  std::string defaults = "[1, 2, 4";
  for (int s = 8; s <= 256; s += 8) defaults += absl::StrCat(", ", s);
  with(defaults + "]");
  EXPECT_EQ(read({}, {}).args.graph_sizes.size(), 35u);
  EXPECT_TRUE(read(64, {}).args.graph_sizes.empty());
  // A degree a plan asks for: the MoE run at TP 2 and DP 2 spreads its
  // experts, whole, over the four GPUs (the experts' kernels at TP 1).
  Redeployment both;
  both.tp = 2;
  both.dp = 2;
  absl::StatusOr<RunFolder> asked = ReadRunFolder(kMoe, both);
  ASSERT_TRUE(asked.ok()) << asked.status();
  EXPECT_EQ(asked->ep, 4);
  EXPECT_EQ(asked->moe_split, 1);
  EXPECT_TRUE(asked->moe_whole);
  EXPECT_TRUE(absl::EndsWith(asked->moe_file, "/profile/tp1/moe.csv")) << asked->moe_file;
  // One it cannot split the experts over is said of the engine asked for,
  // not of the run's field (128 experts over 3 GPUs).
  both.tp = 1;
  both.dp = 3;
  asked = ReadRunFolder(kMoe, both);
  ASSERT_FALSE(asked.ok());
  EXPECT_EQ(std::string(asked.status().message()),
            kMoe + ": error: the engine asked for, tensor parallel 1 and data parallel 3: the model's 128 experts "
                   "do not split over 3 GPUs");
}

TEST(RunFolder, BadFolders) {
  EXPECT_EQ(Error("no/such/run"),
            "no/such/run: error: not a folder (serq vllm reads a run folder in LLMServingSim's "
            "layout)");
  {
    const std::string dir = Copy(kLlama, "nometa");
    fs::remove(dir + "/meta.json");
    EXPECT_EQ(Error(dir), dir + "/meta.json: error: missing (the engine's arguments; a run "
                                "folder in LLMServingSim's layout has it)");
  }
  {
    // The requests, read at once as the replay reads them: a record it
    // refuses at its line; none at all (the replay's "empty trace"); a prompt that leaves no room for an
    // output token under the run's max_model_len (from engine_kwargs or from
    // what vLLM resolved), which vLLM refuses: the dev run's first request
    // has a prompt of 2,358 tokens.
    const std::string dir = Copy(kLlama, "requests");
    const std::string requests = Read(dir + "/requests.jsonl");
    Write(dir + "/requests.jsonl", "\n{\"input_toks\": 5, \"output_toks\": 0}\n");
    EXPECT_EQ(Error(dir), dir + "/requests.jsonl:2: error: output_toks 0: a vLLM request makes at least one token");
    Write(dir + "/requests.jsonl", "\n\n");
    EXPECT_PRED2(StartsWith, Error(dir), dir + "/requests.jsonl: error: empty trace: expected ");
    // The replay reader's own checks, at their lines: a row without an
    // arrival.
    Write(dir + "/requests.jsonl", "{\"input_toks\": 5, \"output_toks\": 2, \"queued_ts\": 1, "
                                   "\"first_token_ts\": 2, \"last_token_ts\": 3}\n"
                                   "{\"input_toks\": 5, \"output_toks\": 2}\n");
    EXPECT_EQ(Error(dir), dir + "/requests.jsonl:2: error: no arrival: the row has neither 'queued_ts' nor "
                                "'arrival_time'");
    // A row without input_toks is not the bench's (the replay's reader
    // would take it for Mooncake's and ask for a timestamp).
    Write(dir + "/requests.jsonl", "\n{\"prompt_toks\": 5, \"output_toks\": 2, \"queued_ts\": 1}\n");
    EXPECT_EQ(Error(dir), dir + "/requests.jsonl:2: error: not a vLLM request record (the bench's rows have "
                                "input_toks, output_toks, queued_ts, first_token_ts, last_token_ts)");
    // Token times serq compare could not measure, refused here as there:
    // an arrival on the wall clock (arrival_time, no queued_ts) beside the
    // engine's monotonic token times; a last token before the first.
    Write(dir + "/requests.jsonl", "{\"input_toks\": 5, \"output_toks\": 2, \"arrival_time\": 1777142838.5, "
                                   "\"first_token_ts\": 479748.5, \"last_token_ts\": 479749}\n");
    EXPECT_EQ(Error(dir), dir + "/requests.jsonl:1: error: first_token_ts 479748.5 is before the arrival, "
                                "arrival_time 1777142838.5: serq compare could not measure it");
    Write(dir + "/requests.jsonl", "{\"input_toks\": 5, \"output_toks\": 2, \"queued_ts\": 1, "
                                   "\"first_token_ts\": 3, \"last_token_ts\": 2}\n");
    EXPECT_EQ(Error(dir), dir + "/requests.jsonl:1: error: last_token_ts 2 is before first_token_ts 3: serq compare "
                                "could not measure it");
    // A program of other requests (a plan's own workload) replays none of
    // the run's, and is written.
    Options own;
    own.requests = Options::Requests{"The requests: a plan's.", {"workload requests { arrive batch(1); }"}, {}};
    EXPECT_TRUE(GenerateProgram(dir, own).ok());
    // A request past the simulated clock's range (2^63 ns, 9.2 x 10^9 s).
    Write(dir + "/requests.jsonl", "{\"input_toks\": 5, \"output_toks\": 2, \"queued_ts\": 1, "
                                   "\"first_token_ts\": 2, \"last_token_ts\": 1e10}\n");
    EXPECT_EQ(Error(dir), dir + "/requests.jsonl:1: error: last_token_ts 1e+10 is, after the arrival, "
                                "9999999999 s, past the simulated clock's range (2^63 ns, 9223372036.854776 s): no "
                                "simulated figure compares with it: serq compare could not measure it");
    // Requests that got no token: the replay serves them, compare skips
    // them, and the generator says so (lines 2 and 3; the first named).
    Write(dir + "/requests.jsonl", "{\"input_toks\": 5, \"output_toks\": 2, \"queued_ts\": 1, "
                                   "\"first_token_ts\": 2, \"last_token_ts\": 3}\n"
                                   "{\"input_toks\": 5, \"output_toks\": 2, \"queued_ts\": 1.5}\n"
                                   "{\"input_toks\": 5, \"output_toks\": 2, \"queued_ts\": 1.6, "
                                   "\"first_token_ts\": 2}\n");
    absl::StatusOr<Generated> unfinished = GenerateProgram(dir, {});
    ASSERT_TRUE(unfinished.ok()) << unfinished.status();
    EXPECT_EQ(unfinished->warnings,
              (std::vector<std::string>{dir + "/requests.jsonl: 3 requests, where meta.json's num_requests is 300: "
                                              "the replay is of the file's",
                                        dir + "/requests.jsonl:2: 2 requests lack first_token_ts or "
                                              "last_token_ts (the run recorded no figures for them; this line the "
                                              "first): the replay serves them, and serq compare, which skips "
                                              "them, refuses counts that differ unless given "
                                              "--allow-count-mismatch"}));
    Write(dir + "/requests.jsonl", requests);
    const std::string meta = Read(dir + "/meta.json");
    Write(dir + "/meta.json", Replace(meta, "\"max_model_len\": null", "\"max_model_len\": 2358"));
    EXPECT_EQ(Error(dir), dir + "/requests.jsonl:1: error: a prompt of 2358 tokens, not less than max_model_len "
                                "2358 (meta.json engine_kwargs.max_model_len): vLLM refuses a prompt that leaves no "
                                "room for an output token, so the run cannot hold it");
    Write(dir + "/meta.json", AddToMeta(meta,
                                        "\"resolved_config\": {\"model_config\": "
                                        "{\"max_model_len\": 2358}},"));
    EXPECT_EQ(Error(dir), dir + "/requests.jsonl:1: error: a prompt of 2358 tokens, not less than max_model_len "
                                "2358 (meta.json resolved_config.model_config.max_model_len): vLLM refuses a prompt "
                                "that leaves no room for an output token, so the run cannot hold it");
  }
  {
    // A profile file that cannot be read (a directory: its read fails):
    // named, never read again for ever.
    const std::string dir = Copy(kLlama, "dir-csv");
    fs::remove(dir + "/profile/tp1/skew_fit.csv");
    fs::create_directory(dir + "/profile/tp1/skew_fit.csv");
    EXPECT_EQ(Error(dir), dir + "/profile/tp1/skew_fit.csv: error: cannot be read: Is a directory");
  }
  {
    const std::string dir = Copy(kLlama, "unknown-arg");
    Edit(dir + "/meta.json", "\"seed\": 42",
         "\"seed\": 42, \"speculative_config\": {}");
    EXPECT_EQ(Error(dir), dir + "/meta.json: error: engine_kwargs.speculative_config: an engine "
                                "argument serq vllm does not know: its effect on the schedule is "
                                "not modelled (docs/cli.md §serq vllm lists those it reads)");
  }
  {
    // engine_kwargs there but not an object: said so, not called missing.
    const std::string dir = Copy(kLlama, "kwargs-list");
    const std::string meta = Read(dir + "/meta.json");
    Write(dir + "/meta.json", meta.substr(0, meta.find("\"engine_kwargs\"")) + "\"engine_kwargs\": [1, 2]}");
    EXPECT_EQ(Error(dir), dir + "/meta.json: error: engine_kwargs: expected an object of the engine's "
                                "arguments, not a list");
  }
  {
    const std::string dir = Copy(kLlama, "tp4");
    Edit(dir + "/meta.json", "\"tensor_parallel_size\": 1",
         "\"tensor_parallel_size\": 4");
    EXPECT_EQ(Error(dir), dir + "/profile/meta.yaml: error: the run is at tensor parallel 4, "
                                "and the profile has tp_degrees [1, 2]");
  }
  {
    const std::string dir = Copy(kLlama, "arch");
    Edit(dir + "/profile/meta.yaml", "architecture: llama", "architecture: gpt_oss");
    EXPECT_EQ(Error(dir), dir + "/profile/meta.yaml: error: architecture 'gpt_oss': serq vllm "
                                "knows the operators of llama, mistral, mixtral, phimoe, qwen2, qwen3, "
                                "qwen3_moe");
  }
  {
    // An operator the profile has that Llama does not run, and one it runs
    // that the profile lacks.
    const std::string dir = Copy(kLlama, "ops");
    const std::string dense = dir + "/profile/tp1/dense.csv";
    Write(dense, Read(dense) + "q_norm,1,3.5\n");
    EXPECT_PRED2(StartsWith, Error(dir), dense + ": error: operator 'q_norm' is not one serq vllm "
                                                 "knows for llama");
    std::string text = Read(kLlama + "/profile/tp1/dense.csv"), kept;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("rotary_emb,", 0) != 0) kept += line + "\n";
    }
    Write(dense, kept);
    EXPECT_PRED2(StartsWith, Error(dir), dense + ": error: no operator 'rotary_emb'");
  }
  {
    // Qwen3's qk_norm, which a program copied from Llama's missed: the MoE
    // profile without it is refused.
    const std::string dir = Copy(kMoe, "qk");
    const std::string dense = dir + "/profile/tp1/dense.csv";
    std::string text = Read(dense), kept;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("qk_norm,", 0) != 0) kept += line + "\n";
    }
    Write(dense, kept);
    EXPECT_PRED2(StartsWith, Error(dir), dense + ": error: no operator 'qk_norm'");
  }
  {
    const std::string dir = Copy(kLlama, "badmodel");
    Edit(dir + "/model.json", "\"num_hidden_layers\": 32,", "");
    EXPECT_EQ(Error(dir), dir + "/model.json: error: num_hidden_layers: missing: the model's "
                                "config.json gives it");
  }
  {
    // Without alpha_default in meta.yaml it is fitted from skew.csv; without
    // either, a message that says how to go on.
    const std::string dir = Copy(kLlama, "alpha");
    std::string meta = Read(dir + "/profile/meta.yaml");
    meta = Replace(meta, "      alpha_default: 0.0543\n", "");
    Write(dir + "/profile/meta.yaml", meta);
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_TRUE(g->warnings.empty());
    EXPECT_NE(g->program.find("param AlphaDefault = 0.0543;"), std::string::npos);
    EXPECT_NE(g->program.find("profile/tp1/skew.csv, fitted as the profiler fits"),
              std::string::npos);
    // A skew.csv without a skewed timing fits nothing: the same as none.
    const std::string raw = Read(dir + "/profile/tp1/skew.csv");
    Write(dir + "/profile/tp1/skew.csv", raw.substr(0, raw.find('\n') + 1));
    g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings, std::vector<std::string>{dir + "/profile/meta.yaml: no skew_fit.per_tp.1.alpha_default "
                                                    "and " + dir + "/profile/tp1/skew.csv has no skewed timing "
                                                    "to compute it from: alpha 0 for a step with prefill and "
                                                    "for the buckets not fitted, as LLMServingSim takes it"});
    EXPECT_NE(g->program.find("// none in profile/meta.yaml and profile/tp1/skew.csv has no skewed timing to fit it "
                              "from: 0, as LLMServingSim takes it: a step with prefill"),
              std::string::npos);
    // Without either, alpha 0 where no bucket says otherwise, as
    // LLMServingSim's simulator takes it (entry.get("alpha_default", 0)):
    // the 96 fitted buckets stay, the other 84 of 180 are 1 + 0, and so
    // are two fitted ones (tp1/skew_fit.csv: n<=32, sr<=15%, kvB<=16k at
    // 0.0; n<=4, sr<=40%, kvB<=16k at -0.0).
    fs::remove(dir + "/profile/tp1/skew.csv");
    g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings, std::vector<std::string>{dir + "/profile/meta.yaml: no skew_fit.per_tp.1.alpha_default "
                                                    "and no " + dir + "/profile/tp1/skew.csv to compute it "
                                                    "from: alpha 0 for a step with prefill and for the buckets "
                                                    "not fitted, as LLMServingSim takes it"});
    EXPECT_NE(g->program.find("param AlphaDefault = 0;"), std::string::npos);
    EXPECT_EQ(Count(SkewTable(g->program), ", 1;"), 180u - 96u + 2u);
    EXPECT_NE(SkewTable(g->program).find("row 5, 1, 1, 1.0672;"), std::string::npos);
    // And without the buckets too: no blend, said on stderr and in the program.
    fs::remove(dir + "/profile/tp1/skew_fit.csv");
    g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings, std::vector<std::string>{dir + "/profile/meta.yaml: no skew_fit.per_tp.1.alpha_default, "
                                                    "no " + dir + "/profile/tp1/skew.csv to compute it from, and "
                                                    "no bucket fitted: attention at the decodes' mean KV, without "
                                                    "the skew blend"});
    EXPECT_NE(g->program.find("  // No skew blend: no skew_fit.per_tp.1.alpha_default in profile/meta.yaml, no "
                              "profile/tp1/skew.csv to fit it from, and no bucket fitted.\n  let attend = t_mean;"),
              std::string::npos);
    EXPECT_EQ(g->program.find("AlphaDefault"), std::string::npos);
  }
  {
    // llmservingsim-config.json of other engines than meta.json's: the
    // Llama run's one instance where meta.json says data parallel 3.
    const std::string dir = Copy(kLlama, "cluster-dp");
    Edit(dir + "/meta.json", "\"data_parallel_size\": 1", "\"data_parallel_size\": 3");
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings, std::vector<std::string>{dir + "/llmservingsim-config.json: nodes hold 1 instance, "
                                                          "meta.json's engine_kwargs.data_parallel_size 3: the run's "
                                                          "files describe two deployments; the program is "
                                                          "meta.json's"});
  }
  {
    // llmservingsim-config.json of another TP degree than meta.json's: the
    // folder describes two deployments; the program is meta.json's, and
    // says so on stderr, never silently.
    const std::string dir = Copy(kLlama, "cluster-tp");
    const std::string cluster = dir + "/llmservingsim-config.json";
    Edit(cluster, "\"tp_size\": 1", "\"tp_size\": 2");
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings, std::vector<std::string>{cluster + ": nodes[0].instances[0].tp_size is 2, meta.json's "
                                                    "engine_kwargs.tensor_parallel_size 1: the run's files "
                                                    "describe two deployments; the program is meta.json's"});
    EXPECT_EQ(g->program.find("param Tp"), std::string::npos);
    // Said with the folder's other warnings, not instead of them.
    Edit(dir + "/meta.json", "\"schema_version\": 1,",
         "\"schema_version\": 1, \"kv_cache\": {},");
    g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings.size(), 2u);
  }
  {
    // No max_num_seqs: the run's engine was the bench's,
    // AsyncLLM.from_engine_args, whose usage context (ENGINE_CONTEXT) is
    // in neither of get_batch_defaults's tables, so vLLM took
    // SchedulerConfig's 128 (and 2048 tokens) whatever the GPU: no GPU
    // memory is needed, and an A100's 80 GiB or an H100's change nothing.
    const std::string dir = Copy(kLlama, "no-limits");
    fs::remove(dir + "/llmservingsim-config.json");
    Edit(dir + "/meta.json", "\"max_num_seqs\": 128,", "");
    Options kv;
    kv.kv.num_gpu_blocks = 3000;
    const std::string plain = Read(dir + "/meta.json");
    for (const char* device : {"", "NVIDIA A100-SXM4-80GB", "NVIDIA H100"}) {
      if (*device != 0) {
        Write(dir + "/meta.json",
              AddToMeta(plain,
                        absl::StrCat("\"hardware\": {\"device_name\": \"", device,
                                     "\", \"device_total_memory_bytes\": 85899345920},")));
      }
      absl::StatusOr<Generated> g = GenerateProgram(dir, kv);
      ASSERT_TRUE(g.ok()) << g.status();
      EXPECT_NE(g->program.find("param Seqs = 128;"), std::string::npos) << device;
      EXPECT_NE(g->program.find("// max_num_seqs: vLLM's default for the bench's engine (AsyncLLM.from_engine_args: "
                                "SchedulerConfig's)"),
                std::string::npos)
          << device;
      EXPECT_EQ(g->program.find("at most max_num_batched_tokens"), std::string::npos) << device;
    }
    // Fewer tokens than the 128: serq's default max_num_seqs is at most
    // max_num_batched_tokens (min(128, 64)), and the comment says so.
    Write(dir + "/meta.json", Replace(plain, "\"max_num_batched_tokens\": 2048", "\"max_num_batched_tokens\": 64"));
    absl::StatusOr<Generated> few = GenerateProgram(dir, kv);
    ASSERT_TRUE(few.ok()) << few.status();
    EXPECT_NE(few->program.find("param Seqs = 64;"), std::string::npos);
    EXPECT_NE(few->program.find("SchedulerConfig's), at most max_num_batched_tokens"), std::string::npos)
        << few->program.substr(0, 3000);
    Write(dir + "/meta.json", plain);
    // A plan at the run's own degree and no limits of its own serves the
    // run's engine: its limits, and the KV count the run logged for them
    // (here 5000 blocks, the null block one of them).
    Edit(dir + "/meta.json", "\"schema_version\": 1,", "\"schema_version\": 1, \"kv_cache\": {\"num_gpu_blocks\": 5000},");
    Options plan;
    plan.redeploy.tp = 1;
    absl::StatusOr<Generated> g = GenerateProgram(dir, plan);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_NE(g->program.find("param Seqs = 128;"), std::string::npos);
    EXPECT_NE(g->program.find("param KvBlocks = 4999;"), std::string::npos);
    // A plan's token limit under the default 128: vLLM's default
    // max_num_seqs is at most max_num_batched_tokens.
    plan.redeploy.max_num_batched_tokens = 64;
    plan.kv.gpu_memory_gib = 96;  // the count is derived at other limits
    g = GenerateProgram(dir, plan);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_NE(g->program.find("param Seqs = 64;"), std::string::npos);
    EXPECT_EQ(g->program.find("param KvBlocks = 4999;"), std::string::npos);
    {
      // Without max_num_batched_tokens too: 2048; a given max_num_seqs
      // above that default is vLLM's error, at the field.
      const std::string both = Copy(dir, "no-limits-2");
      Write(both + "/meta.json", plain);
      Edit(both + "/meta.json", "\"max_num_batched_tokens\": 2048,", "");
      g = GenerateProgram(both, kv);
      ASSERT_TRUE(g.ok()) << g.status();
      EXPECT_NE(g->program.find("param Tokens = 2048;"), std::string::npos);
      Edit(both + "/meta.json", "\"tensor_parallel_size\": 1,", "\"tensor_parallel_size\": 1, \"max_num_seqs\": 4096,");
      EXPECT_EQ(Error(both, kv), both + "/meta.json: error: engine_kwargs.max_num_seqs: 4096 is more than "
                                        "max_num_batched_tokens 2048, vLLM's default for the bench's engine, which "
                                        "vLLM refuses (its scheduler config: max_num_batched_tokens must be at "
                                        "least max_num_seqs)");
    }
  }
  {
    // A profile of another model than the run's: said on stderr.
    const std::string dir = Copy(kLlama, "other-model");
    Edit(dir + "/meta.json", "\"model\": \"meta-llama/Llama-3.1-8B\",\n    \"tensor",
         "\"model\": \"meta-llama/Llama-3.1-70B\",\n    \"tensor");
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    ASSERT_EQ(g->warnings.size(), 1u);
    EXPECT_EQ(g->warnings[0], dir + "/profile/meta.yaml: the profile is of model 'meta-llama/Llama-3.1-8B', "
                                    "the run (meta.json engine_kwargs.model) of 'meta-llama/Llama-3.1-70B': "
                                    "the step times are that model's kernels");
  }
  {
    // An engine past the profiler's sweep (engine_effective.max_num_seqs
    // 256): said, as LLMServingSim says it, once: the attention table's
    // rows reach the sweep's 256 decodes, so they are not said again.
    const std::string dir = Copy(kLlama, "past-sweep");
    std::string meta = Replace(Read(dir + "/meta.json"), "\"max_num_seqs\": 128", "\"max_num_seqs\": 512");
    meta = Replace(meta, "\"max_num_batched_tokens\": 2048", "\"max_num_batched_tokens\": 4096");
    Write(dir + "/meta.json", meta);
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings, (std::vector<std::string>{
                               dir + "/profile/meta.yaml: the profile was swept to "
                                     "engine_effective.max_num_batched_tokens 2048, the engine runs to 4096: its "
                                     "attention and dense lookups past that extrapolate",
                               dir + "/profile/meta.yaml: the profile was swept to "
                                     "engine_effective.max_num_seqs 256, the engine runs to 512: "
                                     "its per-sequence and decode attention lookups past that extrapolate"}));
  }
  {
    // An attention table that ends short of the sweep (a profiler stopped
    // part-way: rows to 64 decodes, the sweep to 256) is said where the
    // engine runs past it: at 128 decodes on its own, and at 512 beside the
    // sweep's warning, since the sweep's does not cover 64 to 256.
    const std::string dir = Copy(kLlama, "short-attention");
    const std::string attention = dir + "/profile/tp1/attention.csv";
    std::string kept;
    for (absl::string_view line : absl::StrSplit(Read(attention), '\n')) {
      if (line.empty()) continue;
      const std::vector<std::string> cells = absl::StrSplit(line, ',');
      int n = 0;
      if (!absl::SimpleAtoi(cells[2], &n) || n <= 64) absl::StrAppend(&kept, line, "\n");
    }
    Write(attention, kept);
    const std::string short_rows = attention + ": its rows reach 64 decodes, the engine runs up to ";
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings, (std::vector<std::string>{
                               short_rows + "128 (max_num_seqs): its lookups past that extrapolate"}));
    Edit(dir + "/meta.json", "\"max_num_seqs\": 128", "\"max_num_seqs\": 512");
    g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings, (std::vector<std::string>{
                               dir + "/profile/meta.yaml: the profile was swept to "
                                     "engine_effective.max_num_seqs 256, the engine runs to 512: "
                                     "its per-sequence and decode attention lookups past that extrapolate",
                               short_rows + "512 (max_num_seqs): its lookups past that extrapolate"}));
  }
  {
    // A line break in a text the program's comments quote (meta.json's
    // model) is written as its escape: the program stays the generator's.
    const std::string dir = Copy(kLlama, "line-break");
    Edit(dir + "/meta.json", "\"model\": \"meta-llama/Llama-3.1-8B\",\n    \"tensor",
         "\"model\": \"x\\nparam Evil = 1;\",\n    \"tensor");
    Options options;
    options.program_dir = ".";
    absl::StatusOr<Generated> g = GenerateProgram(dir, options);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->program.find("\nparam Evil"), std::string::npos);
    EXPECT_NE(g->program.find("// x\\nparam Evil = 1; (LlamaForCausalLM"), std::string::npos);
    EXPECT_EQ(LinkErrors(g->program), "");
  }
  {
    // A profile without a skew fit: the program says the blend is left out.
    const std::string dir = Copy(kLlama, "no-fit");
    const std::string meta = Read(dir + "/profile/meta.yaml");
    Write(dir + "/profile/meta.yaml", meta.substr(0, meta.find("skew_fit:")));
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings, std::vector<std::string>{dir + "/profile/meta.yaml: no skew fit (skew_fit absent or "
                                                    "not enabled): attention at the decodes' mean KV, without "
                                                    "the skew blend"});
    EXPECT_NE(g->program.find("  // No skew blend: profile/meta.yaml's skew_fit is absent or not enabled.\n"
                              "  let attend = t_mean;"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace serq::vllm
