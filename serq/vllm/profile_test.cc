// serq vllm's reading of a profile: the architectures' operators against
// LLMServingSim's profiler's catalogs, model.json, meta.yaml and the skew
// fits as each profiler version writes them.
#include <filesystem>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "serq/models/json_file.h"
#include "serq/models/model_config.h"
#include "serq/vllm/architecture.h"
#include "serq/vllm/generate.h"
#include "serq/vllm/profile.h"
#include "serq/vllm/test_folders.h"

namespace serq::vllm {

using models::JsonFile;
using models::ModelConfig;
using models::KvBytesPerToken;
using models::ReadModelConfig;
using models::WeightBytesPerGpu;

namespace {

namespace fs = std::filesystem;

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
  // A profile that names the Hugging Face class: its model_type's entry.
  EXPECT_EQ(FindArchitecture("Qwen3ForCausalLM"), FindArchitecture("qwen3"));
  EXPECT_EQ(FindArchitecture("Qwen3MoeForCausalLM"), FindArchitecture("qwen3"));
  EXPECT_EQ(FindArchitecture("LlamaForCausalLM"), FindArchitecture("llama"));
  EXPECT_EQ(FindArchitecture("Phi3ForCausalLM"), nullptr);
  // Calls a layer: two RMSNorms a decoder layer (input and post-attention),
  // two per-head norms in Qwen3Attention (q_norm, then k_norm: vLLM's
  // qwen3.py), each other operator once. The profiler's row for a name is
  // the mean of its calls (its DedupSink), so the count multiplies it.
  for (const auto& [op, n] : FindArchitecture("qwen3")->per_layer) {
    EXPECT_EQ(n, op == "layernorm" || op == "qk_norm" ? 2 : 1) << op;
  }
  for (const auto& [op, n] : FindArchitecture("llama")->per_layer) EXPECT_EQ(n, op == "layernorm" ? 2 : 1) << op;
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
  // Times whose squares overflow: no alpha, at the file (the program held
  // inf). By hand: d = 1e308 - 1, squared, is inf; (t_skew - t_mean) d too.
  const std::string dir = Copy(kLlama, "skew-inf");
  const std::string skew = dir + "/profile/tp1/skew.csv";
  std::string text = Read(skew);
  text = text.substr(0, text.find('\n') + 1);  // the header alone
  const std::string header = text.substr(0, text.size() - 1);
  std::vector<std::string> row;
  for (absl::string_view c : absl::StrSplit(header, ',')) {
    row.push_back(c == "t_mean_us" ? "1" : (c == "t_max_us" || c == "t_skew_us") ? "1e308" : "1");
  }
  Write(skew, text + absl::StrJoin(row, ",") + "\n");
  EXPECT_EQ(AlphaFromSkew(skew).status().message(),
            skew + ": error: the fit of alpha_default over its rows is not a finite number (a time too large to "
                   "square)");
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
  // A key twice in one mapping, at any depth: refused at the second (PyYAML
  // would take the second, yaml-cpp the first).
  EXPECT_EQ(bad("architecture: llama\ntp_degrees: [1]\narchitecture: qwen3\n"),
            "meta.yaml:3:1: error: 'architecture' twice in one mapping (first at line 1): LLMServingSim's "
            "reader takes the last, serq's the first");
  EXPECT_EQ(bad("architecture: llama\ntp_degrees: [1]\nskew_fit:\n  per_tp:\n    1:\n      alpha_default: 0.05\n"
                "      alpha_default: 0.5\n"),
            "meta.yaml:7:7: error: 'alpha_default' twice in one mapping (first at line 6): LLMServingSim's "
            "reader takes the last, serq's the first");
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
  // A null alpha_default is one not written (it is then fitted from
  // skew.csv, as an absent one is), in each spelling YAML has.
  for (const char* none : {"", " ~", " null"}) {
    absl::StatusOr<ProfileMeta> null_alpha = ParseProfileMeta(
        absl::StrCat(fit, "  alpha_default:", none, "\n  per_tp:\n    1:\n      alpha_default:", none, "\n"),
        "meta.yaml");
    ASSERT_TRUE(null_alpha.ok()) << null_alpha.status();
    EXPECT_FALSE(null_alpha->alpha_default.has_value()) << none;
    EXPECT_FALSE(null_alpha->per_tp.at(1).alpha_default.has_value()) << none;
  }
  // Without `enabled: true` the block is off.
  absl::StatusOr<ProfileMeta> off =
      ParseProfileMeta("architecture: llama\ntp_degrees: [1]\nskew_fit: {per_tp: {1: {alpha_default: 0.1}}}\n",
                       "meta.yaml");
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_FALSE(off->skew_fit);
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
TEST(Profile, SkewFitsAsEachProfilerWritesThem) {
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
    EXPECT_NE(models::UnwrappedComments(g->program).find("(profile/tp1/skew_fit.csv missing, pc 0, kp=0; 0 of 180 buckets"),
              std::string::npos);
    // The table there, its header alone: the same blend, said as well.
    const std::string header = Read(kLlama + "/profile/tp1/skew_fit.csv");
    Write(dir + "/profile/tp1/skew_fit.csv", header.substr(0, header.find('\n') + 1));
    g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings, std::vector<std::string>{dir + "/profile/tp1/skew_fit.csv: no bucket of a pure-decode "
                                                    "step in its rows: every pure-decode step takes alpha_default, "
                                                    "as LLMServingSim does"});
    EXPECT_EQ(Count(SkewTable(g->program), ", 1.0543;"), 180u);
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
    EXPECT_NE(models::UnwrappedComments(g->program).find("(profile/meta.yaml skew_fit.per_tp.1.alpha_by_bucket, pc 0, kp=0; 1 "
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
