#include "serq/physics_cli.h"

#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ir/cli.h"
#include "serq/physics.h"

ABSL_FLAG(std::string, gpu, "", "physics: the GPU of the hardware file (BLIS's hardware_config.json names several)");
ABSL_FLAG(uint32_t, tp, 1, "physics: tensor-parallel degree");
ABSL_FLAG(std::string, coefficients, "",
          "physics: a JSON file of {alpha_coeffs, beta_coeffs} (default: BLIS's trained-physics "
          "defaults)");
ABSL_FLAG(std::string, replay, "",
          "physics: write a whole program replaying this trace (columns input_tokens and "
          "output_tokens), not only the block");
ABSL_FLAG(double, kv_tokens, 0, "physics: with --replay, the KV pool's tokens (default: unbounded)");
ABSL_FLAG(std::string, columns, "input_tokens,output_tokens",
          "physics: with --replay, the trace's prompt and output columns (a vLLM requests.jsonl: "
          "input_toks,output_toks)");
ABSL_FLAG(double, max_num_seqs, 256, "physics: the step stage's jobs a step (vLLM's max_num_seqs)");
ABSL_FLAG(double, max_num_batched_tokens, 2048,
          "physics: the step stage's tokens a step (vLLM's max_num_batched_tokens)");

namespace serq {

std::vector<FlagUse> PhysicsFlagUses() {
  return {
      {"gpu", !absl::GetFlag(FLAGS_gpu).empty(), {"physics"}},
      {"tp", absl::GetFlag(FLAGS_tp) != 1, {"physics"}},
      {"coefficients", !absl::GetFlag(FLAGS_coefficients).empty(), {"physics"}},
      {"replay", !absl::GetFlag(FLAGS_replay).empty(), {"physics"}},
      {"kv-tokens", absl::GetFlag(FLAGS_kv_tokens) != 0, {"physics"}},
      {"columns", absl::GetFlag(FLAGS_columns) != "input_tokens,output_tokens", {"physics"}},
      {"max-num-seqs", absl::GetFlag(FLAGS_max_num_seqs) != 256, {"physics"}},
      {"max-num-batched-tokens", absl::GetFlag(FLAGS_max_num_batched_tokens) != 2048, {"physics"}},
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

}  // namespace

int PhysicsMain(const CommandLine& line) {
  if (line.positional.size() != 2) {
    return Usage(absl::StrCat("serq physics: expected CONFIG.json HARDWARE.json, got ",
                              line.positional.size(), " files"));
  }
  if (!line.defines.empty()) return Usage("-D does not apply to 'serq physics'");
  const std::string& config_path = line.positional[0];
  const std::string& hardware_path = line.positional[1];
  absl::StatusOr<std::string> text = ReadInput(config_path);
  if (!text.ok()) return Rejected(text.status());
  absl::StatusOr<physics::ModelShape> model = physics::ReadModelConfig(*text, config_path);
  if (!model.ok()) return Rejected(model.status());
  if (!(text = ReadInput(hardware_path)).ok()) return Rejected(text.status());
  absl::StatusOr<physics::Gpu> gpu = physics::ReadGpu(*text, hardware_path, absl::GetFlag(FLAGS_gpu));
  if (!gpu.ok()) return Rejected(gpu.status());
  physics::Coefficients coefficients = physics::BlisDefaults();
  if (const std::string path = absl::GetFlag(FLAGS_coefficients); !path.empty()) {
    if (!(text = ReadInput(path)).ok()) return Rejected(text.status());
    absl::StatusOr<physics::Coefficients> read = physics::ReadCoefficients(*text, path);
    if (!read.ok()) return Rejected(read.status());
    coefficients = *read;
  }
  physics::BlockOptions options;
  options.tp = static_cast<int>(absl::GetFlag(FLAGS_tp));
  options.config_file = InputName(config_path);
  options.hardware_file = InputName(hardware_path);
  options.trace = absl::GetFlag(FLAGS_replay);
  options.kv_tokens = absl::GetFlag(FLAGS_kv_tokens);
  if (!(options.kv_tokens >= 0)) return Usage("--kv-tokens must be at least 0");
  if (options.kv_tokens > 0 && options.trace.empty()) return Usage("--kv-tokens needs --replay");
  std::vector<std::string> columns = absl::StrSplit(absl::GetFlag(FLAGS_columns), ',');
  if (columns.size() != 2 || columns[0].empty() || columns[1].empty()) {
    return Usage("--columns must be PROMPT,OUTPUT, e.g. input_toks,output_toks");
  }
  options.prompt_column = columns[0];
  options.output_column = columns[1];
  options.seqs = absl::GetFlag(FLAGS_max_num_seqs);
  options.tokens = absl::GetFlag(FLAGS_max_num_batched_tokens);
  if (!(options.seqs >= 1) || !(options.tokens >= 1)) {
    return Usage("--max-num-seqs and --max-num-batched-tokens must be at least 1");
  }
  absl::StatusOr<std::string> block = physics::PhysicsBlock(*model, *gpu, coefficients, options);
  if (!block.ok()) {
    PrintToolError("serq", block.status().message());
    return kExitInputRejected;
  }
  if (absl::Status s = WriteStdout(*block); !s.ok()) {
    PrintToolError("serq", s.message());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace serq
