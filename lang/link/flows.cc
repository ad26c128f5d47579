// The rules of runs, checked once every reference is known: modes and
// growing (step stages), and the link rule (docs/language.md §11) for multi-stage runs and
// shared stages (RFC #118):
//   - every stage of a run with a non-empty `also` is ps(phi), phi a
//     constant above 0 (a phi reading `present` has no meaning for a flow);
//   - no stage declaration appears twice in one run (indices are known only
//     when the run starts, so egress[i], egress[j] could name one stage);
//   - a shared stage is any stage declaration named in such a run, and every
//     run on it, single-stage runs included, is plain (no mode, no growing);
//   - a program with such a run declares `share`.
#include <map>

#include "absl/strings/str_cat.h"
#include "ir/words.h"
#include "lang/link/linker.h"

namespace serq {
namespace linker {
namespace {

std::string AStageOfKind(ir::Stage::Kind k) {
  absl::string_view word = StageKindWord(k);
  if (word.empty()) return "a stage of no known kind";
  return absl::StrCat("a ", word, " stage");
}

bool IsStage(const ir::Ref& r) { return r.kind() == ir::Ref::STAGE; }

}  // namespace

void Linker::CheckRuns() {
  // The static partition: stage declaration -> the first multi-stage run
  // that names it.
  std::map<int, const RunSite*> shared;
  const RunSite* first_flow = nullptr;
  for (const RunSite& site : runs_) {
    const ir::Statement::Run& run = site.statement->run();
    if (run.also_size() == 0) continue;
    if (first_flow == nullptr) first_flow = &site;
    if (IsStage(run.stage())) shared.emplace(run.stage().decl(), &site);
    for (const ir::Ref& r : run.also()) {
      if (IsStage(r)) shared.emplace(r.decl(), &site);
    }
  }
  if (!ir::Program::Share_IsValid(program_->share())) {
    Error(Place{}.Field("share", &program_->share_loc()),
          absl::StrCat("unknown sharing policy (", program_->share(), ")"));
  } else if (first_flow != nullptr && program_->share() == ir::Program::SHARE_UNSPECIFIED) {
    Error(first_flow->place,
          "a multi-stage run needs the program's sharing policy: declare 'share maxmin;' or "
          "'share bottleneck;'");
  }

  for (const RunSite& site : runs_) {
    const ir::Statement::Run& run = site.statement->run();
    Place at = site.place.Field("run");
    Place stage_at = at.Field("stage", &run.stage().loc());
    if (!ir::Statement::Run::Mode_IsValid(run.mode())) {
      Error(at, absl::StrCat("the run has an unknown mode (", run.mode(), ")"));
      continue;
    }

    if (run.also_size() > 0) {
      std::set<uint32_t> seen;
      auto check = [&](const ir::Ref& r, const Place& where) {
        if (!IsStage(r)) return;
        const ir::Stage& s = program_->stage(r.decl());
        if (!seen.insert(r.decl()).second) {
          Error(where, absl::StrCat("'", s.name(), "' is named twice in one run; its indices are "
                                    "known only when the run starts, so they could name one "
                                    "stage twice"));
          return;
        }
        if (s.kind() != ir::Stage::PS) {
          Error(where, absl::StrCat("'", s.name(), "' is ", AStageOfKind(s.kind()),
                                    "; every stage of a multi-stage run is ps(phi) with a "
                                    "constant phi above 0"));
        } else if (!s.has_rate()) {
          // Reported with the stage.
        } else if (ReadsBuiltin(s.rate(), ir::Ref::PRESENT)) {
          Error(where, absl::StrCat("the phi of '", s.name(), "' reads 'present', which has no "
                                    "meaning for a flow; every stage of a multi-stage run "
                                    "needs a constant phi above 0"));
        } else if (IsConstantExpr(s.rate())) {
          // Evaluated quietly: a phi that cannot be evaluated was reported
          // with its stage.
          absl::StatusOr<double> phi = Value(s.rate());
          if (phi.ok() && !(*phi > 0)) {
            Error(where, absl::StrCat("the phi of '", s.name(), "' is ", FormatNumber(*phi),
                                      "; every stage of a multi-stage run needs a constant "
                                      "phi above 0"));
          }
        }
      };
      check(run.stage(), stage_at);
      for (int k = 0; k < run.also_size(); ++k) {
        check(run.also(k), at.Field("also").Item(k, &run.also(k).loc()));
      }
    }

    if (!IsStage(run.stage())) continue;
    const ir::Stage& stage = program_->stage(run.stage().decl());
    auto shared_at = shared.find(run.stage().decl());
    bool plain = run.mode() == ir::Statement::Run::PLAIN && !run.has_growing();
    if (shared_at != shared.end()) {
      if (!plain) {
        Error(stage_at, absl::StrCat("'", stage.name(), "' is a shared stage (in the "
                                     "multi-stage run at ", WhereIs(shared_at->second->place),
                                     "); every run on it is plain: no prefill or decode, no "
                                     "growing"));
      }
      continue;
    }
    if (run.mode() != ir::Statement::Run::PLAIN && stage.kind() != ir::Stage::STEP) {
      Error(stage_at, absl::StrCat("'", stage.name(), "' is ", AStageOfKind(stage.kind()),
                                   "; prefill and decode runs are only for step stages"));
    } else if (run.mode() == ir::Statement::Run::PLAIN && stage.kind() == ir::Stage::STEP) {
      Error(stage_at, absl::StrCat("'", stage.name(), "' is a step stage; a run on it names its "
                                   "mode: run ", stage.name(), " prefill (…) or run ",
                                   stage.name(), " decode (…)"));
    }
    // IR 9: prefill runs grow too (a chunk's tokens as it joins a batch);
    // a plain run has no tokens to grow by. Prefill and decode runs are on
    // step stages only (above), and so is `growing`.
    if (run.has_growing() && run.mode() == ir::Statement::Run::PLAIN) {
      Error(at.Field("growing", &run.growing().loc()),
            "growing is only for prefill and decode runs (on a step stage)");
    }
    if (!run.observe().empty() && run.mode() != ir::Statement::Run::DECODE) {
      Error(at.Field("observe", &run.observe_loc()),
            absl::StrCat("observe on a run is only for decode runs (one sample a token); "
                         "for one sample, write 'observe ", run.observe(), " = …;' after it"));
    }
  }
}

}  // namespace linker
}  // namespace serq
