#include "serq/sweep/local_run.h"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/cli.h"
#include "ir/output.h"
#include "ir/progress.h"
#include "serq/sweep/sweep.h"

extern char** environ;

namespace serq {

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
      // never renamed into place; its temporary one, named as the task's
      // WriteFile names it (it once removed another name), goes.
      std::error_code ec;
      for (int attempt = 0; attempt < kTemporaryAttempts; ++attempt) {
        std::filesystem::remove(TemporaryPath(TaskPath(dir, t), attempt, pid), ec);
      }
      return;
    }
    ++ended_here;  // failed: finished, its file says why
    ++failed_here;
    // A task that failed wrote its Failure; one killed or crashed could
    // not: say what happened in its file.
    absl::StatusOr<sweep::Task> written = ReadTask(dir, t);
    if (!written.ok() || !written->has_failure()) {
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

}  // namespace serq
