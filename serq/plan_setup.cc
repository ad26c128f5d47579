#include "serq/plan_setup.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <tuple>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ir/cli.h"
#include "ir/flags.h"
#include "ir/progress.h"
#include "net/interconnect.h"
#include "serq/models/presets.h"
#include "serq/models/vllm_engine.h"
#include "serq/physics/physics.h"
#include "serq/physics_cli.h"
#include "serq/plan_flags.h"
#include "serq/sweep/condition.h"
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

// Each phase reads its part of the setup, in the order the checks are made
// (the first misuse of several is the one said); nullopt: go on.
using Stop = std::optional<int>;

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

// --merge DIR and --candidate K: the plan's settings from DIR/plan.flags,
// as --emit recorded them, relative paths from where it ran.
Stop ReadEmittedPlan(PlanSetup* s) {
  const std::string merge_dir = absl::GetFlag(FLAGS_merge);
  s->task = absl::GetFlag(FLAGS_candidate);
  s->emit = absl::GetFlag(FLAGS_emit);
  if (merge_dir.empty() && !s->task) return std::nullopt;
  const char* what = !merge_dir.empty() ? "--merge" : "--candidate";
  if (!merge_dir.empty() && s->task) return Usage("--merge and --candidate do not go together");
  if (!s->emit.empty()) return Usage(absl::StrCat(what, " and --emit do not go together"));
  if (absl::GetFlag(FLAGS_jobs)) {
    // A task is one candidate's search and the merge runs none: taken, it
    // would be ignored.
    return Usage(absl::StrCat("--jobs applies to running the candidates here, not to ", what));
  }
  if (s->task && absl::GetFlag(FLAGS_out).empty()) return Usage("--candidate needs --out DIR, the plan's folder");
  if (!merge_dir.empty() && !absl::GetFlag(FLAGS_out).empty()) {
    return Usage("--merge writes into the plan's own folder: no --out");
  }
  if (const auto given = SettingFlags(false); !given.empty()) {
    return Usage(absl::StrCat(what, " takes the plan's settings from its folder's plan.flags: give --",
                              given[0].first, " to the `serq plan --emit` that wrote it"));
  }
  s->plan_dir = std::filesystem::absolute(!merge_dir.empty() ? merge_dir : absl::GetFlag(FLAGS_out)).string();
  absl::StatusOr<std::string> text = ReadInput(plan::FlagsPath(s->plan_dir));
  if (!text.ok()) {
    PrintToolError("serq", absl::StrCat(text.status().message(), " (is ", s->plan_dir,
                                        " a folder `serq plan --emit` wrote?)"));
    return kExitUsage;
  }
  absl::StatusOr<plan::Emitted> e = plan::ParseEmitted(*text, plan::FlagsPath(s->plan_dir));
  if (!e.ok()) return PlanFailed(e.status());
  s->emitted = *e;
  for (const auto& [name, value] : s->emitted->flags) {
    std::string error;
    if (!SetFlagAsGiven(name, value, &error)) {
      PrintToolError("serq", absl::StrCat(plan::FlagsPath(s->plan_dir), ": --", name, "=", value, ": ", error));
      return kExitUsage;
    }
  }
  if (chdir(s->emitted->cwd.c_str()) != 0) {
    PrintToolError("serq", absl::StrCat("cannot enter the plan's directory '", s->emitted->cwd, "'"));
    return kExitUsage;
  }
  return std::nullopt;
}

// The deployment named, the budget, the SLOs, the output folder and the
// searches' bounds each plan takes whatever its deployment.
Stop ReadBudget(PlanSetup* s) {
  s->run_dir = absl::GetFlag(FLAGS_run);
  s->model_name = absl::GetFlag(FLAGS_model);
  s->gpu_name = absl::GetFlag(FLAGS_gpu);
  if (!s->run_dir.empty() && (!s->model_name.empty() || !s->gpu_name.empty())) {
    return Usage("--run takes the model and the GPU from the run folder: no --model or --gpu");
  }
  if (s->run_dir.empty() && (s->model_name.empty() || s->gpu_name.empty())) {
    return Usage(
        "expected --model (a preset or a config.json) and --gpu (a preset or a datasheet), or --run "
        "RUN_DIR");
  }
  // Signed flags, so that a value past an int's range is Abseil's error and
  // a negative one ours, never a wrapped count.
  s->gpus = absl::GetFlag(FLAGS_gpus);
  // 0 is the flag's default (no budget: --rate grows one), so only a
  // --gpus given as 0 or below is out of range.
  if (s->gpus < 0 || (s->gpus == 0 && FlagGiven("gpus")) || s->gpus > plan::kMostGpus) {
    return Usage(absl::StrCat("--gpus must be from 1 to ", plan::kMostGpus, ", not ", s->gpus));
  }
  if (absl::GetFlag(FLAGS_top) < 0) return Usage("--top must be at least 0");
  s->target = absl::GetFlag(FLAGS_rate);
  if (!(s->target >= 0 && std::isfinite(s->target))) {
    return Usage(absl::StrCat("--rate must be a number of requests a second, at least 0, not ",
                              report::FormatShortest(s->target)));
  }
  // --rate without --gpus: the budget grown to the fewest GPUs meeting it.
  s->grows = s->gpus < 1 && s->target > 0;
  if (s->gpus < 1 && !s->grows) {
    return Usage("expected --gpus N, the GPU budget, or --rate R alone, a target rate (the fewest GPUs "
                 "that meet it)");
  }
  s->max_gpus = absl::GetFlag(FLAGS_max_gpus);
  if (!s->grows && FlagGiven("max-gpus")) {
    return Usage("--max-gpus goes with --rate without --gpus (the most GPUs the budget grows to)");
  }
  if (s->max_gpus < 1 || s->max_gpus > plan::kMostGpus) {
    return Usage(absl::StrCat("--max-gpus must be from 1 to ", plan::kMostGpus, ", not ", s->max_gpus));
  }
  s->until = absl::GetFlag(FLAGS_until);
  if (s->until.empty()) return Usage("expected --until, the SLOs, e.g. 'p99(ttft) <= 2 && p99(tpot) <= 0.05'");
  s->out = absl::GetFlag(FLAGS_out);
  if (s->out.empty()) return Usage("expected --out DIR, the folder of its files");
  absl::StatusOr<Condition> condition = ParseCondition(s->until);
  if (!condition.ok()) return Usage(absl::StrCat("--until: ", condition.status().message()));
  s->shared.condition = *condition;
  if (!(absl::GetFlag(FLAGS_price) >= 0 && std::isfinite(absl::GetFlag(FLAGS_price)))) {
    return Usage("--price must be a finite number, at least 0 (dollars a GPU-hour)");
  }
  if (!(absl::GetFlag(FLAGS_max_rate_per_gpu) > 0 && std::isfinite(absl::GetFlag(FLAGS_max_rate_per_gpu)))) {
    return Usage("--max-rate-per-gpu must be a finite number above 0");
  }
  // The grid's step is the top over this: 10^4 steps is a rate finer than
  // any figure tells apart (2^31 gave a rate too small to simulate).
  if (absl::GetFlag(FLAGS_rate_steps) < 2 || absl::GetFlag(FLAGS_rate_steps) > 10000) {
    return Usage(absl::StrCat("--rate-steps must be from 2 to 10000, not ", absl::GetFlag(FLAGS_rate_steps)));
  }
  if (std::string m = MaxReplicationsMisuse(absl::GetFlag(FLAGS_max_replications)); !m.empty()) return Usage(m);
  return std::nullopt;
}

// The model and the GPU: presets or files, or a run folder's.
Stop ReadDeployment(PlanSetup* s) {
  if (s->run_dir.empty()) {
    models::ReadOptions read;
    read.latent_attention = read.quantized = read.known_decoders_only = true;
    read.tool = "serq plan";
    absl::StatusOr<models::ModelConfig> model = models::ResolveModel(s->model_name, read, &s->model_source);
    if (!model.ok()) return PlanFailed(model.status());
    s->model = *model;
    absl::StatusOr<models::Gpu> gpu = models::ResolveGpu(s->gpu_name);
    if (!gpu.ok()) return PlanFailed(gpu.status());
    s->gpu = *gpu;
    return std::nullopt;
  }
  absl::StatusOr<vllm::RunFolder> r = vllm::ReadRunFolder(s->run_dir);
  if (!r.ok()) return PlanFailed(r.status());
  s->folder = *r;
  s->model = s->folder->model;
  s->gpu.name = vllm::GpuName(*s->folder);
  s->gpu.what = s->folder->profile.gpu;
  s->model_name = s->folder->args.model.empty() ? s->folder->name : s->folder->args.model;
  s->gpu_name = s->gpu.name;
  return std::nullopt;
}

// What the candidates' programs share: the corrections, the links, the
// workload (read once against the model), the seed and the window.
Stop ReadProgramSettings(PlanSetup* s) {
  plan::ProgramSettings& settings = s->settings;
  physics::ProgramOptions& base = settings.base;
  s->coefficients_path = absl::GetFlag(FLAGS_coefficients);
  if (s->folder && !s->coefficients_path.empty()) {
    // A run folder's candidates are timed by its profile: the physics
    // corrections would be read and ignored.
    return Usage("--coefficients corrects the physics step time of --model and --gpu; a --run folder's candidates "
                 "are timed by its profile");
  }
  if (!s->coefficients_path.empty()) {
    absl::StatusOr<std::string> text = ReadInput(s->coefficients_path);
    if (!text.ok()) return PlanFailed(text.status());
    absl::StatusOr<physics::Coefficients> c = physics::ReadCoefficients(*text, s->coefficients_path);
    if (!c.ok()) return PlanFailed(c.status());
    base.coefficients = *c;
    base.coefficients_file = s->coefficients_path;
  }
  base.deployment.interconnect = absl::GetFlag(FLAGS_interconnect);
  if (std::string m = net::UnknownInterconnect("interconnect", base.deployment.interconnect); !m.empty()) {
    return Usage(m);
  }
  // vLLM's max_model_len for every candidate (a run folder's is its own).
  if (std::string m = MaxModelLenMisuse(); !m.empty()) return Usage(m);
  if (s->folder && FlagGiven("max-model-len")) {
    return Usage("--max-model-len does not apply to --run: the run folder's engine has its own");
  }
  base.deployment.max_model_len = MaxModelLenFlag();
  if (std::string m = net::UnknownInterconnect("kv-link", absl::GetFlag(FLAGS_kv_link)); !m.empty()) return Usage(m);
  if (FlagGiven("lengths")) {
    if (absl::StatusOr<physics::LengthLines> l = physics::ParseLengthLines(absl::GetFlag(FLAGS_lengths)); !l.ok()) {
      return Usage(absl::StripPrefix(l.status().message(), "serq physics: error: "));
    }
  }
  base.workload.rate = s->target > 0 ? s->target : 1;
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
  if (!s->folder) {
    physics::Workload w = base.workload;
    w.rate = w.replay.empty() ? 1 : 0;
    w.requests = 1;
    if (absl::Status fit = physics::FitWorkload(s->model, base.deployment, w).status(); !fit.ok()) {
      return PlanFailed(fit);
    }
  } else if (!base.workload.replay.empty()) {
    std::string prompt, output;
    if (absl::Status rows = physics::ReplayRequests(base.workload, &prompt, &output).status(); !rows.ok()) {
      return PlanFailed(rows);
    }
  }
  base.model_name = s->model_name;
  base.model_source = s->model_source;
  // The files a program names (a trace, a profile's tables), relative to
  // where it is written: DIR/programs/ (the best ones: DIR, below).
  base.program_dir = (std::filesystem::path(s->out) / "programs").string();
  settings.kv_link = absl::GetFlag(FLAGS_kv_link);
  settings.run_dir = s->run_dir;
  settings.seed = absl::GetFlag(FLAGS_seed);
  // Written into the programs' run { seed }, which the language bounds.
  if (settings.seed && *settings.seed > (uint64_t{1} << 53)) {
    return Usage(absl::StrCat("--seed ", *settings.seed, ": serq plan writes it into its programs' run { seed }, "
                              "a whole number from 0 to 2^53"));
  }
  if (s->folder) settings.kv_dtype_bytes = models::KvDtypeBytes(s->folder->args.kv_cache_dtype, s->folder->model);
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
  // Each candidate's search runs many replications of this many arrivals.
  if (settings.requests < 100 || settings.requests > 10000000) {
    return Usage(absl::StrCat("--requests must be from 100 to 10^7 for serq plan (arrivals a replication), not ",
                              settings.requests));
  }
  return std::nullopt;
}

// The tensor-parallel degrees: --tps, or the powers of 2 up to the budget
// that fit the model. With a run folder, the degrees its profile has: a
// candidate at another is not enumerated, and the summary says so (for the
// degrees up to the budget planned); so is a degree that cannot serve the
// model while a smaller or larger one can (its reason, the generator's).
Stop ReadDegrees(PlanSetup* s) {
  // The most GPUs a candidate may use: the budget, or with --rate alone
  // the cap of the budgets tried.
  const int limit = s->grows ? s->max_gpus : s->gpus;
  const char* limit_flag = s->grows ? "--max-gpus" : "--gpus";
  const std::optional<vllm::RunFolder>& folder = s->folder;
  auto profiled = [&](int t) {
    if (!folder) return true;
    for (int p : folder->profile.tp_degrees) {
      if (p == t) return true;
    }
    s->unplanned.emplace_back(t, absl::StrCat("tensor parallel ", t, ": the profile (", folder->profile.path,
                                               ") has tp_degrees [", absl::StrJoin(folder->profile.tp_degrees, ", "),
                                               "]"));
    return false;
  };
  if (const std::string tps = absl::GetFlag(FLAGS_tps); !tps.empty()) {
    std::vector<int64_t> v;
    std::string error;
    if (!CommaNumbers("tps", tps, &v, &error)) return Usage(error);
    for (int64_t t : v) {
      if (t > limit) return Usage(absl::StrCat("--tps ", t, " is more than ", limit_flag, " ", limit));
      if (!profiled(static_cast<int>(t))) continue;
      if (absl::Status fits = plan::Fits(s->model, s->gpu, static_cast<int>(t), s->settings); !fits.ok()) {
        if (!absl::IsInvalidArgument(fits)) return Usage(absl::StripPrefix(fits.message(), "serq physics: error: "));
        if (folder) {
          return Usage(absl::StrCat("--tps ", t, ": an engine of ", t, " GPUs cannot serve the run's model: ",
                                    WhyNot(fits)));
        }
        return Usage(absl::StrCat("--tps ", t, ": an engine of ", t, " x ", s->gpu.name, " cannot serve ",
                                  s->model_name, ": ", WhyNot(fits)));
      }
      s->space.tps.push_back(static_cast<int>(t));
    }
    return std::nullopt;
  }
  // Why the largest degree tried does not fit: the generator's own words
  // (the memory, or a workload it cannot read).
  std::string why;
  for (int t = 1; t <= limit; t *= 2) {  // limit <= kMostGpus: t never wraps
    if (!profiled(t)) continue;
    if (absl::Status fits = plan::Fits(s->model, s->gpu, t, s->settings); fits.ok()) {
      s->space.tps.push_back(t);
    } else if (!absl::IsInvalidArgument(fits)) {
      // A workload that cannot be read (NotFound, DataLoss) is misuse, as
      // in serq physics, not a model too large for the GPUs.
      return Usage(absl::StripPrefix(fits.message(), "serq physics: error: "));
    } else {
      why = absl::StrCat("at tensor parallel ", t, ", ", WhyNot(fits));
      s->unplanned.emplace_back(t, absl::StrCat("tensor parallel ", t, ": ", WhyNot(fits)));
    }
  }
  if (s->space.tps.empty() && folder) {
    return PlanFailed(absl::InvalidArgumentError(absl::StrCat(
        s->run_dir, ": no engine of up to ", limit, " GPUs at a degree the profile has (tp_degrees [",
        absl::StrJoin(folder->profile.tp_degrees, ", "), "]) can serve the run's model", why.empty() ? "" : ": ",
        why)));
  }
  if (s->space.tps.empty()) {
    return PlanFailed(absl::InvalidArgumentError(absl::StrCat(
        s->model_name, " fits no engine of up to ", limit, " x ", s->gpu.name, why.empty() ? "" : ": ", why)));
  }
  return std::nullopt;
}

// The candidates' kinds, routers and engine limits.
Stop ReadKinds(PlanSetup* s) {
  plan::Space& space = s->space;
  const bool kinds_given = FlagGiven("kinds");
  // From a run folder, disaggregated candidates by default only with
  // --kv-link: the folder does not say which link the KV cache would cross.
  const std::string kinds =
      s->folder && !kinds_given && !FlagGiven("kv-link") ? "colocated" : absl::GetFlag(FLAGS_kinds);
  space.colocated = space.disaggregated = false;
  for (absl::string_view k : absl::StrSplit(kinds, ',')) {
    bool* kind = k == "colocated" ? &space.colocated : k == "disaggregated" ? &space.disaggregated : nullptr;
    if (kind == nullptr) return Usage(absl::StrCat("--kinds: '", k, "' is neither colocated nor disaggregated"));
    if (*kind) return Usage(absl::StrCat("--kinds names ", k, " twice"));
    *kind = true;
  }
  s->sizes = absl::GetFlag(FLAGS_disaggregated_gpus);
  if (s->sizes != "budget" && s->sizes != "all") return Usage("--disaggregated-gpus must be budget or all");
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
  if (s->folder) {
    // The run's own limits unless the flags give others: a candidate is
    // labelled with them, and its `vllm serve` line passes them.
    if (s->folder->args.max_num_seqs > 0) space.max_num_seqs = {s->folder->args.max_num_seqs};
    if (s->folder->args.max_num_batched_tokens > 0) {
      space.max_num_batched_tokens = {s->folder->args.max_num_batched_tokens};
    }
  }
  for (auto [flag, list, target_list, most] :
       {std::tuple{"seqs", absl::GetFlag(FLAGS_seqs), &space.max_num_seqs, models::kMostMaxNumSeqs},
        std::tuple{"batched-tokens", absl::GetFlag(FLAGS_batched_tokens), &space.max_num_batched_tokens,
                   models::kMostMaxNumBatchedTokens}}) {
    if (list.empty()) continue;
    target_list->clear();
    std::string error;
    if (!CommaNumbers(flag, list, target_list, &error)) return Usage(error);
    for (int64_t v : *target_list) {
      if (v > most) return Usage(absl::StrCat("--", flag, " ", v, " is more than ", most, ", the most serq takes"));
    }
  }
  return std::nullopt;
}

// What every budget's plan shares: the searches' bounds, and how the plan
// is run (here, or as --emit's tasks).
Stop ReadSearch(PlanSetup* s) {
  plan::PlanSpec& shared = s->shared;
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
  // More threads than candidates are never started: a count past an int's
  // range is held to it, not cast to a negative one.
  shared.jobs = static_cast<int>(std::min<uint32_t>(absl::GetFlag(FLAGS_jobs).value_or(1), INT32_MAX));
  shared.price = absl::GetFlag(FLAGS_price);
  shared.target_rate = s->target;
  shared.early_stop = !absl::GetFlag(FLAGS_no_early_stop);
  // A plan of many candidates runs for minutes: a line as each one's
  // search ends (SERQ_PROGRESS=0 silences them, as serq-sim's).
  if (ProgressLinesWanted()) {
    shared.progress = [](const std::string& line) { std::cerr << "serq plan: " << line << "\n"; };
  }
  if (s->grows && (!s->emit.empty() || s->emitted)) {
    return Usage("--emit, --candidate and --merge plan one budget: give --gpus N (--rate alone grows the budget here)");
  }
  if (!s->emit.empty()) {
    // The tasks: each candidate's search alone, so without early stopping
    // (it needs the others' results); the merge then equals a local run
    // with --no-early-stop, and the flag says so on the command line.
    if (s->emit != "parallel" && s->emit != "slurm") {
      return Usage(absl::StrCat("unknown --emit '", s->emit, "' (expected parallel or slurm)"));
    }
    if (absl::GetFlag(FLAGS_jobs)) return Usage("--jobs applies to running the candidates here, not to --emit");
    if (shared.early_stop) {
      return Usage(
          "--emit runs each candidate's search alone, without early stopping (it needs the other candidates' "
          "results): give --no-early-stop");
    }
  }
  return std::nullopt;
}

}  // namespace

absl::string_view WithoutTool(absl::string_view m) {
  for (absl::string_view tool : {"serq physics: error: ", "serq vllm: error: "}) {
    if (absl::ConsumePrefix(&m, tool)) break;
  }
  return m;
}

int PlanFailed(const absl::Status& s) {
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

std::optional<int> ReadPlanSetup(const CommandLine& line, PlanSetup* setup) {
  if (!line.positional.empty()) return Usage("serq plan takes flags only (--model, --gpu, --gpus, --until, --out)");
  if (!line.defines.empty()) return Usage("-D does not apply to 'serq plan'");
  for (Stop (*phase)(PlanSetup*) :
       {ReadEmittedPlan, ReadBudget, ReadDeployment, ReadProgramSettings, ReadDegrees, ReadKinds, ReadSearch}) {
    if (Stop stop = phase(setup)) return stop;
  }
  return std::nullopt;
}

}  // namespace serq
