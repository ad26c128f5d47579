// serq vllm's reading of meta.json's engine arguments as the bench's newer
// runner writes them, and of the folder's files against each other.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "serq/vllm/generate.h"
#include "serq/vllm/run_folder.h"
#include "serq/vllm/test_folders.h"

namespace serq::vllm {

namespace {

// The engine's arguments as the bench's runner names them since it pins
// NCCL for every all-reduce: each field it names, null where the run gave
// none (vLLM's default, whatever the argument), disable_custom_all_reduce,
// skip_tokenizer_init and a compilation_config of fusion passes. The
// program is the one the older record gives, but for the comment on NCCL
// at tensor parallel; a compilation_config that sets what vLLM resolves
// (CUDA graphs) is read from resolved_config, and refused at its key where
// the run does not record that; a non-null argument serq does not know is
// refused as before.
TEST(MetaJson, TheRunnersNewerEngineArguments) {
  const std::string dir = Copy(kLlama, "runner-args");
  const std::string meta = dir + "/meta.json";
  const std::string resolved = Read("testdata/vllm/meta-resolved.json");
  const std::string newer =
      "\"seed\": 42, \"disable_custom_all_reduce\": true, \"kv_cache_memory_bytes\": null, "
      "\"load_format\": \"auto\", \"skip_tokenizer_init\": false, \"enforce_eager\": false, "
      "\"scheduler_cls\": null, \"additional_config\": null, "
      "\"compilation_config\": {\"pass_config\": {\"fuse_allreduce_rms\": false, \"fuse_gemm_comms\": false}}";
  Write(meta, resolved);
  const std::string before = GenerateProgram(dir, {})->program;
  // The GPU by the run's own record of it (CUDA's name), over the cluster
  // file's short one.
  EXPECT_NE(models::UnwrappedComments(before).find(
                "on 1 x NVIDIA RTX PRO 6000 Blackwell Server Edition: tensor parallel 1"),
            std::string::npos)
      << before.substr(0, 600);
  Write(meta, Replace(resolved, "\"seed\": 42", newer));
  absl::StatusOr<Generated> g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->warnings, std::vector<std::string>{});
  EXPECT_EQ(g->program, before);
  // The older record, without resolved_config: the same arguments read.
  const std::string plain = Read(kLlama + "/meta.json");
  Write(meta, plain);
  const std::string plain_program = GenerateProgram(dir, {})->program;
  Write(meta, Replace(plain, "\"seed\": 42", newer));
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->program, plain_program);
  // CUDA graphs set in the arguments: what vLLM made of them is
  // resolved_config's; without it, refused at the key.
  const std::string graphs = Replace(newer, "{\"pass_config\"", "{\"cudagraph_mode\": \"FULL\", \"pass_config\"");
  Write(meta, Replace(resolved, "\"seed\": 42", graphs));
  EXPECT_TRUE(GenerateProgram(dir, {}).ok());
  Write(meta, Replace(plain, "\"seed\": 42", graphs));
  EXPECT_EQ(Error(dir), meta + ": error: engine_kwargs.compilation_config.cudagraph_mode: serq vllm reads what vLLM "
                               "made of the compilation config (CUDA graphs' mode and sizes) from "
                               "resolved_config.compilation_config.cudagraph_mode, which this run does not record "
                               "in a form it reads; only its pass_config is read from the arguments");
  // A mode recorded in a form serq does not read is none; a compile mode
  // given needs the graphs' mode recorded too.
  Write(meta, Replace(Replace(resolved, "\"seed\": 42", graphs), "\"cudagraph_mode\": [\n        2,\n        1\n      ],",
                      "\"cudagraph_mode\": {\"x\": 1},"));
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: engine_kwargs.compilation_config.cudagraph_mode: ");
  Write(meta, Replace(Replace(resolved, "\"seed\": 42", "\"seed\": 42, \"compilation_config\": {\"mode\": 0}"),
                      "\"cudagraph_mode\": [\n        2,\n        1\n      ],", ""));
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: engine_kwargs.compilation_config.mode: ");
  // A record of the compilation config without the mode is no record of
  // it: refused the same.
  Write(meta, Replace(Replace(resolved, "\"seed\": 42", graphs), "\"cudagraph_mode\": [\n        2,\n        1\n      ],",
                      ""));
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: engine_kwargs.compilation_config.cudagraph_mode: serq vllm "
                                              "reads what vLLM made of the compilation config");
  Write(meta, Replace(plain, "\"seed\": 42", "\"seed\": 42, \"compilation_config\": 3"));
  EXPECT_EQ(Error(dir), meta + ": error: engine_kwargs.compilation_config: expected an object (vLLM's "
                               "CompilationConfig), not 3");
  Write(meta, Replace(plain, "\"seed\": 42", "\"seed\": 42, \"disable_custom_all_reduce\": \"yes\""));
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: engine_kwargs.disable_custom_all_reduce: ");
  Write(meta, Replace(plain, "\"seed\": 42", "\"seed\": 42, \"scheduler_cls\": \"my.Scheduler\""));
  EXPECT_EQ(Error(dir), meta + ": error: engine_kwargs.scheduler_cls: an engine argument serq vllm does not know: "
                               "its effect on the schedule is not modelled (docs/cli.md §serq vllm lists those it "
                               "reads)");
  // Arguments that change nothing serq models, at any value, and those
  // accepted at vLLM 0.19's default only.
  Write(meta, Replace(plain, "\"seed\": 42",
                      "\"seed\": 42, \"distributed_executor_backend\": \"mp\", \"enable_log_requests\": false, "
                      "\"generation_config\": \"vllm\", \"max_num_partial_prefills\": 1, \"all2all_backend\": "
                      "\"allgather_reducescatter\", \"enable_eplb\": false, \"stream_interval\": 1, "
                      "\"hf_overrides\": {}"));
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->program, plain_program);
  for (const auto& [given, said] :
       {std::pair{"\"max_num_partial_prefills\": 2", "engine_kwargs.max_num_partial_prefills: 2: serq vllm models "
                                                   "vLLM 0.19's default, 1"},
        std::pair{"\"hf_overrides\": {\"num_hidden_layers\": 1}",
                  "engine_kwargs.hf_overrides: an object: serq vllm models vLLM 0.19's default, {}"}}) {
    Write(meta, Replace(plain, "\"seed\": 42", absl::StrCat("\"seed\": 42, ", given)));
    EXPECT_EQ(Error(dir), meta + ": error: " + said) << given;
  }
  // The experts' exchange and load balancer: a dense model's are not
  // read; a mixture's over GPUs other than vLLM 0.19's default are
  // refused, from the arguments or from what vLLM resolved.
  Write(meta, Replace(plain, "\"seed\": 42", "\"seed\": 42, \"all2all_backend\": \"deepep_low_latency\", "
                                            "\"enable_eplb\": true"));
  EXPECT_TRUE(GenerateProgram(dir, {}).ok()) << Error(dir);
  const std::string moe = Copy(kMoe, "runner-args-moe");
  const std::string moe_meta = moe + "/meta.json";
  const std::string moe_plain = Read(moe_meta);
  Write(moe_meta, Replace(moe_plain, "\"seed\": 42", "\"seed\": 42, \"all2all_backend\": \"deepep_low_latency\""));
  EXPECT_EQ(Error(moe), moe_meta + ": error: engine_kwargs.all2all_backend: 'deepep_low_latency': serq vllm models the "
                                   "experts' exchange of vLLM 0.19's default backend, allgather_reducescatter");
  Write(moe_meta, AddToMeta(moe_plain,
                            "\"resolved_config\": {\"parallel_config\": "
                            "{\"all2all_backend\": \"allgather_reducescatter\", \"enable_eplb\": true}},"));
  EXPECT_PRED2(StartsWith, Error(moe), moe_meta + ": error: resolved_config.parallel_config.enable_eplb: true: the "
                                                  "experts' load balancer");
  Write(moe_meta, AddToMeta(moe_plain,
                            "\"resolved_config\": {\"scheduler_config\": "
                            "{\"stream_interval\": 4}},"));
  EXPECT_EQ(Error(moe), moe_meta + ": error: resolved_config.scheduler_config.stream_interval: 4: serq vllm models "
                                   "vLLM 0.19's default, 1");
  // The graphs' sizes as engine arguments: resolved_config's, or refused.
  Write(meta, Replace(plain, "\"seed\": 42", "\"seed\": 42, \"max_cudagraph_capture_size\": 64"));
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: engine_kwargs.max_cudagraph_capture_size: serq vllm reads "
                                              "what vLLM made of the compilation config");
  Write(meta, Replace(resolved, "\"seed\": 42", "\"seed\": 42, \"max_cudagraph_capture_size\": 256"));
  EXPECT_TRUE(GenerateProgram(dir, {}).ok());
  // At tensor parallel 2, the program says NCCL carries every all-reduce.
  Write(meta, Replace(Replace(plain, "\"seed\": 42", newer), "\"tensor_parallel_size\": 1",
                      "\"tensor_parallel_size\": 2"));
  Edit(dir + "/llmservingsim-config.json", "\"tp_size\": 1", "\"tp_size\": 2");
  Edit(dir + "/llmservingsim-config.json", "\"num_npus\": 1", "\"num_npus\": 2");
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("  // Every all-reduce by NCCL (meta.json engine_kwargs.disable_custom_all_reduce).\n"),
            std::string::npos);
}

// What else the folder's files say of the run, against each other: the
// parallelism vLLM resolved against the arguments (an error where they
// disagree, as every record's field); the profile's vLLM against the
// run's, and the requests the bench sent against the file's rows (said).
TEST(MetaJson, TheFilesAgainstEachOther) {
  const std::string dir = Copy(kLlama, "agree");
  const std::string meta = dir + "/meta.json";
  const std::string original = Read(meta);
  Write(meta, AddToMeta(original,
                        "\"resolved_config\": {\"parallel_config\": "
                        "{\"tensor_parallel_size\": 2, \"data_parallel_size\": 1}},"));
  EXPECT_EQ(Error(dir), meta + ": error: resolved_config.parallel_config.tensor_parallel_size: 2, where "
                               "engine_kwargs.tensor_parallel_size is 1: the run's two records of the engine "
                               "disagree");
  Write(meta, AddToMeta(original,
                        "\"resolved_config\": {\"parallel_config\": "
                        "{\"tensor_parallel_size\": 1, \"enable_expert_parallel\": true}},"));
  EXPECT_PRED2(StartsWith, Error(dir), meta + ": error: resolved_config.parallel_config.enable_expert_parallel: "
                                              "true, where engine_kwargs.enable_expert_parallel is false");
  // A degree only what vLLM resolved gives is named by its field there.
  Write(meta, AddToMeta(Replace(original, "\"tensor_parallel_size\": 1,", ""),
                        "\"resolved_config\": {\"parallel_config\": "
                        "{\"tensor_parallel_size\": 3}},"));
  EXPECT_EQ(Error(dir), meta + ": error: resolved_config.parallel_config.tensor_parallel_size: 3 does not divide "
                               "the model's 32 attention heads");
  // num_requests feeds a warning only: one that is not a count is said.
  Write(meta, Replace(original, "\"num_requests\": 300", "\"num_requests\": \"300\""));
  absl::StatusOr<Generated> text = GenerateProgram(dir, {});
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(text->warnings, std::vector<std::string>{meta + ": num_requests \"300\" is not a count of requests: "
                                                            "not read"});
  Write(meta, Replace(Replace(original, "\"num_requests\": 300", "\"num_requests\": 310"),
                      "\"vllm_version\": \"0.19.0\"", "\"vllm_version\": \"0.19.1\""));
  absl::StatusOr<Generated> g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->warnings,
            (std::vector<std::string>{dir + "/profile/meta.yaml: the profile was taken with vLLM 0.19.0, the run "
                                            "(meta.json vllm_version) with 0.19.1: the step times are that "
                                            "version's kernels",
                                      dir + "/requests.jsonl: 300 requests, where meta.json's num_requests is "
                                            "310: the replay is of the file's"}));
  // A run of another vLLM than 0.19 (a patch release is 0.19): said. The
  // test is of the release's number, not of its first characters.
  for (const auto& [version, other] : {std::pair{"0.19.1", false}, std::pair{"0.19.0rc1", false},
                                       std::pair{"v0.19.0", false}, std::pair{"0.190.1", true},
                                       std::pair{"0.20.0", true}}) {
    Write(meta, Replace(original, "\"vllm_version\": \"0.19.0\"", absl::StrCat("\"vllm_version\": \"", version, "\"")));
    absl::StatusOr<Generated> v = GenerateProgram(dir, {});
    ASSERT_TRUE(v.ok()) << v.status();
    const std::string said = absl::StrCat("the run is vLLM ", version, "; the program models vLLM 0.19's scheduler");
    EXPECT_EQ(std::count(v->warnings.begin(), v->warnings.end(), said), other ? 1 : 0) << version;
  }
}

// engine_kwargs.dtype against model.json's: the dtype vLLM's auto serves
// the model in, given, is accepted; another is refused. A float32 model
// auto serves in bfloat16 (_resolve_auto_dtype), so "bfloat16" is the same
// engine, and "float32" (a 4-byte model) is one serq vllm does not model.
// vLLM lowercases the name and reads "half" as float16, "float" as float32.
TEST(MetaJson, TheEngineDtypeAgainstTheModels) {
  const std::string dir = Copy(kLlama, "dtype");
  const std::string meta = dir + "/meta.json", model = dir + "/model.json";
  const std::string original = Read(meta);
  auto with = [&](const std::string& dtype) {
    Write(meta, Replace(original, R"("dtype": "bfloat16")", R"("dtype": )" + dtype));
  };
  with(R"("float16")");
  EXPECT_EQ(Error(dir), meta + ": error: engine_kwargs.dtype: 'float16', where the model is bfloat16: serq vllm "
                               "models the model's own dtype");
  with(R"("half")");
  EXPECT_EQ(Error(dir), meta + ": error: engine_kwargs.dtype: 'float16', where the model is bfloat16: serq vllm "
                               "models the model's own dtype");
  with(R"("BFloat16")");
  EXPECT_TRUE(GenerateProgram(dir, {}).ok());
  Edit(model, "\"torch_dtype\": \"bfloat16\"", "\"torch_dtype\": \"float32\"");
  // The weights are the bfloat16 model's, 2 bytes a parameter: the KV
  // cache is the one derived for the run as it is (35,810 blocks), with
  // the run's "bfloat16" and with "auto".
  for (const char* given : {R"("bfloat16")", R"("auto")", "null"}) {
    with(given);
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << given << ": " << g.status();
    EXPECT_NE(g->program.find("35810 blocks hold requests"), std::string::npos) << given;
  }
  for (const char* given : {R"("float32")", R"("float")"}) {
    with(given);
    EXPECT_EQ(Error(dir), meta + ": error: engine_kwargs.dtype: 'float32': serq vllm models a model served in "
                                 "16 bits (a float32 model vLLM's dtype auto serves as bfloat16)");
  }
  with(R"("float16")");
  EXPECT_EQ(Error(dir), meta + ": error: engine_kwargs.dtype: 'float16', where vLLM's dtype auto serves the "
                               "model (float32 in model.json) in bfloat16: serq vllm models that dtype");
}

}  // namespace
}  // namespace serq::vllm
