// The KV cache serq vllm writes: the run's own count, flags over it, and the
// count derived from the GPU's memory as vLLM 0.19 derives it.
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "serq/vllm/generate.h"
#include "serq/vllm/run_folder.h"
#include "serq/vllm/test_folders.h"

namespace serq::vllm {

namespace {

// The warnings of `g` that hold `text`.
std::vector<std::string> WarningsWith(const absl::StatusOr<Generated>& g, const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& w : g->warnings) {
    if (w.find(text) != std::string::npos) out.push_back(w);
  }
  return out;
}

namespace fs = std::filesystem;

TEST(KvCapacity, KvCacheFromTheRun) {
  // The run's own count (kv_cache.num_gpu_blocks): one block less holds
  // requests; --kv-blocks over it.
  const std::string dir = Copy(kLlama, "kv");
  Edit(dir + "/meta.json", "\"schema_version\": 1,",
       "\"schema_version\": 1, \"kv_cache\": {\"num_gpu_blocks\": 3000},");
  absl::StatusOr<Generated> g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param KvBlocks = 2999;"), std::string::npos);
  Options options;
  options.kv.num_gpu_blocks = 301;
  g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param KvBlocks = 300;"), std::string::npos);
  // A count too small for the run's longest request, line 248's 3998 + 767
  // = 4765 tokens: at its last decode it holds the KV of 4764, ceil(4764 /
  // 16) = 298 blocks, so 299 (298 and the null block) hold it and 298 do
  // not; the replay would stop at it (as vLLM would never finish it).
  options.kv.num_gpu_blocks = 299;
  EXPECT_TRUE(GenerateProgram(dir, options).ok());
  options.kv.num_gpu_blocks = 298;
  EXPECT_EQ(Error(dir, options),
            dir + "/requests.jsonl:248: error: a request of 4765 tokens (prompt and output) holds the KV of 4764 "
                  "at its last decode, 298 blocks of 16, more than the 297 the KV cache holds: vLLM would never "
                  "finish it (--kv-blocks)");
  // No room: 10 GiB less 14.96 GiB of weights.
  Options small;
  small.kv.gpu_memory_gib = 10;
  fs::path meta = dir + "/meta.json";
  Edit(meta, "\"kv_cache\": {\"num_gpu_blocks\": 3000},", "");
  EXPECT_PRED2(StartsWith, Error(dir, small), dir + ": error: no room for the KV cache: 9");
  // The message says where the memory came from.
  EXPECT_NE(Error(dir, small).find("of the GPU (10 GiB, --gpu-memory, x 0.9)"), std::string::npos)
      << Error(dir, small);
  // Limits vLLM refuses: a plan's own, as its own (not meta.json's, which
  // says 128); at meta.json's fields when both came from there.
  Options plan;
  plan.redeploy.max_num_seqs = 4096;
  EXPECT_EQ(Error(dir, plan), dir + ": error: max_num_seqs 4096 is more than max_num_batched_tokens 2048, which "
                                    "vLLM refuses (its scheduler config: max_num_batched_tokens must be at least "
                                    "max_num_seqs)");
  Edit(meta, "\"max_num_batched_tokens\": 2048", "\"max_num_batched_tokens\": 64");
  EXPECT_EQ(Error(dir, {}), dir + "/meta.json: error: engine_kwargs.max_num_seqs 128 is more than "
                                  "engine_kwargs.max_num_batched_tokens 64, which vLLM refuses (its scheduler "
                                  "config: max_num_batched_tokens must be at least max_num_seqs)");
}

// The GPU's memory where the run records no KV count and no torch total:
// vLLM sizes from CUDA's total, which the cluster file's mem_size (the
// vendor's 96 for the RTX PRO 6000) is not; the GPU preset's 94.97 GiB,
// CUDA's (its MemorySource), stands in when it is at most 10% below
// mem_size. By hand, Llama-3.1-8B at 2048 tokens and 128 sequences:
// weights 16,060,522,496 bytes; the rotary table, 131,072 positions x 128
// x 2 = 33,554,432 (16 blocks exactly); the activation peak the sampler's
// warm-up, 2048 x 4096 x 2 + 128 x 128,256 x 14 + 128 x 128,256 x 4 =
// 312,279,040 (the forward pass, 2048 x (2 x 4096 + 3 x 14,336) x 2 =
// 209,715,200, is less); outside PyTorch 0.25 x 2^30 = 268,435,456; blocks
// of 16 x 131,072 = 2,097,152.
//   94.97 GiB: ceil(94.97 x 2^30 x 0.9) = 91,775,934,923; less the four,
//              75,101,143,499 bytes: 35,811 blocks (35,810 hold requests);
//   96 GiB as given: 36,285; 100 GiB (94.97 is 5% below): 94.97's;
//   106 GiB (94.97 is 10.4% below): as given, 40,893; 80 GiB (below the
//   GPU's): 28,912; the H200's 141 as given (its preset holds nvidia-smi's
//   total, not CUDA's): 57,021.
TEST(KvCapacity, TheGpusMemoryAsCudaReportsIt) {
  const std::string dir = Copy(kLlama, "cuda-total");
  absl::StatusOr<Generated> g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param KvBlocks = 35810;"), std::string::npos);
  EXPECT_NE(g->program.find("GPU memory 94.97 GiB (CUDA's total for the RTXPRO6000"), std::string::npos);
  const std::string cluster = dir + "/llmservingsim-config.json";
  const std::string original = Read(cluster);
  const auto blocks_at = [&](const std::string& mem_size, const std::string& hardware) {
    std::string text = Replace(original, "\"mem_size\": 96,", "\"mem_size\": " + mem_size + ",");
    Write(cluster, Replace(text, "\"hardware\": \"RTXPRO6000\"", "\"hardware\": \"" + hardware + "\""));
    absl::StatusOr<Generated> p = GenerateProgram(dir, {});
    if (!p.ok()) return std::string(p.status().message());
    return p->program.substr(p->program.find("param KvBlocks = "), 23);
  };
  EXPECT_EQ(blocks_at("100", "RTXPRO6000"), "param KvBlocks = 35810;");
  EXPECT_EQ(blocks_at("106", "RTXPRO6000"), "param KvBlocks = 40892;");
  EXPECT_EQ(blocks_at("80", "RTXPRO6000"), "param KvBlocks = 28911;");
  EXPECT_EQ(blocks_at("141", "H200"), "param KvBlocks = 57020;");
  // A GPU serq has no preset for, a name two presets share, or one a
  // preset's name is only part of a word of (GB200, not B200): as given.
  EXPECT_EQ(blocks_at("96", "H100"), "param KvBlocks = 36284;");
  EXPECT_EQ(blocks_at("96", "RTXPRO6000 RTX4090"), "param KvBlocks = 36284;");
  EXPECT_EQ(blocks_at("96", "GB200"), "param KvBlocks = 36284;");
  // CUDA's name for it, as meta.json's hardware.device_name gives it.
  Write(cluster, original);
  Edit(dir + "/meta.json", "\"schema_version\": 1,",
       "\"schema_version\": 1, \"hardware\": {\"device_name\": "
       "\"NVIDIA RTX PRO 6000 Blackwell Server Edition\"},");
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param KvBlocks = 35810;"), std::string::npos);
}

// meta.json's kv_cache is vLLM's cache config as the run logged it: its
// block_size is the size of the blocks num_gpu_blocks counts (3000 blocks
// of 32 tokens are 96,000 tokens, not the 48,000 of vLLM's default 16), and
// its fields that are also engine arguments fill in for engine_kwargs or
// must agree with it; a kv_cache that is not an object is refused, never
// read as no count.
TEST(KvCapacity, KvCacheFieldsOfTheRun) {
  const std::string dir = Copy(kLlama, "kv-fields");
  const std::string meta = dir + "/meta.json";
  const std::string original = Read(meta);
  auto with = [&](const std::string& kv_cache, const std::string& engine = "") {
    std::string text = AddToMeta(original, "\"kv_cache\": " + kv_cache + ",");
    if (!engine.empty()) text = Replace(text, "\"seed\": 42", "\"seed\": 42, " + engine);
    Write(meta, text);
  };
  with(R"({"num_gpu_blocks": 3000, "block_size": 32, "num_cpu_blocks": null, "swap_space": 4})");
  absl::StatusOr<Generated> g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param Block = 32;"), std::string::npos);
  EXPECT_NE(g->program.find("param KvBlocks = 2999;"), std::string::npos);
  EXPECT_NE(g->program.find("meta.json kv_cache.block_size"), std::string::npos);
  // The same figure from both records is one.
  with(R"({"num_gpu_blocks": 3000, "block_size": 32})", "\"block_size\": 32");
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param Block = 32;"), std::string::npos);
  with(R"({"num_gpu_blocks": 3000, "block_size": 32})", "\"block_size\": 16");
  EXPECT_EQ(Error(dir), meta + ": error: kv_cache.block_size: 32, where engine_kwargs.block_size is 16: "
                               "the run's two records of the engine disagree");
  with(R"({"num_gpu_blocks": 3000, "enable_prefix_caching": false})");
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("pool kv { cap KvBlocks * Block; block Block; }"), std::string::npos);
  EXPECT_EQ(g->program.find("prefix (-1 - serial"), std::string::npos);
  with(R"({"num_gpu_blocks": 3000, "enable_prefix_caching": false})", "\"enable_prefix_caching\": true");
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: kv_cache.enable_prefix_caching: false, where "
                                              "engine_kwargs.enable_prefix_caching is true");
  // The run's utilization derives the count --gpu-memory-utilization 0.5
  // derives; and a kv_cache without a count says so on stderr.
  with(R"({"gpu_memory_utilization": 0.5})");
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("x 0.5 (meta.json kv_cache.gpu_memory_utilization)"), std::string::npos);
  // The cluster file's mem_util (0.9) is not the run's: said too.
  ASSERT_EQ(g->warnings.size(), 2u);
  EXPECT_EQ(g->warnings[0], meta + ": kv_cache has no num_gpu_blocks: the KV cache is derived from the "
                                   "GPU's memory, not vLLM's count");
  EXPECT_NE(g->warnings[1].find("npu_mem.mem_util 0.9, and the run's gpu_memory_utilization is 0.5 (meta.json "
                                "kv_cache.gpu_memory_utilization)"),
            std::string::npos)
      << g->warnings[1];
  Write(meta, original);
  Options half;
  half.kv.gpu_memory_utilization = 0.5;
  absl::StatusOr<Generated> flagged = GenerateProgram(dir, half);
  ASSERT_TRUE(flagged.ok()) << flagged.status();
  const auto kv_line = [](const std::string& p) { return p.substr(p.find("param KvBlocks = "), 30); };
  EXPECT_EQ(kv_line(g->program), kv_line(flagged->program));
  EXPECT_NE(kv_line(g->program), kv_line(GenerateProgram(dir, {})->program));
  with(R"({"gpu_memory_utilization": 0.5})", "\"gpu_memory_utilization\": 0.9");
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: kv_cache.gpu_memory_utilization: 0.5, where "
                                              "engine_kwargs.gpu_memory_utilization is 0.9");
  with(R"({"num_gpu_blocks": 3000, "cache_dtype": "fp8_inc"})");
  EXPECT_EQ(Error(dir), meta + ": error: kv_cache.cache_dtype: 'fp8_inc': expected auto, bfloat16, "
                               "float16, fp8, fp8_e4m3 or fp8_e5m2");
  // fp8's two formats are fp8, a byte an element: the derived count of
  // the Llama run (35,811 blocks of 2 bytes an element) at 1 byte holds
  // twice the tokens, 71,622 blocks, within the rounding of the bytes.
  // fp8 is vLLM's e4m3: the two spellings of one format agree, e5m2 not.
  const auto fp8_given = [&](const std::string& logged) {
    Write(meta, AddToMeta(Replace(original, "\"kv_cache_dtype\": \"auto\"", "\"kv_cache_dtype\": \"fp8\""),
                          "\"kv_cache\": {\"cache_dtype\": \"" + logged + "\"},"));
  };
  fp8_given("fp8_e4m3");
  EXPECT_TRUE(GenerateProgram(dir, {}).ok()) << Error(dir);
  fp8_given("fp8_e5m2");
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: kv_cache.cache_dtype: 'fp8_e5m2', where "
                                              "engine_kwargs.kv_cache_dtype is 'fp8'");
  for (const char* fp8 : {"fp8", "fp8_e4m3", "fp8_e5m2"}) {
    with(absl::StrCat(R"({"cache_dtype": ")", fp8, R"("})"));
    absl::StatusOr<Generated> one_byte = GenerateProgram(dir, {});
    ASSERT_TRUE(one_byte.ok()) << one_byte.status();
    EXPECT_NE(one_byte->program.find("x 1 bytes = 65536 bytes"), std::string::npos) << fp8;
    // 69.94 GiB of KV (the derivation's, unchanged) in blocks of 16 x
    // 65,536 bytes: 71,622 blocks (twice 2-byte's 35,811), 71,621 usable.
    EXPECT_NE(one_byte->program.find("param KvBlocks = 71621;"), std::string::npos) << fp8;
  }
  // Flags for a derived count, where the run gives one: said to change
  // nothing, never dropped silently.
  with(R"({"num_gpu_blocks": 3000})");
  Options derive;
  derive.kv.gpu_memory_utilization = 0.5;
  derive.kv.gpu_memory_gib = 24;
  derive.interconnect = "nvlink4";
  g = GenerateProgram(dir, derive);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param KvBlocks = 2999;"), std::string::npos);
  EXPECT_TRUE(g->warnings.empty()) << g->warnings[0];
  EXPECT_EQ(g->unused_flags,
            (std::vector<std::string>{
                "--gpu-memory-utilization changes nothing: the KV cache's size is given (meta.json "
                "kv_cache.num_gpu_blocks), not derived from the GPU's memory",
                "--gpu-memory changes nothing: the KV cache's size is given (meta.json kv_cache.num_gpu_blocks), "
                "not derived from the GPU's memory",
                "--interconnect changes nothing: the run's GPUs exchange nothing (tensor parallel 1, and no "
                "experts shared by engines)"}));
  with("3000");
  EXPECT_EQ(Error(dir), meta + ": error: kv_cache: expected an object (vLLM's cache config: "
                               "num_gpu_blocks, block_size, ...), not 3000");
  with("\"3000 blocks\"");
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: kv_cache: expected an object");
}

// kv_cache_memory_bytes: vLLM takes the bytes as each GPU's KV cache
// (Worker.determine_available_memory returns them unprofiled) in blocks of
// every layer's KV, rounded down. Llama-3.1-8B: 16 tokens x 2 x 32 layers
// x 8 KV heads x 128 x 2 bytes = 2 MiB a block, so 10 GiB is 5120 blocks
// (5119 for requests) and a byte less 5119. Qwen3-30B-A3B, each of the
// MoE run's GPUs: 16 x 2 x 48 x 4 x 128 x 2 = 1.5 MiB a block, 10 GiB is
// 6826.67, 6826 blocks an engine. The run's own count comes first; two
// records of the bytes must agree.
TEST(KvCapacity, KvCacheMemoryBytes) {
  const std::string dir = Copy(kLlama, "kv-bytes");
  const std::string meta = dir + "/meta.json";
  const std::string original = Read(meta);
  auto with = [&](const std::string& engine, const std::string& kv_cache = "") {
    std::string text = Replace(original, "\"seed\": 42", "\"seed\": 42, " + engine);
    if (!kv_cache.empty()) {
      text = AddToMeta(text, "\"kv_cache\": " + kv_cache + ",");
    }
    Write(meta, text);
  };
  const auto blocks = [&](const std::string& d) {
    absl::StatusOr<Generated> g = GenerateProgram(d, {});
    EXPECT_TRUE(g.ok()) << g.status();
    if (!g.ok()) return std::string();
    const size_t at = g->program.find("param KvBlocks = ");
    return g->program.substr(at, g->program.find(';', at) - at);
  };
  with("\"kv_cache_memory_bytes\": 10737418240");
  EXPECT_EQ(blocks(dir), "param KvBlocks = 5119");
  EXPECT_NE(GenerateProgram(dir, {})->program.find("engine_kwargs.kv_cache_memory_bytes 10737418240"),
            std::string::npos);
  with("\"kv_cache_memory_bytes\": 10737418239");
  EXPECT_EQ(blocks(dir), "param KvBlocks = 5118");
  // A count overridden: no warning of a derivation either.
  with("\"num_gpu_blocks_override\": 5000", R"({"block_size": 16})");
  EXPECT_EQ(blocks(dir), "param KvBlocks = 4999");
  EXPECT_EQ(GenerateProgram(dir, {})->warnings, std::vector<std::string>{});
  // From kv_cache where the arguments give none (and no warning that the
  // cache is derived from the GPU's memory: it is not); the same from both
  // is one.
  with("\"kv_cache_memory_bytes\": null", R"({"kv_cache_memory_bytes": 10737418240})");
  EXPECT_EQ(blocks(dir), "param KvBlocks = 5119");
  EXPECT_EQ(GenerateProgram(dir, {})->warnings, std::vector<std::string>{});
  with("\"kv_cache_memory_bytes\": 10737418240", R"({"kv_cache_memory_bytes": 10737418240})");
  EXPECT_EQ(blocks(dir), "param KvBlocks = 5119");
  with("\"kv_cache_memory_bytes\": 10737418240", R"({"kv_cache_memory_bytes": 2147483648})");
  EXPECT_EQ(Error(dir), meta + ": error: kv_cache.kv_cache_memory_bytes: 2147483648, where "
                               "engine_kwargs.kv_cache_memory_bytes is 10737418240: the run's two records of the "
                               "engine disagree");
  // vLLM's own count is what ran.
  with("\"kv_cache_memory_bytes\": 10737418240", R"({"num_gpu_blocks": 3000})");
  EXPECT_EQ(blocks(dir), "param KvBlocks = 2999");
  with("\"kv_cache_memory_bytes\": 0");
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: engine_kwargs.kv_cache_memory_bytes: ");
  // 2^50 bytes, the most the field takes, are 2^29 blocks of 2 MiB; a
  // byte more is refused at the field.
  with("\"kv_cache_memory_bytes\": 1125899906842624");
  EXPECT_EQ(blocks(dir), "param KvBlocks = 536870911");
  with("\"kv_cache_memory_bytes\": 1125899906842625");
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: engine_kwargs.kv_cache_memory_bytes: ");
  // Too few bytes for two blocks.
  with("\"kv_cache_memory_bytes\": 3000000");
  EXPECT_EQ(Error(dir), meta + ": error: engine_kwargs.kv_cache_memory_bytes: 3000000 bytes make 1 KV block of 16 "
                               "tokens x 131072 bytes; vLLM needs at least 2");
  // A count of 1 given by vLLM's override, at the field (the range it
  // reads is vLLM's, from 1; the error is the cache's).
  with("\"num_gpu_blocks_override\": 1");
  EXPECT_EQ(Error(dir), meta + ": error: engine_kwargs.num_gpu_blocks_override: 1 KV block; vLLM needs at least 2");
  const std::string moe = Copy(kMoe, "kv-bytes-moe");
  Edit(moe + "/meta.json", "\"seed\": 42", "\"seed\": 42, \"kv_cache_memory_bytes\": 10737418240");
  EXPECT_EQ(blocks(moe), "param KvBlocks = 6825");
}

// With data parallel, vLLM's front-end adds up its engines' counts as they
// start (wait_for_engine_startup) and the bench records the front-end's:
// the MoE run's two engines logging 10000 hold 5000 blocks each, 4999 for
// requests; 10001 is 5000 each, rounded down.
TEST(KvCapacity, TheLoggedCountIsTheEnginesSum) {
  const std::string dir = Copy(kMoe, "dp-count");
  const std::string meta = Read(dir + "/meta.json");
  for (const auto& [logged, line] :
       {std::pair{"10000", "5000 an engine."}, std::pair{"10001", "5000 an engine (rounded down)."}}) {
    Write(dir + "/meta.json", AddToMeta(meta, absl::StrCat("\"kv_cache\": {\"num_gpu_blocks\": ", logged, "},")));
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_NE(g->program.find("param KvBlocks = 4999;"), std::string::npos) << logged;
    std::string flat = g->program;
    for (size_t at; (at = flat.find("\n//     ")) != std::string::npos;) flat.replace(at, 8, " ");
    EXPECT_NE(flat.find(absl::StrCat("meta.json: kv_cache.num_gpu_blocks ", logged, " (vLLM's own count, as the run "
                                     "logged it: its front-end's, the sum over the 2 data-parallel engines), ",
                                     line)),
              std::string::npos)
        << flat.substr(0, 2500);
  }
  // 3 over 2 engines is 1 each: too few, said at the field.
  Write(dir + "/meta.json", AddToMeta(meta, "\"kv_cache\": {\"num_gpu_blocks\": 3},"));
  EXPECT_EQ(Error(dir), dir + "/meta.json: error: kv_cache.num_gpu_blocks: 3 blocks over 2 data-parallel engines "
                              "is 1 an engine; vLLM needs at least 2");
}

// The count the run logged is of the run's engine: a plan's engine at
// another data-parallel degree with expert parallel holds 1/4 of the
// experts a GPU, not 1/2, so its count is derived again (as the count at
// another TP degree is); a dense model's engines at another data-parallel
// degree are the run's engine, and keep it.
TEST(KvCapacity, RedeployedEnginesDropTheLoggedCount) {
  for (const std::string& run : {kMoe, kLlama}) {
    const std::string dir = Copy(run, "redeploy");
    Edit(dir + "/meta.json", "\"schema_version\": 1,",
         "\"schema_version\": 1, \"kv_cache\": {\"num_gpu_blocks\": 5000},");
    absl::StatusOr<RunFolder> same = ReadRunFolder(dir, {});
    ASSERT_TRUE(same.ok()) << same.status();
    // The MoE run's two engines: vLLM's front-end records their sum.
    EXPECT_EQ(same->num_gpu_blocks, run == kMoe ? 2500 : 5000);
    Redeployment four;
    four.dp = 4;
    absl::StatusOr<RunFolder> wider = ReadRunFolder(dir, four);
    ASSERT_TRUE(wider.ok()) << wider.status();
    if (run == kMoe) {
      EXPECT_EQ(wider->ep, 4);
      EXPECT_FALSE(wider->num_gpu_blocks.has_value());
      // Its program's words: each GPU holds a quarter of the experts.
      Options options;
      options.redeploy = four;
      absl::StatusOr<Generated> g = GenerateProgram(dir, options);
      ASSERT_TRUE(g.ok()) << g.status();
      EXPECT_NE(g->program.find("// The experts: each GPU's 1/4 of them serve every engine's tokens"),
                std::string::npos);
      EXPECT_EQ(g->program.find("param KvBlocks = 4999;"), std::string::npos);
    } else {
      EXPECT_EQ(wider->num_gpu_blocks, 5000);
    }
  }
}

// LLMServingSim's config sizes its KV by npu_mem.mem_util; where it is not
// the run's gpu_memory_utilization (vLLM's default 0.9 here: meta.json gives
// none), the count is derived at the run's and the difference said; not
// where they agree, nor where the count is given.
TEST(KvCapacity, AnotherMemUtilIsSaid) {
  auto said = [](const absl::StatusOr<Generated>& g) { return WarningsWith(g, "npu_mem.mem_util"); };
  const std::string dir = Copy(kLlama, "mem-util");
  absl::StatusOr<Generated> g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(said(g), std::vector<std::string>{});
  const std::string base = g->program.substr(g->program.find("param KvBlocks"), 40);
  Edit(dir + "/llmservingsim-config.json", "\"mem_util\": 0.9", "\"mem_util\": 0.95");
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(said(g), std::vector<std::string>{absl::StrCat(
                         dir, "/llmservingsim-config.json: npu_mem.mem_util 0.95, and the run's "
                         "gpu_memory_utilization is 0.9 (vLLM's default; meta.json gives none): the KV cache is "
                         "derived at the run's; --gpu-memory-utilization gives another")});
  EXPECT_EQ(g->program.substr(g->program.find("param KvBlocks"), 40), base);
  Options given;
  given.kv.num_gpu_blocks = 1000;
  g = GenerateProgram(dir, given);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(said(g), std::vector<std::string>{});
}

// A derived count the run's requests can fill is said: a replay that
// preempts moves with it. The Llama run's 128 longest requests hold 15,988
// blocks of 16 together (the sum of ceil((input_toks + output_toks) / 16)
// over the 128 largest rows of its requests.jsonl:
//   python3 -c "import json,math; t=sorted((r['input_toks']+r['output_toks']
//     for r in map(json.loads, open('requests.jsonl'))), reverse=True);
//     print(sum(math.ceil(x/16) for x in t[:128]))"
// ), the MoE run's 16,305. On the run's GPU the cache holds 35,810: nothing
// said. On 24 GiB, by the figures of TheGpusMemoryAsCudaReportsIt:
// ceil(24 x 2^30 x 0.9) = 23,192,823,399 bytes, less 16,060,522,496 +
// 33,554,432 + 312,279,040 + 268,435,456 = 6,518,031,975: 3,108 blocks,
// 3,107 holding requests, fewer than 15,988. A count given is not said.
TEST(KvCapacity, ADerivedCountTheRequestsCanFillIsSaid) {
  auto filling = [](const absl::StatusOr<Generated>& g) {
    std::vector<std::string> said;
    for (const std::string& w : g->warnings) {
      if (w.rfind("KV cache: ", 0) == 0) said.push_back(w);
    }
    return said;
  };
  const std::string llama = Copy(kLlama, "fill");
  absl::StatusOr<Generated> g = GenerateProgram(llama, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(filling(g), std::vector<std::string>{});
  Options small;
  small.kv.gpu_memory_gib = 24;
  g = GenerateProgram(llama, small);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param KvBlocks = 3107;"), std::string::npos);
  EXPECT_EQ(filling(g), std::vector<std::string>{
      "KV cache: 3107 blocks of 16 tokens, derived from the GPU's memory (the run records no count), and the "
      "run's requests can fill it: its 128 longest (max_num_seqs 128) hold up to 15988 blocks together. Where "
      "the replay preempts (serq run's `preemptions:` line), its figures move with the count: vLLM logs it at "
      "start-up (`GPU KV cache size: N tokens`, N / 16 blocks), and --kv-blocks takes it"});
  Options given = small;
  given.kv.num_gpu_blocks = 3108;
  g = GenerateProgram(llama, given);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(filling(g), std::vector<std::string>{});
  // Data-parallel engines: each its own cache and seats.
  Options moe;
  moe.kv.gpu_memory_gib = 40;
  g = GenerateProgram(Copy(kMoe, "fill"), moe);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(filling(g).size(), 1u);
  EXPECT_NE(filling(g)[0].find(" tokens an engine, derived "), std::string::npos) << filling(g)[0];
  EXPECT_NE(filling(g)[0].find("hold up to 16305 blocks together"), std::string::npos) << filling(g)[0];
}

// vLLM 0.21 and later subtract an estimate of the CUDA graphs' memory from
// the KV cache (on by default from 0.21; off in 0.19, whose derivation serq
// keeps): a derived count of such a run is said to be high. Not for 0.20,
// nor a run without graphs (enforce_eager), nor a count given.
TEST(KvCapacity, ALaterVllmsGraphsAreSaid) {
  auto graphs = [](const absl::StatusOr<Generated>& g) { return WarningsWith(g, "CUDA graphs' memory"); };
  const std::string llama = Copy(kLlama, "later");
  Edit(llama + "/meta.json", "\"vllm_version\": \"0.19.0\"", "\"vllm_version\": \"0.21.0\"");
  absl::StatusOr<Generated> g = GenerateProgram(llama, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(graphs(g), std::vector<std::string>{
      "KV cache: 35810 blocks, derived as vLLM 0.19 derives them, but the run is vLLM 0.21.0, which also "
      "subtracts an estimate of its CUDA graphs' memory (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, on by default "
      "from 0.21): the run had fewer. Its log's `GPU KV cache size: N tokens` (N / 16 blocks) goes to "
      "--kv-blocks"});
  Options given;
  given.kv.num_gpu_blocks = 30000;
  g = GenerateProgram(llama, given);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(graphs(g), std::vector<std::string>{});
  // Versions as they are written: a tag's v, a release candidate's suffix.
  for (const char* later : {"v0.21.0", "0.21rc1", "1.0.0"}) {
    const std::string version = absl::StrCat("\"vllm_version\": \"", later, "\"");
    Edit(llama + "/meta.json", "\"vllm_version\": \"0.21.0\"", version);
    g = GenerateProgram(llama, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(graphs(g).size(), 1u) << later;
    Edit(llama + "/meta.json", version, "\"vllm_version\": \"0.21.0\"");
  }
  Edit(llama + "/meta.json", "\"vllm_version\": \"0.21.0\"", "\"vllm_version\": \"0.20.2\"");
  g = GenerateProgram(llama, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(graphs(g), std::vector<std::string>{});
  Edit(llama + "/meta.json", "\"vllm_version\": \"0.20.2\"", "\"vllm_version\": \"1.0.0\"");
  Edit(llama + "/meta.json", "\"tensor_parallel_size\": 1,", "\"tensor_parallel_size\": 1,\n    \"enforce_eager\": true,");
  g = GenerateProgram(llama, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(graphs(g), std::vector<std::string>{});
}

}  // namespace
}  // namespace serq::vllm
