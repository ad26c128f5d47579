#include "serq/sweep/sweep.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/match.h"
#include "ir/cli.h"
#include "ir/output.h"
#include "ir/words.h"
#include "stats/merge.h"
#include "serq-sim/model/model.h"
#include "serq/sweep/grid.h"
#include "serq/sweep/metrics.h"

extern char** environ;

namespace serq {
namespace {

namespace fs = std::filesystem;

std::string PointText(const std::vector<sweep::Setting>& settings) {
  std::vector<std::string> parts;
  for (const sweep::Setting& s : settings) parts.push_back(absl::StrCat(s.name(), "=", SettingText(s)));
  return parts.empty() ? "(the program as it is)" : absl::StrJoin(parts, ", ");
}

// The driver's options at a point: its params as -D, its policy as --share.
DriverOptions PointOptions(const std::vector<sweep::Setting>& settings) {
  DriverOptions options;
  for (const sweep::Setting& s : settings) {
    if (s.word().empty()) {
      options.defines.emplace_back(s.name(), s.value());
    } else {
      options.share = ShareFromWord(s.word());
    }
  }
  return options;
}

// 'text' for sh, with every ' written '\''.
std::string ShellQuote(absl::string_view text) {
  return absl::StrCat("'", absl::StrReplaceAll(text, {{"'", "'\\''"}}), "'");
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
  for (const sweep::Setting& s : PointSettings(plan.axis(), task / plan.replications())) {
    *out.add_setting() = s;
  }
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
                                                 PointText(PointSettings(plan.axis(), task / plan.replications())),
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

bool PlanSweep(const SweepSpec& spec, sweep::Plan* plan, CommandResult* error,
               std::vector<std::string>* observations) {
  plan->Clear();
  plan->set_version(kPlanVersion);
  plan->set_program(spec.program);
  plan->set_cwd(fs::current_path().string());
  if (auto text = ReadFile(spec.program); text.ok()) plan->set_program_digest(ProgramDigest(*text));
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
  if (spec.seed) plan->set_seed(*spec.seed);
  if (spec.horizon) plan->set_horizon(*spec.horizon);
  if (spec.warmup) plan->set_warmup(*spec.warmup);
  plan->set_data_dir(spec.data_dir);

  const uint64_t points = PointCount(plan->axis());
  constexpr uint64_t kMaxTasks = uint64_t{1} << 31;
  // A point whose program is rejected runs as a failed task (the sweep
  // reports it with its diagnostics); a program rejected at every point
  // is refused here, before any task runs.
  bool linked_once = false;
  CommandResult first_rejection;
  for (uint64_t p = 0; p < points; ++p) {
    std::vector<sweep::Setting> settings = PointSettings(plan->axis(), p);
    ir::Program program;
    CommandResult linked;
    if (!ParseAndLink(spec.program, PointOptions(settings), &program, &linked)) {
      if (linked.exit_code != kExitInputRejected) {  // a file that cannot be read
        *error = linked;
        return false;
      }
      if (first_rejection.err.empty()) {
        first_rejection = linked;
        absl::StrAppend(&first_rejection.err,
                        ToolError("serq", absl::StrCat("the program is rejected at the sweep's point ",
                                                       PointText(settings),
                                                       points > 1 ? " and at every other" : "")));
      }
      continue;
    }
    if (linked_once) continue;
    linked_once = true;
    if (observations != nullptr) *observations = ProgramObservations(program);
    uint32_t replications = spec.replications.value_or(0);
    if (replications == 0) {
      // The program's own `run { replications }` at the first point.
      sim::ModelOptions model_options;
      model_options.defines = PointOptions(settings).defines;
      model_options.seed = spec.seed;
      model_options.horizon = spec.horizon;
      model_options.warmup = spec.warmup;
      model_options.data_dir = spec.data_dir;
      sim::Model model;
      Diagnostics diags(InputName(spec.program));
      if (!sim::CompileModel(program, model_options, &model, &diags)) {
        *error = Failure(kExitInputRejected,
                         RenderProgramDiagnostics(diags, program, InputName(spec.program)));
        return false;
      }
      replications = model.replications;
    }
    plan->set_replications(replications);
    if (points * replications > kMaxTasks) {
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

uint64_t TaskCount(const sweep::Plan& plan) { return PointCount(plan.axis()) * plan.replications(); }

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
  std::vector<sweep::Setting> settings = PointSettings(plan.axis(), point);
  DriverOptions options = PointOptions(settings);
  ir::Program program;
  CommandResult result;
  if (plan.has_program_digest()) {
    // A task of a program edited since the sweep was planned would mix
    // two programs' figures in one table.
    auto text = ReadFile(plan.program());
    if (text.ok() && ProgramDigest(*text) != plan.program_digest()) {
      return RecordFailure(
          dir, plan, task,
          Failure(kExitInputRejected,
                  ToolError("serq", absl::StrCat("the program '", plan.program(),
                                                 "' changed since the sweep was planned: plan it "
                                                 "again into another --out"))));
    }
  }
  if (!ParseAndLink(plan.program(), options, &program, &result)) {
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
  Diagnostics diags(InputName(plan.program()));
  if (!Simulate(program, sim, out.mutable_results(), &diags)) {
    CommandResult failed = Failure(kExitInputRejected,
                                   RenderProgramDiagnostics(diags, program, InputName(plan.program())));
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
  // Waits for a signal (a child's end, SIGINT, SIGTERM).
  void Wait() const { sigsuspend(&wait_mask_); }
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
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
    if (WIFSIGNALED(status) && g_stop_signal != 0) {
      // Stopped by the interruption: unfinished, not failed. Its file was
      // never renamed into place; its temporary one goes.
      std::error_code ec;
      fs::remove(absl::StrCat(TaskPath(dir, t), ".tmp.", pid), ec);
      return;
    }
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

std::string EmitParallel(const std::string& self, const std::string& dir, const sweep::Plan& plan) {
  std::string out;
  const uint64_t count = TaskCount(plan);
  for (uint64_t i = 0; i < count; ++i) {
    absl::StrAppend(&out, ShellQuote(self), " sweep --out ", ShellQuote(dir), " --task ", i, "\n");
  }
  return out;
}

std::string EmitSlurm(const std::string& self, const std::string& dir, const sweep::Plan& plan) {
  const uint64_t count = TaskCount(plan);
  return absl::StrCat(
      "#!/bin/sh\n",
      "# serq sweep of ", plan.program(), ": ", count, count == 1 ? " task (" : " tasks (", PointCount(plan.axis()),
      PointCount(plan.axis()) == 1 ? " point x " : " points x ", plan.replications(),
      plan.replications() == 1 ? " replication" : " replications", "), one array element each.\n",
      "# Submit with `sbatch THIS_FILE` (add --wait to block), then merge with\n",
      "#   ", ShellQuote(self), " sweep --merge ", ShellQuote(dir), "\n",
      "#SBATCH --job-name=serq-sweep\n",
      "#SBATCH --array=0-", count - 1, "\n",
      "#SBATCH --ntasks=1\n",
      "#SBATCH --cpus-per-task=1\n",
      "#SBATCH --output=", dir, "/slurm-%A_%a.out\n",
      "exec ", ShellQuote(self), " sweep --out ", ShellQuote(dir), " --task \"$SLURM_ARRAY_TASK_ID\"\n");
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
    std::vector<sweep::Setting> want = PointSettings(plan->axis(), i / reps);
    bool same = t.task() == i && t.point() == i / reps && t.replication() == i % reps &&
                t.setting_size() == static_cast<int>(want.size());
    for (size_t k = 0; same && k < want.size(); ++k) {
      same = t.setting(k).SerializeAsString() == want[k].SerializeAsString();
    }
    if (!same) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": error: the file is task ", t.task(), " (", PointText({t.setting().begin(), t.setting().end()}),
          ", replication ", t.replication(), "), not task ", i, " of this sweep (", PointText(want),
          ", replication ", i % reps, ")"));
    }
    present[i] = true;
  }
  table.metrics = metrics;
  std::set<uint64_t> seeds;
  bool first = true;
  for (uint64_t p = 0; p * reps < count; ++p) {
    SweepPoint point;
    point.settings = PointSettings(plan->axis(), p);
    point.replications = reps;
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
      if (table.metrics.empty()) table.metrics = DefaultMetrics(*merged);
    }
    seeds.insert(merged->seeds.begin(), merged->seeds.end());
    auto figures = ComputeFigures(*merged, table.metrics);
    if (!figures.ok()) return figures.status();
    point.figures = *std::move(figures);
    point.health = ComputeHealth(*merged);
    table.points.push_back(std::move(point));
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
      lines.push_back(absl::StrCat(head, " ", PointText(failed[0]->settings), ": ", failed[0]->failure));
    } else {
      lines.push_back(head);
      for (const SweepPoint* p : failed) {
        lines.push_back(absl::StrCat("  ", PointText(p->settings), ": ", p->failure));
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
