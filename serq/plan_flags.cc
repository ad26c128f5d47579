#include "serq/plan_flags.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ir/flags.h"

ABSL_FLAG(int32_t, gpus, 0, "plan: the GPU budget, 1 to 1024: no candidate uses more");
ABSL_FLAG(int32_t, max_gpus, 64,
          "plan: with --rate and no --gpus, the most GPUs (at most 1024) the budget grows to in search of the "
          "fewest that meet the rate");
ABSL_FLAG(std::string, tps, "",
          "plan: the tensor-parallel degrees to try, e.g. 1,2,4 (default: every power of 2 up to --gpus "
          "that the model allows and that fits the GPU's memory)");
ABSL_FLAG(std::string, kinds, "colocated,disaggregated", "plan: the kinds of candidates: colocated, disaggregated");
ABSL_FLAG(std::string, seqs, "", "plan: vLLM's max_num_seqs values to try, e.g. 128,256 (default: vLLM's)");
ABSL_FLAG(std::string, batched_tokens, "",
          "plan: vLLM's max_num_batched_tokens values to try, e.g. 2048,8192 (default: vLLM's)");
ABSL_FLAG(std::string, disaggregated_gpus, "budget",
          "plan: disaggregated candidates on exactly --gpus GPUs (budget) or on any number up to it (all)");
ABSL_FLAG(std::string, kv_link, "",
          "plan: the link the KV cache crosses between prefill and decode engines, a name of serq's "
          "interconnects (default: --interconnect's, or the GPU's)");
ABSL_FLAG(double, price, 0, "plan: the price of a GPU-hour, for the cost of a million output tokens");
ABSL_FLAG(int32_t, top, 5, "plan: how many candidates the summary ranks");
ABSL_FLAG(double, max_rate_per_gpu, 16, "plan: the search's top, requests a second a GPU");
ABSL_FLAG(int32_t, rate_steps, 64, "plan: the search's grid: its top / this apart (2 to 10000)");
ABSL_FLAG(std::string, routers, "",
          "plan: the routers to try for colocated candidates of more than one engine: least-loaded, "
          "round-robin (default: vLLM's own choice)");
ABSL_FLAG(std::string, run, "",
          "plan: a run folder (serq vllm's layout): the model, the GPU and the step time from its GPU "
          "profile at each TP degree the profile has, instead of --model and --gpu");
ABSL_FLAG(bool, no_early_stop, false,
          "plan: search every disaggregated candidate to the end, even once it cannot reach the front");
ABSL_FLAG(std::optional<uint32_t>, candidate, std::nullopt,
          "plan: search candidate K of the plan that --emit wrote in --out DIR, alone, and write its result there "
          "(what each emitted task runs)");

namespace serq {

std::vector<FlagUse> PlanFlagUses() {
  return {
      {"gpus", {"plan"}},
      {"max-gpus", {"plan"}},
      {"tps", {"plan"}},
      {"kinds", {"plan"}},
      {"seqs", {"plan"}},
      {"batched-tokens", {"plan"}},
      {"max-model-len", {"plan"}, "",
       "vLLM's max_model_len for every candidate (default: the model's; a candidate whose KV cache cannot hold "
       "one request of it is not one, as vLLM would not start)"},
      {"disaggregated-gpus", {"plan"}},
      {"kv-link", {"plan"}},
      {"price", {"plan"}},
      {"top", {"plan"}},
      {"max-rate-per-gpu", {"plan"}},
      {"rate-steps", {"plan"}},
      {"no-early-stop", {"plan"}},
      {"run", {"plan"}},
      {"routers", {"plan"}},
      {"candidate", {"plan"}},
      // Shared with serq sweep.
      {"merge", {"plan"}, "",
       "write the plan's files from a folder whose tasks ran (--emit)"},
      {"emit", {"plan"}, "",
       "parallel or slurm: write the plan into --out and print its tasks (needs --no-early-stop)"},
      // Shared with serq physics and serq search (FlagNotFor joins a
      // flag's entries).
      {"model", {"plan"}, "",
       "the model: a preset (below) or a Hugging Face config.json"},
      {"gpu", {"plan"}, "", "the GPU: a preset (below) or a datasheet file"},
      {"rate", {"plan"}, "",
       "a target rate, requests a second: with --gpus, the fewest GPUs among the candidates that meet it; "
       "without, the fewest GPUs (a budget search up to --max-gpus) and their front"},
      {"lengths", {"plan"}, "",
       "the prompt and output lengths of the Poisson workload (as serq physics's --lengths)"},
      {"replay", {"plan"}, "",
       "the workload: this trace, its arrivals scaled to each rate the search tries"},
      {"columns", {"plan"}, "",
       "with --replay: the trace's prompt and output columns, PROMPT,OUTPUT"},
      {"requests", {"plan"}, "",
       "the Poisson arrivals a point's replication runs after its warm-up (at least 100)", "1000"},
      {"coefficients", {"plan"}, "",
       "the physics corrections (serq physics's --coefficients; default BLIS's global ones)"},
      {"interconnect", {"plan"}, "",
       "the link between an engine's GPUs (tensor and expert parallel), by name; default the GPU's"},
      {"enforce-eager", {"plan"}, "",
       "vLLM's enforce_eager for every candidate: no CUDA graphs, every step at its own tokens, and "
       "--enforce-eager on its vllm serve lines"},
      {"out", {"plan"}, "", "the folder of the plan's files (required)"},
      {"until", {"plan"}, "",
       "the SLOs every candidate's rate meets, e.g. 'p99(ttft) <= 2 && p99(tpot) <= 0.05' (required)"},
      {"max-replications", {"plan"}, "",
       "the most replications a point gets while its verdict is undecided", "16"},
      {"max-in-progress", {"plan"}, "",
       "a point fails when more than this share of its sessions is in progress at the horizon", "0.5"},
  };
}

// "1,2,4" as whole numbers at least 1, or an error naming the flag.
bool CommaNumbers(const std::string& flag, const std::string& text, std::vector<int64_t>* out, std::string* error) {
  absl::flat_hash_set<int64_t> seen;  // a long list is not read in quadratic time
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    int64_t v;
    if (!absl::SimpleAtoi(part, &v) || v < 1) {
      *error = absl::StrCat("--", flag, " must be whole numbers at least 1, separated by commas: '", part, "'");
      return false;
    }
    if (!seen.insert(v).second) {
      // Twice would be the same candidates twice, writing one file.
      *error = absl::StrCat("--", flag, " names ", v, " twice");
      return false;
    }
    out->push_back(v);
  }
  return true;
}

// The flags that make a plan's settings, as given: what --emit records
// and --candidate and --merge set again (every one serq plan reads but
// those naming the run itself).
std::vector<std::pair<std::string, std::string>> SettingFlags(bool record_out) {
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<FlagUse> uses = SharedFlagUses();
  for (const FlagUse& u : PlanFlagUses()) uses.push_back(u);
  for (const FlagUse& u : uses) {
    const std::string name = u.name;
    if (!FlagGiven(name) || name == "candidate" || name == "merge" || name == "emit" || name == "jobs") continue;
    bool plans = false;
    for (absl::string_view c : u.commands) plans |= c == "plan";
    if (!plans || (!record_out && name == "out")) continue;
    if (const absl::CommandLineFlag* f = FindFlagNamed(name)) out.emplace_back(name, f->CurrentValue());
  }
  return out;
}

// The command line without --emit and --jobs (as `--emit=X` or `--emit
// X`): how the plan is run changes none of its files, and the page records
// the command, so a local run, an emitted one and any --jobs write it alike.
std::string RecordedCommand(const std::vector<std::string>& argv) {
  std::vector<std::string> kept;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    bool dropped = false;
    for (absl::string_view flag : {"emit", "jobs"}) {
      if (a == absl::StrCat("--", flag) || a == absl::StrCat("-", flag)) {
        ++i;  // its value
        dropped = true;
      } else if (absl::StartsWith(a, absl::StrCat("--", flag, "=")) ||
                 absl::StartsWith(a, absl::StrCat("-", flag, "="))) {
        dropped = true;
      }
    }
    if (!dropped) kept.push_back(a);
  }
  return absl::StrJoin(kept, " ");
}

}  // namespace serq
