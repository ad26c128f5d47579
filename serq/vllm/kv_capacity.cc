#include "serq/vllm/kv_capacity.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_format.h"
#include "serq/models/presets.h"

namespace serq::vllm {
namespace {

constexpr double kGiB = 1073741824.0;


int KvDtypeBytes(const RunFolder& r) {
  return models::KvDtypeBytes(r.args.kv_cache_dtype, r.model);
}

// The device's name as vLLM asks it (meta.json's hardware where the run
// records it), else the cluster file's name of the GPU.
const std::string& DeviceName(const RunFolder& r) {
  return r.device_name.empty() ? r.cluster.hardware : r.device_name;
}

}  // namespace

GpuMemory GpuMemoryOf(const RunFolder& r, const KvOptions& options) {
  if (options.gpu_memory_gib) return {*options.gpu_memory_gib, "--gpu-memory"};
  if (r.device_memory_bytes > 0) {
    return {r.device_memory_bytes / kGiB, "meta.json hardware.device_total_memory_bytes"};
  }
  const std::string config = "llmservingsim-config.json npu_mem.mem_size";
  // The cluster file's figure is the vendor's (96 for a GPU CUDA gives
  // 94.97 GiB of): vLLM sizes from CUDA's total, so a GPU whose preset
  // holds CUDA's total is taken at it, when that is the vendor's figure
  // less what the driver (and ECC) keeps: at most 10% below it (the L40S's
  // 44.42 of 48). Another figure is the user's, and stands.
  const std::string& device = DeviceName(r);
  if (std::optional<models::Gpu> gpu = models::GpuPresetForDevice(device);
      gpu && gpu->memory_source == "cuda" && gpu->memory_gib <= r.cluster.mem_size &&
      gpu->memory_gib >= 0.9 * r.cluster.mem_size) {
    return {gpu->memory_gib,
            absl::StrCat("CUDA's total for the ", device, ", serq's GPU preset ", gpu->name, ", where ", config, " gives ",
                         absl::StrFormat("%.6g", r.cluster.mem_size), ", the vendor's figure")};
  }
  return {r.cluster.mem_size, config};
}

absl::Status CheckLimits(const RunFolder& r) {
  const EngineArgs& a = r.args;
  if (a.max_num_seqs <= a.max_num_batched_tokens) return absl::OkStatus();
  constexpr absl::string_view kRefused =
      ", which vLLM refuses (its scheduler config: max_num_batched_tokens must be at least max_num_seqs)";
  // Both the run's own (then at meta.json's fields), or a plan's --seqs
  // or --batched-tokens over them.
  if (!a.max_num_seqs_from.empty() && !a.max_num_batched_tokens_from.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(r.dir, "/meta.json: error: ", a.max_num_seqs_from, " ",
                                                   a.max_num_seqs, " is more than ", a.max_num_batched_tokens_from,
                                                   " ", a.max_num_batched_tokens, kRefused));
  }
  return absl::InvalidArgumentError(absl::StrCat(r.dir, ": error: max_num_seqs ", a.max_num_seqs,
                                                 " is more than max_num_batched_tokens ", a.max_num_batched_tokens,
                                                 kRefused));
}

absl::StatusOr<KvCapacity> KvBlocks(const RunFolder& r, int64_t max_num_seqs,
                                    int64_t max_num_batched_tokens, const KvOptions& options) {
  KvCapacity kv;
  const int tp = r.args.tp;
  const int block = r.args.block_size;
  kv.bytes_per_token = models::KvBytesPerToken(r.model, tp, KvDtypeBytes(r));
  const std::string per_token = absl::StrCat(
      "KV a token on one GPU: 2 (K, V) x ", r.model.layers, " layers x ",
      std::max(1, r.model.kv_heads / tp), " KV heads", tp > 1 ? absl::StrCat(" (of ", r.model.kv_heads, ", over TP ", tp, ")") : "",
      r.model.kv_heads_from == "num_key_value_heads"
          ? ""
          : absl::StrCat(" (", absl::StripPrefix(r.model.kv_heads_from, "num_key_value_heads: "), ")"),
      " x head_dim ", r.model.head_dim, r.model.head_dim_given ? "" : absl::StrCat(" (", absl::StripPrefix(r.model.head_dim_from, "head_dim: "), ")"), " x ",
      KvDtypeBytes(r), " bytes = ", static_cast<int64_t>(kv.bytes_per_token), " bytes");
  if (options.num_gpu_blocks) {
    kv.num_gpu_blocks = *options.num_gpu_blocks;
    kv.given_by = "--kv-blocks";
    kv.why.push_back(absl::StrCat("--kv-blocks ", kv.num_gpu_blocks, " (vLLM's num_gpu_blocks)."));
  } else if (r.args.num_gpu_blocks_override) {
    kv.num_gpu_blocks = *r.args.num_gpu_blocks_override;
    kv.given_by = "meta.json engine_kwargs.num_gpu_blocks_override";
    kv.why.push_back(absl::StrCat("meta.json: engine_kwargs.num_gpu_blocks_override ",
                                  kv.num_gpu_blocks, "."));
  } else if (r.num_gpu_blocks) {
    kv.num_gpu_blocks = *r.num_gpu_blocks;
    kv.given_by = "meta.json " + r.num_gpu_blocks_from;
    if (r.num_gpu_blocks_engines > 1) {
      kv.why.push_back(absl::StrCat(
          "meta.json: ", r.num_gpu_blocks_from, " ", r.num_gpu_blocks_total, " (vLLM's own count, as the run "
          "logged it: its front-end's, the sum over the ", r.num_gpu_blocks_engines, " data-parallel engines), ",
          kv.num_gpu_blocks, " an engine", r.num_gpu_blocks_total % r.num_gpu_blocks_engines ? " (rounded down)." : "."));
    } else {
      kv.why.push_back(absl::StrCat("meta.json: ", r.num_gpu_blocks_from, " ", kv.num_gpu_blocks,
                                    " (vLLM's own count, as the run logged it)."));
    }
  } else if (r.args.kv_cache_memory_bytes) {
    // vLLM takes the bytes whole (Worker.determine_available_memory returns
    // them without profiling the GPU's memory) and cuts them in blocks of
    // every layer's KV, rounded down.
    const int64_t bytes = *r.args.kv_cache_memory_bytes;
    const double per_block = kv.bytes_per_token * block;
    if (static_cast<double>(bytes) / per_block > static_cast<double>(models::kMaxKvBlocks)) {
      return absl::InvalidArgumentError(absl::StrCat(r.dir, "/meta.json: error: ", r.args.kv_cache_memory_bytes_from,
                                                     ": ", bytes, " bytes make more than 2^40 KV blocks"));
    }
    kv.num_gpu_blocks = static_cast<int64_t>(std::floor(static_cast<double>(bytes) / per_block));
    kv.given_by = "meta.json " + r.args.kv_cache_memory_bytes_from;
    kv.why.push_back(absl::StrCat("meta.json: ", r.args.kv_cache_memory_bytes_from, " ", bytes,
                                  " (the KV cache's bytes on each GPU, which vLLM takes instead of deriving them "
                                  "from the GPU's memory), in blocks of ", block, " tokens x ",
                                  static_cast<int64_t>(kv.bytes_per_token), " bytes: ", kv.num_gpu_blocks,
                                  " blocks."));
  } else {
    const GpuMemory memory = GpuMemoryOf(r, options);
    const double gib = memory.gib;
    if (!(gib > 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          r.dir, ": error: the run records no KV cache size (meta.json kv_cache.num_gpu_blocks, "
          "resolved_config.cache_config.num_gpu_blocks) "
          "and no GPU memory (meta.json hardware.device_total_memory_bytes, llmservingsim-config.json "
          "npu_mem.mem_size): give --kv-blocks N or --gpu-memory GIB"));
    }
    double util = r.args.gpu_memory_utilization;
    std::string util_from = r.args.gpu_memory_utilization_from.empty()
                                ? "vLLM's default gpu_memory_utilization"
                                : "meta.json " + r.args.gpu_memory_utilization_from;
    if (options.gpu_memory_utilization) {
      util = *options.gpu_memory_utilization;
      util_from = "--gpu-memory-utilization";
    }
    const double per_block = kv.bytes_per_token * block;
    // The GPUs the experts spread over past the engine's TP group: whole
    // with expert parallel, split over the engines' GPUs without it (1:
    // the experts split over TP, which the weights' count does itself).
    const int expert_gpus = r.ep > 1 ? r.ep : r.model.moe() && r.args.dp > 1 ? r.args.dp * tp : 1;
    // The shared experts whole on each GPU with sequence-parallel experts
    // (one rule with serq physics, though serq vllm's catalog has no model
    // with both yet).
    const models::KvFromMemory m = models::KvBlocksFromMemory(
        r.model, tp, expert_gpus, gib, util, max_num_batched_tokens, max_num_seqs, per_block,
        models::SequenceParallelExperts(r.model, tp, r.args.dp, r.ep > 1));
    const std::string& memory_from = memory.from;
    if (m.blocks < 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          r.dir, ": error: no room for the KV cache: ", models::GibText(m.requested), " requested of the GPU (",
          gib, " GiB, ", memory_from, ", x ", util, "), ", models::KvDeductionsText(m), "; give --kv-blocks N"));
    }
    if (m.blocks > models::kMaxKvBlocks) {
      return absl::InvalidArgumentError(absl::StrCat(
          r.dir, ": error: ", gib, " GiB of GPU memory makes more than 2^40 KV blocks: is the memory (",
          memory_from, ") in GiB?"));
    }
    kv.num_gpu_blocks = m.blocks;
    kv.why.push_back(absl::StrCat(
        "Derived as vLLM 0.19 derives it: GPU memory ", absl::StrFormat("%.6g", gib), " GiB (", memory_from, ") x ", util, " (", util_from,
        ") = ", models::GibText(m.requested), ","));
    kv.why.push_back(absl::StrCat(
        "less the weights one GPU holds, ", models::GibText(m.weights), " (", r.model.dtype,
        ", counted from model.json's shapes",
        expert_gpus > 1 ? absl::StrCat(", 1/", expert_gpus, " of the experts") : "",
        tp > 1 ? absl::StrCat(", 1/", tp, " of the split layers") : "", "),"));
    for (std::string& line :
         models::KvEstimatesWhy(r.model, tp, expert_gpus, max_num_batched_tokens, max_num_seqs, m)) {
      kv.why.push_back(std::move(line));
    }
    kv.why.push_back(absl::StrCat("= ", models::GibText(m.available), ", in blocks of ", block, " tokens x ",
                                  static_cast<int64_t>(kv.bytes_per_token), " bytes: ",
                                  kv.num_gpu_blocks, " blocks. Not subtracted: CUDA graphs' memory, "
                                  "which vLLM 0.19 does not subtract; --kv-blocks gives vLLM's logged count."));
  }
  if (kv.num_gpu_blocks < 2) {
    // Said at what gave the count: meta.json's field, or the derivation
    // (--kv-blocks is held to 2 and more as a flag).
    std::string count = absl::StrCat(kv.num_gpu_blocks, kv.num_gpu_blocks == 1 ? " KV block" : " KV blocks");
    if (absl::StartsWith(kv.given_by, "meta.json ")) {
      const absl::string_view field = absl::StripPrefix(kv.given_by, "meta.json ");
      if (field == r.args.kv_cache_memory_bytes_from) {
        count = absl::StrCat(*r.args.kv_cache_memory_bytes, " bytes make ", count, " of ", block, " tokens x ",
                             static_cast<int64_t>(kv.bytes_per_token), " bytes");
      }
      return absl::InvalidArgumentError(
          absl::StrCat(r.dir, "/meta.json: error: ", field, ": ", count, "; vLLM needs at least 2"));
    }
    return absl::InvalidArgumentError(absl::StrCat(r.dir, ": error: ", count, " (",
                                                   kv.given_by.empty() ? "derived from the GPU's memory" : kv.given_by,
                                                   "); vLLM needs at least 2"));
  }
  kv.usable_blocks = kv.num_gpu_blocks - 1;
  kv.why.push_back(per_token + ".");
  kv.why.push_back(absl::StrCat("One block is vLLM's null block: ", kv.usable_blocks,
                                " blocks hold requests."));
  return kv;
}

std::string DerivedCountCanFill(const RunFolder& r, const KvCapacity& kv, int64_t max_num_seqs) {
  if (!kv.given_by.empty()) return "";
  return models::DerivedKvCanFill(r.request_tokens, max_num_seqs, r.args.block_size, kv.usable_blocks, r.args.dp > 1,
                                  "the run records no count", "the run's");
}

std::string LaterVllmSubtractsGraphs(const RunFolder& r, const KvCapacity& kv) {
  if (!kv.given_by.empty() || r.args.enforce_eager) return "";
  // MAJOR.MINOR, each the digits it starts with ("v0.21.0", "0.21rc1").
  absl::string_view v = r.vllm_version;
  absl::ConsumePrefix(&v, "v");
  auto digits = [&v](int* out) {
    size_t n = 0;
    while (n < v.size() && n < 6 && absl::ascii_isdigit(v[n])) ++n;
    const bool ok = n > 0 && absl::SimpleAtoi(v.substr(0, n), out);
    v.remove_prefix(n);
    return ok;
  };
  int major = 0, minor = 0;
  if (!digits(&major) || !absl::ConsumePrefix(&v, ".") || !digits(&minor)) return "";
  if (major == 0 && minor < 21) return "";
  return absl::StrCat("KV cache: ", kv.usable_blocks, " blocks, derived as vLLM 0.19 derives them, but the run is vLLM ",
                      r.vllm_version, ", which also subtracts an estimate of its CUDA graphs' memory "
                      "(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, on by default from 0.21): the run had fewer. Its "
                      "log's `GPU KV cache size: N tokens` (N / ", r.args.block_size, " blocks) goes to --kv-blocks");
}

}  // namespace serq::vllm
