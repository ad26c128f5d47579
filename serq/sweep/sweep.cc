#include "serq/sweep/sweep.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/cli.h"
#include "ir/limits.h"
#include "ir/output.h"
#include "ir/progress.h"
#include "ir/walk.h"
#include "ir/words.h"
#include "lang/link/link.h"
#include "serq-sim/model/model.h"
#include "serq/sweep/grid.h"
#include "serq/sweep/metrics.h"

namespace serq {
namespace {

namespace fs = std::filesystem;

// The most tasks a sweep plans: a task index is a 31-bit number.
constexpr uint64_t kMaxTasks = uint64_t{1} << 31;

// The driver's options at a point: its params as -D, its policy as --share,
// the sweep's --data-dir (where the linker reads a table's file and the
// simulator a trace's, as `serq run --data-dir` has both).
DriverOptions PointOptions(const std::vector<sweep::Setting>& settings, const std::string& data_dir) {
  DriverOptions options;
  options.sim.data_dir = data_dir;
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

}  // namespace

std::string PointText(const std::vector<sweep::Setting>& settings, const std::string& program) {
  std::vector<std::string> parts;
  if (!program.empty()) parts.push_back(absl::StrCat("program=", program));
  for (const sweep::Setting& s : settings) {
    if (!s.lacked()) parts.push_back(absl::StrCat(s.name(), "=", SettingText(s)));
  }
  return parts.empty() ? "(the program as it is)" : absl::StrJoin(parts, ", ");
}

std::string PointText(const PlanPoint& p) { return PointText(p.settings, p.program < 0 ? "" : p.path); }

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

uint64_t ProgramDigest(absl::string_view text) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a's offset basis and prime
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

namespace {

// The params `e` reads in the linked `program`, through the values of the
// params it reads (a derived param's own), into `params`.
void ParamsRead(const ir::Program& program, const ir::Expr& e, std::set<std::string>* params) {
  AnyExpr(e, [&](const ir::Expr& x) {
    if (x.has_ref() && x.ref().kind() == ir::Ref::PARAM && x.ref().decl() < program.param_size()) {
      const ir::Param& p = program.param(x.ref().decl());
      if (params->insert(p.name()).second) ParamsRead(program, p.value(), params);
    }
    return false;
  });
}

// The params of the program at `path` as it is (no -D), for a sweep of
// several programs to know which axes each lacks. False, with `error`, when
// it cannot be read or is rejected as it is.
bool ProgramParams(const std::string& path, const std::string& data_dir, std::set<std::string>* params,
                   CommandResult* error) {
  ir::Program program;
  if (!ParseAndLink(path, PointOptions({}, data_dir), &program, error)) {
    absl::StrAppend(&error->err, ToolError("serq", absl::StrCat("the sweep reads the params of '", path,
                                                                "' from the program as it is")));
    return false;
  }
  for (const ir::Param& p : program.param()) params->insert(p.name());
  return true;
}

}  // namespace

bool PlanSweep(const SweepSpec& spec, sweep::Plan* plan, CommandResult* error,
               std::vector<std::string>* observations, std::vector<std::string>* warnings) {
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
      if (!ProgramParams(path, spec.data_dir, &params, error)) return false;
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

  const uint64_t points = PlanPointCount(*plan);  // saturating
  // A count that saturated is past 2^64, not that count.
  const std::string point_count =
      points == std::numeric_limits<uint64_t>::max() ? absl::StrCat("more than ", points) : absl::StrCat(points);
  // Too many points whatever the replications: said before any point is
  // linked (the loop below links each, and a program rejected at every
  // point never reached the count's check: 10^10 points ran for hours).
  auto too_many = [&](const std::string& what) {
    *error = Failure(kExitUsage, ToolError("serq", absl::StrCat("the sweep has ", what, ": too many tasks (at most ",
                                                                kMaxTasks, " points × replications)")));
    return false;
  };
  if (points > kMaxTasks) return too_many(absl::StrCat(point_count, " points"));
  // --replications given: the product too, before any point is linked
  // (points <= kMaxTasks and replications < 2^32: no wrap).
  if (spec.replications && points * *spec.replications > kMaxTasks) {
    return too_many(absl::StrCat(points, " points × ", *spec.replications, " replications"));
  }
  // A point whose program is rejected runs as a failed task (the sweep
  // reports it with its diagnostics); a program rejected at every point
  // is refused here, before any task runs. With several programs, the
  // figures asked for must be observed by every one (the observations'
  // intersection over each program's first valid point).
  bool linked_once = false;
  std::set<int> observed_programs;
  CommandResult first_rejection;
  // The first point's rejection, said if every point is rejected.
  auto rejected = [&](CommandResult why, const PlanPoint& point) {
    if (!first_rejection.err.empty()) return;
    first_rejection = std::move(why);
    absl::StrAppend(&first_rejection.err,
                    ToolError("serq", absl::StrCat("the program is rejected at the sweep's point ", PointText(point),
                                                   points > 1 ? " and at every other" : "")));
  };
  // The link's flags each program has a use for, at its first valid point:
  // the --share axis is said of each program without flows (its points
  // come out twice), --data-dir once where no program reads by it.
  const std::string share = absl::StrJoin(spec.share, ",");
  bool data_dir_used = false;
  std::vector<std::string> program_paths;
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
    LinkFlagUses uses;
    if (!ParseAndLink(point.path, PointOptions(settings, spec.data_dir), &program, &linked, &uses)) {
      if (linked.exit_code != kExitInputRejected) {  // a file that cannot be read
        *error = linked;
        return false;
      }
      rejected(linked, point);
      continue;
    }
    const bool first_of_program = observed_programs.insert(point.program).second;
    // One count of replications runs at every point: a program's count that
    // reads a swept param (itself, or through the params it reads) is
    // refused, not taken at one point's value, whichever program it is.
    if (first_of_program && !spec.replications && program.run().has_replications()) {
      std::set<std::string> read;
      ParamsRead(program, program.run().replications(), &read);
      for (const sweep::Axis& a : plan->axis()) {
        if (a.value_size() > 1 && read.count(a.name()) > 0) {
          *error = Failure(kExitUsage, ToolError("serq", absl::StrCat(
              point.path, ": its run { replications } reads the swept param '", a.name(),
              "', and a sweep runs one count of replications at every point: give --replications N")));
          return false;
        }
      }
    }
    if (warnings != nullptr && first_of_program) {
      for (std::string& w : UnusedLinkFlags(uses, share, "", point.path)) warnings->push_back(std::move(w));
      data_dir_used = data_dir_used || uses.data_dir;
      program_paths.push_back(point.path);
    }
    if (observations != nullptr && first_of_program) {
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
      // the first program, in a sweep of several); each program's count
      // was checked above not to read a swept param.
      sim::ModelOptions model_options;
      model_options.defines = PointOptions(settings, spec.data_dir).defines;
      model_options.seed = spec.seed;
      model_options.horizon = spec.horizon;
      model_options.warmup = spec.warmup;
      model_options.data_dir = spec.data_dir;
      sim::Model model;
      Diagnostics diags(InputName(point.path));
      if (!sim::CompileModel(program, model_options, &model, &diags)) {
        // Rejected at this point (a trace that cannot be read, a warmup
        // past the horizon): its task will fail as any rejected point's
        // does, and the count is read at the next point.
        linked_once = false;
        rejected(Failure(kExitInputRejected, RenderProgramDiagnostics(diags, program, InputName(point.path))), point);
        continue;
      }
      replications = model.replications;
    }
    plan->set_replications(replications);
    // points <= kMaxTasks (above) and replications < 2^32: no wrap.
    if (points * replications > kMaxTasks) {
      return too_many(absl::StrCat(points, " points × ", replications, " replications"));
    }
  }
  if (!linked_once) {
    // Every point rejected. One program lacking an axis's param is a typo,
    // said as the flag's (as with several programs, above), not as the
    // program rejected; read from the program as it is, and one that links
    // only at the swept values keeps its points' rejection.
    std::set<std::string> params;
    CommandResult unused;
    if (!several && ProgramParams(plan->program(), spec.data_dir, &params, &unused)) {
      for (const sweep::Axis& a : plan->axis()) {
        if (a.word_size() > 0 || params.count(a.name()) > 0) continue;
        *error = Failure(kExitUsage, ToolError("serq", absl::StrCat("-D ", a.name(), ": ", plan->program(),
                                                                    " has no param '", a.name(), "'")));
        return false;
      }
    }
    *error = first_rejection;
    return false;
  }
  if (warnings != nullptr && !data_dir_used) {
    LinkFlagUses none;
    none.traces = true;
    const std::string subject = program_paths.size() == 1
                                    ? program_paths[0]
                                    : absl::StrCat("each of ", absl::StrJoin(program_paths, ", "));
    for (std::string& w : UnusedLinkFlags(none, "", spec.data_dir, subject)) warnings->push_back(std::move(w));
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

absl::StatusOr<sweep::Task> ReadTask(const std::string& dir, uint64_t task) {
  const std::string path = TaskPath(dir, task);
  auto bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  sweep::Task t;
  if (!t.ParseFromString(*bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": error: not a sweep task file"));
  }
  return t;
}

bool TaskFinished(const std::string& dir, uint64_t task) {
  absl::StatusOr<sweep::Task> t = ReadTask(dir, task);
  if (!t.ok() || t->task() != task) return false;
  if (t->has_failure()) return t->failure().exit_code() != 0;
  return t->has_results();
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
  DriverOptions options = PointOptions(settings, plan.data_dir());
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

}  // namespace serq
