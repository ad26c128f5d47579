#include "serq/vllm_cli.h"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/cli.h"
#include "ir/flags.h"
#include "net/interconnect.h"
#include "ir/output.h"
#include "serq/models/program_text.h"
#include "serq/models/vllm_engine.h"
#include "serq/pipeline/commands.h"
#include "serq/vllm/generate.h"
#include "stats/format.h"

ABSL_FLAG(std::optional<int64_t>, kv_blocks, std::nullopt,
          "vllm, physics: the KV cache of each engine in vLLM's blocks (its num_gpu_blocks, the null block "
          "included), instead of the run's or the derived count");
ABSL_FLAG(std::optional<double>, gpu_memory_utilization, std::nullopt,
          "vllm, physics: the share of GPU memory vLLM may use, for the derived KV cache (default: the "
          "run's, else 0.9)");
ABSL_FLAG(std::optional<double>, gpu_memory, std::nullopt,
          "vllm, physics: a GPU's memory in GiB, for the derived KV cache (default: meta.json's "
          "hardware.device_total_memory_bytes, else llmservingsim-config.json's mem_size, or CUDA's total "
          "of its GPU's preset where mem_size is the vendor's figure); physics: a GPU's memory in GiB, for the "
          "derived KV cache (default: the datasheet's MemoryGiB)");
ABSL_FLAG(bool, no_skew, false,
          "vllm: attention at the decodes' mean KV only, without the profile's skew blend");
ABSL_FLAG(bool, no_prefix_cache, false, "vllm, physics: prefix caching off (vLLM 0.19's default is on)");
ABSL_FLAG(bool, enforce_eager, false,
          "vllm, physics, plan: vLLM's enforce_eager: no CUDA graphs, every step at its own tokens (default: the "
          "run's graphs, else vLLM 0.19's: a step of up to min(2 x max_num_seqs, 512, "
          "max_num_batched_tokens) tokens padded to the next captured size)");
ABSL_FLAG(std::string, interconnect, "",
          "vllm, physics, plan: the link between GPUs by name (pcie4-x16, pcie5-x16, nvlink3, nvlink4, nvlink5, xgmi), "
          "instead of the run's llmservingsim-config.json");
ABSL_FLAG(std::optional<double>, expert_balancedness, std::nullopt,
          "vllm, physics: how evenly the experts' work spreads over the GPUs of expert parallel, as vLLM's EPLB "
          "logs it: the mean over the most of the (token, expert) pairs a GPU computes, from 1 / the GPUs to 1 "
          "(default 1: balanced routing, LLMServingSim's BALANCED); the busiest GPU sets each MoE layer's time");
ABSL_DECLARE_FLAG(std::string, out);

namespace serq {

std::vector<FlagUse> VllmFlagUses() {
  return {
      {"kv-blocks", {"vllm"}},
      {"gpu-memory-utilization", {"vllm"}},
      {"gpu-memory", {"vllm"}},
      {"no-skew", {"vllm"}},
      {"no-prefix-cache", {"vllm", "physics"}},
      {"enforce-eager", {"vllm"}},
      {"interconnect", {"vllm"}},
      {"expert-balancedness", {"vllm", "physics"}},
      // serq physics has no run folder: the same flags, its own defaults.
      {"kv-blocks", {"physics"}, "",
       "the KV cache of each engine in vLLM's blocks (its num_gpu_blocks, the null block included), instead of "
       "the count derived from the GPU's memory"},
      {"gpu-memory-utilization", {"physics"}, "",
       "the share of GPU memory vLLM may use, for the derived KV cache (default 0.9, vLLM's)"},
      {"gpu-memory", {"physics"}, "",
       "a GPU's memory in GiB, for the derived KV cache (default: the GPU's datasheet, MemoryGiB)"},
      {"enforce-eager", {"physics"}, "",
       "vLLM's enforce_eager: no CUDA graphs, every step at its own tokens (default: vLLM 0.19's graphs, a step "
       "of up to min(2 x max_num_seqs, 512, max_num_batched_tokens) tokens padded to the next captured size)"},
      {"interconnect", {"physics"}, "",
       "the link between GPUs by name (pcie4-x16, pcie5-x16, nvlink3, nvlink4, nvlink5, xgmi), instead of the GPU's "
       "datasheet's Interconnect"},
  };
}

std::string KvFlagsMisuse() {
  const std::optional<int64_t> blocks = absl::GetFlag(FLAGS_kv_blocks);
  if (blocks && !(*blocks >= 2 && *blocks <= models::kMaxKvBlocks)) {
    return absl::StrCat("--kv-blocks must be from 2 (vLLM's null block and one more) to ", models::kMaxKvBlocks,
                        ", not ", *blocks);
  }
  const std::optional<double> util = absl::GetFlag(FLAGS_gpu_memory_utilization);
  if (util && !(*util > 0 && *util <= 1)) {
    return absl::StrCat("--gpu-memory-utilization must be above 0 and at most 1, not ", report::FormatShortest(*util));
  }
  const std::optional<double> gib = absl::GetFlag(FLAGS_gpu_memory);
  if (gib && !(*gib > 0 && std::isfinite(*gib))) {
    return absl::StrCat("--gpu-memory must be a finite number above 0 (GiB), not ", report::FormatShortest(*gib));
  }
  return "";
}

std::string ExpertBalancednessMisuse() {
  const std::optional<double> b = absl::GetFlag(FLAGS_expert_balancedness);
  if (b && !(*b > 0 && *b <= 1)) {
    return absl::StrCat("--expert-balancedness must be above 0 and at most 1 (the mean over the most of the GPUs' "
                        "pairs), not ", report::FormatShortest(*b));
  }
  return "";
}

std::optional<double> ExpertBalancednessFlag() { return absl::GetFlag(FLAGS_expert_balancedness); }

int VllmMain(const CommandLine& line) {
  if (line.positional.size() != 1 || line.positional[0].empty()) {
    if (line.positional.size() == 1) return Usage("serq vllm: expected a run folder, got an empty name");
    return Usage(absl::StrCat("serq vllm: expected one run folder, got ", line.positional.size()));
  }
  if (!line.defines.empty()) return Usage("-D does not apply to 'serq vllm'");
  vllm::Options options;
  options.kv.num_gpu_blocks = absl::GetFlag(FLAGS_kv_blocks);
  options.kv.gpu_memory_utilization = absl::GetFlag(FLAGS_gpu_memory_utilization);
  options.kv.gpu_memory_gib = absl::GetFlag(FLAGS_gpu_memory);
  if (std::string m = KvFlagsMisuse(); !m.empty()) return Usage(m);
  if (std::string m = ExpertBalancednessMisuse(); !m.empty()) return Usage(m);
  options.expert_balancedness = absl::GetFlag(FLAGS_expert_balancedness);
  options.skew = !absl::GetFlag(FLAGS_no_skew);
  options.prefix_cache = !absl::GetFlag(FLAGS_no_prefix_cache);
  options.enforce_eager = absl::GetFlag(FLAGS_enforce_eager);
  options.interconnect = absl::GetFlag(FLAGS_interconnect);
  if (std::string m = net::UnknownInterconnect("interconnect", options.interconnect); !m.empty()) return Usage(m);
  const std::string out = absl::GetFlag(FLAGS_out);
  options.program_dir = models::ProgramDirOf(out);
  // --out over a file of the run (--out RUN/requests.jsonl) would destroy
  // the run: its files and its profile's.
  {
    const std::filesystem::path run(line.positional[0]);
    std::vector<NamedPath> inputs;
    for (const char* file : {"requests.jsonl", "meta.json", "model.json", "llmservingsim-config.json",
                             "timeseries.csv"}) {
      inputs.push_back({absl::StrCat("the run's ", file), (run / file).string()});
    }
    std::error_code error;
    for (auto it = std::filesystem::recursive_directory_iterator(run / "profile", error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      if (it->is_regular_file(error)) inputs.push_back({"a file of the run's profile", it->path().string()});
    }
    if (absl::Status s = DistinctFiles({{"--out", out}}, inputs); !s.ok()) return Usage(s.message());
  }
  // The command, with the flags that change the program, for its first
  // lines: the program is the folder's and theirs (a figure to its last
  // digit, so that the command writes the program again).
  std::vector<std::string> words = {"serq vllm", line.positional[0]};
  auto add = [&](bool given, const char* flag, const std::string& value) {
    if (!given) return;
    words.push_back(value.empty() ? flag : absl::StrCat(flag, " ", value));
    options.flags = true;
  };
  add(options.kv.num_gpu_blocks.has_value(), "--kv-blocks", absl::StrCat(options.kv.num_gpu_blocks.value_or(0)));
  add(options.kv.gpu_memory_utilization.has_value(), "--gpu-memory-utilization",
      report::FormatShortest(options.kv.gpu_memory_utilization.value_or(0)));
  add(options.kv.gpu_memory_gib.has_value(), "--gpu-memory", report::FormatShortest(options.kv.gpu_memory_gib.value_or(0)));
  add(!options.interconnect.empty(), "--interconnect", options.interconnect);
  add(options.expert_balancedness.has_value(), "--expert-balancedness",
      report::FormatShortest(options.expert_balancedness.value_or(1)));
  add(!options.skew, "--no-skew", "");
  add(!options.prefix_cache, "--no-prefix-cache", "");
  add(options.enforce_eager, "--enforce-eager", "");
  options.command = absl::StrJoin(words, " ");
  absl::StatusOr<vllm::Generated> generated = vllm::GenerateProgram(line.positional[0], options);
  if (!generated.ok()) {
    std::cerr << generated.status().message() << "\n";
    return kExitInputRejected;
  }
  for (const std::string& w : generated->warnings) std::cerr << ToolWarning("serq vllm", w);
  for (const std::string& w : generated->unused_flags) std::cerr << ToolWarning("serq vllm", w);
  // The program links as written (the profile's tables read as the run
  // will read them), or nothing is written.
  CommandResult linked;
  if (!LinkGenerated(out, generated->program, &linked)) {
    std::cerr << linked.err;
    return linked.exit_code;
  }
  absl::Status written =
      out.empty() ? WriteStdout(generated->program) : WriteFile(out, generated->program);
  if (!written.ok()) {
    PrintToolError("serq", written.message());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace serq
