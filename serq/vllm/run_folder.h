// A measured vLLM run in LLMServingSim's published layout, read and
// checked: meta.json (the engine's arguments), model.json (the model's
// config.json), llmservingsim-config.json (the cluster: GPU memory, the
// link between GPUs), profile/meta.yaml and profile/tpN/ (one GPU's
// kernels), requests.jsonl (the requests, replayed). docs/cli.md §serq
// vllm says which field means what.
#ifndef SERQ_SERQ_VLLM_RUN_FOLDER_H_
#define SERQ_SERQ_VLLM_RUN_FOLDER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "serq/models/json_file.h"
#include "serq/models/model_config.h"
#include "serq/vllm/profile.h"

namespace serq::vllm {

// vLLM 0.19's engine arguments, as the run gave them or by default
// (vllm/engine/arg_utils.py, vllm/config/*.py).
struct EngineArgs {
  std::string model;
  int tp = 1;              // tensor_parallel_size
  int dp = 1;              // data_parallel_size
  bool expert_parallel = false;  // enable_expert_parallel
  // The field each came from (engine_kwargs', or resolved_config's
  // parallel_config's where the arguments give none); "": vLLM's default.
  std::string tp_from, dp_from, expert_parallel_from;
  // max_num_seqs and max_num_batched_tokens; 0: not given. ReadRunFolder
  // fills those the run does not give with what vLLM gave the bench's
  // engine (models::EngineBatchDefaults: 128 and 2048 whatever the GPU),
  // and says so in *_by_default.
  int64_t max_num_seqs = 0;
  int64_t max_num_batched_tokens = 0;
  bool max_num_seqs_by_default = false, max_num_batched_tokens_by_default = false;
  // The field of meta.json each came from (engine_kwargs' or
  // resolved_config's), for the program's comments and errors; empty for
  // vLLM's default and for a plan's own limit (Redeployment).
  std::string max_num_seqs_from, max_num_batched_tokens_from;
  // vLLM's max_model_len where the run records it (engine_kwargs', or
  // resolved_config.model_config's), and which field gave it: a request
  // longer than it vLLM refuses, so a folder holding one is refused.
  std::optional<int64_t> max_model_len;
  std::string max_model_len_from;
  // Where block_size, enable_prefix_caching and gpu_memory_utilization came
  // from, for the program's comments: "" for vLLM's default, else the
  // field of meta.json (engine_kwargs' or, where it gives none, kv_cache's:
  // what vLLM ran with, as the run logged it).
  int block_size = 16;
  std::string block_size_from;
  bool prefix_caching = true;
  std::string prefix_caching_from;
  bool async_scheduling = true;
  std::string async_scheduling_from;
  // scheduler_reserve_full_isl: a waiting request is admitted only when its
  // whole prompt fits the KV cache (`reserve prompt`).
  bool reserve_full_isl = true;
  std::string reserve_full_isl_from;
  bool enforce_eager = false;  // no CUDA graphs: every step at its own tokens
  std::string enforce_eager_from;
  // CUDA graphs as the run recorded them (meta.json resolved_config's
  // compilation_config): the captured sizes, ascending (empty: vLLM 0.19's
  // default for the engine's limits), and whether only decode-only steps
  // run as graphs (cudagraph_mode FULL_DECODE_ONLY: a step with a prefill
  // runs eagerly). cudagraph_mode NONE sets enforce_eager.
  std::vector<int64_t> graph_sizes;
  std::string graph_sizes_from;
  bool graph_decode_only = false;
  std::string graph_mode_from;
  int64_t long_prefill_token_threshold = 0;  // 0: no cap
  double gpu_memory_utilization = 0.9;
  std::string gpu_memory_utilization_from;
  std::optional<int64_t> num_gpu_blocks_override;
  // kv_cache_memory_bytes: the KV cache's bytes on each GPU, which vLLM
  // then takes whole instead of deriving them from the GPU's memory and
  // gpu_memory_utilization; the field that gave it (engine_kwargs', or
  // kv_cache's or resolved_config's where engine_kwargs gives none).
  std::optional<int64_t> kv_cache_memory_bytes;
  std::string kv_cache_memory_bytes_from;
  // disable_custom_all_reduce: every all-reduce by NCCL, as serq costs
  // them (docs/simulation.md); false or absent is vLLM's default.
  bool disable_custom_all_reduce = false;
  // The experts' exchange and load balancer (engine_kwargs', or
  // resolved_config.parallel_config's): serq models vLLM 0.19's defaults,
  // allgather_reducescatter without EPLB, and a run of experts over GPUs
  // with another is refused (a dense model's are not read).
  std::string all2all_backend = "allgather_reducescatter";
  std::string all2all_backend_from;
  bool enable_eplb = false;
  std::string enable_eplb_from;
  std::string dtype = "auto";
  std::string kv_cache_dtype = "auto";
  std::string kv_cache_dtype_from;  // the field that gave one other than auto
};

// llmservingsim-config.json: that simulator's description of the cluster.
struct Cluster {
  bool present = false;
  // link_bw, GB/s (ASTRA-Sim reads 2^30 bytes), and link_latency, ns: one
  // figure, or one a dimension of ASTRA-Sim's topology (tensor parallel
  // first, a data-parallel group last); empty when not given.
  std::vector<double> link_bw, link_latency;
  double mem_size = 0;      // an instance's npu_mem.mem_size, GiB
  double mem_util = 0;      // npu_mem.mem_util
  std::string hardware;     // an instance's hardware
  int instances = 0;
};

struct RunFolder {
  std::string dir;   // as given
  std::string name;  // its last component
  std::string vllm_version;
  EngineArgs args;
  // An engine's KV blocks as the run records them: meta.json's
  // kv_cache.num_gpu_blocks (or resolved_config's cache_config's), which is
  // vLLM's front-end's count, the sum over its data-parallel engines
  // (`num_gpu_blocks_total`, over `num_gpu_blocks_engines`), divided
  // among them, rounded down.
  std::optional<int64_t> num_gpu_blocks;
  std::string num_gpu_blocks_from;
  int64_t num_gpu_blocks_total = 0;
  int num_gpu_blocks_engines = 1;
  // meta.json's hardware: the GPU's memory as torch reports it (what vLLM
  // budgets from), bytes, 0 when not recorded; and its name.
  double device_memory_bytes = 0;
  std::string device_name;
  // For stderr ("serq vllm: warning: ..."): what the folder says that the
  // program takes no figure from, and should have.
  std::vector<std::string> warnings;
  models::ModelConfig model;
  Cluster cluster;
  ProfileMeta profile;
  int ep = 1;  // the GPUs the experts are spread over (dp x tp with expert parallel)
  // Files, as paths under dir.
  std::string profile_dir;  // profile/tpN for the run's tp
  std::string moe_file;     // the experts' kernels (empty: a dense model)
  // Without expert parallelism, the GPUs moe_file's kernels are split over
  // further: each expert is split over every GPU of the engines (vLLM
  // flattens data parallel into the experts' tensor parallel), so the
  // engines' count (DP) where moe_file is profile/tpN's, and TP x DP where
  // the profile times the experts at TP 1 only; with expert parallelism
  // (whole experts, Ep) 1.
  int moe_split = 1;
  bool moe_whole = false;  // moe_file is profile/tp1's, whole experts
  std::string requests;
  std::string model_file;  // model.json
  // The requests of more prompt and output tokens than the recorded
  // max_model_len, and the line of the first: vLLM stops each at
  // max_model_len (Scheduler's check_stop), while the bench records the
  // dataset's output_toks, so the replay caps them.
  int64_t capped_requests = 0;
  int capped_first_line = 0;
  // Requests without first_token_ts or last_token_ts (the run recorded
  // no figures for them): the replay serves them, serq compare skips them;
  // how many, and the first one's line.
  int64_t unfinished_requests = 0;
  int unfinished_first_line = 0;
  // The first row whose token times serq compare could not measure (out
  // of order, on another clock than its arrival), as its error: a program
  // that replays the run's requests is refused with it, a plan's own
  // workload is not.
  std::string unmeasurable;
  // The rows of requests.jsonl, and meta.json's num_requests where it
  // gives one (the requests the bench sent).
  int64_t request_rows = 0;
  std::optional<int64_t> num_requests;
  // The longest request's prompt and output tokens, and its line: the KV
  // its last decode reads (capped at max_model_len).
  int64_t longest_request = 0;
  int longest_line = 0;
  // The longest prompt and its line: its last chunk's prefill reads the KV
  // of up to all but its last token.
  int64_t longest_prompt = 0;
  int longest_prompt_line = 0;
  // Every request's prompt and output tokens (capped as above), in file
  // order: what the requests can hold of the KV cache together.
  std::vector<int64_t> request_tokens;
};

// The run's engines deployed otherwise (serq plan's candidates): another
// tensor- or data-parallel degree, other limits; unset, the run's. The
// profile must have the degree; the KV count the run logged (meta.json
// kv_cache.num_gpu_blocks) is of the run's engine, and is dropped (the
// count derived instead) when the tensor-parallel degree or a limit differs
// from the run's, or the data-parallel degree with expert parallel, which
// spreads the experts, and so the weights, over another count of GPUs.
struct Redeployment {
  std::optional<int> tp, dp;
  std::optional<int64_t> max_num_seqs, max_num_batched_tokens;
};

// Reads and checks the folder. Every error names the file and what is
// wrong in it: a file missing, a field missing or out of range, an engine
// argument serq does not know, a profile without the run's TP degree (or
// `as`'s), an architecture whose operators are not known, a profile whose
// operators are not the architecture's.
absl::StatusOr<RunFolder> ReadRunFolder(const std::string& dir, const Redeployment& as = {});

// The run's GPU by name: the device torch named (meta.json's
// hardware.device_name), else the cluster file's (`hardware`, short), else
// "GPU".
std::string GpuName(const RunFolder& r);

// meta.json's records of the engine, read into `r` (its args, the KV count
// the run logged, the GPU it ran on, warnings): engine_kwargs, then
// kv_cache, resolved_config and hardware where the run records them. Part
// of ReadRunFolder; alone for the fuzzer. (meta_json.cc)
absl::Status ReadMetaJson(const models::JsonFile& meta, RunFolder* r);

// llmservingsim-config.json read into `c` (the link, an instance's GPU
// memory and hardware), with a warning where its instances are not the
// run's engines (an instance's tp_size not `run_tp`, or not `run_dp` of
// them; `tp_from` and `dp_from` name meta.json's fields that gave them).
// Part of ReadRunFolder; alone for the fuzzer.
absl::Status ReadCluster(const models::JsonFile& json, int run_tp, int run_dp, const std::string& tp_from,
                         const std::string& dp_from, Cluster* c, std::vector<std::string>* warnings);

// The field of meta.json that gave an engine argument (`from`), or where
// none did, the engine argument vLLM's default stands for
// ("engine_kwargs.KEY"), for messages.
std::string Field(const std::string& from, const std::string& key);

}  // namespace serq::vllm

#endif  // SERQ_SERQ_VLLM_RUN_FOLDER_H_
