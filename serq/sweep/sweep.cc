#include "serq/sweep/sweep.h"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/match.h"
#include "ir/cli.h"
#include "ir/limits.h"
#include "ir/output.h"
#include "ir/progress.h"
#include "ir/utf8.h"
#include "ir/words.h"
#include "stats/merge.h"
#include "serq-sim/model/model.h"
#include "serq/sweep/grid.h"
#include "serq/sweep/metrics.h"

extern char** environ;

namespace serq {
namespace {

namespace fs = std::filesystem;

// The most tasks a sweep plans: a task index is a 31-bit number.
constexpr uint64_t kMaxTasks = uint64_t{1} << 31;

// "Rate=2, NP=1", with "program=pd.sq" first in a sweep of several; a
// param the point's program lacks is left out.
std::string PointText(const std::vector<sweep::Setting>& settings, const std::string& program = "") {
  std::vector<std::string> parts;
  if (!program.empty()) parts.push_back(absl::StrCat("program=", program));
  for (const sweep::Setting& s : settings) {
    if (!s.lacked()) parts.push_back(absl::StrCat(s.name(), "=", SettingText(s)));
  }
  return parts.empty() ? "(the program as it is)" : absl::StrJoin(parts, ", ");
}

std::string PointText(const PlanPoint& p) { return PointText(p.settings, p.program < 0 ? "" : p.path); }

// The driver's options at a point: its params as -D, its policy as --share.
DriverOptions PointOptions(const std::vector<sweep::Setting>& settings) {
  DriverOptions options;
  for (const sweep::Setting& s : settings) {
    if (s.lacked()) continue;  // the point's program has no such param
    if (s.word().empty()) {
      options.defines.emplace_back(s.name(), s.value());
    } else {
      options.share = ShareFromWord(s.word());
    }
  }
  return options;
}


absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read '", path, "'"));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The task file of a task that failed: its settings and why, so that the
// merge reports its point as failed rather than missing.
absl::Status WriteFailure(const std::string& dir, const sweep::Plan& plan, uint64_t task,
                          int exit_code, const std::string& what, const std::string& error) {
  sweep::Task out;
  out.set_task(static_cast<uint32_t>(task));
  out.set_point(static_cast<uint32_t>(task / plan.replications()));
  out.set_replication(static_cast<uint32_t>(task % plan.replications()));
  PlanPoint point = PointOfPlan(plan, task / plan.replications());
  for (const sweep::Setting& s : point.settings) *out.add_setting() = s;
  if (point.program >= 0) out.set_program(static_cast<uint32_t>(point.program));
  out.mutable_failure()->set_exit_code(exit_code);
  out.mutable_failure()->set_what(what);
  out.mutable_failure()->set_error(error);
  return WriteFile(TaskPath(dir, task), out.SerializeAsString());
}

// A task's failure: recorded in its file, and said on stderr with the task.
CommandResult RecordFailure(const std::string& dir, const sweep::Plan& plan, uint64_t task,
                            CommandResult failed) {
  const uint32_t replication = static_cast<uint32_t>(task % plan.replications());
  absl::StrAppend(&failed.err,
                  ToolError("serq", absl::StrCat("task ", task, " (",
                                                 PointText(PointOfPlan(plan, task / plan.replications())),
                                                 ", replication ", replication, ") failed")));
  if (absl::Status s = WriteFailure(dir, plan, task, failed.exit_code,
                                    absl::StrCat("exited with ", failed.exit_code), failed.err);
      !s.ok()) {
    absl::StrAppend(&failed.err, ToolError("serq", s.message()));
    failed.exit_code = kExitUsage;
  }
  return failed;
}

// The first line of a task's error that says something (its diagnostics'
// first line), for the one-line list of failed points.
std::string FirstLine(absl::string_view text) {
  size_t end = text.find('\n');
  return std::string(text.substr(0, end));
}

}  // namespace

uint64_t ProgramDigest(absl::string_view text) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a's offset basis and prime
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

namespace {

// The params of the program at `path` as it is (no -D), for a sweep of
// several programs to know which axes each lacks. False, with `error`, when
// it cannot be read or is rejected as it is.
bool ProgramParams(const std::string& path, std::set<std::string>* params, CommandResult* error) {
  ir::Program program;
  if (!ParseAndLink(path, DriverOptions(), &program, error)) {
    absl::StrAppend(&error->err, ToolError("serq", absl::StrCat("the sweep reads the params of '", path,
                                                                "' from the program as it is")));
    return false;
  }
  for (const ir::Param& p : program.param()) params->insert(p.name());
  return true;
}

}  // namespace

bool PlanSweep(const SweepSpec& spec, sweep::Plan* plan, CommandResult* error,
               std::vector<std::string>* observations) {
  plan->Clear();
  plan->set_version(kPlanVersion);
  const bool several = spec.programs.size() > 1;
  if (!several) {
    const std::string& program = spec.programs.size() == 1 ? spec.programs[0] : spec.program;
    plan->set_program(program);
    if (auto text = ReadFile(program); text.ok()) plan->set_program_digest(ProgramDigest(*text));
  }
  plan->set_cwd(fs::current_path().string());
  std::set<std::string> names;
  for (const auto& [name, text] : spec.defines) {
    if (!names.insert(name).second) {
      *error = Failure(kExitUsage, ToolError("serq", absl::StrCat("-D ", name, " is given twice")));
      return false;
    }
    auto values = ParseAxisValues(name, text);
    if (!values.ok()) {
      *error = Failure(kExitUsage, ToolError("serq", values.status().message()));
      return false;
    }
    sweep::Axis* axis = plan->add_axis();
    axis->set_name(name);
    for (double v : *values) axis->add_value(v);
  }
  if (!spec.share.empty()) {
    sweep::Axis* axis = plan->add_axis();
    axis->set_name("share");
    for (const std::string& w : spec.share) axis->add_word(w);
  }
  if (several) {
    // Each program's params: an axis a program lacks is not set at its
    // points; one every program lacks is a typo.
    std::map<std::string, int> lacked_by;
    std::vector<std::string> paths;  // in the order given
    for (const std::string& path : spec.programs) {
      // One file, however spelled (flows.sq, ./flows.sq): its rows twice.
      for (const std::string& before : paths) {
        if (before == path || SameFile(before, path)) {
          *error = Failure(kExitUsage, ToolError("serq", before == path
                                                             ? absl::StrCat("the program '", path, "' is given twice")
                                                             : absl::StrCat("the program '", path,
                                                                            "' is given twice (as '", before, "')")));
          return false;
        }
      }
      paths.push_back(path);
      sweep::SweptProgram* p = plan->add_programs();
      p->set_path(path);
      if (auto text = ReadFile(path); text.ok()) p->set_digest(ProgramDigest(*text));
      std::set<std::string> params;
      if (!ProgramParams(path, &params, error)) return false;
      for (const sweep::Axis& a : plan->axis()) {
        if (a.word_size() > 0 || params.count(a.name()) > 0) continue;
        p->add_lacks(a.name());
        ++lacked_by[a.name()];
      }
    }
    for (const sweep::Axis& a : plan->axis()) {
      if (lacked_by[a.name()] == static_cast<int>(spec.programs.size())) {
        *error = Failure(kExitUsage, ToolError("serq", absl::StrCat("-D ", a.name(), ": none of the programs (",
                                                                    PlanPrograms(*plan), ") has a param '",
                                                                    a.name(), "'")));
        return false;
      }
    }
  }
  if (spec.seed) plan->set_seed(*spec.seed);
  if (spec.horizon) plan->set_horizon(*spec.horizon);
  if (spec.warmup) plan->set_warmup(*spec.warmup);
  plan->set_data_dir(spec.data_dir);

  const uint64_t points = PlanPointCount(*plan);
  // A point whose program is rejected runs as a failed task (the sweep
  // reports it with its diagnostics); a program rejected at every point
  // is refused here, before any task runs. With several programs, the
  // figures asked for must be observed by every one (the observations'
  // intersection over each program's first valid point).
  bool linked_once = false;
  std::set<int> observed_programs;
  CommandResult first_rejection;
  // Each point's program is parsed and linked: a grid of millions of
  // points takes minutes, which a user should see going.
  ProgressLine progress(ProgressLine::ForStderr());
  for (uint64_t p = 0; p < points; ++p) {
    if (progress.Due()) {
      progress.Show(absl::StrCat("serq: planning the sweep: ", p, " of ", points,
                                 " points' programs parsed and linked"));
    }
    PlanPoint point = PointOfPlan(*plan, p);
    const std::vector<sweep::Setting>& settings = point.settings;
    ir::Program program;
    CommandResult linked;
    if (!ParseAndLink(point.path, PointOptions(settings), &program, &linked)) {
      if (linked.exit_code != kExitInputRejected) {  // a file that cannot be read
        *error = linked;
        return false;
      }
      if (first_rejection.err.empty()) {
        first_rejection = linked;
        absl::StrAppend(&first_rejection.err,
                        ToolError("serq", absl::StrCat("the program is rejected at the sweep's point ",
                                                       PointText(point),
                                                       points > 1 ? " and at every other" : "")));
      }
      continue;
    }
    if (observations != nullptr && observed_programs.insert(point.program).second) {
      std::vector<std::string> seen = ProgramObservations(program);
      if (observed_programs.size() == 1) {
        *observations = seen;
      } else {
        std::vector<std::string> both;
        std::set_intersection(observations->begin(), observations->end(), seen.begin(), seen.end(),
                              std::back_inserter(both));
        *observations = std::move(both);
      }
    }
    if (linked_once) continue;
    linked_once = true;
    uint32_t replications = spec.replications.value_or(0);
    if (replications == 0) {
      // The program's own `run { replications }` at the first point (of
      // the first program, in a sweep of several).
      sim::ModelOptions model_options;
      model_options.defines = PointOptions(settings).defines;
      model_options.seed = spec.seed;
      model_options.horizon = spec.horizon;
      model_options.warmup = spec.warmup;
      model_options.data_dir = spec.data_dir;
      sim::Model model;
      Diagnostics diags(InputName(point.path));
      if (!sim::CompileModel(program, model_options, &model, &diags)) {
        *error = Failure(kExitInputRejected,
                         RenderProgramDiagnostics(diags, program, InputName(point.path)));
        return false;
      }
      replications = model.replications;
    }
    plan->set_replications(replications);
    // points saturates: compared alone first, so the product cannot wrap.
    if (points > kMaxTasks || points * replications > kMaxTasks) {
      *error = Failure(kExitUsage, ToolError("serq", absl::StrCat("the sweep has ", points, " points × ",
                                                                  replications, " replications: too many tasks")));
      return false;
    }
  }
  if (!linked_once) {
    *error = first_rejection;
    return false;
  }
  return true;
}

uint64_t TaskCount(const sweep::Plan& plan) { return PlanPointCount(plan) * plan.replications(); }

std::string PlanPath(const std::string& dir) { return (fs::path(dir) / "plan.pb").string(); }

std::string TaskPath(const std::string& dir, uint64_t task) {
  return (fs::path(dir) / absl::StrCat("task-", task, ".pb")).string();
}

absl::Status WritePlan(const std::string& dir, const sweep::Plan& plan) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return absl::InvalidArgumentError(absl::StrCat("cannot create '", dir, "': ", ec.message()));
  std::string bytes = plan.SerializeAsString();
  if (auto old = ReadFile(PlanPath(dir)); old.ok()) {
    if (*old == bytes) return absl::OkStatus();  // the same sweep: resumed
    sweep::Plan old_plan;
    std::string differs = old_plan.ParseFromString(*old) ? PlanDifference(old_plan, plan) : "";
    return absl::InvalidArgumentError(absl::StrCat(
        "'", dir, "' holds another sweep (its plan.pb differs",
        differs.empty() ? "" : absl::StrCat(": ", differs), "): use another --out or empty it"));
  } else {
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      std::string name = entry.path().filename().string();
      if (absl::StartsWith(name, "task-")) {
        return absl::InvalidArgumentError(absl::StrCat(
            "'", dir, "' holds task files but no plan.pb: use another --out or empty it"));
      }
    }
  }
  return WriteFile(PlanPath(dir), bytes);
}

std::string PlanDifference(const sweep::Plan& a, const sweep::Plan& b) {
  std::vector<std::string> parts;
  auto axes = [](const sweep::Plan& p) {
    std::string bytes;
    for (const sweep::Axis& x : p.axis()) bytes += x.SerializeAsString() + '\0';
    return bytes;
  };
  if (a.version() != b.version()) parts.push_back("the plan's version");
  if (a.program() != b.program()) {
    parts.push_back(absl::StrCat("the program ('", a.program(), "', now '", b.program(), "')"));
  } else if (a.has_program_digest() != b.has_program_digest()) {
    parts.push_back("the program's digest (planned by an older serq)");
  } else if (a.program_digest() != b.program_digest()) {
    parts.push_back(absl::StrCat("the program's text ('", b.program(), "' changed since)"));
  }
  if (a.cwd() != b.cwd()) {
    parts.push_back(absl::StrCat("the directory it was planned in ('", a.cwd(), "', now '", b.cwd(), "')"));
  }
  if (a.programs_size() != b.programs_size()) {
    parts.push_back(absl::StrCat("the programs ('", PlanPrograms(a), "', now '", PlanPrograms(b), "')"));
  } else {
    for (int p = 0; p < a.programs_size(); ++p) {
      if (a.programs(p).path() != b.programs(p).path()) {
        parts.push_back(absl::StrCat("the programs ('", PlanPrograms(a), "', now '", PlanPrograms(b), "')"));
        break;
      }
      if (a.programs(p).digest() != b.programs(p).digest()) {
        parts.push_back(absl::StrCat("the program's text ('", b.programs(p).path(), "' changed since)"));
      } else if (a.programs(p).SerializeAsString() != b.programs(p).SerializeAsString()) {
        parts.push_back(absl::StrCat("the params '", b.programs(p).path(), "' has"));
      }
    }
  }
  if (axes(a) != axes(b)) parts.push_back("the axes (-D, --share)");
  if (a.replications() != b.replications()) {
    parts.push_back(absl::StrCat("the replications (", a.replications(), ", now ", b.replications(), ")"));
  }
  if (a.has_seed() != b.has_seed() || a.seed() != b.seed()) parts.push_back("--seed");
  if (a.has_horizon() != b.has_horizon() || a.horizon() != b.horizon()) parts.push_back("--horizon");
  if (a.has_warmup() != b.has_warmup() || a.warmup() != b.warmup()) parts.push_back("--warmup");
  if (a.data_dir() != b.data_dir()) parts.push_back("--data-dir");
  return absl::StrJoin(parts, ", ");
}

bool TaskFinished(const std::string& dir, uint64_t task) {
  auto bytes = ReadFile(TaskPath(dir, task));
  sweep::Task t;
  if (!bytes.ok() || !t.ParseFromString(*bytes) || t.task() != task) return false;
  if (t.has_failure()) return t.failure().exit_code() != 0;
  return t.has_results();
}

absl::StatusOr<sweep::Plan> ReadPlan(const std::string& dir) {
  auto bytes = ReadFile(PlanPath(dir));
  if (!bytes.ok()) {
    return absl::NotFoundError(absl::StrCat("'", dir, "' holds no sweep (no plan.pb; serq sweep x.sq --out ",
                                            dir, " makes one)"));
  }
  sweep::Plan plan;
  if (!plan.ParseFromString(*bytes) || plan.version() != kPlanVersion) {
    return absl::FailedPreconditionError(absl::StrCat("'", PlanPath(dir), "' is not a sweep plan of version ",
                                                   kPlanVersion));
  }
  // What planning makes sure of, checked again of the file: a plan damaged
  // or made by hand (4294967295 replications made a merge allocate past
  // memory; an axis of no value, a sweep of no point and exit 0).
  auto damaged = [&](absl::string_view why) {
    return absl::FailedPreconditionError(absl::StrCat("'", PlanPath(dir), "' is damaged: ", why));
  };
  if (plan.replications() < 1 || plan.replications() > uint64_t{kMaxReplications}) {
    return damaged(absl::StrCat("replications ", plan.replications(), ", not 1 to ", kMaxReplications));
  }
  for (const sweep::Axis& a : plan.axis()) {
    if (a.word_size() == 0 && a.value_size() == 0) {
      return damaged(absl::StrCat("the axis of '", a.name(), "' has no value"));
    }
  }
  const uint64_t points = PlanPointCount(plan);  // saturating
  if (points > kMaxTasks) return damaged(absl::StrCat("more than ", kMaxTasks, " points"));
  if (points * plan.replications() > kMaxTasks) return damaged(absl::StrCat("more than ", kMaxTasks, " tasks"));
  return plan;
}

CommandResult RunTask(const std::string& dir, const sweep::Plan& plan, uint64_t task) {
  const uint64_t count = TaskCount(plan);
  if (task >= count) {
    return Failure(kExitUsage, ToolError("serq", absl::StrCat("--task ", task, ": the sweep has ",
                                                              count, " tasks, 0 to ", count - 1)));
  }
  const uint32_t point = static_cast<uint32_t>(task / plan.replications());
  const uint32_t replication = static_cast<uint32_t>(task % plan.replications());
  const PlanPoint at = PointOfPlan(plan, point);
  const std::vector<sweep::Setting>& settings = at.settings;
  const std::string& path = at.path;
  DriverOptions options = PointOptions(settings);
  ir::Program program;
  CommandResult result;
  const bool has_digest = at.program >= 0 || plan.has_program_digest();
  const uint64_t digest = at.program >= 0 ? plan.programs(at.program).digest() : plan.program_digest();
  if (has_digest) {
    // A task of a program edited since the sweep was planned would mix
    // two programs' figures in one table.
    auto text = ReadFile(path);
    if (text.ok() && ProgramDigest(*text) != digest) {
      return RecordFailure(
          dir, plan, task,
          Failure(kExitInputRejected,
                  ToolError("serq", absl::StrCat("the program '", path,
                                                 "' changed since the sweep was planned: plan it "
                                                 "again into another --out"))));
    }
  }
  if (!ParseAndLink(path, options, &program, &result)) {
    return RecordFailure(dir, plan, task, result);
  }
  SimOptions sim;
  if (plan.has_seed()) sim.seed = plan.seed();
  if (plan.has_horizon()) sim.horizon = plan.horizon();
  if (plan.has_warmup()) sim.warmup = plan.warmup();
  sim.data_dir = plan.data_dir();
  sim.replications = replication + 1;
  sim.first_replication = replication;
  sweep::Task out;
  out.set_task(static_cast<uint32_t>(task));
  out.set_point(point);
  out.set_replication(replication);
  for (const sweep::Setting& s : settings) *out.add_setting() = s;
  if (at.program >= 0) out.set_program(static_cast<uint32_t>(at.program));
  Diagnostics diags(InputName(path));
  if (!Simulate(program, sim, out.mutable_results(), &diags)) {
    CommandResult failed = Failure(kExitInputRejected,
                                   RenderProgramDiagnostics(diags, program, InputName(path)));
    return RecordFailure(dir, plan, task, failed);
  }
  // The run's replications, as in `serq run --replications R`.
  out.mutable_results()->set_replications(plan.replications());
  if (absl::Status s = WriteFile(TaskPath(dir, task), out.SerializeAsString()); !s.ok()) {
    return Failure(kExitUsage, ToolError("serq", s.message()));
  }
  return result;
}

namespace {

// The signal that interrupts a local run (SIGINT, SIGTERM) and how many
// came; SIGCHLD only wakes the loop.
volatile sig_atomic_t g_stop_signal = 0;
volatile sig_atomic_t g_stop_count = 0;

extern "C" void OnStopSignal(int sig) {
  if (g_stop_signal == 0) g_stop_signal = sig;
  if (g_stop_count < 2) g_stop_count = g_stop_count + 1;
}
extern "C" void OnChildSignal(int) {}

// Installs the handlers of a local run for its lifetime, with SIGINT,
// SIGTERM and SIGCHLD blocked except while the loop waits (sigsuspend),
// so that none is lost between a check and the wait. A signal ignored
// when the sweep started stays ignored.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal = 0;
    g_stop_count = 0;
    sigset_t block;
    sigemptyset(&block);
    for (int sig : {SIGINT, SIGTERM, SIGCHLD}) sigaddset(&block, sig);
    sigprocmask(SIG_BLOCK, &block, &old_mask_);
    wait_mask_ = old_mask_;
    for (int sig : {SIGINT, SIGTERM, SIGCHLD}) sigdelset(&wait_mask_, sig);
    for (int k = 0; k < 3; ++k) {
      const int sig = kSignals[k];
      struct sigaction act {};
      act.sa_handler = sig == SIGCHLD ? OnChildSignal : OnStopSignal;
      sigemptyset(&act.sa_mask);
      act.sa_flags = sig == SIGCHLD ? SA_NOCLDSTOP : 0;
      sigaction(sig, nullptr, &old_[k]);
      if (sig != SIGCHLD && old_[k].sa_handler == SIG_IGN) continue;
      sigaction(sig, &act, nullptr);
      installed_[k] = true;
    }
  }
  ~StopSignals() {
    for (int k = 0; k < 3; ++k) {
      if (installed_[k]) sigaction(kSignals[k], &old_[k], nullptr);
    }
    sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
  }
  // The mask a child starts with: the sweep's own.
  const sigset_t& child_mask() const { return old_mask_; }
  // Waits for a signal (a child's end, SIGINT, SIGTERM), or at most a
  // second: the progress line is redrawn while tasks run, not only when one
  // ends. ppoll with no descriptor is sigsuspend with a timeout (the mask
  // set and the wait begun atomically, so no signal is missed between).
  void Wait() const {
    const struct timespec second = {1, 0};
    ppoll(nullptr, 0, &second, &wait_mask_);
  }
  // Runs the handlers of an interruption pending now. A ^C reaches every
  // process of the group in one kill(2), so by the time a task it killed
  // can be reaped, the sweep's own SIGINT is pending; taken before the
  // reaping, it marks that task stopped rather than failed (without this,
  // a task reaped between two waits read as failed).
  void TakePending() const {
    sigset_t pending;
    sigpending(&pending);
    if (sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM)) {
      sigset_t blocked;
      sigprocmask(SIG_SETMASK, &wait_mask_, &blocked);  // the handlers run here
      sigprocmask(SIG_SETMASK, &blocked, nullptr);
    }
  }

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGCHLD};
  sigset_t old_mask_, wait_mask_;
  struct sigaction old_[3];
  bool installed_[3] = {false, false, false};
};

}  // namespace

CommandResult RunTasksLocally(const std::string& self, const std::string& dir,
                              const sweep::Plan& plan, uint32_t jobs, LocalRun* run) {
  const uint64_t count = TaskCount(plan);
  *run = LocalRun();
  run->tasks = count;
  std::vector<bool> finished(count, false);
  for (uint64_t i = 0; i < count; ++i) {
    finished[i] = TaskFinished(dir, i);
    if (finished[i]) ++run->resumed;
  }
  std::map<pid_t, uint64_t> running;
  uint64_t next = 0;
  std::string failed;
  uint64_t ended_here = 0, failed_here = 0;  // for the progress line
  // Whole lines, even on a terminal: the tasks write to the same stderr (a
  // failed task its error), which would land on a line drawn in place.
  ProgressLine progress(ProgressLine::ForStderr() == ProgressLine::Mode::kNone ? ProgressLine::Mode::kNone
                                                                                : ProgressLine::Mode::kLines);
  StopSignals signals;
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setsigmask(&attr, &signals.child_mask());
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  auto ended = [&](pid_t pid, int status) {
    auto it = running.find(pid);
    if (it == running.end()) return;
    const uint64_t t = it->second;
    running.erase(it);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      ++ended_here;
      return;
    }
    if (WIFSIGNALED(status) && g_stop_signal != 0) {
      // Stopped by the interruption: unfinished, not failed. Its file was
      // never renamed into place; its temporary one goes.
      std::error_code ec;
      fs::remove(absl::StrCat(TaskPath(dir, t), ".tmp.", pid), ec);
      return;
    }
    ++ended_here;  // failed: finished, its file says why
    ++failed_here;
    // A task that failed wrote its Failure; one killed or crashed could
    // not: say what happened in its file.
    auto bytes = ReadFile(TaskPath(dir, t));
    sweep::Task written;
    if (!bytes.ok() || !written.ParseFromString(*bytes) || !written.has_failure()) {
      std::string what = WIFEXITED(status) ? absl::StrCat("exited with ", WEXITSTATUS(status))
                                           : absl::StrCat("was killed by signal ", WTERMSIG(status));
      absl::Status s = WriteFailure(dir, plan, t, WIFEXITED(status) ? WEXITSTATUS(status) : 0, what,
                                    absl::StrCat("task ", t, " ", what, " and wrote no results\n"));
      if (!s.ok() && failed.empty()) failed = std::string(s.message());
    }
  };
  int forwarded = 0;  // the interruptions passed on to the running tasks
  while (true) {
    // Reap whatever ended, an interruption seen first.
    signals.TakePending();
    int status = 0;
    for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG)) > 0;) ended(pid, status);
    const int stops = g_stop_count;
    if (stops > forwarded) {
      // The first signal goes on to the tasks as it came; a second kills them.
      for (const auto& [pid, t] : running) kill(pid, stops >= 2 ? SIGKILL : g_stop_signal);
      forwarded = stops;
    }
    const bool starting = g_stop_signal == 0 && failed.empty();
    while (starting && next < count && finished[next]) ++next;
    if (starting && next < count && running.size() < jobs) {
      std::string task = absl::StrCat(next);
      std::vector<std::string> argv = {self, "sweep", "--out", dir, "--task", task};
      std::vector<char*> cargv;
      for (std::string& a : argv) cargv.push_back(a.data());
      cargv.push_back(nullptr);
      pid_t pid;
      if (int rc = posix_spawn(&pid, self.c_str(), nullptr, &attr, cargv.data(), environ); rc != 0) {
        failed = absl::StrCat("cannot start task ", next, ": ", std::strerror(rc));
        continue;
      }
      running[pid] = next++;
      continue;
    }
    if (running.empty() && (!starting || next >= count)) break;
    if (progress.Due()) {
      progress.Show(absl::StrCat("serq: ", run->resumed + ended_here, " of ", count, " tasks finished",
                                 failed_here > 0 ? absl::StrCat(" (", failed_here, " failed)") : "", ", ",
                                 running.size(), " running"));
    }
    signals.Wait();
  }
  posix_spawnattr_destroy(&attr);
  run->signal = g_stop_signal;
  for (uint64_t i = 0; i < count; ++i) run->finished += TaskFinished(dir, i) ? 1 : 0;
  // Only the executor's own failure (a task that cannot start, a file that
  // cannot be written) stops the sweep; a task's is in its file.
  if (!failed.empty()) return Failure(kExitUsage, ToolError("serq", absl::StrCat("the sweep stopped: ", failed)));
  return CommandResult();
}

std::string ShellQuote(absl::string_view text) {
  return absl::StrCat("'", absl::StrReplaceAll(text, {{"'", "'\\''"}}), "'");
}

std::string EmitParallel(const std::string& self, const std::string& dir, const sweep::Plan& plan) {
  std::string out;
  const uint64_t count = TaskCount(plan);
  for (uint64_t i = 0; i < count; ++i) {
    absl::StrAppend(&out, ShellQuote(self), " sweep --out ", ShellQuote(dir), " --task ", i, "\n");
  }
  return out;
}

std::string SlurmPathsProblem(const std::string& self, const std::string& dir) {
  auto control = [](absl::string_view text) {
    return std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; });
  };
  if (control(dir) || std::any_of(dir.begin(), dir.end(), [](char c) { return c == ' '; })) {
    return absl::StrCat("--emit=slurm: the folder '", Utf8Escaped(absl::CEscape(dir)),
                        "' holds a space or a control character, which an #SBATCH --output= line cannot (sbatch "
                        "reads it word by word): give --out a folder without them");
  }
  if (control(self)) {
    return absl::StrCat("--emit=slurm: the executable's path '", Utf8Escaped(absl::CEscape(self)),
                        "' holds a control character, which would break the script's lines: set $SERQ");
  }
  return "";
}

std::string SlurmArrayScript(absl::string_view what, absl::string_view job, const std::string& self,
                             absl::string_view verb, const std::string& dir, absl::string_view index_flag,
                             uint64_t count) {
  return absl::StrCat(
      "#!/bin/sh\n",
      // A program's name may hold a line break: escaped, it stays a comment.
      "# ", absl::CEscape(what), ", one array element each.\n",
      "# Submit with `sbatch THIS_FILE` (add --wait to block), then merge with\n",
      "#   ", ShellQuote(self), " ", verb, " --merge ", ShellQuote(dir), "\n",
      "#SBATCH --job-name=", job, "\n",
      "#SBATCH --array=0-", count - 1, "\n",
      "#SBATCH --ntasks=1\n",
      "#SBATCH --cpus-per-task=1\n",
      "#SBATCH --output=", dir, "/slurm-%A_%a.out\n",
      "exec ", ShellQuote(self), " ", verb, " --out ", ShellQuote(dir), " ", index_flag, " \"$SLURM_ARRAY_TASK_ID\"\n");
}

std::string EmitSlurm(const std::string& self, const std::string& dir, const sweep::Plan& plan) {
  const uint64_t count = TaskCount(plan);
  const uint64_t points = PlanPointCount(plan);
  const std::string what = absl::StrCat(
      "serq sweep of ", PlanPrograms(plan), ": ", count, count == 1 ? " task (" : " tasks (", points,
      points == 1 ? " point x " : " points x ", plan.replications(),
      plan.replications() == 1 ? " replication" : " replications", ")");
  return SlurmArrayScript(what, "serq-sweep", self, "sweep", dir, "--task", count);
}

absl::StatusOr<SweepTable> MergeSweep(const std::string& dir, const std::vector<Metric>& metrics) {
  auto plan = ReadPlan(dir);
  if (!plan.ok()) return plan.status();
  SweepTable table;
  table.plan = *plan;
  const uint64_t count = TaskCount(*plan);
  const uint32_t reps = plan->replications();
  std::vector<sweep::Task> tasks(count);
  std::vector<bool> present(count, false);
  for (uint64_t i = 0; i < count; ++i) {
    std::string path = TaskPath(dir, i);
    auto bytes = ReadFile(path);
    if (!bytes.ok()) continue;
    sweep::Task& t = tasks[i];
    if (!t.ParseFromString(*bytes)) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": error: not a sweep task file"));
    }
    const PlanPoint at = PointOfPlan(*plan, i / reps);
    const std::vector<sweep::Setting>& want = at.settings;
    bool same = t.task() == i && t.point() == i / reps && t.replication() == i % reps &&
                t.program() == static_cast<uint32_t>(std::max(at.program, 0)) &&
                t.setting_size() == static_cast<int>(want.size());
    for (size_t k = 0; same && k < want.size(); ++k) {
      same = t.setting(k).SerializeAsString() == want[k].SerializeAsString();
    }
    if (!same) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": error: the file is task ", t.task(), " (", PointText({t.setting().begin(), t.setting().end()}),
          ", replication ", t.replication(), "), not task ", i, " of this sweep (", PointText(at),
          ", replication ", i % reps, ")"));
    }
    // Its results are its one replication (a task file with another's
    // merged as that one, silently).
    if (t.has_results() &&
        (t.results().replication_size() != 1 || t.results().replication(0).index() != i % reps)) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": error: task ", i, " is replication ", i % reps, ", and its results hold ",
          t.results().replication_size() == 1 ? absl::StrCat("replication ", t.results().replication(0).index())
                                              : absl::StrCat(t.results().replication_size(), " replications")));
    }
    present[i] = true;
  }
  table.metrics = metrics;
  std::set<uint64_t> seeds;
  bool first = true;
  // Each point's replications merged, then the figures: with several
  // programs the default figures are known only once every program's
  // first point is.
  std::vector<std::optional<report::MergedResults>> merged_at;
  std::vector<Metric> common;   // several programs: the default figures every program has
  std::set<int> defaulted;      // the programs whose first merged point gave them
  for (uint64_t p = 0; p * reps < count; ++p) {
    SweepPoint point;
    const PlanPoint at = PointOfPlan(*plan, p);
    point.settings = at.settings;
    if (at.program >= 0) point.program = at.path;
    point.replications = reps;
    merged_at.emplace_back();
    std::vector<report::ResultsFile> files;
    for (uint32_t r = 0; r < reps; ++r) {
      const uint64_t i = p * reps + r;
      if (!present[i]) {
        if (point.status == SweepPoint::kMerged) point.status = SweepPoint::kMissing;
        table.missing.push_back(i);
        continue;
      }
      if (tasks[i].has_failure()) {
        if (point.status != SweepPoint::kFailed) {
          point.status = SweepPoint::kFailed;
          point.failure = absl::StrCat("task ", i, " ", tasks[i].failure().what(), ": ",
                                       FirstLine(tasks[i].failure().error()));
        }
        continue;
      }
      files.push_back({TaskPath(dir, i), &tasks[i].results()});
    }
    if (point.status != SweepPoint::kMerged) {
      table.points.push_back(std::move(point));
      continue;
    }
    auto merged = report::MergeResults(files);
    if (!merged.ok()) return merged.status();
    if (first) {
      first = false;
      table.horizon = merged->first->horizon();
      table.warmup = merged->first->warmup();
    }
    if (metrics.empty() && defaulted.insert(at.program).second) {
      std::vector<Metric> mine = DefaultMetrics(*merged);
      if (defaulted.size() == 1) {
        common = std::move(mine);
      } else {
        std::vector<Metric> both;
        for (const Metric& m : common) {
          for (const Metric& x : mine) {
            if (x.label == m.label) {
              both.push_back(m);
              break;
            }
          }
        }
        common = std::move(both);
      }
    }
    seeds.insert(merged->seeds.begin(), merged->seeds.end());
    table.times.insert(merged->first->time_observation().begin(), merged->first->time_observation().end());
    point.health = ComputeHealth(*merged);
    merged_at.back() = *std::move(merged);
    table.points.push_back(std::move(point));
  }
  if (table.metrics.empty()) table.metrics = std::move(common);
  for (size_t p = 0; p < table.points.size(); ++p) {
    if (!merged_at[p]) continue;
    auto figures = ComputeFigures(*merged_at[p], table.metrics);
    if (!figures.ok()) return figures.status();
    table.points[p].figures = *std::move(figures);
  }
  table.seeds.assign(seeds.begin(), seeds.end());
  return table;
}

std::vector<std::string> SweepProblems(const std::string& dir, const SweepTable& table) {
  std::vector<std::string> lines;
  std::vector<const SweepPoint*> failed;
  for (const SweepPoint& p : table.points) {
    if (p.status == SweepPoint::kFailed) failed.push_back(&p);
  }
  const size_t points = table.points.size();
  if (!failed.empty()) {
    std::string head = absl::StrCat(failed.size(), " of ", points, points == 1 ? " point" : " points",
                                    " failed:");
    // One failure on one line; more, one a line under the count.
    if (failed.size() == 1) {
      lines.push_back(absl::StrCat(head, " ", PointText(failed[0]->settings, failed[0]->program), ": ",
                                   failed[0]->failure));
    } else {
      lines.push_back(head);
      for (const SweepPoint* p : failed) {
        lines.push_back(absl::StrCat("  ", PointText(p->settings, p->program), ": ", p->failure));
      }
    }
  }
  const std::vector<uint64_t>& missing = table.missing;
  if (!missing.empty()) {
    const uint64_t count = TaskCount(table.plan);
    std::vector<uint64_t> shown(missing.begin(), missing.begin() + std::min<size_t>(missing.size(), 10));
    lines.push_back(absl::StrCat(
        "'", dir, "' lacks ", missing.size(), " of its ", count, " task files: task",
        missing.size() == 1 ? " " : "s ", absl::StrJoin(shown, ", "), missing.size() > 10 ? ", ..." : "",
        "; run one with: serq sweep --out ", dir, " --task ", missing[0]));
  }
  return lines;
}

}  // namespace serq
