#include "serq/plan_cli.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <regex>
#include <set>
#include <tuple>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ir/cli.h"
#include "ir/progress.h"
#include "ir/flags.h"
#include "net/interconnect.h"
#include "ir/output.h"
#include "serq-sim/engine/simulate.h"
#include "serq/models/presets.h"
#include "serq/physics/physics.h"
#include "serq/physics_cli.h"
#include "serq/plan/candidate.h"
#include "serq/plan/emit.h"
#include "serq/plan/folder.h"
#include "serq/plan/grow.h"
#include "serq/plan/plan.h"
#include "serq/plan/program.h"
#include "serq/plan/render.h"
#include "serq/plan/replay.h"
#include "serq/plan/result_file.h"
#include "serq/plan_flags.h"
#include "serq/sweep/condition.h"
#include "serq/sweep/emit.h"
#include "serq/vllm/run_folder.h"
#include "stats/format.h"

ABSL_DECLARE_FLAG(std::string, merge);
ABSL_DECLARE_FLAG(std::string, emit);
ABSL_DECLARE_FLAG(std::string, model);
ABSL_DECLARE_FLAG(std::string, gpu);
ABSL_DECLARE_FLAG(double, rate);
ABSL_DECLARE_FLAG(std::string, lengths);
ABSL_DECLARE_FLAG(std::string, replay);
ABSL_DECLARE_FLAG(std::string, columns);
ABSL_DECLARE_FLAG(int64_t, requests);
ABSL_DECLARE_FLAG(std::string, coefficients);
ABSL_DECLARE_FLAG(bool, enforce_eager);
ABSL_DECLARE_FLAG(std::string, interconnect);
ABSL_DECLARE_FLAG(std::string, out);
ABSL_DECLARE_FLAG(std::string, until);
ABSL_DECLARE_FLAG(uint32_t, max_replications);
ABSL_DECLARE_FLAG(double, max_in_progress);

namespace serq {

namespace {

// A generator's message without its tool's prefix ("serq physics: error: "):
// serq plan says it as its own.
absl::string_view WithoutTool(absl::string_view m) {
  for (absl::string_view tool : {"serq physics: error: ", "serq vllm: error: "}) {
    if (absl::ConsumePrefix(&m, tool)) break;
  }
  return m;
}

// A generator's reason an engine does not fit, without the hint at its end
// ("...: give --kv-blocks N or --gpu-memory GIB", "; give --max-model-len at
// most N, more GPUs (--tp) or --gpu-memory-utilization"): it names the
// generator's flags, which serq plan does not take, and the plan says what
// to widen instead.
std::string WhyNot(const absl::Status& s) {
  std::string m(WithoutTool(s.message()));
  size_t at = std::string::npos;
  for (const char* hint : {": give ", "; give "}) {
    if (const size_t h = m.rfind(hint); h != std::string::npos && (at == std::string::npos || h > at)) at = h;
  }
  if (at != std::string::npos) m.erase(at);
  return m;
}

int Failed(const absl::Status& s) {
  if (absl::IsInvalidArgument(s)) {
    // A message that begins with its file ("run/meta.json: error: …",
    // "m.json:3:1: error: …", serq vllm's and the models' form) is printed
    // as it is; one that only quotes such an error, or a generator's own
    // ("serq physics: error: --replay …"), is serq plan's.
    const absl::string_view m = WithoutTool(s.message());
    if (const size_t at = m.find(": "); m.size() == s.message().size() && at != absl::string_view::npos &&
                                        m.substr(at, 9) == ": error: ") {
      std::cerr << m << "\n";
    } else {
      std::cerr << "serq plan: error: " << m << "\n";
    }
    return kExitInputRejected;
  }
  PrintToolError("serq", s.message());
  return kExitUsage;
}

// What the plan's step time comes from and its measured error on the runs
// at hand (docs/examples.md), for the summary and the page: a run folder's
// profile (`folder`; with `disaggregated` candidates, their KV link) or
// serq physics with BLIS's corrections or a file's.
std::string StepTimeSource(const vllm::RunFolder* folder, const std::string& run_dir, const std::string& gpu_name,
                           bool disaggregated, const std::string& kv_link, const std::string& coefficients_path) {
  return folder != nullptr ? absl::StrCat(
      "the GPU profile of the run folder ", run_dir, " (", folder->profile.gpu.empty() ? gpu_name : folder->profile.gpu,
      folder->profile.vllm_version.empty() ? "" : absl::StrCat(", vLLM ", folder->profile.vllm_version),
      ", eager mode) at each candidate's TP degree, every operator the architecture runs, the collectives "
      "over the run's link, the KV cache as vLLM derives it: serq vllm's program (docs/cli.md §serq vllm). Its "
      "measured error replaying the runs at hand (docs/examples.md §The figures; simulated - measured): "
      "Llama-3.1-8B on one RTX PRO 6000 TTFT mean +0.04%, p99 +1.80%, TPOT mean +0.42%, p99 +2.74%, E2E "
      "mean +0.29%; Qwen3-30B-A3B DP 2 EP TTFT mean -0.56%, TPOT mean +1.24%, E2E mean +1.15%; no run "
      "measures it at another TP degree or another engine count",
      disaggregated ? absl::StrCat(", nor disaggregated: a disaggregated candidate's prefill and decode "
                                   "engines each take the profile at their degree, and its KV transfer is "
                                   "serq's model of ", kv_link, ", which no run measures")
                    : "",
      ". The ± below are the simulation's (replications), not this error.")
                                    : absl::StrCat(
      "serq physics (BLIS's trained-physics roofline over the model's config and the GPU's datasheet, ",
      coefficients_path.empty() ? "BLIS's global corrections" : absl::StrCat("the corrections of ", coefficients_path),
      "; no profile of this deployment). Its measured error on the two runs at hand (docs/examples.md "
      "§Predicting a GPU nobody profiled; means, simulated - measured): Llama-3.1-8B on one RTX PRO 6000 "
      "TTFT +7.18%, TPOT +9.06%, E2E +8.45%; Qwen3-30B-A3B DP 2 EP TTFT -15.06%, TPOT +4.39%, E2E +3.82%; "
      "BLIS publishes a 6.7% median E2E error on its 36 held-out runs. The ± below are the simulation's "
      "(replications), not this error.");
}

}  // namespace

int PlanMain(const CommandLine& line) {
  if (!line.positional.empty()) return Usage("serq plan takes flags only (--model, --gpu, --gpus, --until, --out)");
  if (!line.defines.empty()) return Usage("-D does not apply to 'serq plan'");
  // --candidate K and --merge DIR: the plan's settings from DIR/plan.flags,
  // as --emit recorded them, relative paths from where it ran.
  const std::string merge_dir = absl::GetFlag(FLAGS_merge);
  const std::optional<uint32_t> task = absl::GetFlag(FLAGS_candidate);
  const std::string emit = absl::GetFlag(FLAGS_emit);
  std::optional<plan::Emitted> emitted;
  std::string plan_dir;
  if (!merge_dir.empty() || task) {
    const char* what = !merge_dir.empty() ? "--merge" : "--candidate";
    if (!merge_dir.empty() && task) return Usage("--merge and --candidate do not go together");
    if (!emit.empty()) return Usage(absl::StrCat(what, " and --emit do not go together"));
    if (absl::GetFlag(FLAGS_jobs)) {
      // A task is one candidate's search and the merge runs none: taken,
      // it would be ignored.
      return Usage(absl::StrCat("--jobs applies to running the candidates here, not to ", what));
    }
    if (task && absl::GetFlag(FLAGS_out).empty()) return Usage("--candidate needs --out DIR, the plan's folder");
    if (!merge_dir.empty() && !absl::GetFlag(FLAGS_out).empty()) {
      return Usage("--merge writes into the plan's own folder: no --out");
    }
    if (const auto given = SettingFlags(false); !given.empty()) {
      return Usage(absl::StrCat(what, " takes the plan's settings from its folder's plan.flags: give --",
                                given[0].first, " to the `serq plan --emit` that wrote it"));
    }
    plan_dir = std::filesystem::absolute(!merge_dir.empty() ? merge_dir : absl::GetFlag(FLAGS_out)).string();
    absl::StatusOr<std::string> text = ReadInput(plan::FlagsPath(plan_dir));
    if (!text.ok()) {
      PrintToolError("serq", absl::StrCat(text.status().message(), " (is ", plan_dir,
                                          " a folder `serq plan --emit` wrote?)"));
      return kExitUsage;
    }
    absl::StatusOr<plan::Emitted> e = plan::ParseEmitted(*text, plan::FlagsPath(plan_dir));
    if (!e.ok()) return Failed(e.status());
    emitted = *e;
    for (const auto& [name, value] : emitted->flags) {
      std::string error;
      if (!SetFlagAsGiven(name, value, &error)) {
        PrintToolError("serq", absl::StrCat(plan::FlagsPath(plan_dir), ": --", name, "=", value, ": ", error));
        return kExitUsage;
      }
    }
    if (chdir(emitted->cwd.c_str()) != 0) {
      PrintToolError("serq", absl::StrCat("cannot enter the plan's directory '", emitted->cwd, "'"));
      return kExitUsage;
    }
  }
  // Where the candidates' programs are written: by a local run and by
  // --emit, not by the tasks and the merge (they read them).
  const bool writes_programs = !emitted;
  const std::string run_dir = absl::GetFlag(FLAGS_run);
  std::string model_name = absl::GetFlag(FLAGS_model), gpu_name = absl::GetFlag(FLAGS_gpu);
  if (!run_dir.empty() && (!model_name.empty() || !gpu_name.empty())) {
    return Usage("--run takes the model and the GPU from the run folder: no --model or --gpu");
  }
  if (run_dir.empty() && (model_name.empty() || gpu_name.empty())) {
    return Usage(
        "expected --model (a preset or a config.json) and --gpu (a preset or a datasheet), or --run "
        "RUN_DIR");
  }
  // Signed flags, so that a value past an int's range is Abseil's error and
  // a negative one ours, never a wrapped count.
  const int gpus = absl::GetFlag(FLAGS_gpus);
  // 0 is the flag's default (no budget: --rate grows one), so only a
  // --gpus given as 0 or below is out of range.
  if (gpus < 0 || (gpus == 0 && FlagGiven("gpus"))) return Usage(absl::StrCat("--gpus must be at least 1, not ", gpus));
  if (absl::GetFlag(FLAGS_top) < 0) return Usage("--top must be at least 0");
  const double target = absl::GetFlag(FLAGS_rate);
  if (!(target >= 0 && std::isfinite(target))) {
    return Usage(absl::StrCat("--rate must be a number of requests a second, at least 0, not ",
                              report::FormatShortest(target)));
  }
  // --rate without --gpus: the budget grown to the fewest GPUs meeting it.
  const bool grows = gpus < 1 && target > 0;
  if (gpus < 1 && !grows) {
    return Usage("expected --gpus N, the GPU budget, or --rate R alone, a target rate (the fewest GPUs "
                 "that meet it)");
  }
  const int max_gpus = absl::GetFlag(FLAGS_max_gpus);
  if (!grows && FlagGiven("max-gpus")) {
    return Usage("--max-gpus goes with --rate without --gpus (the most GPUs the budget grows to)");
  }
  if (max_gpus < 1) return Usage("--max-gpus must be at least 1");
  const std::string until = absl::GetFlag(FLAGS_until);
  if (until.empty()) return Usage("expected --until, the SLOs, e.g. 'p99(ttft) <= 2 && p99(tpot) <= 0.05'");
  const std::string out = absl::GetFlag(FLAGS_out);
  if (out.empty()) return Usage("expected --out DIR, the folder of its files");
  absl::StatusOr<Condition> condition = ParseCondition(until);
  if (!condition.ok()) return Usage(absl::StrCat("--until: ", condition.status().message()));
  if (!(absl::GetFlag(FLAGS_price) >= 0 && std::isfinite(absl::GetFlag(FLAGS_price)))) {
    return Usage("--price must be a finite number, at least 0 (dollars a GPU-hour)");
  }
  if (!(absl::GetFlag(FLAGS_max_rate_per_gpu) > 0 && std::isfinite(absl::GetFlag(FLAGS_max_rate_per_gpu)))) {
    return Usage("--max-rate-per-gpu must be a finite number above 0");
  }
  if (absl::GetFlag(FLAGS_rate_steps) < 2) return Usage("--rate-steps must be at least 2");
  if (std::string m = MaxReplicationsMisuse(absl::GetFlag(FLAGS_max_replications)); !m.empty()) return Usage(m);

  std::string model_source;
  absl::StatusOr<models::ModelConfig> model;
  absl::StatusOr<models::Gpu> gpu;
  std::optional<vllm::RunFolder> folder;
  if (run_dir.empty()) {
    models::ReadOptions read;
    read.latent_attention = read.quantized = true;
    read.tool = "serq plan";
    model = models::ResolveModel(model_name, read, &model_source);
    if (!model.ok()) return Failed(model.status());
    gpu = models::ResolveGpu(gpu_name);
    if (!gpu.ok()) return Failed(gpu.status());
  } else {
    absl::StatusOr<vllm::RunFolder> r = vllm::ReadRunFolder(run_dir);
    if (!r.ok()) return Failed(r.status());
    folder = *r;
    model = folder->model;
    models::Gpu g;
    g.name = vllm::GpuName(*folder);
    g.what = folder->profile.gpu;
    gpu = g;
    model_name = folder->args.model.empty() ? folder->name : folder->args.model;
    gpu_name = g.name;
  }

  plan::ProgramSettings settings;
  physics::ProgramOptions& base = settings.base;
  const std::string coefficients_path = absl::GetFlag(FLAGS_coefficients);
  if (folder && !coefficients_path.empty()) {
    // A run folder's candidates are timed by its profile: the physics
    // corrections would be read and ignored.
    return Usage("--coefficients corrects the physics step time of --model and --gpu; a --run folder's candidates "
                 "are timed by its profile");
  }
  if (!coefficients_path.empty()) {
    absl::StatusOr<std::string> text = ReadInput(coefficients_path);
    if (!text.ok()) return Failed(text.status());
    absl::StatusOr<physics::Coefficients> c = physics::ReadCoefficients(*text, coefficients_path);
    if (!c.ok()) return Failed(c.status());
    base.coefficients = *c;
    base.coefficients_file = coefficients_path;
  }
  base.deployment.interconnect = absl::GetFlag(FLAGS_interconnect);
  if (std::string m = net::UnknownInterconnect("interconnect", base.deployment.interconnect); !m.empty()) return Usage(m);
  // vLLM's max_model_len for every candidate (a run folder's is its own).
  if (std::string m = MaxModelLenMisuse(); !m.empty()) return Usage(m);
  if (folder && FlagGiven("max-model-len")) {
    return Usage("--max-model-len does not apply to --run: the run folder's engine has its own");
  }
  base.deployment.max_model_len = MaxModelLenFlag();
  if (std::string m = net::UnknownInterconnect("kv-link", absl::GetFlag(FLAGS_kv_link)); !m.empty()) return Usage(m);
  if (FlagGiven("lengths")) {
    if (absl::StatusOr<physics::LengthLines> l = physics::ParseLengthLines(absl::GetFlag(FLAGS_lengths)); !l.ok()) {
      return Usage(absl::StripPrefix(l.status().message(), "serq physics: error: "));
    }
  }
  base.workload.rate = target > 0 ? target : 1;
  base.workload.lengths = absl::GetFlag(FLAGS_lengths);
  base.workload.replay = absl::GetFlag(FLAGS_replay);
  if (!base.workload.replay.empty() && (FlagGiven("lengths") || FlagGiven("requests"))) {
    return Usage("--lengths and --requests go with Poisson arrivals, not --replay (the trace's own lengths and rows)");
  }
  if (const std::string columns = absl::GetFlag(FLAGS_columns); !columns.empty()) {
    std::vector<std::string> parts = absl::StrSplit(columns, ',');
    if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
      return Usage("--columns must be PROMPT,OUTPUT, e.g. input_toks,output_toks");
    }
    if (base.workload.replay.empty()) return Usage("--columns goes with --replay");
    base.workload.prompt_column = parts[0];
    base.workload.output_column = parts[1];
  }
  // The workload, once, against the model (the trace read as the replay
  // reads it; max_model_len and the prompts): what vLLM would refuse
  // whatever the GPUs is said here, not as every candidate's failure. The
  // rate, which the search chooses, changes nothing of it. A run folder's
  // engine has its own max_model_len: its trace is read alone.
  if (!folder) {
    physics::Workload w = base.workload;
    w.rate = w.replay.empty() ? 1 : 0;
    w.requests = 1;
    if (absl::Status fit = physics::FitWorkload(*model, base.deployment, w).status(); !fit.ok()) return Failed(fit);
  } else if (!base.workload.replay.empty()) {
    std::string prompt, output;
    if (absl::Status rows = physics::ReplayRequests(base.workload, &prompt, &output).status(); !rows.ok()) {
      return Failed(rows);
    }
  }
  base.model_name = model_name;
  base.model_source = model_source;
  // The files a program names (a trace, a profile's tables), relative to
  // where it is written: DIR/programs/ (the best ones: DIR, below).
  base.program_dir = (std::filesystem::path(out) / "programs").string();
  settings.kv_link = absl::GetFlag(FLAGS_kv_link);
  settings.run_dir = run_dir;
  settings.seed = absl::GetFlag(FLAGS_seed);
  // Written into the programs' run { seed }, which the language bounds.
  if (settings.seed && *settings.seed > (uint64_t{1} << 53)) {
    return Usage(absl::StrCat("--seed ", *settings.seed, ": serq plan writes it into its programs' run { seed }, "
                              "a whole number from 0 to 2^53"));
  }
  if (folder) settings.kv_dtype_bytes = models::KvDtypeBytes(folder->args.kv_cache_dtype, folder->model);
  settings.run.interconnect = base.deployment.interconnect;
  // --enforce-eager: every candidate's engines without CUDA graphs, from
  // presets or from the folder (whatever graphs the run had).
  base.deployment.enforce_eager = settings.run.enforce_eager = absl::GetFlag(FLAGS_enforce_eager);
  // serq plan's own defaults where a flag shared with another command is
  // not given (given its value, whatever it is, is kept).
  settings.requests = FlagGiven("requests") ? absl::GetFlag(FLAGS_requests) : 1000;
  if (absl::GetFlag(FLAGS_warmup)) {
    settings.warmup = *absl::GetFlag(FLAGS_warmup);
    if (!(settings.warmup >= 0 && settings.warmup <= 1e9)) {
      return Usage("--warmup must be a number of seconds from 0 to 1e9");
    }
  }
  if (settings.requests < 100) return Usage("--requests must be at least 100 for serq plan (arrivals a replication)");

  // The most GPUs a candidate may use: the budget, or with --rate alone
  // the cap of the budgets tried.
  const int limit = grows ? max_gpus : gpus;
  const char* limit_flag = grows ? "--max-gpus" : "--gpus";
  plan::Space space;
  std::string error;
  // With a run folder, the degrees its profile has: a candidate at another
  // is not enumerated, and the summary says so (for the degrees up to the
  // budget planned); so is a degree that cannot serve the model while a
  // smaller or larger one can (its reason, the generator's).
  std::vector<std::pair<int, std::string>> unplanned;
  auto profiled = [&](int t) {
    if (!folder) return true;
    for (int p : folder->profile.tp_degrees) {
      if (p == t) return true;
    }
    unplanned.emplace_back(t, absl::StrCat("tensor parallel ", t, ": the profile (", folder->profile.path,
                                            ") has tp_degrees [", absl::StrJoin(folder->profile.tp_degrees, ", "),
                                            "]"));
    return false;
  };
  if (const std::string tps = absl::GetFlag(FLAGS_tps); !tps.empty()) {
    std::vector<int64_t> v;
    if (!CommaNumbers("tps", tps, &v, &error)) return Usage(error);
    for (int64_t t : v) {
      if (t > limit) return Usage(absl::StrCat("--tps ", t, " is more than ", limit_flag, " ", limit));
      if (!profiled(static_cast<int>(t))) continue;
      if (absl::Status fits = plan::Fits(*model, *gpu, static_cast<int>(t), settings); !fits.ok()) {
        if (!absl::IsInvalidArgument(fits)) return Usage(absl::StripPrefix(fits.message(), "serq physics: error: "));
        if (folder) {
          return Usage(absl::StrCat("--tps ", t, ": an engine of ", t, " GPUs cannot serve the run's model: ",
                                    WhyNot(fits)));
        }
        return Usage(absl::StrCat("--tps ", t, ": an engine of ", t, " x ", gpu->name, " cannot serve ", model_name,
                                  ": ", WhyNot(fits)));
      }
      space.tps.push_back(static_cast<int>(t));
    }
  } else {
    // Why the largest degree tried does not fit: the generator's own words
    // (the memory, or a workload it cannot read).
    std::string why;
    for (int t = 1; t <= limit; t *= 2) {
      if (!profiled(t)) continue;
      if (absl::Status fits = plan::Fits(*model, *gpu, t, settings); fits.ok()) {
        space.tps.push_back(t);
      } else if (!absl::IsInvalidArgument(fits)) {
        // A workload that cannot be read (NotFound, DataLoss) is misuse,
        // as in serq physics, not a model too large for the GPUs.
        return Usage(absl::StripPrefix(fits.message(), "serq physics: error: "));
      } else {
        why = absl::StrCat("at tensor parallel ", t, ", ", WhyNot(fits));
        unplanned.emplace_back(t, absl::StrCat("tensor parallel ", t, ": ", WhyNot(fits)));
      }
    }
    if (space.tps.empty() && folder) {
      return Failed(absl::InvalidArgumentError(absl::StrCat(
          run_dir, ": no engine of up to ", limit, " GPUs at a degree the profile has (tp_degrees [",
          absl::StrJoin(folder->profile.tp_degrees, ", "), "]) can serve the run's model",
          why.empty() ? "" : ": ", why)));
    }
    if (space.tps.empty()) {
      return Failed(absl::InvalidArgumentError(absl::StrCat(model_name, " fits no engine of up to ", limit, " x ",
                                                            gpu->name, why.empty() ? "" : ": ", why)));
    }
  }
  const bool kinds_given = FlagGiven("kinds");
  // From a run folder, disaggregated candidates by default only with
  // --kv-link: the folder does not say which link the KV cache would cross.
  const std::string kinds = folder && !kinds_given && !FlagGiven("kv-link")
                                ? "colocated"
                                : absl::GetFlag(FLAGS_kinds);
  space.colocated = space.disaggregated = false;
  for (absl::string_view k : absl::StrSplit(kinds, ',')) {
    bool* kind = k == "colocated" ? &space.colocated : k == "disaggregated" ? &space.disaggregated : nullptr;
    if (kind == nullptr) return Usage(absl::StrCat("--kinds: '", k, "' is neither colocated nor disaggregated"));
    if (*kind) return Usage(absl::StrCat("--kinds names ", k, " twice"));
    *kind = true;
  }
  const std::string sizes = absl::GetFlag(FLAGS_disaggregated_gpus);
  if (sizes != "budget" && sizes != "all") return Usage("--disaggregated-gpus must be budget or all");
  // Each kind's own flags: with the kind left out they would be ignored.
  // The kinds as chosen: by --kinds, or for a run folder colocated unless
  // --kv-link names the link a disaggregated candidate's KV would cross.
  const std::string none = kinds_given ? "--kinds has none"
                                       : "a --run folder plans none unless --kv-link or --kinds asks for them";
  if (!space.disaggregated) {
    for (const char* flag : {"kv-link", "disaggregated-gpus"}) {
      if (FlagGiven(flag)) {
        return Usage(absl::StrCat("--", flag, " applies to disaggregated candidates, and ", none));
      }
    }
  }
  if (!space.colocated && FlagGiven("routers")) {
    return Usage("--routers applies to colocated candidates, and --kinds has none");
  }
  if (const std::string routers = absl::GetFlag(FLAGS_routers); !routers.empty()) {
    space.routers.clear();
    for (absl::string_view r : absl::StrSplit(routers, ',')) {
      if (r != plan::kRouters[0] && r != plan::kRouters[1]) {
        return Usage(absl::StrCat("--routers: '", r, "' is neither least-loaded nor round-robin"));
      }
      if (std::find(space.routers.begin(), space.routers.end(), r) != space.routers.end()) {
        return Usage(absl::StrCat("--routers names ", r, " twice"));
      }
      space.routers.push_back(std::string(r));
    }
  }
  if (folder) {
    // The run's own limits unless the flags give others: a candidate is
    // labelled with them, and its `vllm serve` line passes them.
    if (folder->args.max_num_seqs > 0) space.max_num_seqs = {folder->args.max_num_seqs};
    if (folder->args.max_num_batched_tokens > 0) space.max_num_batched_tokens = {folder->args.max_num_batched_tokens};
  }
  for (auto [flag, list, target_list] :
       {std::tuple{"seqs", absl::GetFlag(FLAGS_seqs), &space.max_num_seqs},
        std::tuple{"batched-tokens", absl::GetFlag(FLAGS_batched_tokens), &space.max_num_batched_tokens}}) {
    if (list.empty()) continue;
    target_list->clear();
    if (!CommaNumbers(flag, list, target_list, &error)) return Usage(error);
  }

  // What every budget's plan shares.
  plan::PlanSpec shared;
  shared.condition = *condition;
  if (absl::GetFlag(FLAGS_seed)) shared.base.sim.seed = absl::GetFlag(FLAGS_seed);
  shared.replications = absl::GetFlag(FLAGS_replications).value_or(4);
  shared.max_replications = FlagGiven("max-replications") ? absl::GetFlag(FLAGS_max_replications) : 16;
  if (shared.replications < 2) return Usage("--replications must be at least 2 for serq plan (its ± need them)");
  // A stable run leaves about E2E / horizon of its sessions in progress;
  // plan's runs are short (Requests arrivals, MinHorizon seconds), so its
  // default bound is 0.5 and the steady-state verdict catches overload.
  shared.max_in_progress = FlagGiven("max-in-progress") ? absl::GetFlag(FLAGS_max_in_progress) : 0.5;
  if (!(shared.max_in_progress >= 0 && shared.max_in_progress <= 1)) {
    return Usage("--max-in-progress must be a share from 0 to 1");
  }
  if (std::string m = ReplicationsAboveMost(shared.replications, shared.max_replications); !m.empty()) return Usage(m);
  if (absl::GetFlag(FLAGS_jobs) && *absl::GetFlag(FLAGS_jobs) == 0) return Usage("--jobs must be at least 1");
  shared.max_rate_per_gpu = absl::GetFlag(FLAGS_max_rate_per_gpu);
  shared.steps = absl::GetFlag(FLAGS_rate_steps);
  shared.jobs = static_cast<int>(absl::GetFlag(FLAGS_jobs).value_or(1));
  shared.price = absl::GetFlag(FLAGS_price);
  shared.target_rate = target;
  shared.early_stop = !absl::GetFlag(FLAGS_no_early_stop);
  // A plan of many candidates runs for minutes: a line as each one's
  // search ends (SERQ_PROGRESS=0 silences them, as serq-sim's).
  if (ProgressLinesWanted()) {
    shared.progress = [](const std::string& line) { std::cerr << "serq plan: " << line << "\n"; };
  }
  if (grows && (!emit.empty() || emitted)) {
    return Usage("--emit, --candidate and --merge plan one budget: give --gpus N (--rate alone grows the budget here)");
  }
  if (!emit.empty()) {
    // The tasks: each candidate's search alone, so without early stopping
    // (it needs the others' results); the merge then equals a local run
    // with --no-early-stop, and the flag says so on the command line.
    if (emit != "parallel" && emit != "slurm") {
      return Usage(absl::StrCat("unknown --emit '", emit, "' (expected parallel or slurm)"));
    }
    if (absl::GetFlag(FLAGS_jobs)) return Usage("--jobs applies to running the candidates here, not to --emit");
    if (shared.early_stop) {
      return Usage(
          "--emit runs each candidate's search alone, without early stopping (it needs the other candidates' "
          "results): give --no-early-stop");
    }
  }

  std::error_code ec;
  // A plan refused before any result (--until naming what the programs do
  // not observe, a budget no candidate fits, a trace without a rate)
  // leaves no folder it made behind: what it wrote there is no answer.
  const bool out_existed = out.empty() || std::filesystem::exists(out, ec);
  auto unmake = [&] {
    std::error_code ignored;
    if (!out_existed) std::filesystem::remove_all(out, ignored);
  };
  auto abandon = [&](const CommandResult& failure) {
    unmake();
    std::cerr << failure.err;
    return failure.exit_code;
  };
  if (writes_programs) std::filesystem::create_directories(std::filesystem::path(out) / "programs", ec);
  if (ec) {
    PrintToolError("serq", absl::StrCat("cannot create ", out, "/programs: ", ec.message()));
    return kExitUsage;
  }
  plan::TraceArrivals arrivals;
  if (emitted && emitted->has_trace) {
    arrivals = emitted->trace;
  } else if (!base.workload.replay.empty()) {
    // The trace's mean rate, once: the programs scale it to each rate.
    CommandResult failure;
    if (!plan::MeasureTrace(base.workload.replay, (std::filesystem::path(out) / "programs" / "trace-arrivals.sq").string(),
                            &arrivals, &failure)) {
      return abandon(failure);
    }
  }
  if (!base.workload.replay.empty()) {
    settings.trace_rows = arrivals.rows;
    settings.trace_rate = arrivals.Rate();
    settings.trace_last = arrivals.last;
  }
  // The generators' warnings, each said once on standard error as it first
  // comes (a plan of many candidates, or budgets, would repeat them).
  std::set<std::string> warned;
  auto warn = [&](const std::vector<std::string>& warnings) {
    for (const std::string& w : warnings) {
      if (warned.insert(w).second) std::cerr << ToolWarning("serq plan", w);
    }
  };
  // The plan of a budget of b GPUs: its candidates, their programs written
  // (a local run and --emit write them; the tasks and the merge read
  // them), and in `notes` the candidates not enumerated or not written.
  auto plan_at = [&](int b, plan::PlanSpec* spec, std::vector<std::string>* notes, CommandResult* failure) {
    *spec = shared;
    plan::Space at = space;
    at.gpus = b;
    at.tps.clear();
    for (int t : space.tps) {
      if (t <= b) at.tps.push_back(t);
    }
    at.min_disaggregated_gpus = sizes == "budget" ? b : 2;
    for (const auto& [t, note] : unplanned) {
      if (t <= b) notes->push_back(note);
    }
    std::vector<std::string> dropped;
    for (const plan::Candidate& c : plan::Enumerate(at)) {
      std::vector<std::string> warnings;
      absl::StatusOr<std::string> text = plan::CandidateProgram(*model, *gpu, c, settings, &warnings);
      if (text.ok()) warn(warnings);  // a dropped candidate's note says why
      if (!text.ok()) {
        if (!absl::IsInvalidArgument(text.status())) {
          *failure = Failure(kExitUsage, ToolError("serq", text.status().message()));
          return false;
        }
        dropped.push_back(absl::StrCat(c.Label(), ": ", text.status().message()));
        continue;
      }
      const std::string path = (std::filesystem::path(out) / "programs" / (c.Slug() + ".sq")).string();
      if (writes_programs) {
        if (absl::Status s = WriteFile(path, *text); !s.ok()) {
          *failure = Failure(kExitUsage, ToolError("serq", s.message()));
          return false;
        }
      }
      spec->candidates.push_back(c);
      spec->programs.push_back(path);
    }
    if (!dropped.empty() && spec->candidates.empty()) {
      *failure = Failure(kExitInputRejected,
                         absl::StrCat("serq plan: error: no candidate can be written: ", dropped[0], "\n"));
      return false;
    }
    for (const std::string& d : dropped) notes->push_back(d);
    return true;
  };

  plan::PlanSpec spec;
  std::vector<std::string> notes;
  plan::Growth growth;
  CommandResult failure;
  if (!grows) {
    if (!plan_at(gpus, &spec, &notes, &failure)) return abandon(failure);
    if (spec.candidates.empty()) {
      unmake();
      // What left none, where the enumeration said (a degree the profile
      // lacks, an engine that cannot serve the model).
      const std::string why = notes.empty() ? "" : absl::StrCat(" (", absl::StrJoin(notes, "; "), ")");
      return Usage(absl::StrCat("no candidate", why, ": widen --gpus, --tps or --kinds"));
    }
  } else {
    plan::GrowSpec g;
    g.target = target;
    g.max_gpus = max_gpus;
    g.max_rate_per_gpu = shared.max_rate_per_gpu;
    if (!plan::GrowPlan(g, plan_at, [](const std::string& line) { std::cerr << line << "\n"; }, &growth, &failure)) {
      return abandon(failure);
    }
    if (growth.gpus == 0) {
      unmake();
      return Failed(absl::InvalidArgumentError(plan::ShortOf(g, growth)));
    }
    spec = growth.spec;
    notes = growth.notes;
  }
  // --interconnect where no candidate's GPUs exchange anything (one GPU
  // each at tensor parallel 1, as every candidate of --gpus 1 is), or
  // --kv-link where no candidate is disaggregated: said, as serq physics
  // says it, since the plan's figures are those without it. Once, where the
  // plan is made: not again in each task (--candidate) or the merge, which
  // read the flags from the plan's folder.
  const bool planning = !task && !emitted;
  const bool any_disaggregated = std::any_of(spec.candidates.begin(), spec.candidates.end(),
                                             [](const plan::Candidate& c) { return c.disaggregated; });
  if (planning && !settings.kv_link.empty() && !any_disaggregated) {
    warn({absl::StrCat("--kv-link ", settings.kv_link,
                       " changes nothing: no candidate is disaggregated (no KV cache moves between engines)")});
  }
  if (planning && !base.deployment.interconnect.empty()) {
    auto exchanges = [&](int tp, int engines) {
      physics::Deployment d;
      d.tp = tp;
      d.dp = engines;
      return physics::ExchangesOverLink(*model, d);
    };
    const bool used = std::any_of(spec.candidates.begin(), spec.candidates.end(), [&](const plan::Candidate& c) {
      // A disaggregated candidate's KV crosses --kv-link, else --interconnect.
      return c.disaggregated ? exchanges(c.prefill_tp, c.prefills) || exchanges(c.decode_tp, c.decodes) ||
                                   settings.kv_link.empty()
                             : exchanges(c.tp, c.replicas);
    });
    if (!used) {
      warn({absl::StrCat("--interconnect ", base.deployment.interconnect,
                         " changes nothing: no candidate's GPUs exchange anything over it (each engine is one "
                         "GPU, at tensor parallel 1, stepping on its own",
                         any_disaggregated ? "; the KV cache crosses --kv-link" : "",
                         ")")});
    }
  }

  plan::Plan result;
  const int count = static_cast<int>(spec.candidates.size());
  if (!emit.empty()) {
    if (!plan::CheckPlan(spec, &failure)) return abandon(failure);
    plan::Emitted e;
    e.cwd = std::filesystem::current_path().string();
    e.command = RecordedCommand(line.argv);
    e.flags = SettingFlags(true);
    e.has_trace = !base.workload.replay.empty();
    e.trace = arrivals;
    e.candidates = count;
    const std::string dir = std::filesystem::absolute(out).string();
    // The task list names the executable the tasks run: this one, or
    // $SERQ (as serq sweep's).
    const char* installed = std::getenv("SERQ");
    const std::string exe = installed != nullptr && *installed != '\0' ? installed : line.self;
    if (emit == "slurm") {
      if (std::string problem = SlurmPathsProblem(exe, dir); !problem.empty()) {
        unmake();
        return Usage(problem);
      }
    }
    if (absl::Status s = WriteFile(plan::FlagsPath(dir), plan::EmittedText(e)); !s.ok()) return Failed(s);
    const std::string tasks = emit == "parallel" ? plan::EmitParallel(exe, dir, count) : plan::EmitSlurm(exe, dir, count);
    if (absl::Status s = WriteStdout(tasks); !s.ok()) return Failed(s);
    return kExitOk;
  }
  if (task) {
    if (static_cast<int>(*task) >= count || count != emitted->candidates) {
      return Usage(absl::StrCat("--candidate ", *task, ": the plan in ", plan_dir, " has ", emitted->candidates,
                                emitted->candidates == 1 ? " candidate" : " candidates", ", numbered from 0"));
    }
    const plan::CandidateResult r = plan::SearchCandidate(spec, static_cast<int>(*task));
    std::filesystem::create_directories(std::filesystem::path(plan_dir) / "results", ec);
    if (absl::Status s = WriteFile(plan::ResultPath(plan_dir, static_cast<int>(*task)),
                                   plan::ResultText(spec.candidates[*task], r));
        !s.ok()) {
      return Failed(s);
    }
    return kExitOk;
  }
  if (emitted) {
    // The merge: every candidate's result, in the plan's order.
    if (count != emitted->candidates) {
      return Failed(absl::InvalidArgumentError(absl::StrCat(
          plan::FlagsPath(plan_dir), ": the plan had ", emitted->candidates, " candidates; its settings now give ",
          count, " (a preset or a file it reads changed?)")));
    }
    result.results.resize(count);
    std::vector<std::string> missing;
    for (int k = 0; k < count; ++k) {
      const std::string path = plan::ResultPath(plan_dir, k);
      absl::StatusOr<std::string> text = ReadInput(path);
      if (!text.ok()) {
        missing.push_back(absl::StrCat("candidate ", k, " (", spec.candidates[k].Label(), "): no ", path));
        continue;
      }
      absl::StatusOr<plan::CandidateResult> r = plan::ParseResult(*text, path, spec.candidates[k]);
      if (!r.ok()) return Failed(r.status());
      result.results[k] = *r;
    }
    if (!missing.empty()) {
      std::string message = absl::StrCat(missing.size(), " of ", count, " candidates have no result (run `",
                                         line.self, " plan --out ", plan_dir, " --candidate K` for each):");
      for (const std::string& m : missing) absl::StrAppend(&message, "\n  ", m);
      return Failed(absl::InvalidArgumentError(message));
    }
    plan::FinishPlan(spec, &result);
  } else if (grows) {
    result = growth.plan;
  } else if (!plan::RunPlan(spec, &result, &failure)) {
    return abandon(failure);
  }

  plan::Context context;
  context.model = model_name;
  context.moe = model->experts > 0;
  context.enforce_eager = absl::GetFlag(FLAGS_enforce_eager) || (folder && folder->args.enforce_eager);
  context.engine_options = folder ? plan::ServeOptionsOfRun(folder->args) : std::string();
  if (!folder && base.deployment.max_model_len) {
    context.engine_options = absl::StrCat(" --max-model-len ", *base.deployment.max_model_len);
  }
  if (folder) context.model_id = folder->args.model;
  std::smatch m;
  if (std::regex_search(model_source, m, std::regex(R"(([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)'s config\.json)"))) {
    context.model_id = m[1].str();
  }
  context.gpu = gpu->what.empty() ? gpu->name : gpu->what;
  context.gpus = grows ? growth.gpus : gpus;
  context.workload = !base.workload.replay.empty() ? absl::StrCat(
      "the trace ", base.workload.replay, " (", settings.trace_rows, " arrivals, a mean ",
      absl::StrFormat("%.4g", settings.trace_rate), " a second), its arrivals scaled in time to each rate, its lengths its own; "
      "the run ends at its last arrival, after ", settings.warmup, " s (at most a quarter of the run)")
                                                    : absl::StrCat("Poisson arrivals, lengths ",
                                  base.workload.lengths.empty() ? "llmservingsim-sharegpt" : base.workload.lengths,
                                  ", a window of about ", settings.requests, " arrivals a replication (at least ",
                                  settings.min_horizon, " s) after ", settings.warmup, " s");
  context.condition = until;
  context.step_time = StepTimeSource(folder ? &*folder : nullptr, run_dir, gpu->name, space.disaggregated,
                                      absl::GetFlag(FLAGS_kv_link), coefficients_path);
  context.command = emitted ? emitted->command : RecordedCommand(line.argv);
  context.top = absl::GetFlag(FLAGS_top);

  absl::StatusOr<plan::FolderFiles> folder_files =
      plan::PlanFolderFiles(spec, result, context, *model, *gpu, settings, out);
  if (!folder_files.ok()) return Failed(folder_files.status());
  bool serve = false;
  for (const auto& [name, text] : folder_files->files) {
    if (absl::Status s = WriteFile((std::filesystem::path(out) / name).string(), text); !s.ok()) return Failed(s);
    serve = serve || name == "vllm-serve.sh";
  }
  std::string summary = plan::Summary(spec, result, context);
  for (const std::string& d : notes) absl::StrAppend(&summary, "not a candidate: ", d, "\n");
  if (grows) absl::StrAppend(&summary, plan::GrowthLine(target, growth));
  absl::StrAppend(&summary, folder_files->best_lines, "files in ", out,
                  ": candidates.csv, pareto.csv, pareto.svg, pareto.html", serve ? ", vllm-serve.sh" : "",
                  ", programs/\n");
  if (absl::Status s = WriteStdout(summary); !s.ok()) return Failed(s);
  // A plan whose every candidate failed to run answers nothing: its files
  // say why, and the exit status says it failed (a candidate that meets no
  // SLO is an answer; one whose simulation failed is not).
  const auto failed = std::count_if(result.results.begin(), result.results.end(), [](const plan::CandidateResult& r) {
    return r.status == plan::CandidateResult::kError;
  });
  if (!result.results.empty() && failed == static_cast<long>(result.results.size())) {
    std::cerr << "serq plan: error: every candidate's search failed (candidates.csv says why); the first: "
              << result.results[0].why << "\n";
    return kExitInputRejected;
  }
  return kExitOk;
}

}  // namespace serq
