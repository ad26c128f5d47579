// serq/models: every preset read by the readers a user's file goes
// through, the figures that follow from them derived by hand in the
// comments, and each bad input a located error.
#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "text/json_row.h"
#include "serq/models/gpu.h"
#include "serq/models/json_file.h"
#include "serq/models/model_config.h"
#include "serq/models/presets.h"
#include "serq/models/program_text.h"
#include "serq/models/vllm_engine.h"

namespace serq::models {
namespace {

ReadOptions All() {
  ReadOptions o;
  o.latent_attention = true;
  o.quantized = true;
  o.tool = "serq physics";
  return o;
}

ModelConfig Preset(const std::string& name) {
  std::string source;
  absl::StatusOr<ModelConfig> m = ResolveModel(name, All(), &source);
  EXPECT_TRUE(m.ok()) << name << ": " << m.status();
  EXPECT_EQ(source.rfind("preset " + name + ", ", 0), 0u) << source;
  return m.ok() ? *m : ModelConfig{};
}

std::string ModelError(const std::string& text, const ReadOptions& options = All()) {
  absl::StatusOr<JsonFile> json = JsonFile::Parse(text, "m.json");
  if (!json.ok()) return std::string(json.status().message());
  absl::StatusOr<ModelConfig> m = ReadModelConfig(*json, options);
  return m.ok() ? "(no error)" : std::string(m.status().message());
}

std::string GpuError(const std::string& text, const std::string& entry = "") {
  absl::StatusOr<JsonFile> json = JsonFile::Parse(text, "g.json");
  if (!json.ok()) return std::string(json.status().message());
  absl::StatusOr<Gpu> g = ReadGpu(*json, entry);
  return g.ok() ? "(no error)" : std::string(g.status().message());
}

TEST(Presets, TheNamesTheIssueAsksFor) {
  EXPECT_EQ(ModelPresetNames(),
            (std::vector<std::string>{"deepseek-v3", "gpt-oss-120b", "llama-3.1-70b", "llama-3.1-8b",
                                      "mixtral-8x7b", "qwen3-235b-a22b", "qwen3-30b-a3b", "qwen3-32b",
                                      "qwen3-8b"}));
  EXPECT_EQ(GpuPresetNames(),
            (std::vector<std::string>{"a100-40gb", "a100-80gb", "b200", "h100-pcie", "h100-sxm", "h200",
                                      "l40s", "mi300x", "rtx-4090", "rtx-pro-6000"}));
  // Every GPU reads, each figure with its source.
  for (const std::string& name : GpuPresetNames()) {
    absl::StatusOr<Gpu> g = ResolveGpu(name);
    ASSERT_TRUE(g.ok()) << name << ": " << g.status();
    EXPECT_GT(g->memory_gib, 0) << name;
    EXPECT_FALSE(g->memory_source.empty()) << name;  // which total MemoryGiB is
    for (const char* figure : {"TFlopsPeak", "TFlopsFP8", "BwPeakTBs", "MemoryGiB", "Interconnect"}) {
      EXPECT_EQ(g->sources.count(figure), 1u) << name << " " << figure;
    }
  }
}

// The dtype and what a program's comment says of it: the config's field,
// a float32 one as bfloat16, which vLLM's dtype auto serves it as
// (_resolve_auto_dtype downcasts float32 models to the GPU's preferred
// dtype), and, where it gives none, bfloat16 likewise (the config then
// reads as float32).
TEST(ModelConfigTest, TheDtypeAndWhereItCameFrom) {
  const std::string base = R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
      "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128)";
  for (const auto& [field, dtype, bytes, from] :
       {std::tuple{R"(, "torch_dtype": "float16")", "float16", 2, "torch_dtype float16"},
        std::tuple{R"(, "dtype": "float32")", "bfloat16", 2, "dtype float32, which vLLM's auto runs as bfloat16"},
        std::tuple{"", "bfloat16", 2, "bfloat16 (the config gives no torch_dtype; vLLM's auto runs it so)"}}) {
    absl::StatusOr<JsonFile> json = JsonFile::Parse(base + field + "}", "m.json");
    ASSERT_TRUE(json.ok()) << json.status();
    absl::StatusOr<ModelConfig> m = ReadModelConfig(*json, All());
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ(m->dtype, dtype);
    EXPECT_EQ(m->dtype_bytes, bytes);
    EXPECT_EQ(m->dtype_from, from);
  }
  // A dtype serq does not know is an error at the field that gave it.
  EXPECT_EQ(ModelError(base + R"(, "dtype": "float8"})"),
            "m.json: error: dtype: dtype 'float8': serq physics knows bfloat16, float16, float32");
}

TEST(Presets, DenseModels) {
  // Llama-3.1-8B: head_dim 4096 / 32 = 128; 8.03 B parameters (vllm_test
  // derives them): 2 x 8,030,261,248 bytes.
  ModelConfig llama = Preset("llama-3.1-8b");
  EXPECT_EQ(llama.head_dim, 128);
  EXPECT_EQ(WeightBytesPerGpu(llama, 1, 1), 2.0 * 8030261248);
  // Qwen3-32B gives head_dim 128, where hidden / heads is 5120 / 64 = 80.
  ModelConfig qwen = Preset("qwen3-32b");
  EXPECT_EQ(qwen.head_dim, 128);
  EXPECT_TRUE(qwen.head_dim_given);
  EXPECT_TRUE(qwen.qk_norm);
  EXPECT_EQ(qwen.sliding_window, 0);  // a window given as null, and use_sliding_window false
  // KV a token at TP 2: 2 x 64 layers x 4 KV heads x 128 x 2 bytes = 131,072.
  EXPECT_EQ(KvBytesPerToken(qwen, 2, 2), 131072);
  ModelConfig big = Preset("llama-3.1-70b");
  EXPECT_EQ(big.layers, 80);
  EXPECT_EQ(big.head_dim, 128);
  EXPECT_EQ(Preset("qwen3-8b").intermediate, 12288);
}

TEST(Presets, MixturesOfExperts) {
  // Mixtral-8x7B: 8 experts, 2 a token, an expert's MLP intermediate_size.
  // Parameters: attention 32 x (4096 x 4096 + 2 x 4096 x 1024 + 4096 x
  // 4096) = 1,342,177,280; embeddings 2 x 32,000 x 4096 = 262,144,000;
  // norms 65 x 4096 = 266,240; routers 32 x 4096 x 8 = 1,048,576; experts
  // 32 x 8 x 3 x 4096 x 14,336 = 45,097,156,608: 46,702,792,704 (Mixtral's
  // 46.7 B), in bf16.
  ModelConfig mixtral = Preset("mixtral-8x7b");
  EXPECT_EQ(mixtral.experts, 8);
  EXPECT_EQ(mixtral.top_k, 2);
  EXPECT_EQ(mixtral.expert_intermediate, 14336);
  EXPECT_EQ(mixtral.moe_layers, 32);
  EXPECT_EQ(WeightBytesPerGpu(mixtral, 1, 1), 2.0 * 46702792704);
  // At TP 2 the split parts halve; with expert parallel over 2 the experts
  // do the same: 2 x (1,342,177,280 + 262,144,000 + 45,097,156,608) / 2 +
  // 2 x (266,240 + 1,048,576) = 46,702,792,704 - 1,314,816.
  EXPECT_EQ(WeightBytesPerGpu(mixtral, 2, 1), 46702792704.0 + 1314816);
  EXPECT_EQ(WeightBytesPerGpu(mixtral, 2, 2), WeightBytesPerGpu(mixtral, 2, 1));
  ModelConfig qwen = Preset("qwen3-235b-a22b");
  EXPECT_EQ(qwen.moe_layers, 94);
  EXPECT_EQ(qwen.expert_intermediate, 1536);
  ModelConfig small = Preset("qwen3-30b-a3b");
  EXPECT_EQ(small.experts, 128);
  EXPECT_EQ(small.head_dim, 128);
}

TEST(Presets, DeepSeekV3) {
  ModelConfig m = Preset("deepseek-v3");
  EXPECT_TRUE(m.mla());
  EXPECT_EQ(m.head_dim, 192);  // qk_nope 128 + qk_rope 64
  EXPECT_EQ(m.experts, 256);
  EXPECT_EQ(m.moe_layers, 58);  // 61 layers, the first 3 dense
  EXPECT_EQ(m.dense_layers, 3);
  EXPECT_EQ(m.shared_intermediate, 2048);
  EXPECT_EQ(m.quantization, "fp8");
  EXPECT_EQ(m.linear_bytes, 1);
  // KV a token: one latent of 512 and a rotary key of 64 a layer, on every
  // GPU whatever the TP: 61 x 576 x 2 bytes = 70,272.
  EXPECT_EQ(KvBytesPerToken(m, 1, 2), 70272);
  EXPECT_EQ(KvBytesPerToken(m, 8, 2), 70272);
  // Parameters, a layer's attention: q_a 7168 x 1536 = 11,010,048 and
  // kv_a 7168 x 576 = 4,128,768 on every GPU; q_b 1536 x 128 x 192 =
  // 37,748,736, kv_b 512 x 128 x 256 = 16,777,216, o 128 x 128 x 7168 =
  // 117,440,512 split.
  AttentionParams a = AttentionParamsPerLayer(m);
  EXPECT_EQ(a.replicated, 15138816);
  EXPECT_EQ(a.split, 171966464);
  // The whole model on one GPU: attention 61 x 187,105,280 =
  // 11,413,422,080; dense MLPs 3 x 3 x 7168 x 18,432 = 1,189,085,184;
  // shared experts 58 x 3 x 7168 x 2048 = 2,554,331,136; routed experts
  // 58 x 256 x 3 x 7168 x 2048 = 653,908,770,816 (all these in fp8, a
  // byte each: 669,065,609,216); embeddings 2 x 129,280 x 7168 =
  // 1,853,358,080, norms 123 x 7168 + 61 x (1536 + 512) = 1,006,592,
  // routers 58 x 7168 x 256 = 106,430,464 (bf16: 2 x 1,960,795,136):
  // 671.0 B parameters, 672,987,199,488 bytes.
  EXPECT_EQ(WeightBytesPerGpu(m, 1, 1), 672987199488.0);
}

TEST(Presets, GptOss) {
  ModelConfig m = Preset("gpt-oss-120b");
  EXPECT_EQ(m.head_dim, 64);
  EXPECT_EQ(m.experts, 128);
  EXPECT_EQ(m.top_k, 4);
  EXPECT_EQ(m.expert_intermediate, 2880);
  EXPECT_EQ(m.sliding_window, 128);
  EXPECT_EQ(m.window_layers, 18);
  EXPECT_EQ(m.quantization, "mxfp4");
  EXPECT_EQ(m.expert_bytes, 4.25 / 8);
  EXPECT_EQ(m.linear_bytes, 2);
}

TEST(Presets, GpuFigures) {
  absl::StatusOr<Gpu> h100 = ResolveGpu("h100-sxm");
  ASSERT_TRUE(h100.ok()) << h100.status();
  EXPECT_EQ(h100->tflops, 989.5);
  EXPECT_EQ(h100->tflops_fp8, 1979);
  EXPECT_EQ(h100->bw_tbs, 3.35);
  EXPECT_EQ(h100->memory_gib, 79.22);  // CUDA's total as vLLM logged it, not nvidia-smi's 79.65
  EXPECT_EQ(h100->interconnect, "nvlink4");
  EXPECT_EQ(h100->file, "serq/models/presets/gpus.json");
  EXPECT_TRUE(h100->preset);
  EXPECT_EQ(GpuError(*h100, "TFlopsFP8", "x").message(),
            "serq/models/presets/gpus.json: error: h100-sxm.TFlopsFP8: x");
  absl::StatusOr<Gpu> a100 = ResolveGpu("a100-40gb");
  ASSERT_TRUE(a100.ok());
  EXPECT_EQ(a100->tflops_fp8, 0);
  EXPECT_EQ(ResolveGpu("h100").status().message(),
            "'h100': no such GPU preset or file (presets: a100-40gb, a100-80gb, b200, h100-pcie, "
            "h100-sxm, h200, l40s, mi300x, rtx-4090, rtx-pro-6000)");
  std::string source;
  EXPECT_EQ(ResolveModel("llama-8b", All(), &source).status().message(),
            "'llama-8b': no such model preset or file (presets: deepseek-v3, gpt-oss-120b, "
            "llama-3.1-70b, llama-3.1-8b, mixtral-8x7b, qwen3-235b-a22b, qwen3-30b-a3b, qwen3-32b, "
            "qwen3-8b)");
}

// A config without head_dim takes what its Hugging Face class gives, which
// is what vLLM reads: Qwen3Config defaults to 128 and GptOssConfig to 64
// (transformers' configuration_*.py); Qwen3MoeConfig and LlamaConfig have
// none, so hidden / heads. Here hidden / heads is 5120 / 64 = 80, so a
// reading by hidden / heads shows as 80 where the class says 128.
TEST(ModelConfig, AnAbsentFieldIsTheConfigClasssDefault) {
  auto parse = [](const std::string& text) {
    absl::StatusOr<JsonFile> json = JsonFile::Parse(text, "m.json");
    EXPECT_TRUE(json.ok()) << json.status();
    absl::StatusOr<ModelConfig> m = ReadModelConfig(*json, All());
    EXPECT_TRUE(m.ok()) << text << ": " << m.status();
    return m.ok() ? *m : ModelConfig{};
  };
  auto read = [&](const std::string& type, const std::string& more = R"("num_key_value_heads": 8,)") {
    return parse(R"({"model_type": ")" + type + R"(", "num_hidden_layers": 2, "hidden_size": 5120,
        "num_attention_heads": 64, )" + more + R"( "vocab_size": 100,
        "intermediate_size": 128, "num_experts": 8, "num_local_experts": 8,
        "num_experts_per_tok": 2, "moe_intermediate_size": 64})");
  };
  ModelConfig qwen3 = read("qwen3");
  EXPECT_EQ(qwen3.head_dim, 128);
  EXPECT_FALSE(qwen3.head_dim_given);
  EXPECT_EQ(qwen3.head_dim_from, "head_dim: absent, qwen3's default in transformers' config class");
  // KV a token: 2 x 2 layers x 8 KV heads x 128 x 2 bytes = 8,192.
  EXPECT_EQ(KvBytesPerToken(qwen3, 1, 2), 8192);
  EXPECT_EQ(read("gpt_oss").head_dim, 64);
  for (const char* type : {"qwen3_moe", "llama"}) {
    ModelConfig m = read(type);
    EXPECT_EQ(m.head_dim, 80) << type;
    EXPECT_EQ(m.head_dim_from, "head_dim: absent, hidden / heads") << type;
  }
  // Present as null is not absent: vLLM takes a null head_dim as hidden /
  // heads (get_head_size), and the classes a null KV count as the heads.
  ModelConfig nulls = read("qwen3", R"("num_key_value_heads": null, "head_dim": null,)");
  EXPECT_EQ(nulls.head_dim, 80);
  EXPECT_EQ(nulls.head_dim_from, "head_dim: null, hidden / heads");
  EXPECT_EQ(nulls.kv_heads, 64);
  EXPECT_EQ(nulls.kv_heads_from, "num_key_value_heads: null, the heads");
  // num_key_value_heads the same way: the class's default where it has one
  // (Qwen3Config 32, Qwen3MoeConfig 4, GptOssConfig, MixtralConfig and
  // MistralConfig 8, Qwen2Config 32), else the heads (LlamaConfig: 64 here).
  for (auto [type, kv] : {std::pair{"qwen3", 32}, std::pair{"qwen3_moe", 4}, std::pair{"gpt_oss", 8},
                          std::pair{"mixtral", 8}, std::pair{"mistral", 8}, std::pair{"qwen2", 32},
                          std::pair{"llama", 64}}) {
    ModelConfig m = read(type, "");
    EXPECT_EQ(m.kv_heads, kv) << type;
    EXPECT_EQ(m.kv_heads_from, std::string(type) == "llama"
                                   ? "num_key_value_heads: absent, the heads"
                                   : absl::StrCat("num_key_value_heads: absent, ", type,
                                                  "'s default in transformers' config class"))
        << type;
  }
  EXPECT_EQ(read("qwen3").kv_heads_from, "num_key_value_heads");
  // sliding_window absent (not null): MistralConfig's 4096 on every layer;
  // given as null, none.
  ModelConfig mistral = read("mistral");
  EXPECT_EQ(mistral.sliding_window, 4096);
  EXPECT_EQ(mistral.window_layers, 2);
  EXPECT_EQ(mistral.window_from, "sliding_window: absent, mistral's default in transformers' config class");
  EXPECT_EQ(mistral.window_layers_from, "every layer");
  EXPECT_EQ(read("mistral", R"("num_key_value_heads": 8, "sliding_window": null,)").sliding_window, 0);
  EXPECT_EQ(read("llama").sliding_window, 0);
  // gpt-oss: the class's 128 where the key is absent, and vLLM windows the
  // even layers whatever layer_types says (1 of 2 layers; 2 of 3).
  ModelConfig oss = read("gpt_oss");
  EXPECT_EQ(oss.sliding_window, 128);
  EXPECT_EQ(oss.window_layers, 1);
  EXPECT_EQ(oss.window_layers_from, "every other layer from the first (vLLM's gpt-oss, whatever layer_types says)");
  EXPECT_EQ(read("gpt_oss", R"("sliding_window": 64, "layer_types": ["full_attention", "full_attention"],)")
                .window_layers,
            1);
  EXPECT_EQ(parse(R"({"model_type": "gpt_oss", "num_hidden_layers": 3, "hidden_size": 64,
                      "num_attention_heads": 8, "vocab_size": 100, "intermediate_size": 128,
                      "num_local_experts": 4, "num_experts_per_tok": 2})")
                .window_layers,
            2);
  // Qwen's classes: use_sliding_window false by default, so a window the
  // config carries is none; on, without layer_types, the layers from
  // max_window_layers (28 by default) on: none of 2, and 1 from layer 1.
  EXPECT_EQ(read("qwen3", R"("num_key_value_heads": 8, "sliding_window": 4096,)").window_layers, 0);
  EXPECT_EQ(read("qwen3", R"("num_key_value_heads": 8, "sliding_window": 4096, "use_sliding_window": true,)")
                .window_layers,
            0);
  ModelConfig from1 = read("qwen2", R"("num_key_value_heads": 8, "sliding_window": 4096,
                                       "use_sliding_window": true, "max_window_layers": 1,)");
  EXPECT_EQ(from1.window_layers, 1);
  EXPECT_EQ(from1.window_layers_from, "the layers from max_window_layers 1 on (layer_types: absent, qwen2's "
                                      "default in transformers' config class)");
}

TEST(ModelConfig, BadFields) {
  const std::string base =
      R"("model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
         "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128)";
  EXPECT_EQ(ModelError("{" + base + "}"), "(no error)");
  // A UTF-8 byte-order mark before the JSON (a Windows editor's) is skipped,
  // and an error is still located on its line.
  EXPECT_EQ(ModelError("\xEF\xBB\xBF{" + base + "}"), "(no error)");
  EXPECT_EQ(ModelError("\xEF\xBB\xBF{" + base + R"(, "head_dim": 0})"),
            "m.json: error: head_dim: expected a whole number from 1 to 16777216, not 0");
  EXPECT_EQ(ModelError("{" + base + R"(, "head_dim": 0})"),
            "m.json: error: head_dim: expected a whole number from 1 to 16777216, not 0");
  EXPECT_EQ(ModelError("{" + base + R"(, "head_dim": -8})"),
            "m.json: error: head_dim: expected a whole number from 1 to 16777216, not -8");
  // The value as the file wrote it (it read 1.67772e+07, six digits).
  EXPECT_EQ(ModelError("{" + base + R"(, "head_dim": 16777217})"),
            "m.json: error: head_dim: expected a whole number from 1 to 16777216, not 16777217");
  EXPECT_EQ(ModelError("{" + base + R"(, "head_dim": 2.5})"),
            "m.json: error: head_dim: expected a whole number from 1 to 16777216, not 2.5");
  EXPECT_EQ(ModelError("{" + base + R"(, "num_key_value_heads": 8})"),
            "m.json: error: num_key_value_heads: 8 KV heads, more than the 4 heads");
  // A class's default that does not fit the heads says it was the default.
  std::string qwen3 = base;
  qwen3.replace(qwen3.find("llama"), 5, "qwen3");
  EXPECT_EQ(ModelError("{" + qwen3 + "}"),
            "m.json: error: num_key_value_heads: 32 KV heads (absent: qwen3's default in "
            "transformers' config class), more than the 4 heads");
  EXPECT_EQ(ModelError("{" + base + R"(, "num_key_value_heads": 3})"),
            "m.json: error: num_key_value_heads: 3 KV heads do not divide the 4 heads evenly");
  EXPECT_EQ(ModelError(R"({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4,
                           "vocab_size": 100, "intermediate_size": 128})"),
            "m.json: error: hidden_size: missing: the model's config.json gives it");
  // Present as null, or Python's NaN read as null: not "missing".
  EXPECT_EQ(ModelError(R"({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4,
                           "vocab_size": 100, "intermediate_size": 128, "hidden_size": null})"),
            "m.json: error: hidden_size: null (or NaN or Infinity, read as null): expected a whole number");
  EXPECT_EQ(ModelError("{" + base + R"(, "quantization_config": {"quant_method": "awq"}})"),
            "m.json: error: quantization_config.quant_method: 'awq': serq physics knows fp8 (every "
            "linear layer) and mxfp4 (the experts)");
  EXPECT_EQ(ModelError("{" + base + R"(, "kv_lora_rank": 512, "qk_rope_head_dim": 64})"),
            "m.json: error: qk_nope_head_dim: missing: the model's config.json gives it");
  EXPECT_EQ(ModelError("{" + base + R"(, "sliding_window": 4, "layer_types": ["full_attention"]})"),
            "m.json: error: layer_types: expected a list of 2 layers' attention types");
  EXPECT_EQ(ModelError("{" + base + R"(, "num_local_experts": 8})"),
            "m.json: error: num_experts_per_tok: missing: the model's config.json gives it");
  // One expert, or the experts' fields without their count: neither is the
  // dense model of intermediate_size it was once read as.
  EXPECT_EQ(ModelError("{" + base + R"(, "num_experts": 1, "num_experts_per_tok": 1})"),
            "m.json: error: num_experts: 1 expert: serq counts a mixture of experts from 2 (a model of one "
            "expert is written as a dense one, its MLP intermediate_size)");
  EXPECT_EQ(ModelError("{" + base + R"(, "moe_intermediate_size": 32})"),
            "m.json: error: num_experts: missing, where moe_intermediate_size says the model has experts "
            "(num_experts, num_local_experts or n_routed_experts)");
  // serq vllm's reading refuses what its profiles do not cover, by name.
  EXPECT_EQ(ModelError("{" + base + R"(, "quantization_config": {"quant_method": "fp8"}})", {}),
            "m.json: error: quantization_config: a quantized model: serq vllm reads models in bf16 "
            "or fp16 only");
  // A composite config's text_config is read over the top level.
  EXPECT_EQ(ModelError(R"({"model_type": "llava", "text_config": {)" + base + "}}"), "(no error)");
  // serq physics reads the decoders its form describes, and names the others
  // at their field (a state-space model, Mamba's, is no transformer); serq
  // vllm checks its own catalog against the profile instead.
  ReadOptions physics = All();
  physics.known_decoders_only = true;
  physics.tool = "serq physics";
  EXPECT_EQ(ModelError("{" + base + "}", physics), "(no error)");
  EXPECT_EQ(ModelError(R"({"model_type": "llava", "text_config": {)" + base + "}}", physics), "(no error)");
  const std::string mamba = absl::StrReplaceAll(base, {{"\"llama\"", "\"mamba\""}});
  EXPECT_EQ(ModelError("{" + mamba + "}", physics),
            "m.json: error: model_type: 'mamba': not a decoder serq physics knows (cohere, deepseek_v2, "
            "deepseek_v3, gpt_oss, granite, llama, mistral, mixtral, phi3, phimoe, qwen2, qwen2_moe, qwen3, "
            "qwen3_moe); its form is a decoder-only transformer, attention then a dense MLP or experts each layer, "
            "so a model of those shapes under another name may be given as model_type llama");
  EXPECT_EQ(ModelError("{" + mamba + "}"), "(no error)");
}

// The rotary embedding's cos/sin table vLLM builds as it loads a model
// (get_rope): its rows by the RoPE scaling, a head's rotated width, in the
// dtype; bytes = rows x width x dtype bytes.
TEST(ModelConfig, TheRotaryTable) {
  // Llama-3.1-8B: llama3 scaling keeps max_position_embeddings' table,
  // 131,072 x 128 x 2 = 33,554,432 bytes.
  ModelConfig m = Preset("llama-3.1-8b");
  EXPECT_EQ(m.rotary_positions, 131072);
  EXPECT_EQ(m.rotary_dim, 128);
  EXPECT_EQ(RotaryTableBytes(m), 33554432.0);
  EXPECT_EQ(m.rotary_from, "max_position_embeddings");
  // Qwen3-30B-A3B, no scaling: 262,144 x 128 x 2 = 67,108,864.
  EXPECT_EQ(RotaryTableBytes(Preset("qwen3-30b-a3b")), 67108864.0);
  // DeepSeek-V3, YaRN over 4096 original positions x 40 = 163,840 rows of
  // the rotary key, qk_rope_head_dim 64: x 2 bytes = 20,971,520.
  m = Preset("deepseek-v3");
  EXPECT_EQ(m.rotary_positions, 163840);
  EXPECT_EQ(m.rotary_dim, 64);
  EXPECT_EQ(RotaryTableBytes(m), 20971520.0);
  EXPECT_EQ(m.rotary_from, "original_max_position_embeddings 4096 x yarn factor 40");
  // gpt-oss-120b, YaRN 4096 x 32 = 131,072 rows of head_dim 64, in float32
  // as vLLM's gpt_oss.py builds it: x 4 bytes = 33,554,432.
  m = Preset("gpt-oss-120b");
  EXPECT_EQ(m.rotary_positions, 131072);
  EXPECT_EQ(m.rotary_dim, 64);
  EXPECT_EQ(m.rotary_dtype_bytes, 4);
  EXPECT_EQ(RotaryTableBytes(m), 33554432.0);
  // Every preset has its table.
  for (const char* name : {"llama-3.1-70b", "mixtral-8x7b", "qwen3-8b", "qwen3-32b", "qwen3-235b-a22b"}) {
    EXPECT_GT(Preset(name).rotary_positions, 0) << name;
  }
  const std::string base =
      R"("model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
         "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128)";
  const auto read = [](const std::string& text) {
    absl::StatusOr<JsonFile> json = JsonFile::Parse(text, "m.json");
    EXPECT_TRUE(json.ok());
    absl::StatusOr<ModelConfig> c = ReadModelConfig(*json, All());
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? *c : ModelConfig{};
  };
  // No max_position_embeddings: LlamaConfig's default, 2048 (vLLM reads
  // the class's attribute), for the table and the length; for a model
  // type serq knows no class default of, no table counted and vLLM's 2048.
  m = read("{" + base + "}");
  EXPECT_EQ(m.rotary_positions, 2048);
  EXPECT_EQ(m.rotary_from,
            "max_position_embeddings (absent, llama's default in transformers' config class: 2048)");
  EXPECT_EQ(m.max_model_len, 2048);
  EXPECT_EQ(m.max_model_len_from,
            "max_position_embeddings 2048, absent: llama's default in transformers' config class");
  // Present as null, the length key is skipped (vLLM's getattr gives None):
  // no table, and vLLM's 2048.
  m = read("{" + base + R"(, "max_position_embeddings": null})");
  EXPECT_EQ(m.rotary_positions, 0);
  EXPECT_EQ(m.max_model_len_from, "2048, vLLM's length for a config with none of max_position_embeddings and its kind");
  std::string olmo = base;
  olmo.replace(olmo.find("llama"), 5, "olmo");
  m = read("{" + olmo + "}");
  EXPECT_EQ(RotaryTableBytes(m), 0.0);
  EXPECT_EQ(m.max_model_len, 2048);
  EXPECT_EQ(m.max_model_len_from, "2048, vLLM's length for a config with none of max_position_embeddings and its kind");
  // Qwen3's class: 32,768.
  std::string qwen3 = base;
  qwen3.replace(qwen3.find("llama"), 5, "qwen3");
  EXPECT_EQ(read("{" + qwen3 + R"(, "num_key_value_heads": 4, "head_dim": 16})").max_model_len, 32768);
  // Linear scaling: 100 x 2.5 = 250 rows; a partial rotary factor of 0.5
  // rotates 8 of head_dim 16: 250 x 8 x 2 = 4,000 bytes.
  m = read("{" + base + R"(, "max_position_embeddings": 100, "partial_rotary_factor": 0.5,
                            "rope_scaling": {"type": "linear", "factor": 2.5}})");
  EXPECT_EQ(m.rotary_positions, 250);
  EXPECT_EQ(m.rotary_dim, 8);
  EXPECT_EQ(RotaryTableBytes(m), 4000.0);
  // rope_parameters (newer configs), longrope's two tables: 100 + 40 rows.
  m = read("{" + base + R"(, "max_position_embeddings": 100,
                            "rope_parameters": {"rope_type": "longrope", "original_max_position_embeddings": 40}})");
  EXPECT_EQ(m.rotary_positions, 140);
  // Phi-3's form: longrope (su in older configs) with the original count
  // at the config's top level, which vLLM copies over the scaling's.
  EXPECT_EQ(read("{" + base + R"(, "max_position_embeddings": 100, "original_max_position_embeddings": 40,
                                  "rope_scaling": {"type": "su", "original_max_position_embeddings": 10}})")
                .rotary_positions,
            140);
  // Dynamic NTK by an alpha keeps the default's table, a factor beside it
  // or not (vLLM reads the alpha first); by a factor, 100 x 3 rows.
  EXPECT_EQ(read("{" + base + R"(, "max_position_embeddings": 100,
                                  "rope_scaling": {"rope_type": "dynamic", "alpha": 2, "factor": 3}})")
                .rotary_positions,
            100);
  EXPECT_EQ(read("{" + base + R"(, "max_position_embeddings": 100,
                                  "rope_scaling": {"rope_type": "dynamic", "factor": 3}})")
                .rotary_positions,
            300);
  // Parameters by layer type (transformers' newer form): a table each,
  // 100 x 8 for full attention and 100 for sliding; GPT-NeoX's rotary_pct
  // rotates a quarter of head_dim 16.
  m = read("{" + base + R"(, "max_position_embeddings": 100, "rotary_pct": 0.25,
                            "rope_parameters": {"sliding_attention": {"rope_type": "default"},
                                                "full_attention": {"rope_type": "linear", "factor": 8}}})");
  EXPECT_EQ(m.rotary_positions, 900);
  EXPECT_EQ(m.rotary_dim, 4);
  EXPECT_EQ(m.rotary_from, "a table a layer type, full_attention's 800 (max_position_embeddings 100 x linear "
                           "factor 8) + sliding_attention's 100 (max_position_embeddings)");
  // A type serq does not know is taken as the default's, and said.
  m = read("{" + base + R"(, "max_position_embeddings": 100, "rope_scaling": {"rope_type": "mrope"}})");
  EXPECT_EQ(m.rotary_positions, 100);
  EXPECT_EQ(m.rotary_from, "max_position_embeddings, RoPE scaling mrope taken as the default's table");
  // Bad fields: located.
  EXPECT_EQ(ModelError("{" + base + R"(, "max_position_embeddings": 0})"),
            "m.json: error: max_position_embeddings: expected a whole number from 1 to 4294967296, not 0");
  EXPECT_EQ(ModelError("{" + base + R"(, "max_position_embeddings": 100, "rope_scaling": 4})"),
            "m.json: error: rope_scaling: expected an object, not 4");
  EXPECT_EQ(ModelError("{" + base +
                       R"(, "max_position_embeddings": 100, "rope_scaling": {"type": "yarn", "factor": 4}})"),
            "m.json: error: rope_scaling.original_max_position_embeddings: missing: RoPE scaling yarn needs it");
  EXPECT_EQ(ModelError("{" + base + R"(, "max_position_embeddings": 100, "rope_scaling": {"type": "linear"}})"),
            "m.json: error: rope_scaling.factor: missing: RoPE scaling linear needs it");
  EXPECT_EQ(ModelError("{" + base +
                       R"(, "max_position_embeddings": 100, "rope_scaling": {"type": "linear", "factor": -1}})"),
            "m.json: error: rope_scaling.factor: expected a positive number, not -1");
  // Two layer types' tables of 2^32 x 256 = 2^40 rows each: each allowed,
  // not both.
  EXPECT_EQ(ModelError("{" + base + R"(, "max_position_embeddings": 4294967296, "rope_parameters": {
                            "a": {"rope_type": "linear", "factor": 256}, "b": {"rope_type": "linear", "factor": 256}}})"),
            "m.json: error: rope_parameters: its layer types' tables come to more than 2^40 rows");
  EXPECT_EQ(ModelError("{" + base + R"(, "max_position_embeddings": 100, "partial_rotary_factor": 1.5})"),
            "m.json: error: partial_rotary_factor: expected a share in (0, 1], not 1.5");
}

// Where a JSON file stops being JSON: its line and column, the source line
// and a caret, as the language's errors (text/json_row.h's
// CheckJsonSyntax). By hand: the trailing comma's object ends at line 3,
// column 1 ('}' where a key is due); the missing comma's second key is
// read to its closing quote, line 2, column 4; the text cut short breaks
// one past its end; a NaN (not JSON unless the file is read as Python's)
// at its N, line 1, column 7.
TEST(JsonFile, WhereItStopsBeingJson) {
  auto error = [](const std::string& text) {
    absl::StatusOr<JsonFile> json = JsonFile::Parse(text, "m.json");
    return json.ok() ? "(no error)" : std::string(json.status().message());
  };
  EXPECT_EQ(error("{\"a\": 1,\n \"b\": 2,\n}"),
            "m.json:3:1: error: invalid JSON: unexpected '}'; expected string literal (parsing an object key)\n"
            "}\n"
            "^");
  EXPECT_EQ(error("{\"a\": 1\n \"b\": 2}"),
            "m.json:2:4: error: invalid JSON: unexpected string literal; expected '}' (parsing an object)\n"
            " \"b\": 2}\n"
            "   ^");
  EXPECT_EQ(error("{\"a\": 1"), "m.json:1:8: error: invalid JSON: unexpected end of input; expected '}' (parsing "
                                "an object)\n{\"a\": 1\n       ^");
  EXPECT_EQ(error("{\"a\": NaN}"),
            "m.json:1:7: error: invalid JSON: invalid literal; last read: '\"a\": N' (parsing a value)\n"
            "{\"a\": NaN}\n"
            "      ^");
  absl::StatusOr<JsonFile> python = JsonFile::Parse("{\"a\": NaN}", "m.json", /*python_floats=*/true);
  ASSERT_TRUE(python.ok()) << python.status();
  EXPECT_EQ(python->Find("a"), nullptr);
  // Read as Python's, a NaN or Infinity before the break moves it nowhere:
  // the '}' of {"a": -Infinity, "b": 1,} is at column 25, and the line
  // shown is the file's.
  python = JsonFile::Parse("{\"a\": -Infinity, \"b\": 1,}", "m.json", /*python_floats=*/true);
  EXPECT_EQ(python.status().message(),
            "m.json:1:25: error: invalid JSON: unexpected '}'; expected string literal (parsing an object key)\n"
            "{\"a\": -Infinity, \"b\": 1,}\n"
            "                        ^");
  // A number past a double's range is JSON's grammar: not judged there.
  EXPECT_TRUE(text::CheckJsonSyntax("{\"a\": 1e400}").ok());
  EXPECT_EQ(error("{\"a\": [1, 2], \"b\": {\"c\": null}}"), "(no error)");
}

TEST(Gpu, BadSheets) {
  EXPECT_EQ(GpuError(R"({"TFlopsPeak": 100, "BwPeakTBs": 1, "MemoryGiB": 80})"), "(no error)");
  EXPECT_EQ(GpuError(R"({"TFlopsPeak": 100})"),
            "g.json: error: BwPeakTBs: missing: the datasheet's figure (docs/cli.md §serq physics)");
  EXPECT_EQ(GpuError(R"({"TFlopsPeak": 100, "BwPeakTBs": 1, "MemoryGiB": 0})"),
            "g.json: error: MemoryGiB: expected a number above 0 and at most 1e9, not 0");
  EXPECT_EQ(GpuError(R"({"TFlopsPeak": 100, "BwPeakTBs": 1, "MemoryGiB": 80, "MemorySource": "smi"})"),
            "g.json: error: MemorySource: 'smi': expected cuda, nvidia-smi or vendor");
  EXPECT_EQ(GpuError(R"({"TFlopsPeak": "fast", "BwPeakTBs": 1})"),
            "g.json: error: TFlopsPeak: expected a number above 0 and at most 1e9, not \"fast\"");
  EXPECT_EQ(GpuError(R"({"TFlopsPeak": 1, "BwPeakTBs": 1, "Interconnect": "nvlink9"})"),
            "g.json: error: Interconnect: 'nvlink9': no such interconnect (known: pcie4-x16, "
            "pcie5-x16, nvlink3, nvlink4, nvlink5, xgmi)");
  // BLIS's form: GPUs by name.
  const std::string blis = R"({"A": {"TFlopsPeak": 1, "BwPeakTBs": 1}, "B": {"TFlopsPeak": 2}})";
  EXPECT_EQ(GpuError(blis, "A"), "(no error)");
  EXPECT_EQ(GpuError(blis, "B"),
            "g.json: error: B.BwPeakTBs: missing: the datasheet's figure (docs/cli.md §serq physics)");
  EXPECT_EQ(GpuError(blis, "C"), "g.json: error: no GPU 'C' (the file has A, B)");
  EXPECT_EQ(GpuError(blis), "g.json: error: the file has 2 GPUs: name one (A, B)");
  // A sheet without its peak FLOP/s is a sheet still (its figure missing);
  // another file's objects are not GPUs (a run's meta.json given as --gpu).
  EXPECT_EQ(GpuError(R"({"BwPeakTBs": 1, "MemoryGiB": 80})"),
            "g.json: error: TFlopsPeak: missing: the datasheet's figure (docs/cli.md §serq physics)");
  EXPECT_EQ(GpuError(R"({"schema_version": 1, "engine_kwargs": {"max_num_seqs": 128}})"),
            "g.json: error: not a GPU datasheet: no TFlopsPeak, BwPeakTBs or MemoryGiB, at the top or in an "
            "object of GPUs (docs/cli.md §serq physics)");
}

TEST(VllmEngine, BatchDefaultsAndTheKvCache) {
  int64_t seqs = 0, tokens = 0;
  EXPECT_TRUE(BatchDefaults(false, 79.6, &seqs, &tokens).ok());
  EXPECT_EQ(seqs, 1024);
  EXPECT_EQ(tokens, 8192);
  seqs = tokens = 0;
  EXPECT_TRUE(BatchDefaults(true, 80, &seqs, &tokens).ok());  // an A100: the small defaults
  EXPECT_EQ(seqs, 256);
  EXPECT_EQ(tokens, 2048);
  seqs = 0, tokens = 100;
  EXPECT_TRUE(BatchDefaults(false, 24, &seqs, &tokens).ok());  // a default seqs at most tokens
  EXPECT_EQ(seqs, 100);
  // A given one above them is refused, as vLLM's scheduler config does;
  // equal is allowed.
  seqs = 100000, tokens = 0;
  EXPECT_EQ(BatchDefaults(false, 80, &seqs, &tokens).message(),
            "max_num_seqs 100000 is more than max_num_batched_tokens 8192, which vLLM refuses (its scheduler "
            "config: max_num_batched_tokens must be at least max_num_seqs)");
  seqs = 8192, tokens = 0;
  EXPECT_TRUE(BatchDefaults(false, 80, &seqs, &tokens).ok());
  EXPECT_EQ(seqs, 8192);
  // Llama-3.1-8B on an RTX 4090 (24,564 MiB x 0.9 = 23,181,498,778 bytes,
  // rounded up): weights 16,060,522,496; the rotary table, 131,072
  // positions (max_position_embeddings; llama3 scaling keeps the default's
  // table) x 128 x 2 = 33,554,432; the activation peak at 2048
  // tokens and 256 sequences the larger of the forward pass, 2048 x (2 x
  // 4096 + max(48 x 128, 3 x 14,336)) x 2 = 209,715,200, and the sampler's
  // warm-up, the hidden states 2048 x 4096 x 2 = 16,777,216, 14 bytes a
  // logit 256 x 128,256 x 14 = 459,669,504 and the Triton kernel's 128
  // rows 128 x 128,256 x 4 = 65,667,072: 542,113,792; outside PyTorch 0.25
  // x 2^30 = 268,435,456; available 6,276,872,602 bytes, in blocks of 16 x
  // 131,072 = 2,097,152: 2,993.05, 2,993 (the table is 16 blocks exactly).
  ModelConfig llama = Preset("llama-3.1-8b");
  KvFromMemory kv = KvBlocksFromMemory(llama, 1, 1, 24564.0 / 1024, 0.9, 2048, 256, 2097152);
  EXPECT_EQ(kv.requested, 23181498778.0);
  EXPECT_EQ(kv.weights, 16060522496.0);
  EXPECT_EQ(kv.rotary, 33554432.0);
  EXPECT_EQ(kv.activation, 542113792.0);
  EXPECT_EQ(kv.non_torch, 268435456.0);
  EXPECT_EQ(kv.available, 6276872602.0);
  EXPECT_EQ(kv.blocks, 2993);
  // Where an engine's GPUs communicate, 0.67 GiB outside PyTorch.
  EXPECT_DOUBLE_EQ(KvBlocksFromMemory(llama, 2, 1, 24564.0 / 1024, 0.9, 2048, 256, 2097152).non_torch,
                   0.67 * 1073741824.0);
  EXPECT_DOUBLE_EQ(KvBlocksFromMemory(llama, 1, 2, 24564.0 / 1024, 0.9, 2048, 256, 2097152).non_torch,
                   0.67 * 1073741824.0);
  // No room: none.
  EXPECT_EQ(KvBlocksFromMemory(llama, 1, 1, 16, 0.9, 2048, 256, 2097152).blocks, 0);
  // Past 2^40 blocks, and where the quotient leaves an int64 (1e300 GiB,
  // inf): kMaxKvBlocks + 1, never a wrapped count. 2^40 blocks of 2 MiB
  // are 2^61 bytes = 2^31 GiB; 2^32 GiB x 0.9 holds more.
  EXPECT_EQ(KvBlocksFromMemory(llama, 1, 1, 4294967296.0, 0.9, 2048, 256, 2097152).blocks, kMaxKvBlocks + 1);
  EXPECT_EQ(KvBlocksFromMemory(llama, 1, 1, 1e300, 0.9, 2048, 256, 2097152).blocks, kMaxKvBlocks + 1);
  EXPECT_EQ(KvBlocksFromMemory(llama, 1, 1, INFINITY, 0.9, 2048, 256, 2097152).blocks, kMaxKvBlocks + 1);
  // 2^30 GiB x 0.9 less 15.4 GiB: about 0.9 x 2^39 blocks, below the cap.
  EXPECT_LT(KvBlocksFromMemory(llama, 1, 1, 1073741824.0, 0.9, 2048, 256, 2097152).blocks, kMaxKvBlocks);
}

// The activation peak of vLLM 0.19's profile run, by hand, on both sides
// of the max, and against vLLM 0.19's own log of Llama-3.1-8B on an H100
// (the figures it logs, not fitted: "torch peak memory increase: 1.89GiB",
// "Available KV cache memory: 58.11 GiB" at gpu_memory_utilization 0.95;
// the log names no batch sizes, and `vllm serve`'s on an H100 are 1024
// sequences and 8192 tokens).
TEST(VllmEngine, TheActivationPeakByHand) {
  constexpr double kGiB = 1073741824.0;
  const ModelConfig llama = Preset("llama-3.1-8b");
  // 1024 sequences, 8192 tokens: the sampler's warm-up, 8192 x 4096 x 2 =
  // 67,108,864 of hidden states, 1024 x 128,256 x 14 = 1,838,678,016 of
  // logits (bf16, a float32 copy, the probabilities, the noise: 2 + 4 + 4
  // + 4), 128 x 128,256 x 4 = 65,667,072 of the Triton kernel's buffer:
  // 1,971,453,952 bytes, 1.836 GiB, where vLLM logged 1.89; the forward
  // pass, 8192 x (2 x 4096 + 43,008) x 2 = 838,860,800, is less.
  EXPECT_EQ(ActivationPeakBytes(llama, 1, 8192, 1024), 1971453952.0);
  EXPECT_NEAR(ActivationPeakBytes(llama, 1, 8192, 1024) / kGiB, 1.89, 0.06);
  // The KV memory: ceil(79.18 x 2^30 x 0.95) = 80,767,933,744 bytes, less
  // 16,060,522,496 of weights and 33,554,432 of rotary table (together
  // 16,094,076,928, 14.9888 GiB: vLLM logged 14.99 GiB for the Instruct
  // checkpoint, and an older version "14.9888 GB", vllm#10517),
  // 1,971,453,952 and 0.25 GiB outside PyTorch: 62,433,967,408 bytes,
  // 58.146 GiB, where vLLM logged 58.11.
  const KvFromMemory kv = KvBlocksFromMemory(llama, 1, 1, 79.18, 0.95, 8192, 1024, 2097152);
  EXPECT_EQ(kv.weights + kv.rotary, 16094076928.0);
  EXPECT_NEAR((kv.weights + kv.rotary) / kGiB, 14.9888, 0.00005);
  EXPECT_EQ(kv.available, 62433967408.0);
  EXPECT_NEAR(kv.available / kGiB, 58.11, 0.05);
  // 16 sequences and 8192 tokens: the forward pass is the larger,
  // 838,860,800 (the sampler's 67,108,864 + 16 x 128,256 x 14 + 16 x
  // 128,256 x 4 = 104,046,592).
  EXPECT_EQ(ActivationPeakBytes(llama, 1, 8192, 16), 838860800.0);
  // Fewer than 8 sequences are sorted in PyTorch, 38.4 bytes a logit, and
  // no kernel buffer: at 16 tokens 16 x 4096 x 2 + 4 x 128,256 x 38.4 =
  // 19,831,193.6 (the forward pass, 16 x 51,200 x 2 = 1,638,400, is less).
  EXPECT_DOUBLE_EQ(ActivationPeakBytes(llama, 1, 16, 4), 19831193.6);
  // float32 logits are their own float32 copy: 12 bytes a logit.
  EXPECT_EQ(SamplerBytesPerLogit(llama, 128), 14);
  ModelConfig fp32 = llama;
  fp32.dtype_bytes = 4;
  EXPECT_EQ(SamplerBytesPerLogit(fp32, 128), 12);
  EXPECT_EQ(SamplerBytesPerLogit(fp32, 7), 38.4);
}

// The most KV an engine of `seats` sequences can hold of the requests: the
// blocks of its `seats` longest. By hand, blocks of 16: 33 tokens take 3
// blocks, 17 take 2, 16 and 1 take 1 each.
TEST(VllmEngine, SeatedBlocksAtMost) {
  const std::vector<int64_t> tokens = {17, 16, 1, 33};
  EXPECT_EQ(SeatedBlocksAtMost(tokens, 2, 16), 3 + 2);
  EXPECT_EQ(SeatedBlocksAtMost(tokens, 3, 16), 3 + 2 + 1);
  EXPECT_EQ(SeatedBlocksAtMost(tokens, 128, 16), 3 + 2 + 1 + 1);  // fewer requests than seats
  EXPECT_EQ(SeatedBlocksAtMost(tokens, 0, 16), 0);
  EXPECT_EQ(SeatedBlocksAtMost({}, 128, 16), 0);
}

// A run's name for its GPU, CUDA's or a cluster file's short one, to the
// preset it denotes; a name no preset's is in, or two presets' are, none.
TEST(Presets, TheGpuADeviceNameDenotes) {
  const auto named = [](const char* device) {
    std::optional<Gpu> gpu = GpuPresetForDevice(device);
    return gpu ? gpu->name : std::string("(none)");
  };
  EXPECT_EQ(named("RTXPRO6000"), "rtx-pro-6000");
  EXPECT_EQ(named("NVIDIA RTX PRO 6000 Blackwell Server Edition"), "rtx-pro-6000");
  EXPECT_EQ(named("RTX PRO 6000"), "rtx-pro-6000");
  EXPECT_EQ(named("NVIDIA GeForce RTX 4090"), "rtx-4090");
  EXPECT_EQ(named("RTX4090"), "rtx-4090");
  EXPECT_EQ(named("NVIDIA L40S"), "l40s");
  EXPECT_EQ(named("NVIDIA H100 PCIe"), "h100-pcie");
  EXPECT_EQ(named("NVIDIA A100-SXM4-80GB"), "a100-80gb");
  EXPECT_EQ(named("H100"), "(none)");  // SXM or PCIe: the name does not say
  EXPECT_EQ(named("NVIDIA H100 80GB HBM3"), "(none)");
  EXPECT_EQ(named("NVIDIA L40"), "(none)");
  // By whole words: a preset's name inside another GPU's word is not it.
  EXPECT_EQ(named("NVIDIA GB200"), "(none)");
  EXPECT_EQ(named("NVIDIA GH200 480GB"), "(none)");
  EXPECT_EQ(named("RTX4090 + L40S"), "(none)");
  EXPECT_EQ(named(""), "(none)");
  // A name of a million words is read in their number of steps, not its
  // square (which would not end): the preset's name after them is found.
  std::string many;
  for (int i = 0; i < 1000000; ++i) many += "a ";
  EXPECT_EQ(named((many + "RTX 4090").c_str()), "rtx-4090");
  std::optional<Gpu> gpu = GpuPresetForDevice("RTX4090");
  ASSERT_TRUE(gpu.has_value());
  EXPECT_TRUE(gpu->preset);
  EXPECT_EQ(gpu->memory_gib, 23.64);  // CUDA's total (gpus.json's source)
  EXPECT_EQ(gpu->memory_source, "cuda");
  EXPECT_EQ(GpuPresetForDevice("H200")->memory_source, "nvidia-smi");
}

// A comment's and a param's text from a file: a control character is
// written as its escape, so the text cannot end its comment.
// A comment wrapped at 96 columns, with an indent, reads back as one line:
// each continuation's line break and indent become one space; a line that
// is not a continuation ("//" and fewer than 3 spaces, code) stays.
TEST(ProgramText, WrappedCommentsReadBackWhole) {
  std::string words;
  for (int i = 0; i < 40; ++i) words += absl::StrCat(i == 0 ? "" : " ", "word", i);
  ProgramText t;
  t.Comment("  " + words);
  t.Line("param X = 1;");
  t.Comment("a short one");
  const std::string text = t.Take();
  ASSERT_GT(std::count(text.begin(), text.end(), '\n'), 4) << text;  // the first comment wrapped
  EXPECT_EQ(UnwrappedComments(text), "//   " + words + "\nparam X = 1;\n// a short one\n");
}

// A generated sum: flat up to 16 terms; past that, halves until runs of
// at most 8, so 17 terms are [0, 8) and [8, 17), the second halved again
// into [8, 12) and [12, 17): 4 levels of sums where the flat form had 17.
// 2^20 terms are 17 halvings and a run of 8 deep, inside the IR's 64.
TEST(ProgramText, LongSumsAreGroupedInHalves) {
  std::vector<std::string> terms;
  for (int i = 0; i < 17; ++i) terms.push_back(absl::StrCat("t", i));
  EXPECT_EQ(SumOf({}), "0");
  EXPECT_EQ(SumOf({"a"}), "a");
  EXPECT_EQ(SumOf(std::vector<std::string>(terms.begin(), terms.begin() + 16)),
            "t0 + t1 + t2 + t3 + t4 + t5 + t6 + t7 + t8 + t9 + t10 + t11 + t12 + t13 + t14 + t15");
  EXPECT_EQ(SumOf(terms), "(t0 + t1 + t2 + t3 + t4 + t5 + t6 + t7) + ((t8 + t9 + t10 + t11) + "
                          "(t12 + t13 + t14 + t15 + t16))");
}

TEST(ProgramText, ControlCharactersAreEscaped) {
  ProgramText t;
  t.Comment("a\nparam X = 1;\tb\x01");
  t.Param("Y", "2", "why\rnot");
  EXPECT_EQ(t.Take(), "// a\\nparam X = 1;\\tb\\x01\n"
                      "param Y = 2;                 // why\\rnot\n");
}

}  // namespace
}  // namespace serq::models
