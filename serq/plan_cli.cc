#include "serq/plan_cli.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ir/cli.h"
#include "ir/output.h"
#include "serq/physics/physics.h"
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
#include "serq/plan_setup.h"
#include "serq/sweep/emit.h"
#include "serq/vllm/run_folder.h"

ABSL_DECLARE_FLAG(bool, enforce_eager);

namespace serq {

namespace {

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

// The plan's folder (--out): made by this run unless it existed, and then
// removed again by a plan refused before any result (--until naming what
// the programs do not observe, a budget no candidate fits, a trace without
// a rate): what it wrote there is no answer.
class OutFolder {
 public:
  explicit OutFolder(std::string out) : out_(std::move(out)) {
    std::error_code ec;
    existed_ = out_.empty() || std::filesystem::exists(out_, ec);
  }
  void Unmake() const {
    std::error_code ignored;
    if (!existed_) std::filesystem::remove_all(out_, ignored);
  }
  // Unmakes the folder and says `failure`; returns its exit status.
  int Abandon(const CommandResult& failure) const {
    Unmake();
    std::cerr << failure.err;
    return failure.exit_code;
  }

 private:
  std::string out_;
  bool existed_ = false;
};

// The generators' warnings, each said once on standard error as it first
// comes (a plan of many candidates, or budgets, would repeat them).
class Warnings {
 public:
  void Say(const std::vector<std::string>& warnings) {
    for (const std::string& w : warnings) {
      if (said_.insert(w).second) std::cerr << ToolWarning("serq plan", w);
    }
  }

 private:
  std::set<std::string> said_;
};

// The plan of a budget of `b` GPUs: its candidates, their programs written
// (a local run and --emit write them; the tasks and the merge read them),
// and in `notes` the candidates not enumerated or not written.
bool PlanBudget(const PlanSetup& s, int b, Warnings* warnings, plan::PlanSpec* spec, std::vector<std::string>* notes,
                CommandResult* failure) {
  const bool writes_programs = !s.emitted;
  *spec = s.shared;
  plan::Space at = s.space;
  at.gpus = b;
  at.tps.clear();
  for (int t : s.space.tps) {
    if (t <= b) at.tps.push_back(t);
  }
  at.min_disaggregated_gpus = s.sizes == "budget" ? b : 2;
  for (const auto& [t, note] : s.unplanned) {
    if (t <= b) notes->push_back(note);
  }
  const std::vector<plan::Candidate> candidates = plan::Enumerate(at, plan::kMostCandidates);
  if (candidates.size() > plan::kMostCandidates) {
    *failure = Failure(kExitUsage, ToolError("serq", absl::StrCat(
        "the plan of ", b, " GPUs has more than ", plan::kMostCandidates,
        " candidates, the most one plan searches: narrow --tps, --kinds, --seqs, --batched-tokens or --routers",
        s.sizes == "all" ? ", or give --disaggregated-gpus budget" : "")));
    return false;
  }
  std::vector<std::string> dropped;
  for (const plan::Candidate& c : candidates) {
    std::vector<std::string> said;
    absl::StatusOr<std::string> text = plan::CandidateProgram(s.model, s.gpu, c, s.settings, &said);
    if (!text.ok()) {
      if (!absl::IsInvalidArgument(text.status())) {
        *failure = Failure(kExitUsage, ToolError("serq", text.status().message()));
        return false;
      }
      // A dropped candidate's note says why: its warnings are not said.
      dropped.push_back(absl::StrCat(c.Label(), ": ", text.status().message()));
      continue;
    }
    warnings->Say(said);
    const std::string path = (std::filesystem::path(s.out) / "programs" / (c.Slug() + ".sq")).string();
    if (writes_programs) {
      if (absl::Status w = WriteFile(path, *text); !w.ok()) {
        *failure = Failure(kExitUsage, ToolError("serq", w.message()));
        return false;
      }
    }
    spec->candidates.push_back(c);
    spec->programs.push_back(path);
  }
  if (!dropped.empty() && spec->candidates.empty()) {
    // Each candidate's own reason: they differ (a degree the experts do not
    // split over, a link not given), and the first alone would hide the rest.
    std::string why = dropped.size() == 1 ? absl::StrCat(": ", dropped[0], "\n")
                                          : absl::StrCat("; the ", dropped.size(), " candidates, each dropped:\n");
    if (dropped.size() > 1) {
      constexpr size_t kMostSaid = 20;
      for (size_t i = 0; i < dropped.size() && i < kMostSaid; ++i) absl::StrAppend(&why, "  ", dropped[i], "\n");
      if (dropped.size() > kMostSaid) absl::StrAppend(&why, "  and ", dropped.size() - kMostSaid, " more\n");
    }
    *failure = Failure(kExitInputRejected, absl::StrCat("serq plan: error: no candidate can be written", why));
    return false;
  }
  for (const std::string& d : dropped) notes->push_back(d);
  return true;
}

// --interconnect where no candidate's GPUs exchange anything (one GPU each
// at tensor parallel 1, as every candidate of --gpus 1 is), or --kv-link
// where no candidate is disaggregated: said, as serq physics says it, since
// the plan's figures are those without it. Once, where the plan is made:
// not again in each task (--candidate) or the merge, which read the flags
// from the plan's folder.
void WarnUnusedLinks(const PlanSetup& s, const plan::PlanSpec& spec, Warnings* warnings) {
  if (s.task || s.emitted) return;
  const bool any_disaggregated = std::any_of(spec.candidates.begin(), spec.candidates.end(),
                                             [](const plan::Candidate& c) { return c.disaggregated; });
  if (!s.settings.kv_link.empty() && !any_disaggregated) {
    warnings->Say({absl::StrCat("--kv-link ", s.settings.kv_link,
                                " changes nothing: no candidate is disaggregated (no KV cache moves between engines)")});
  }
  const std::string& interconnect = s.settings.base.deployment.interconnect;
  if (interconnect.empty()) return;
  auto exchanges = [&](int tp, int engines) {
    physics::Deployment d;
    d.tp = tp;
    d.dp = engines;
    return physics::ExchangesOverLink(s.model, d);
  };
  const bool used = std::any_of(spec.candidates.begin(), spec.candidates.end(), [&](const plan::Candidate& c) {
    // A disaggregated candidate's KV crosses --kv-link, else --interconnect.
    return c.disaggregated ? exchanges(c.prefill_tp, c.prefills) || exchanges(c.decode_tp, c.decodes) ||
                                 s.settings.kv_link.empty()
                           : exchanges(c.tp, c.replicas);
  });
  if (!used) {
    warnings->Say({absl::StrCat("--interconnect ", interconnect,
                                " changes nothing: no candidate's GPUs exchange anything over it (each engine is one "
                                "GPU, at tensor parallel 1, stepping on its own",
                                any_disaggregated ? "; the KV cache crosses --kv-link" : "", ")")});
  }
}

// --emit: the plan's settings into its folder's plan.flags, and the task
// list (one `serq plan --candidate K` a candidate) on standard output.
int EmitTasks(const CommandLine& line, const PlanSetup& s, const plan::PlanSpec& spec,
              const plan::TraceArrivals& arrivals, const OutFolder& folder) {
  CommandResult failure;
  if (!plan::CheckPlan(spec, &failure)) return folder.Abandon(failure);
  plan::Emitted e;
  e.cwd = std::filesystem::current_path().string();
  e.command = RecordedCommand(line.argv);
  e.flags = SettingFlags(true);
  e.has_trace = !s.settings.base.workload.replay.empty();
  e.trace = arrivals;
  e.candidates = static_cast<int>(spec.candidates.size());
  const std::string dir = std::filesystem::absolute(s.out).string();
  // The task list names the executable the tasks run: this one, or $SERQ
  // (as serq sweep's).
  const char* installed = std::getenv("SERQ");
  const std::string exe = installed != nullptr && *installed != '\0' ? installed : line.self;
  if (s.emit == "slurm") {
    if (std::string problem = SlurmPathsProblem(exe, dir); !problem.empty()) {
      folder.Unmake();
      return Usage(problem);
    }
  }
  if (absl::Status w = WriteFile(plan::FlagsPath(dir), plan::EmittedText(e)); !w.ok()) return PlanFailed(w);
  const std::string tasks = s.emit == "parallel" ? plan::EmitParallel(exe, dir, e.candidates)
                                                 : plan::EmitSlurm(exe, dir, e.candidates);
  if (absl::Status w = WriteStdout(tasks); !w.ok()) return PlanFailed(w);
  return kExitOk;
}

// --candidate K: candidate K's search, its result into the plan's folder.
int RunTask(const PlanSetup& s, const plan::PlanSpec& spec) {
  const int count = static_cast<int>(spec.candidates.size());
  const int k = static_cast<int>(*s.task);
  if (*s.task >= static_cast<uint32_t>(count) || count != s.emitted->candidates) {
    return Usage(absl::StrCat("--candidate ", *s.task, ": the plan in ", s.plan_dir, " has ", s.emitted->candidates,
                              s.emitted->candidates == 1 ? " candidate" : " candidates", ", numbered from 0"));
  }
  const plan::CandidateResult r = plan::SearchCandidate(spec, k);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(s.plan_dir) / "results", ec);
  if (absl::Status w = WriteFile(plan::ResultPath(s.plan_dir, k), plan::ResultText(spec.candidates[k], r)); !w.ok()) {
    return PlanFailed(w);
  }
  return kExitOk;
}

// --merge DIR: every candidate's result, in the plan's order, as a local
// run would have them. Nullopt: merged into `result`.
std::optional<int> MergeResults(const CommandLine& line, const PlanSetup& s, const plan::PlanSpec& spec,
                                plan::Plan* result) {
  const int count = static_cast<int>(spec.candidates.size());
  if (count != s.emitted->candidates) {
    return PlanFailed(absl::InvalidArgumentError(absl::StrCat(
        plan::FlagsPath(s.plan_dir), ": the plan had ", s.emitted->candidates, " candidates; its settings now give ",
        count, " (a preset or a file it reads changed?)")));
  }
  result->results.resize(count);
  std::vector<std::string> missing;
  for (int k = 0; k < count; ++k) {
    const std::string path = plan::ResultPath(s.plan_dir, k);
    absl::StatusOr<std::string> text = ReadInput(path);
    if (!text.ok()) {
      missing.push_back(absl::StrCat("candidate ", k, " (", spec.candidates[k].Label(), "): no ", path));
      continue;
    }
    absl::StatusOr<plan::CandidateResult> r = plan::ParseResult(*text, path, spec.candidates[k]);
    if (!r.ok()) return PlanFailed(r.status());
    result->results[k] = *r;
  }
  if (!missing.empty()) {
    std::string message = absl::StrCat(missing.size(), " of ", count, " candidates have no result (run `", line.self,
                                       " plan --out ", s.plan_dir, " --candidate K` for each):");
    for (const std::string& m : missing) absl::StrAppend(&message, "\n  ", m);
    return PlanFailed(absl::InvalidArgumentError(message));
  }
  plan::FinishPlan(spec, result);
  return std::nullopt;
}

// What the plan's files and summary say of its inputs.
plan::Context PlanContext(const CommandLine& line, const PlanSetup& s, int gpus) {
  const physics::ProgramOptions& base = s.settings.base;
  plan::Context context;
  context.model = s.model_name;
  context.moe = s.model.experts > 0;
  context.enforce_eager = absl::GetFlag(FLAGS_enforce_eager) || (s.folder && s.folder->args.enforce_eager);
  context.engine_options = s.folder ? plan::ServeOptionsOfRun(s.folder->args) : std::string();
  if (!s.folder && base.deployment.max_model_len) {
    context.engine_options = absl::StrCat(" --max-model-len ", *base.deployment.max_model_len);
  }
  if (s.folder) context.model_id = s.folder->args.model;
  std::smatch m;
  if (std::regex_search(s.model_source, m, std::regex(R"(([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)'s config\.json)"))) {
    context.model_id = m[1].str();
  }
  context.gpu = s.gpu.what.empty() ? s.gpu.name : s.gpu.what;
  context.gpus = gpus;
  context.workload =
      !base.workload.replay.empty()
          ? absl::StrCat("the trace ", base.workload.replay, " (", s.settings.trace_rows, " arrivals, a mean ",
                         absl::StrFormat("%.4g", s.settings.trace_rate),
                         " a second), its arrivals scaled in time to each rate, its lengths its own; the run ends at "
                         "its last arrival, after ",
                         s.settings.warmup, " s (at most a quarter of the run)")
          : absl::StrCat("Poisson arrivals, lengths ",
                         base.workload.lengths.empty() ? "llmservingsim-sharegpt" : base.workload.lengths,
                         ", a window of about ", s.settings.requests, " arrivals a replication (at least ",
                         s.settings.min_horizon, " s) after ", s.settings.warmup, " s");
  context.condition = s.until;
  context.step_time = StepTimeSource(s.folder ? &*s.folder : nullptr, s.run_dir, s.gpu.name, s.space.disaggregated,
                                     s.settings.kv_link, s.coefficients_path);
  context.command = s.emitted ? s.emitted->command : RecordedCommand(line.argv);
  context.top = absl::GetFlag(FLAGS_top);
  return context;
}

// The plan's files into its folder and its summary on standard output.
int WriteAnswer(const PlanSetup& s, const plan::PlanSpec& spec, const plan::Plan& result,
                const plan::Context& context, const std::vector<std::string>& notes, const plan::Growth* growth) {
  absl::StatusOr<plan::FolderFiles> folder_files =
      plan::PlanFolderFiles(spec, result, context, s.model, s.gpu, s.settings, s.out);
  if (!folder_files.ok()) return PlanFailed(folder_files.status());
  bool serve = false;
  for (const auto& [name, text] : folder_files->files) {
    if (absl::Status w = WriteFile((std::filesystem::path(s.out) / name).string(), text); !w.ok()) {
      return PlanFailed(w);
    }
    serve = serve || name == "vllm-serve.sh";
  }
  std::string summary = plan::Summary(spec, result, context);
  for (const std::string& d : notes) absl::StrAppend(&summary, "not a candidate: ", d, "\n");
  if (growth != nullptr) absl::StrAppend(&summary, plan::GrowthLine(s.target, *growth));
  absl::StrAppend(&summary, folder_files->best_lines, "files in ", s.out,
                  ": candidates.csv, pareto.csv, pareto.svg, pareto.html", serve ? ", vllm-serve.sh" : "",
                  ", programs/\n");
  if (absl::Status w = WriteStdout(summary); !w.ok()) return PlanFailed(w);
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

}  // namespace

int PlanMain(const CommandLine& line) {
  PlanSetup s;
  if (std::optional<int> stop = ReadPlanSetup(line, &s)) return *stop;

  OutFolder out(s.out);
  // Where the candidates' programs are written: by a local run and by
  // --emit, not by the tasks and the merge (they read them).
  std::error_code ec;
  if (!s.emitted) std::filesystem::create_directories(std::filesystem::path(s.out) / "programs", ec);
  if (ec) {
    PrintToolError("serq", absl::StrCat("cannot create ", s.out, "/programs: ", ec.message()));
    return kExitUsage;
  }
  const physics::Workload& workload = s.settings.base.workload;
  plan::TraceArrivals arrivals;
  if (s.emitted && s.emitted->has_trace) {
    arrivals = s.emitted->trace;
  } else if (!workload.replay.empty()) {
    // The trace's mean rate, once: the programs scale it to each rate.
    CommandResult failure;
    if (!plan::MeasureTrace(workload.replay, (std::filesystem::path(s.out) / "programs" / "trace-arrivals.sq").string(),
                            &arrivals, &failure)) {
      return out.Abandon(failure);
    }
  }
  if (!workload.replay.empty()) {
    s.settings.trace_rows = arrivals.rows;
    s.settings.trace_rate = arrivals.Rate();
    s.settings.trace_last = arrivals.last;
  }

  Warnings warnings;
  auto plan_at = [&](int b, plan::PlanSpec* spec, std::vector<std::string>* notes, CommandResult* failure) {
    return PlanBudget(s, b, &warnings, spec, notes, failure);
  };
  plan::PlanSpec spec;
  std::vector<std::string> notes;
  plan::Growth growth;
  CommandResult failure;
  if (!s.grows) {
    if (!plan_at(s.gpus, &spec, &notes, &failure)) return out.Abandon(failure);
    if (spec.candidates.empty()) {
      out.Unmake();
      // What left none, where the enumeration said (a degree the profile
      // lacks, an engine that cannot serve the model).
      const std::string why = notes.empty() ? "" : absl::StrCat(" (", absl::StrJoin(notes, "; "), ")");
      return Usage(absl::StrCat("no candidate", why, ": widen --gpus, --tps or --kinds"));
    }
  } else {
    plan::GrowSpec g;
    g.target = s.target;
    g.max_gpus = s.max_gpus;
    g.max_rate_per_gpu = s.shared.max_rate_per_gpu;
    if (!plan::GrowPlan(g, plan_at, [](const std::string& line) { std::cerr << line << "\n"; }, &growth, &failure)) {
      return out.Abandon(failure);
    }
    if (growth.gpus == 0) {
      out.Unmake();
      return PlanFailed(absl::InvalidArgumentError(plan::ShortOf(g, growth)));
    }
    spec = growth.spec;
    notes = growth.notes;
  }
  WarnUnusedLinks(s, spec, &warnings);

  if (!s.emit.empty()) return EmitTasks(line, s, spec, arrivals, out);
  if (s.task) return RunTask(s, spec);
  plan::Plan result;
  if (s.emitted) {
    if (std::optional<int> stop = MergeResults(line, s, spec, &result)) return *stop;
  } else if (s.grows) {
    result = growth.plan;
  } else if (!plan::RunPlan(spec, &result, &failure)) {
    return out.Abandon(failure);
  }
  const plan::Context context = PlanContext(line, s, s.grows ? growth.gpus : s.gpus);
  return WriteAnswer(s, spec, result, context, notes, s.grows ? &growth : nullptr);
}

}  // namespace serq
