// serq vllm's reading of a run folder and the program it writes, on the two
// runs of examples/vllm/runs and on copies of them changed one file at a
// time. Expected values are derived by hand in the comments from the files.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "ir/diagnostics.h"
#include "lang/link/link.h"
#include "lang/parse/parse.h"
#include "serq/vllm/architecture.h"
#include "serq/vllm/generate.h"
#include "serq/models/json_file.h"
#include "serq/models/model_config.h"
#include "serq/vllm/profile.h"
#include "serq/vllm/run_folder.h"

namespace serq::vllm {

using models::JsonFile;
using models::ModelConfig;
using models::KvBytesPerToken;
using models::ReadModelConfig;
using models::WeightBytesPerGpu;

namespace {

namespace fs = std::filesystem;

const std::string kRuns = "examples/vllm/runs/";
const std::string kLlama = kRuns + "rtxpro6000-llama-3.1-8b";
const std::string kMoe = kRuns + "rtxpro6000-qwen3-30b-a3b-dp2-ep";

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

// A copy of run folder `run` in the test's temporary directory, to change.
std::string Copy(const std::string& run, const std::string& name) {
  const char* tmp = getenv("TEST_TMPDIR");
  fs::path to = fs::path(tmp != nullptr ? tmp : "/tmp") / name;
  fs::remove_all(to);
  fs::copy(run, to, fs::copy_options::recursive);
  return to.string();
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::string Error(const std::string& dir, const Options& options = {}) {
  absl::StatusOr<Generated> g = GenerateProgram(dir, options);
  return g.ok() ? "(no error)" : std::string(g.status().message());
}

// The program's skew table, from "table skew {" to its closing brace.
std::string SkewTable(const std::string& program) {
  const size_t from = program.find("table skew {");
  if (from == std::string::npos) return "";
  return program.substr(from, program.find("\n}\n", from) - from);
}

// A program's comments with their wrapped lines joined.
std::string Unwrapped(std::string program) {
  for (size_t at; (at = program.find("\n//   ")) != std::string::npos;) program.replace(at, 6, " ");
  return program;
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

// The catalog against LLMServingSim's profiler's (profiler/models/*.yaml
// at 5daddb2: each architecture's dense and per_sequence layers, which
// dense.csv and per_sequence.csv name; attention and the experts are
// their own files): the same operators, so a profile it takes is one the
// generator reads whole.
TEST(Architecture, TheProfilersCatalogs) {
  auto operators = [](const Architecture& a) {
    std::set<std::string> ops(a.per_step.begin(), a.per_step.end());
    for (const auto& [op, n] : a.per_layer) ops.insert(op);
    if (!a.experts || a.model_types[0] == "qwen3") ops.insert(a.dense_mlp.begin(), a.dense_mlp.end());
    ops.insert(a.per_sequence.begin(), a.per_sequence.end());
    return ops;
  };
  const std::set<std::string> llama = {"embedding", "layernorm", "qkv_proj", "rotary_emb", "o_proj",
                                       "gate_up_proj", "act_fn", "down_proj", "final_layernorm",
                                       "lm_head", "sampler"};
  std::set<std::string> qwen3 = llama;
  qwen3.insert("qk_norm");
  const std::set<std::string> mixtral = {"embedding", "layernorm", "qkv_proj", "rotary_emb", "o_proj",
                                         "final_layernorm", "lm_head", "sampler"};
  std::set<std::string> qwen3_moe = mixtral;
  qwen3_moe.insert("qk_norm");
  for (const auto& [type, ops, experts] :
       {std::tuple{"llama", llama, false}, std::tuple{"qwen3", qwen3, true},
        std::tuple{"mixtral", mixtral, true}, std::tuple{"phimoe", mixtral, true}}) {
    const Architecture* a = FindArchitecture(type);
    ASSERT_NE(a, nullptr) << type;
    EXPECT_EQ(operators(*a), ops) << type;
    EXPECT_EQ(a->experts, experts) << type;
  }
  // qwen3_moe shares qwen3's entry: its MoE layers run no dense MLP.
  const Architecture* moe = FindArchitecture("qwen3_moe");
  ASSERT_NE(moe, nullptr);
  std::set<std::string> without_mlp = operators(*moe);
  for (const std::string& op : moe->dense_mlp) without_mlp.erase(op);
  EXPECT_EQ(without_mlp, qwen3_moe);
  EXPECT_EQ(FindArchitecture("phi3"), nullptr);
  // Two RMSNorms a decoder layer, each other operator once.
  for (const auto& [op, n] : FindArchitecture("qwen3")->per_layer) EXPECT_EQ(n, op == "layernorm" ? 2 : 1) << op;
}

// A generated program parsed and linked as serq run reads it: empty when
// it links, else what the parser or the linker said.
std::string LinkErrors(const std::string& program) {
  Diagnostics diags("gen.sq");
  ir::Program parsed;
  if (ParseProgram("gen.sq", program, &parsed, &diags) && LinkProgram(&parsed, LinkOptions(), &diags)) return "";
  return "does not link:\n" + diags.Render();
}

TEST(ModelConfig, TheTwoModels) {
  absl::StatusOr<JsonFile> json = JsonFile::Read(kLlama + "/model.json");
  ASSERT_TRUE(json.ok()) << json.status();
  absl::StatusOr<ModelConfig> llama = ReadModelConfig(*json);
  ASSERT_TRUE(llama.ok()) << llama.status();
  // Llama-3.1-8B gives no head_dim: hidden 4096 / 32 heads = 128.
  EXPECT_EQ(llama->head_dim, 128);
  EXPECT_FALSE(llama->head_dim_given);
  EXPECT_FALSE(llama->moe());
  // KV a token: 2 x 32 layers x 8 KV heads x 128 x 2 bytes = 131,072; at
  // TP 2 half the KV heads, 65,536.
  EXPECT_EQ(KvBytesPerToken(*llama, 1, 2), 131072);
  EXPECT_EQ(KvBytesPerToken(*llama, 2, 2), 65536);
  // Weights: attention 32 x (4096 x 4096 + 2 x 4096 x 1024 + 4096 x 4096)
  // = 1,342,177,280; embeddings 2 x 128,256 x 4096 = 1,050,673,152; MLPs
  // 32 x 3 x 4096 x 14,336 = 5,637,144,576; norms 65 x 4096 = 266,240:
  // 8,030,261,248 parameters (Llama-3.1-8B's 8.03 B), x 2 bytes.
  EXPECT_EQ(WeightBytesPerGpu(*llama, 1, 1), 2.0 * 8030261248);

  json = JsonFile::Read(kMoe + "/model.json");
  ASSERT_TRUE(json.ok()) << json.status();
  absl::StatusOr<ModelConfig> moe = ReadModelConfig(*json);
  ASSERT_TRUE(moe.ok()) << moe.status();
  // Qwen3-30B-A3B gives head_dim 128, where hidden / heads is 2048 / 32 = 64.
  EXPECT_EQ(moe->head_dim, 128);
  EXPECT_TRUE(moe->head_dim_given);
  EXPECT_EQ(moe->experts, 128);
  EXPECT_EQ(moe->top_k, 8);
  EXPECT_EQ(moe->expert_intermediate, 768);
  EXPECT_EQ(moe->moe_layers, 48);
  EXPECT_EQ(moe->dense_layers, 0);
  // 2 x 48 x 4 x 128 x 2 = 98,304.
  EXPECT_EQ(KvBytesPerToken(*moe, 1, 2), 98304);
}

TEST(ModelConfig, BadFields) {
  auto bad = [](const std::string& text) {
    absl::StatusOr<JsonFile> json = JsonFile::Parse(text, "m.json");
    if (!json.ok()) return std::string(json.status().message());
    absl::StatusOr<ModelConfig> m = ReadModelConfig(*json);
    return m.ok() ? "(no error)" : std::string(m.status().message());
  };
  const std::string base =
      R"("model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
         "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128)";
  EXPECT_EQ(bad("{" + base + "}"), "(no error)");
  EXPECT_EQ(bad(R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
                    "vocab_size": 100, "intermediate_size": 128})"),
            "m.json: error: num_hidden_layers: missing: the model's config.json gives it");
  EXPECT_EQ(bad("{" + base + R"(, "head_dim": 0})"),
            "m.json: error: head_dim: expected a whole number from 1 to 16777216, not 0");
  EXPECT_EQ(bad("{" + base + R"(, "num_key_value_heads": 3})"),
            "m.json: error: num_key_value_heads: 3 KV heads do not divide the 4 heads evenly");
  EXPECT_EQ(bad("{" + base + R"(, "quantization_config": {"quant_method": "fp8"}})"),
            "m.json: error: quantization_config: a quantized model: serq vllm reads models in "
            "bf16 or fp16 only");
  EXPECT_EQ(bad("{" + base + R"(, "kv_lora_rank": 512})"),
            "m.json: error: kv_lora_rank: multi-head latent attention (MLA): serq vllm does not "
            "model its KV cache");
  EXPECT_EQ(bad("{" + base + R"(, "torch_dtype": "int4"})"),
            "m.json: error: torch_dtype: dtype 'int4': serq vllm knows bfloat16, float16, float32");
  EXPECT_EQ(bad("[1]"), "m.json: error: expected a JSON object, found a list");
  // Past 32 levels, at the bracket that crosses (protobuf refused a Value
  // past ~49 saying "JSON transcoder produced invalid protobuf output"): the
  // object is level 1, the k-th '[' after `{"a": ` (6 bytes) level k + 1 at
  // column 6 + k, so level 33 at column 38.
  EXPECT_EQ(bad("{\"a\": " + std::string(60, '[') + std::string(60, ']') + "}"),
            "m.json:1:38: error: JSON nested more than 32 levels deep");
}

TEST(Profile, MetaAndTheProfilersAlpha) {
  absl::StatusOr<ProfileMeta> meta = ReadProfileMeta(kLlama + "/profile/meta.yaml");
  ASSERT_TRUE(meta.ok()) << meta.status();
  EXPECT_EQ(meta->architecture, "llama");
  EXPECT_EQ(meta->tp_degrees, (std::vector<int>{1, 2}));
  EXPECT_EQ(meta->per_tp.at(1).alpha_default, 0.0543);
  EXPECT_EQ(meta->per_tp.at(2).alpha_default, 0.0654);
  EXPECT_EQ(meta->per_tp.at(2).bucket_table, "tp2/skew_fit.csv");
  EXPECT_EQ(meta->max_num_batched_tokens, 2048);
  EXPECT_EQ(meta->max_num_seqs, 256);
  ASSERT_TRUE(meta->axes.n.has_value());
  EXPECT_EQ(meta->axes.n->labels.size(), 9u);
  EXPECT_EQ(meta->axes.n->edges.size(), 10u);
  // alpha_default fitted from skew.csv as the profiler fits it gives
  // meta.yaml's value on all four profiles.
  for (auto [run, tp, alpha] : {std::tuple{kLlama, 1, 0.0543}, std::tuple{kLlama, 2, 0.0654},
                                std::tuple{kMoe, 1, 0.0645}, std::tuple{kMoe, 2, 0.0748}}) {
    absl::StatusOr<double> fitted =
        AlphaFromSkew(run + "/profile/tp" + std::to_string(tp) + "/skew.csv");
    ASSERT_TRUE(fitted.ok()) << fitted.status();
    EXPECT_EQ(*fitted, alpha) << run << " tp" << tp;
  }
}

TEST(Profile, BadMeta) {
  auto bad = [](const std::string& text) {
    absl::StatusOr<ProfileMeta> m = ParseProfileMeta(text, "meta.yaml");
    return m.ok() ? "(no error)" : std::string(m.status().message());
  };
  EXPECT_EQ(bad("architecture: llama\ntp_degrees: [1, 2]\n"), "(no error)");
  EXPECT_EQ(bad("tp_degrees: [1]\n"), "meta.yaml:1:1: error: no 'architecture'");
  EXPECT_EQ(bad("architecture: llama\ntp_degrees: [1, x]\n"),
            "meta.yaml:2:17: error: tp_degrees: expected whole numbers from 1 to 1024");
  EXPECT_EQ(bad("architecture: llama\ntp_degrees: [1\n"),
            "meta.yaml:3:1: error: end of sequence flow not found");
  // yaml-cpp's depth guard: a flow nested 3,000 deep is an error, not a crash.
  EXPECT_NE(bad(std::string(3000, '[')).find("error"), std::string::npos);
  EXPECT_EQ(bad("architecture: llama\ntp_degrees: [1]\nengine_effective: {max_num_seqs: 0}\n"),
            "meta.yaml:3:34: error: engine_effective.max_num_seqs: expected a whole number above 0");
  const std::string fit = "architecture: llama\ntp_degrees: [1]\nskew_fit:\n  enabled: true\n";
  EXPECT_EQ(bad(fit + "  per_tp: {1: {bucket_table: /etc/passwd}}\n"),
            "meta.yaml:5:30: error: skew_fit.per_tp.1.bucket_table: '/etc/passwd': expected a path inside "
            "the profile's folder");
  EXPECT_EQ(bad(fit + "  per_tp: {1: {bucket_table: tp1/../../x.csv}}\n"),
            "meta.yaml:5:30: error: skew_fit.per_tp.1.bucket_table: 'tp1/../../x.csv': expected a path "
            "inside the profile's folder");
  EXPECT_EQ(bad(fit + "  per_tp: {1: {alpha_by_bucket: {'pc=0|n<=2|sr<=5%|kvB<=1k|kp=0': x}}}\n"),
            "meta.yaml:5:67: error: skew_fit.per_tp.1.alpha_by_bucket.pc=0|n<=2|sr<=5%|kvB<=1k|kp=0: "
            "expected a number");
  EXPECT_EQ(bad(fit + "  bucket_axes: {n_bins: [0, 2, 1000000]}\n"),
            "meta.yaml:5:25: error: skew_fit.bucket_axes: n_bins and n_labels go together");
  // Without `enabled: true` the block is off.
  absl::StatusOr<ProfileMeta> off =
      ParseProfileMeta("architecture: llama\ntp_degrees: [1]\nskew_fit: {per_tp: {1: {alpha_default: 0.1}}}\n",
                       "meta.yaml");
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_FALSE(off->skew_fit);
}

TEST(Generate, TheTwoRunsLink) {
  for (const std::string& run : {kLlama, kMoe}) {
    Options options;
    options.program_dir = ".";
    absl::StatusOr<Generated> g = GenerateProgram(run, options);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(LinkErrors(g->program), "");
    // The GPUs of the run, for the report's per-GPU figures: the Llama run's
    // one; the MoE run's data parallel 2 (its Engines param).
    EXPECT_NE(g->program.find(run == kLlama ? "run { seed 1; gpus 1; }" : "run { seed 1; gpus Engines; }"),
              std::string::npos);
  }
}

// A folder's path is a string of the program: a quote or a backslash in it
// escaped (the language's only escapes), so the program parses and links
// and reads the folder's files; a line break, which would end the comment
// or string it is in and let the rest be read as the program, refused.
TEST(Generate, PathsThatAreNotPlain) {
  const std::string dir = Copy(kLlama, "a \"quoted\" \\ run");
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("a \\\"quoted\\\" \\\\ run/profile/tp1/attention.csv\""), std::string::npos);
  EXPECT_EQ(LinkErrors(g->program), "");
  const std::string broken = Copy(kLlama, "two\nlines");
  EXPECT_PRED2(StartsWith, Error(broken), absl::StrCat(absl::CHexEscape(broken), ": error: the run folder's "
                                                       "path holds a control character (\\n)"));
}

// The figures the programs are built from, derived from the files.
TEST(Generate, TheMoeRunsFigures) {
  absl::StatusOr<Generated> g = GenerateProgram(kMoe, {});
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string& p = g->program;
  // Two engines in lockstep behind vLLM's balancer, the experts over both.
  EXPECT_NE(p.find("param Engines = 2;"), std::string::npos);
  EXPECT_NE(p.find("param Ep = 2;"), std::string::npos);
  EXPECT_NE(p.find(" lockstep;"), std::string::npos);
  EXPECT_NE(p.find("choose i in E by (4 * waiting(E[i]) + running(E[i])) every 0.1;"), std::string::npos);
  // The link: 16 GB/s read as 2^30 bytes, 20,000 ns a step.
  EXPECT_NE(p.find("param LinkBw = 17179869184;"), std::string::npos);
  EXPECT_NE(p.find("param LinkLatency = 2e-05;"), std::string::npos);
  // KV: CUDA's 94.97 GiB of the RTX PRO 6000 (the cluster file's mem_size
  // 96 is the vendor's) x 0.9 = 91,775,934,923 bytes (rounded up); the weights of
  // one GPU: attention 48 x (2048 x 4096 + 2 x 2048 x 512 + 4096 x 2048) =
  // 905,969,664, embeddings 2 x 151,936 x 2048 = 622,329,856, norms
  // 97 x 2048 + 96 x 128 = 210,944, routers 48 x 2048 x 128 = 12,582,912,
  // half the experts 48 x 128 x 3 x 2048 x 768 / 2 = 14,495,514,624:
  // 16,036,608,000 parameters, 32,073,216,000 bytes; the activation peak
  // 2048 x (2 x 2048 + max(40 x 128, 8 x (3 x 768 + 2048))) x 2 + 2 x 128 x
  // 151,936 x 4 = 159,383,552 + 155,582,464 = 314,966,016 bytes; so
  // 59,387,752,907 bytes in blocks of 16 x 98,304 = 1,572,864: 37,757
  // blocks, less the null one.
  EXPECT_NE(p.find("param KvBlocks = 37756;"), std::string::npos) << p.substr(0, 3000);
  EXPECT_NE(p.find("param AlphaDefault = 0.0645;"), std::string::npos);
  // Its GPUs, data parallel 2 x tensor parallel 1, in the param -D moves.
  EXPECT_NE(p.find("run { seed 1; gpus Engines; }"), std::string::npos);
}

// Tensor parallel 2 on the Llama run's TP 2 profile: the all-reduces and
// the logits' gather over the run's link, the profile at tp2.
TEST(Generate, TensorParallel) {
  const std::string dir = Copy(kLlama, "tp2");
  Write(dir + "/meta.json", Replace(Read(dir + "/meta.json"), "\"tensor_parallel_size\": 1",
                                    "\"tensor_parallel_size\": 2"));
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string& p = g->program;
  EXPECT_NE(p.find("param Tp = 2;"), std::string::npos);
  EXPECT_NE(p.find("/profile/tp2/attention.csv"), std::string::npos);
  // The all-reduce inside the CUDA graph, at the padded tokens.
  EXPECT_NE(p.find("all_reduce(Tp, padded * Hidden * DtypeBytes, LinkBw, LinkLatency)"),
            std::string::npos);
  EXPECT_NE(p.find("+ Layers * (layer + attend + gate_up_proj(padded) + act_fn(padded) + "
                   "down_proj(padded) + 2 * all_reduced);"),
            std::string::npos);
  EXPECT_NE(p.find("param AlphaDefault = 0.0654;"), std::string::npos);
  EXPECT_NE(p.find("run { seed 1; gpus Tp; }"), std::string::npos);  // one engine of 2 GPUs
  EXPECT_EQ(LinkErrors(p), "");
  // Without the cluster file a TP run needs a named link.
  fs::remove(dir + "/llmservingsim-config.json");
  EXPECT_NE(Error(dir).find(": error: the GPUs exchange data (tensor or expert parallel) and the "
                            "run describes no link"),
            std::string::npos);
  options.interconnect = "nvlink9";
  EXPECT_EQ(Error(dir, options),
            "serq vllm: error: --interconnect nvlink9: no such interconnect (known: pcie4-x16, "
            "pcie5-x16, nvlink3, nvlink4, nvlink5)");
  options.interconnect = "pcie5-x16";
  options.kv.gpu_memory_gib = 96;
  g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param LinkBw = 48000000000;"), std::string::npos);
}

// The link as one figure a dimension of ASTRA-Sim's topology, as
// LLMServingSim's config may give it (tensor parallel first, the
// data-parallel group last): the MoE run's expert exchange between its two
// engines takes the last; a tensor-parallel run the first.
TEST(Generate, TheLinkByTopologyDimension) {
  const std::string base = Read(kMoe + "/llmservingsim-config.json");
  {
    const std::string dir = Copy(kMoe, "link-dims");
    std::string cluster = Replace(base, "\"link_bw\": 16,", "\"link_bw\": [32, 16],");
    cluster = Replace(cluster, "\"link_latency\": 20000,", "\"link_latency\": [1000, 20000],");
    Write(dir + "/llmservingsim-config.json", cluster);
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    // 16 x 2^30 = 17,179,869,184 bytes/s; 20,000 ns = 2e-05 s.
    EXPECT_NE(g->program.find("param LinkBw = 17179869184;"), std::string::npos);
    EXPECT_NE(g->program.find("link_bw 16 GB/s (dimension 2 of 2), read as ASTRA-Sim"), std::string::npos);
    EXPECT_NE(g->program.find("param LinkLatency = 2e-05;"), std::string::npos);
  }
  {
    const std::string dir = Copy(kLlama, "link-dims-tp");
    Write(dir + "/meta.json", Replace(Read(dir + "/meta.json"), "\"tensor_parallel_size\": 1",
                                      "\"tensor_parallel_size\": 2"));
    const std::string file = dir + "/llmservingsim-config.json";
    Write(file, Replace(Read(file), "\"link_bw\": 16,", "\"link_bw\": [8, 16],"));
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_NE(g->program.find("param LinkBw = 8589934592;"), std::string::npos);  // 8 x 2^30
    Write(file, Replace(Read(file), "\"link_bw\": [8, 16],", "\"link_bw\": \"fast\","));
    EXPECT_EQ(Error(dir), file + ": error: link_bw: expected GB/s above 0, or a list of such (one a topology "
                                 "dimension, up to 8), not \"fast\"");
  }
}

// A mixture of experts at tensor parallel 2 without expert parallelism, on
// the MoE run's profile, whose experts were timed at TP 1 only (it has no
// tp2/moe.csv, as LLMServingSim's profiler writes none): the whole
// experts' kernels, a GPU's share 1/Tp of them.
TEST(Generate, ExpertsSplitByTensorParallel) {
  const std::string dir = Copy(kMoe, "moe-tp2");
  ASSERT_FALSE(fs::exists(dir + "/profile/tp2/moe.csv"));
  std::string meta = Read(dir + "/meta.json");
  meta = Replace(meta, "\"tensor_parallel_size\": 1", "\"tensor_parallel_size\": 2");
  meta = Replace(meta, "\"data_parallel_size\": 2", "\"data_parallel_size\": 1");
  meta = Replace(meta, "\"enable_expert_parallel\": true", "\"enable_expert_parallel\": false");
  Write(dir + "/meta.json", meta);
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string& p = g->program;
  EXPECT_NE(p.find("/profile/tp1/moe.csv\" { key tokens, activated_experts; value time_us; }"),
            std::string::npos);
  EXPECT_NE(p.find("  let experts = moe(gathered, reached) / Tp;"), std::string::npos);
  EXPECT_NE(p.find("param Tp = 2;"), std::string::npos);
  EXPECT_NE(p.find("/profile/tp2/attention.csv"), std::string::npos);
  EXPECT_EQ(LinkErrors(p), "");
  // With a tp2/moe.csv of its own, that one, unsplit.
  fs::copy_file(dir + "/profile/tp1/moe.csv", dir + "/profile/tp2/moe.csv");
  g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("/profile/tp2/moe.csv\""), std::string::npos);
  EXPECT_NE(g->program.find("  let experts = moe(gathered, reached);"), std::string::npos);
}

// A dense Qwen3 at tensor parallel 2 (the shapes of Qwen3-32B's public
// config.json on the Llama run's copy): the generator runs the qwen3
// decoder's operators, the per-head q and k norms among them, from
// profile/tp2, and the all-reduces of each layer; a profile without
// qk_norm is an error naming the operator, never a step without it. KV a
// token on one GPU: 2 x 64 layers x 8 / 2 KV heads x head_dim 128 (given,
// not 5120 / 64 = 80) x 2 bytes = 131072.
TEST(Generate, DenseQwen3AtTensorParallel2) {
  const std::string dir = Copy(kLlama, "qwen3-tp2");
  Write(dir + "/model.json", R"({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
    "hidden_size": 5120, "intermediate_size": 25600, "num_hidden_layers": 64,
    "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16"})");
  Write(dir + "/meta.json", Replace(Read(dir + "/meta.json"), "\"tensor_parallel_size\": 1",
                                    "\"tensor_parallel_size\": 2"));
  // A profile of another architecture than the run's model is refused.
  const std::string meta = dir + "/profile/meta.yaml";
  EXPECT_EQ(Error(dir), meta + ": error: the profile is of architecture 'llama', the run's model (model.json) of "
                               "'qwen3'");
  Write(meta, Replace(Read(meta), "architecture: llama", "architecture: qwen3"));
  const std::string dense = dir + "/profile/tp2/dense.csv";
  const std::string without = Read(dense);
  EXPECT_EQ(Error(dir), dense + ": error: no operator 'qk_norm' (qwen3 runs it; the profile has 'act_fn', "
                                "'down_proj', 'embedding', 'final_layernorm', 'gate_up_proj', 'layernorm', "
                                "'o_proj', 'qkv_proj', 'rotary_emb')");
  Write(dense, without + "qk_norm,1,3.5\nqk_norm,2048,9.5\n");
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string& p = g->program;
  EXPECT_NE(p.find("param Tp = 2;"), std::string::npos);
  EXPECT_NE(p.find("param Layers = 64;"), std::string::npos);
  EXPECT_NE(p.find("{ where layer = \"qk_norm\"; key tokens; value time_us; }"), std::string::npos);
  EXPECT_NE(p.find("let layer = 2 * layernorm(padded) + qkv_proj(padded) + qk_norm(padded) + rotary_emb(padded) + "
                   "o_proj(padded);"),
            std::string::npos);
  EXPECT_NE(p.find("+ Layers * (layer + attend + gate_up_proj(padded) + act_fn(padded) + "
                   "down_proj(padded) + 2 * all_reduced);"),
            std::string::npos);
  EXPECT_NE(p.find("2 (K, V) x 64 layers x 4 KV heads (of 8, over TP 2) x head_dim 128 x 2"), std::string::npos);
  EXPECT_NE(p.find("bytes = 131072 bytes"), std::string::npos);
  EXPECT_EQ(LinkErrors(p), "");
}

// CUDA graphs (vLLM 0.19's default; the profile's kernels ran eagerly): a
// step of at most the largest captured size runs at the captured size at or
// above its tokens. The sizes: 1, 2, 4, multiples of 8 below 256, multiples
// of 16 from 256, up to min(2 x max_num_seqs, 512, max_num_batched_tokens):
//   max_num_seqs 128, 2048 tokens: min(256, 512, 2048) = 256, the largest 256;
//   max_num_seqs 8: min(16, ...) = 16 (1, 2, 4, 8, 16), the largest 16;
//   max_num_seqs 100, 100 tokens: 100, the largest multiple of 8 at most 100, 96;
//   max_num_seqs 200: 400, past 256 in steps of 16: 400 (= 256 + 9 x 16).
// enforce_eager: no graphs, every operator at the step's own tokens.
TEST(Generate, CudaGraphs) {
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(kLlama, options);
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string& p = g->program;
  EXPECT_NE(p.find("param GraphMax = 256;"), std::string::npos);
  EXPECT_NE(p.find("let graphed = tokens <= GraphMax;"), std::string::npos);
  EXPECT_NE(p.find("let padded = graphed * ((tokens <= 2) * tokens + (tokens > 2) * (tokens <= 4) * 4 + "
                   "(tokens > 4) * (tokens <= 256) * 8 * ceil(tokens / 8)) + (1 - graphed) * tokens;"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("let us = embedding(padded) + final_layernorm(padded) + lm_head(seqs) + sampler(seqs)"),
            std::string::npos);
  // Attention runs outside the graphs, at the step's own figures.
  EXPECT_NE(p.find("let t_mean = attn(prefill, prefill_kv, decode, kv_mean);"), std::string::npos);

  auto with = [&](const std::string& name, const std::string& from, const std::string& to) {
    const std::string dir = Copy(kLlama, name);
    Write(dir + "/meta.json", Replace(Read(dir + "/meta.json"), from, to));
    absl::StatusOr<Generated> out = GenerateProgram(dir, options);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? out->program : std::string();
  };
  EXPECT_NE(with("seqs8", "\"max_num_seqs\": 128", "\"max_num_seqs\": 8").find("param GraphMax = 16;"),
            std::string::npos);
  const std::string small = with("tokens100", "\"max_num_seqs\": 128,\n    \"max_num_batched_tokens\": 2048",
                                 "\"max_num_seqs\": 100,\n    \"max_num_batched_tokens\": 100");
  EXPECT_NE(small.find("param GraphMax = 96;"), std::string::npos) << small.substr(0, 2000);
  const std::string big = with("seqs200", "\"max_num_seqs\": 128", "\"max_num_seqs\": 200");
  EXPECT_NE(big.find("param GraphMax = 400;"), std::string::npos);
  EXPECT_NE(big.find("+ (tokens > 256) * (256 + 16 * ceil((tokens - 256) / 16))"), std::string::npos);
  const std::string eager = with("eager", "\"max_num_seqs\": 128", "\"enforce_eager\": true, \"max_num_seqs\": 128");
  EXPECT_EQ(eager.find("GraphMax"), std::string::npos);
  EXPECT_EQ(eager.find("padded"), std::string::npos);
  EXPECT_NE(eager.find("let us = embedding(tokens) + final_layernorm(tokens)"), std::string::npos);
  // --enforce-eager writes the same step as the run's own enforce_eager;
  // on that run it changes nothing, and says so.
  Options flag = options;
  flag.enforce_eager = true;
  absl::StatusOr<Generated> forced = GenerateProgram(kLlama, flag);
  ASSERT_TRUE(forced.ok()) << forced.status();
  EXPECT_EQ(forced->program.find("GraphMax"), std::string::npos);
  const auto stage = [](const std::string& p) {  // the stage, to its end
    const size_t at = p.find("stage E");
    return p.substr(at, p.find("\n}\n", at) - at);
  };
  EXPECT_EQ(stage(forced->program), stage(eager));
  EXPECT_TRUE(forced->warnings.empty()) << forced->warnings[0];
  EXPECT_TRUE(forced->unused_flags.empty()) << forced->unused_flags[0];
  const std::string dir = Copy(kLlama, "eager-flag");
  Write(dir + "/meta.json",
        Replace(Read(dir + "/meta.json"), "\"max_num_seqs\": 128", "\"enforce_eager\": true, \"max_num_seqs\": 128"));
  absl::StatusOr<Generated> both = GenerateProgram(dir, flag);
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(both->unused_flags, std::vector<std::string>{"--enforce-eager changes nothing: the run had no CUDA graphs "
                                                     "(meta.json engine_kwargs.enforce_eager)"});
}

// The MoE run's engines pad to their largest step's captured size (vLLM's
// DP padding), and the experts' all-gather carries every engine's padded
// tokens; a step past the graphs' sizes on any engine runs eagerly.
TEST(Generate, CudaGraphsAcrossDataParallel) {
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(kMoe, options);
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string& p = g->program;
  EXPECT_NE(p.find("let graphed = group_tokens_max <= GraphMax;"), std::string::npos);
  EXPECT_NE(p.find("let gathered = graphed * Engines * padded + (1 - graphed) * group_tokens;"),
            std::string::npos);
}

// A decode instance of a prefill-decode split (serq plan's decode role):
// its requests' prompt KV comes over the link, so no full-prompt
// reservation, and a preempted request recomputes its last token only;
// the rest of the program is the whole engine's, line for line.
TEST(Generate, TheDecodeRole) {
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> whole = GenerateProgram(kLlama, options);
  options.role = models::EngineRole::kDecode;
  absl::StatusOr<Generated> decode = GenerateProgram(kLlama, options);
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_TRUE(decode.ok()) << decode.status();
  const std::string w = "  seqs Seqs; tokens Tokens; preempt by (-since); reserve prompt; async;\n";
  const std::string d = "  seqs Seqs; tokens Tokens; preempt by (-since); recompute last; async;\n";
  ASSERT_NE(whole->program.find(w), std::string::npos);
  EXPECT_EQ(whole->program.find("recompute last"), std::string::npos);
  EXPECT_EQ(absl::StrReplaceAll(whole->program, {{w, d}}), decode->program);
}

TEST(Generate, KvCacheFromTheRun) {
  // The run's own count (kv_cache.num_gpu_blocks): one block less holds
  // requests; --kv-blocks over it.
  const std::string dir = Copy(kLlama, "kv");
  Write(dir + "/meta.json", Replace(Read(dir + "/meta.json"), "\"schema_version\": 1,",
                                    "\"schema_version\": 1, \"kv_cache\": {\"num_gpu_blocks\": 3000},"));
  absl::StatusOr<Generated> g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param KvBlocks = 2999;"), std::string::npos);
  Options options;
  options.kv.num_gpu_blocks = 101;
  g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param KvBlocks = 100;"), std::string::npos);
  // No room: 10 GiB less 14.96 GiB of weights.
  Options small;
  small.kv.gpu_memory_gib = 10;
  fs::path meta = dir + "/meta.json";
  Write(meta, Replace(Read(meta), "\"kv_cache\": {\"num_gpu_blocks\": 3000},", ""));
  EXPECT_PRED2(StartsWith, Error(dir, small), dir + ": error: no room for the KV cache: 9");
}

// The GPU's memory where the run records no KV count and no torch total:
// vLLM sizes from CUDA's total, which the cluster file's mem_size (the
// vendor's 96 for the RTX PRO 6000) is not; the GPU preset's 94.97 GiB
// stands in when mem_size is that GPU's vendor figure, at most 5% above.
// By hand, Llama-3.1-8B at 2048 tokens and 128 sequences: weights
// 16,060,522,496 bytes; activations 2048 x (2 x 4096 + 3 x 14,336) x 2 +
// 2 x 128 x 128,256 x 4 = 341,049,344; blocks of 16 x 131,072 = 2,097,152.
//   94.97 GiB: ceil(94.97 x 2^30 x 0.9) = 91,775,934,923; less both,
//              75,374,363,083 bytes: 35,941 blocks (35,940 hold requests);
//   96 GiB as given: 36,415; 100 GiB (94.97 is 5.03% below): 38,259;
//   80 GiB (below the GPU's): 29,043.
TEST(Generate, TheGpusMemoryAsCudaReportsIt) {
  const std::string dir = Copy(kLlama, "cuda-total");
  absl::StatusOr<Generated> g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param KvBlocks = 35940;"), std::string::npos);
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
  EXPECT_EQ(blocks_at("100", "RTXPRO6000"), "param KvBlocks = 38258;");
  EXPECT_EQ(blocks_at("80", "RTXPRO6000"), "param KvBlocks = 29042;");
  // A GPU serq has no preset for, or a name two presets share: as given.
  EXPECT_EQ(blocks_at("96", "H100"), "param KvBlocks = 36414;");
  EXPECT_EQ(blocks_at("96", "RTXPRO6000 RTX4090"), "param KvBlocks = 36414;");
  // CUDA's name for it, as meta.json's hardware.device_name gives it.
  Write(cluster, original);
  Write(dir + "/meta.json", Replace(Read(dir + "/meta.json"), "\"schema_version\": 1,",
                                    "\"schema_version\": 1, \"hardware\": {\"device_name\": "
                                    "\"NVIDIA RTX PRO 6000 Blackwell Server Edition\"},"));
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param KvBlocks = 35940;"), std::string::npos);
}

// meta.json's kv_cache is vLLM's cache config as the run logged it: its
// block_size is the size of the blocks num_gpu_blocks counts (3000 blocks
// of 32 tokens are 96,000 tokens, not the 48,000 of vLLM's default 16), and
// its fields that are also engine arguments fill in for engine_kwargs or
// must agree with it; a kv_cache that is not an object is refused, never
// read as no count.
TEST(Generate, KvCacheFieldsOfTheRun) {
  const std::string dir = Copy(kLlama, "kv-fields");
  const std::string meta = dir + "/meta.json";
  const std::string original = Read(meta);
  auto with = [&](const std::string& kv_cache, const std::string& engine = "") {
    std::string text = Replace(original, "\"schema_version\": 1,",
                               "\"schema_version\": 1, \"kv_cache\": " + kv_cache + ",");
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
  ASSERT_EQ(g->warnings.size(), 1u);
  EXPECT_EQ(g->warnings[0], meta + ": kv_cache has no num_gpu_blocks: the KV cache is derived from the "
                                   "GPU's memory, not vLLM's count");
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
  with(R"({"num_gpu_blocks": 3000, "cache_dtype": "fp8_e5m2"})");
  EXPECT_EQ(Error(dir), meta + ": error: kv_cache.cache_dtype: 'fp8_e5m2': expected auto, bfloat16, "
                               "float16 or fp8");
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
                "--gpu-memory-utilization changes nothing: the KV cache's count is given (meta.json "
                "kv_cache.num_gpu_blocks), not derived from the GPU's memory",
                "--gpu-memory changes nothing: the KV cache's count is given (meta.json kv_cache.num_gpu_blocks), "
                "not derived from the GPU's memory, and meta.json gives max_num_seqs and max_num_batched_tokens",
                "--interconnect changes nothing: the run's GPUs exchange nothing (tensor parallel 1, no expert "
                "parallel)"}));
  with("3000");
  EXPECT_EQ(Error(dir), meta + ": error: kv_cache: expected an object (vLLM's cache config: "
                               "num_gpu_blocks, block_size, ...), not 3000");
  with("\"3000 blocks\"");
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: kv_cache: expected an object");
}

// meta.json as LLMServingSim's bench writes it since 2026-08: kv_cache with
// its null fields, the GPU torch saw (hardware) and vLLM's whole resolved
// configuration (resolved_config, a key a sub-config). What vLLM ran with
// fills in for vLLM 0.19's defaults, and must agree with engine_kwargs.
TEST(Generate, WhatVllmResolved) {
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
    Write(meta, Replace(original, "\"schema_version\": 1,",
                        absl::StrCat("\"schema_version\": 1, \"kv_cache\": {\"num_gpu_blocks\": 36000, "
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
                meta + ": resolved_config.compilation_config.cudagraph_mode \"<CUDAGraphMode>\" is not a mode serq "
                       "vllm knows: vLLM 0.19's default, FULL_AND_PIECEWISE, is assumed",
                meta + ": resolved_config.compilation_config.cudagraph_capture_sizes: \"<list len=70>\" is not a "
                       "list of sizes: vLLM 0.19's default sizes are assumed"}));
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
  Write(meta, Replace(Read(meta), "\"max_num_seqs\": 128, \"max_num_batched_tokens\": 2048, \"enable",
                      "\"max_num_batched_tokens\": 2048, \"enable"));
  EXPECT_EQ(Error(dir), meta + ": error: resolved_config.scheduler_config.max_num_seqs: 256, where "
                               "engine_kwargs.max_num_seqs is 128: the run's two records of the engine disagree");
  with("\"backend\": \"inductor\"", "\"policy\": \"priority\"");
  Write(meta, Replace(Read(meta), "\"policy\": \"fcfs\", ", ""));
  EXPECT_EQ(Error(dir), meta + ": error: resolved_config.scheduler_config.policy: 'priority': the requests carry "
                               "no priority; serq vllm models fcfs");
  with("\"backend\": \"inductor\"");
  Write(meta, Replace(Read(meta), "\"block_size\": 16, \"num_gpu_blocks\": 36000", "\"block_size\": 16, "
                                  "\"num_gpu_blocks\": 35000"));
  EXPECT_EQ(Error(dir), meta + ": error: resolved_config.cache_config.num_gpu_blocks: 35000, where "
                               "kv_cache.num_gpu_blocks is 36000: the run's two records of the engine disagree");
  Write(meta, Replace(original, "\"schema_version\": 1,", "\"schema_version\": 1, \"resolved_config\": [],"));
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
  Write(meta, Replace(Read(meta), "\"lora_config\": null", "\"lora_config\": \"<LoRAConfig>\""));
  EXPECT_EQ(Error(dir), meta + ": error: resolved_config.lora_config: \"<LoRAConfig>\": LoRA adapters: serq "
                               "vllm does not model it");
  with("\"backend\": \"inductor\"");
  Write(meta, Replace(Read(meta), "\"lora_config\": null", "\"speculative_config\": {\"method\": \"eagle\"}"));
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
  Write(meta, Replace(Read(meta), "\"lora_config\": null", "\"lora_config\": NaN, \"x\": [Infinity, -Infinity]"));
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
  Write(meta, Replace(original, "\"schema_version\": 1,",
                      "\"schema_version\": 1, \"hardware\": {\"device_name\": \"NVIDIA GeForce RTX 4090\", "
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
  Write(meta, Replace(original, "\"schema_version\": 1,",
                      "\"schema_version\": 1, \"hardware\": {\"device_total_memory_bytes\": \"96 GB\"},"));
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: hardware.device_total_memory_bytes: ");
  Write(meta, Replace(original, "\"schema_version\": 1,", "\"schema_version\": 1, \"hardware\": \"RTX 4090\","));
  EXPECT_EQ(Error(dir), meta + ": error: hardware: expected an object (the GPU: device_name, "
                               "device_total_memory_bytes, ...), not \"RTX 4090\"");
  Write(meta, original);
}

// The meta.json of testdata/vllm, whole as the bench writes it, on the
// Llama run's folder: read without a warning, each record where it fills in.
TEST(Generate, TheBenchsNewerMetaJson) {
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

// The sizes the run captured at other limits (a plan's engine): vLLM's
// default sizes follow the limits, so they are the new limits' defaults;
// sizes the run chose stay, but for those above the new token limit, which
// vLLM drops; none left is no graphs.
TEST(RunFolder, RedeployedEnginesAndTheCapturedSizes) {
  const std::string dir = Copy(kLlama, "redeploy-graphs");
  const std::string meta = Read(dir + "/meta.json");
  auto with = [&](const std::string& sizes) {
    Write(dir + "/meta.json", Replace(meta, "\"schema_version\": 1,",
                                      "\"schema_version\": 1, \"resolved_config\": {\"compilation_config\": "
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
}

// With data parallel, vLLM's front-end adds up its engines' counts as they
// start (wait_for_engine_startup) and the bench records the front-end's:
// the MoE run's two engines logging 10000 hold 5000 blocks each, 4999 for
// requests; 10001 is 5000 each, rounded down.
TEST(Generate, TheLoggedCountIsTheEnginesSum) {
  const std::string dir = Copy(kMoe, "dp-count");
  const std::string meta = Read(dir + "/meta.json");
  for (const auto& [logged, line] :
       {std::pair{"10000", "5000 an engine."}, std::pair{"10001", "5000 an engine (rounded down)."}}) {
    Write(dir + "/meta.json", Replace(meta, "\"schema_version\": 1,",
                                      absl::StrCat("\"schema_version\": 1, \"kv_cache\": {\"num_gpu_blocks\": ",
                                                   logged, "},")));
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
  Write(dir + "/meta.json", Replace(meta, "\"schema_version\": 1,",
                                    "\"schema_version\": 1, \"kv_cache\": {\"num_gpu_blocks\": 3},"));
  EXPECT_EQ(Error(dir), dir + "/meta.json: error: kv_cache.num_gpu_blocks: 3 blocks over 2 data-parallel engines "
                              "is 1 an engine; vLLM needs at least 2");
}

// The count the run logged is of the run's engine: a plan's engine at
// another data-parallel degree with expert parallel holds 1/4 of the
// experts a GPU, not 1/2, so its count is derived again (as the count at
// another TP degree is); a dense model's engines at another data-parallel
// degree are the run's engine, and keep it.
TEST(RunFolder, RedeployedEnginesDropTheLoggedCount) {
  for (const std::string& run : {kMoe, kLlama}) {
    const std::string dir = Copy(run, "redeploy");
    Write(dir + "/meta.json", Replace(Read(dir + "/meta.json"), "\"schema_version\": 1,",
                                      "\"schema_version\": 1, \"kv_cache\": {\"num_gpu_blocks\": 5000},"));
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

TEST(Generate, BadFolders) {
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
    // A profile file that cannot be read (a directory: its read fails):
    // named, never read again for ever.
    const std::string dir = Copy(kLlama, "dir-csv");
    fs::remove(dir + "/profile/tp1/skew_fit.csv");
    fs::create_directory(dir + "/profile/tp1/skew_fit.csv");
    EXPECT_EQ(Error(dir), dir + "/profile/tp1/skew_fit.csv: error: cannot be read: Is a directory");
  }
  {
    const std::string dir = Copy(kLlama, "unknown-arg");
    Write(dir + "/meta.json", Replace(Read(dir + "/meta.json"), "\"seed\": 42",
                                      "\"seed\": 42, \"speculative_config\": {}"));
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
    Write(dir + "/meta.json", Replace(Read(dir + "/meta.json"), "\"tensor_parallel_size\": 1",
                                      "\"tensor_parallel_size\": 4"));
    EXPECT_EQ(Error(dir), dir + "/profile/meta.yaml: error: the run is at tensor parallel 4, "
                                "and the profile has tp_degrees [1, 2]");
  }
  {
    const std::string dir = Copy(kLlama, "arch");
    Write(dir + "/profile/meta.yaml", Replace(Read(dir + "/profile/meta.yaml"),
                                              "architecture: llama", "architecture: gpt_oss"));
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
    const std::string dir = Copy(kMoe, "noep");
    Write(dir + "/meta.json", Replace(Read(dir + "/meta.json"), "\"enable_expert_parallel\": true",
                                      "\"enable_expert_parallel\": false"));
    EXPECT_PRED2(StartsWith, Error(dir),
                 dir + "/meta.json: error: engine_kwargs.data_parallel_size: a mixture");
  }
  {
    const std::string dir = Copy(kLlama, "badmodel");
    Write(dir + "/model.json", Replace(Read(dir + "/model.json"), "\"num_hidden_layers\": 32,", ""));
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
    // llmservingsim-config.json of another TP degree than meta.json's: the
    // folder describes two deployments; the program is meta.json's, and
    // says so on stderr, never silently.
    const std::string dir = Copy(kLlama, "cluster-tp");
    const std::string cluster = dir + "/llmservingsim-config.json";
    Write(cluster, Replace(Read(cluster), "\"tp_size\": 1", "\"tp_size\": 2"));
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings, std::vector<std::string>{cluster + ": nodes[0].instances[0].tp_size is 2, meta.json's "
                                                    "engine_kwargs.tensor_parallel_size 1: the run's files "
                                                    "describe two deployments; the program is meta.json's"});
    EXPECT_EQ(g->program.find("param Tp"), std::string::npos);
    // Said with the folder's other warnings, not instead of them.
    Write(dir + "/meta.json", Replace(Read(dir + "/meta.json"), "\"schema_version\": 1,",
                                      "\"schema_version\": 1, \"kv_cache\": {},"));
    g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings.size(), 2u);
  }
  {
    // No max_num_seqs and no GPU memory: vLLM's default (256 or 1024) is by
    // the GPU's memory, which nothing gives.
    const std::string dir = Copy(kLlama, "no-memory");
    fs::remove(dir + "/llmservingsim-config.json");
    Write(dir + "/meta.json", Replace(Read(dir + "/meta.json"), "\"max_num_seqs\": 128,", ""));
    Options kv;
    kv.kv.num_gpu_blocks = 3000;
    EXPECT_EQ(Error(dir, kv), dir + ": error: meta.json gives no max_num_seqs (engine_kwargs, "
                                    "resolved_config.scheduler_config), vLLM's default "
                                    "for it depends on the GPU's memory, and the run records none "
                                    "(meta.json hardware.device_total_memory_bytes, llmservingsim-config.json "
                                    "npu_mem.mem_size): give --gpu-memory GIB");
    kv.kv.gpu_memory_gib = 96;  // 96 GiB, not an A100: vLLM's 1024, at most the 2048 tokens
    absl::StatusOr<Generated> g = GenerateProgram(dir, kv);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_NE(g->program.find("param Seqs = 1024;"), std::string::npos);
    // The GPU the run records: an A100 of 80 GiB takes 256, as vLLM's
    // get_batch_defaults excludes the A100 from its rule of 70 GiB or more;
    // the same memory on another device, 1024.
    const std::string plain = Read(dir + "/meta.json");
    for (const auto& [device, seqs] : {std::pair{"NVIDIA A100-SXM4-80GB", "256"}, std::pair{"NVIDIA H100", "1024"}}) {
      Write(dir + "/meta.json",
            Replace(plain, "\"schema_version\": 1,",
                    absl::StrCat("\"schema_version\": 1, \"hardware\": {\"device_name\": \"", device,
                                 "\", \"device_total_memory_bytes\": 85899345920},")));
      Options counted;
      counted.kv.num_gpu_blocks = 3000;
      g = GenerateProgram(dir, counted);
      ASSERT_TRUE(g.ok()) << g.status();
      EXPECT_NE(g->program.find(absl::StrCat("param Seqs = ", seqs, ";")), std::string::npos) << device;
    }
  }
  {
    // A profile of another model than the run's: said on stderr.
    const std::string dir = Copy(kLlama, "other-model");
    Write(dir + "/meta.json", Replace(Read(dir + "/meta.json"), "\"model\": \"meta-llama/Llama-3.1-8B\",\n    \"tensor",
                                      "\"model\": \"meta-llama/Llama-3.1-70B\",\n    \"tensor"));
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    ASSERT_EQ(g->warnings.size(), 1u);
    EXPECT_EQ(g->warnings[0], dir + "/profile/meta.yaml: the profile is of model 'meta-llama/Llama-3.1-8B', "
                                    "the run (meta.json engine_kwargs.model) of 'meta-llama/Llama-3.1-70B': "
                                    "the step times are that model's kernels");
  }
  {
    // An engine past the profiler's sweep (engine_effective.max_num_seqs
    // 256): said, as LLMServingSim says it.
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
                                     "its per-sequence lookups past that extrapolate"}));
  }
  {
    // A line break in a text the program's comments quote (meta.json's
    // model) is written as its escape: the program stays the generator's.
    const std::string dir = Copy(kLlama, "line-break");
    Write(dir + "/meta.json", Replace(Read(dir + "/meta.json"), "\"model\": \"meta-llama/Llama-3.1-8B\",\n    \"tensor",
                                      "\"model\": \"x\\nparam Evil = 1;\",\n    \"tensor"));
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

// An earlier profiler's skew fit, resolved without its folder: the axes
// LLMServingSim's simulator assumes (n: 8 bins to n>128, skew rate: 5,
// kv_big: 4), the two pure-decode buckets inline, the prefill's passed by,
// the others at alpha_default; the table the entry does not name is not
// looked for.
TEST(Profile, AnEarlierProfilersSkewFit) {
  absl::StatusOr<ProfileMeta> meta = ReadProfileMeta("testdata/vllm/meta-inline-buckets.yaml");
  ASSERT_TRUE(meta.ok()) << meta.status();
  absl::StatusOr<SkewBlend> b = ResolveSkewBlend(*meta, 1, "/nonexistent/tp1");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(b->on);
  EXPECT_EQ(b->alpha_default, 0.0543);
  EXPECT_EQ(b->warnings, std::vector<std::string>{"testdata/vllm/meta-inline-buckets.yaml: skew_fit names no "
                                                  "bucket axes for n, skew_rate, kv_big: their bins are those "
                                                  "LLMServingSim takes for such a profile"});
  ASSERT_EQ(b->n.labels.size(), 8u);
  ASSERT_EQ(b->skew_rate.labels.size(), 5u);
  ASSERT_EQ(b->kv_big.labels.size(), 4u);
  EXPECT_EQ(b->buckets.fitted, 2);
  ASSERT_EQ(b->buckets.alpha.size(), 160u);
  auto cell = [&](int i, int j, int k) { return b->buckets.alpha[(i * 5 + j) * 4 + k]; };
  EXPECT_EQ(cell(5, 1, 1), 0.0672);  // n<=64, sr<=15%, kvB<=4k
  EXPECT_EQ(cell(6, 2, 2), 0.081);   // n<=128, sr<=40%, kvB<=16k
  EXPECT_EQ(cell(0, 0, 0), 0.0543);
  // At a degree the file has no entry for, no alpha_default anywhere and
  // no skew.csv: no blend, said.
  b = ResolveSkewBlend(*meta, 2, "/nonexistent/tp2");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_FALSE(b->on);
  ASSERT_EQ(b->warnings.size(), 2u);  // the axes, and the blend left out
  EXPECT_EQ(b->warnings[1], "testdata/vllm/meta-inline-buckets.yaml: no skew_fit.per_tp.2.alpha_default, no "
                            "/nonexistent/tp2/skew.csv to compute it from, and no bucket fitted: attention at "
                            "the decodes' mean KV, without the skew blend");
}

// The skew fit as each version of LLMServingSim's profiler writes it into
// meta.yaml (profiler/core/writer.py: the buckets' axes at the block's top
// when every TP degree's grid is alike, in each degree's entry when they
// differ; the buckets in a table the entry names; an earlier version's
// buckets inline), read as its simulator reads them
// (serving/core/trace_generator.py: _resolve_skew_axes, _skew_alpha).
TEST(Generate, SkewFitsAsEachProfilerWritesThem) {
  absl::StatusOr<Generated> base = GenerateProgram(kLlama, {});
  ASSERT_TRUE(base.ok()) << base.status();
  const std::string table = SkewTable(base->program);
  // n<=64, sr<=15%, kvB<=4k: tp1/skew_fit.csv's row "0,n<=64,sr<=15%,kvB<=4k,kp=0,0.0672".
  ASSERT_NE(table.find("row 5, 1, 1, 1.0672;"), std::string::npos);
  const std::string meta_text = Read(kLlama + "/profile/meta.yaml");
  const size_t axes_at = meta_text.find("  bucket_axes:\n");
  ASSERT_NE(axes_at, std::string::npos);
  const std::string axes = meta_text.substr(axes_at, meta_text.find("  per_tp:\n") - axes_at);
  {
    // The axes in the degree's entry: the same buckets, the comment says whose.
    const std::string dir = Copy(kLlama, "axes-per-tp");
    std::string meta = Replace(meta_text, axes, "");
    std::string indented;
    for (absl::string_view line : absl::StrSplit(axes, '\n', absl::SkipEmpty())) {
      absl::StrAppend(&indented, "    ", line, "\n");
    }
    meta = Replace(meta, "      alpha_default: 0.0543\n", "      alpha_default: 0.0543\n" + indented);
    Write(dir + "/profile/meta.yaml", meta);
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_TRUE(g->warnings.empty());
    EXPECT_EQ(SkewTable(g->program), table);
    EXPECT_NE(g->program.find("as meta.yaml's skew_fit.per_tp.1.bucket_axes bin them."), std::string::npos);
  }
  {
    // The table where bucket_table says, relative to meta.yaml's folder.
    const std::string dir = Copy(kLlama, "table-elsewhere");
    fs::rename(dir + "/profile/tp1/skew_fit.csv", dir + "/profile/fit1.csv");
    Write(dir + "/profile/meta.yaml",
          Replace(meta_text, "bucket_table: tp1/skew_fit.csv", "bucket_table: fit1.csv"));
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_TRUE(g->warnings.empty());
    EXPECT_EQ(SkewTable(g->program), table);
    EXPECT_NE(g->program.find("by bucket (profile/fit1.csv, pc 0, kp=0; 96 of 180"), std::string::npos);
    // A row the profiler could not split (pc empty, the key in raw_key)
    // matches no step and is passed by; a bucket fitted twice, or one the
    // axes do not name, is an error at its line.
    const std::string csv = Read(dir + "/profile/fit1.csv");
    const int rows = static_cast<int>(Count(csv, "\n"));
    Write(dir + "/profile/fit1.csv", csv + ",,,,,0.5,1\n");
    g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(SkewTable(g->program), table);
    Write(dir + "/profile/fit1.csv", csv + "0,n<=64,sr<=15%,kvB<=4k,kp=0,0.5,1\n");
    EXPECT_EQ(Error(dir), absl::StrCat(dir, "/profile/fit1.csv:", rows + 1, ": error: the bucket is fitted twice"));
    Write(dir + "/profile/fit1.csv", csv + "0,n<=3,sr<=15%,kvB<=4k,kp=0,0.5,1\n");
    EXPECT_EQ(Error(dir), absl::StrCat(dir, "/profile/fit1.csv:", rows + 1, ": error: a bucket the skew fit's axes "
                                       "do not name ('n<=3', 'sr<=15%', 'kvB<=4k')"));
  }
  {
    // No table: every bucket at alpha_default (180 cells: 9 n bins x 5
    // skew rates x 4 kv_big bins), said.
    const std::string dir = Copy(kLlama, "no-table");
    fs::remove(dir + "/profile/tp1/skew_fit.csv");
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings, std::vector<std::string>{dir + "/profile/tp1/skew_fit.csv: missing (the skew fit's "
                                                    "buckets): every pure-decode step takes alpha_default, as "
                                                    "LLMServingSim does"});
    EXPECT_EQ(Count(SkewTable(g->program), ", 1.0543;"), 180u);
    EXPECT_NE(Unwrapped(g->program).find("(profile/tp1/skew_fit.csv missing, pc 0, kp=0; 0 of 180 buckets"),
              std::string::npos);
  }
  {
    // An earlier profiler: the buckets inline and no axes. The bins are
    // LLMServingSim's for such a profile (n up to 128: 8 x 5 x 4 = 160
    // cells); the one pure-decode bucket is n<=64 (bin 5), sr<=15% (1),
    // kvB<=4k (1); the prefill's bucket (pc=16) is not a pure-decode
    // step's.
    const std::string dir = Copy(kLlama, "inline");
    fs::remove(dir + "/profile/tp1/skew_fit.csv");
    std::string meta = Replace(meta_text, axes, "");
    meta = Replace(meta, "      bucket_table: tp1/skew_fit.csv\n",
                   "      alpha_by_bucket:\n"
                   "        'pc=0|n<=64|sr<=15%|kvB<=4k|kp=0': 0.2\n"
                   "        'pc=16|n<=64|sr<=15%|kvB<=4k|kp<=2k': 0.9\n");
    Write(dir + "/profile/meta.yaml", meta);
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings, std::vector<std::string>{dir + "/profile/meta.yaml: skew_fit names no bucket axes "
                                                    "for n, skew_rate, kv_big: their bins are those "
                                                    "LLMServingSim takes for such a profile"});
    const std::string t = SkewTable(g->program);
    EXPECT_EQ(Count(t, " row "), 160u);
    EXPECT_EQ(Count(t, ", 1.0543;"), 159u);
    EXPECT_NE(t.find("row 5, 1, 1, 1.2;"), std::string::npos);
    EXPECT_NE(Unwrapped(g->program).find("(profile/meta.yaml skew_fit.per_tp.1.alpha_by_bucket, pc 0, kp=0; 1 "
                                         "of 160 buckets"),
              std::string::npos);
    EXPECT_NE(g->program.find("  let n_bin = (decode > 2) + (decode > 4) + (decode > 8) + (decode > 16) + "
                              "(decode > 32) + (decode > 64) + (decode > 128);"),
              std::string::npos);
    // A key that is not a bucket: its line in meta.yaml.
    const std::string bad = Replace(meta, "'pc=16|n<=64|sr<=15%|kvB<=4k|kp<=2k'", "'pc=16|n<=64'");
    Write(dir + "/profile/meta.yaml", bad);
    const int line = 1 + static_cast<int>(Count(bad.substr(0, bad.find("'pc=16|n<=64'")), "\n"));
    EXPECT_EQ(Error(dir), absl::StrCat(dir, "/profile/meta.yaml:", line, ": error: alpha_by_bucket: "
                                       "'pc=16|n<=64' is not a bucket (pc=N|n|skew rate|kv_big|kp)"));
  }
  {
    // No entry for the run's degree: the block's alpha_default, tpN's table.
    const std::string dir = Copy(kLlama, "no-entry");
    Write(dir + "/profile/meta.yaml",
          Replace(meta_text, "  per_tp:\n    1:\n", "  alpha_default: 0.07\n  per_tp:\n    3:\n"));
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_TRUE(g->warnings.empty());
    EXPECT_NE(g->program.find("param AlphaDefault = 0.07;   // profile/meta.yaml: skew_fit.alpha_default: a "
                              "step with prefill"),
              std::string::npos);
    const std::string t = SkewTable(g->program);
    EXPECT_NE(t.find("row 5, 1, 1, 1.0672;"), std::string::npos);
    EXPECT_EQ(Count(t, ", 1.07;"), 180u - 96u);
  }
}

}  // namespace
}  // namespace serq::vllm
