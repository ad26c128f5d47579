#include "stats/merge.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "ir/diagnostics.h"
#include "ir/io.h"
#include "stats/format.h"
#include "stats/sketch.h"

namespace serq::report {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// NaN is no figure: the simulator stops on one (a runtime error), so a file
// that holds one is damaged, and a NaN would reach the report otherwise.
// Paths use the JSON field names, as every IR path does (docs/ir.md).
void CheckNoNaN(const Message& m, const std::string& path, Diagnostics* diags) {
  const google::protobuf::Descriptor* desc = m.GetDescriptor();
  const google::protobuf::Reflection* refl = m.GetReflection();
  for (int i = 0; i < desc->field_count(); ++i) {
    const FieldDescriptor* f = desc->field(i);
    std::string at = path.empty() ? f->json_name() : absl::StrCat(path, ".", f->json_name());
    bool is_message = f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
    bool is_double = f->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE;
    if (f->is_repeated()) {
      for (int k = 0, n = refl->FieldSize(m, f); k < n; ++k) {
        if (is_message) {
          CheckNoNaN(refl->GetRepeatedMessage(m, f, k), absl::StrCat(at, "[", k, "]"), diags);
        } else if (is_double && std::isnan(refl->GetRepeatedDouble(m, f, k))) {
          // One is enough: a list of a million samples must not print a
          // million lines.
          diags->ErrorAtPath(absl::StrCat(at, "[", k, "]"), "NaN is not a valid value");
          break;
        }
      }
    } else if (is_message) {
      if (refl->HasField(m, f)) CheckNoNaN(refl->GetMessage(m, f), at, diags);
    } else if (is_double && std::isnan(refl->GetDouble(m, f))) {
      diags->ErrorAtPath(at, "NaN is not a valid value");
    }
  }
}

bool KnownKind(const std::string& kind) {
  return kind == "delay" || kind == "ps" || kind == "fifo" || kind == "step";
}

void CheckReplication(const results::Replication& rep, const std::string& path,
                      Diagnostics* diags) {
  std::map<std::string, int> seen;
  for (int j = 0; j < rep.observation_size(); ++j) {
    const std::string& name = rep.observation(j).name();
    auto [it, inserted] = seen.emplace(name, j);
    if (!inserted) {
      diags->ErrorAtPath(absl::StrCat(path, ".observation[", j, "].name"),
                         absl::StrCat("observation '", name, "' appears twice in replication ",
                                      rep.index(), " (first at observation[", it->second,
                                      "])"));
    }
  }
  for (int j = 0; j < rep.observation_size(); ++j) {
    const results::Observation& o = rep.observation(j);
    std::string at = absl::StrCat(path, ".observation[", j, "]");
    if (o.count() == 0) continue;
    if (o.sample_size() > 0) {
      diags->ErrorAtPath(absl::StrCat(at, ".count"),
                         absl::StrCat("observation '", o.name(),
                                      "' has both samples and a summary; expected one"));
      continue;
    }
    QuantileSketch sketch;
    if (absl::Status s = QuantileSketch::Read(o.sketch(), &sketch); !s.ok()) {
      diags->ErrorAtPath(absl::StrCat(at, ".sketch"), std::string(s.message()));
    } else if (sketch.count() != o.count()) {
      diags->ErrorAtPath(absl::StrCat(at, ".sketch"),
                         absl::StrCat("the sketch of '", o.name(), "' counts ", sketch.count(),
                                      " samples, the summary ", o.count()));
    }
    // A sum of squared deviations: at least 0 (a negative one is a
    // negative variance, and a standard deviation of NaN).
    if (o.m2() < 0) {
      diags->ErrorAtPath(absl::StrCat(at, ".m2"),
                         absl::StrCat("m2 ", FormatShortest(o.m2()), " of '", o.name(),
                                      "' is a sum of squares: at least 0"));
    }
  }
  for (int j = 0; j < rep.stage_size(); ++j) {
    const std::string& kind = rep.stage(j).kind();
    if (!KnownKind(kind)) {
      diags->ErrorAtPath(absl::StrCat(path, ".stage[", j, "].kind"),
                         absl::StrCat("unknown stage kind '", kind,
                                      "' (expected delay, ps, fifo or step)"));
    }
    // A share of time: 0 to 1 (and the rounding of a shared stage's
    // time-averaged rates above it).
    const double util = rep.stage(j).utilisation();
    if (!(util >= 0 && util <= 1 + 1e-9)) {
      diags->ErrorAtPath(absl::StrCat(path, ".stage[", j, "].utilisation"),
                         absl::StrCat("utilisation ", FormatShortest(util), " is a share of time: 0 to 1"));
    }
  }
}

std::string Describe(const results::StageStats& s) {
  std::string budgets;
  if (s.step_seqs() > 0) absl::StrAppend(&budgets, ", seqs ", FormatShortest(s.step_seqs()));
  if (s.step_tokens() > 0) absl::StrAppend(&budgets, ", tokens ", FormatShortest(s.step_tokens()));
  return absl::StrCat("'", ElementName(s.name(), s.array(), s.index()), "' (", s.kind(),
                      s.shared() ? ", shared" : "", budgets, ")");
}
// A step stage's budgets too: its fill is over them (-D can change them
// between two runs of the same program).
bool Same(const results::StageStats& a, const results::StageStats& b) {
  return a.name() == b.name() && a.index() == b.index() && a.array() == b.array() &&
         a.kind() == b.kind() && a.shared() == b.shared() && a.step_seqs() == b.step_seqs() &&
         a.step_tokens() == b.step_tokens();
}

std::string Describe(const results::PoolStats& p) {
  return absl::StrCat("'", ElementName(p.name(), p.array(), p.index()), "' (cap ",
                      FormatShortest(p.cap()), ")");
}
bool Same(const results::PoolStats& a, const results::PoolStats& b) {
  return a.name() == b.name() && a.index() == b.index() && a.array() == b.array() &&
         a.cap() == b.cap() && a.cache_block() == b.cache_block();
}

std::string Describe(const results::SessionStats& s) {
  return s.name().empty() ? std::string("the unnamed session")
                          : absl::StrCat("'", s.name(), "'");
}
bool Same(const results::SessionStats& a, const results::SessionStats& b) {
  return a.name() == b.name();
}

// Where a replication came from, for messages and paths.
struct Origin {
  size_t file;
  int position;  // in the file's `replication` list
};

// The elements `what` (stage, pool, session) of a replication must be those
// of the reference replication, in the same order: the report adds them up
// element by element.
template <typename T>
void CheckSameElements(const google::protobuf::RepeatedPtrField<T>& got,
                       const google::protobuf::RepeatedPtrField<T>& want,
                       absl::string_view what, const std::string& path,
                       const std::string& reference, Diagnostics* diags) {
  if (got.size() != want.size()) {
    diags->ErrorAtPath(absl::StrCat(path, ".", what),
                       absl::StrCat(got.size(), " ", what, " elements, but ", reference,
                                    " has ", want.size(),
                                    "; merged results must come from the same program"));
    return;
  }
  for (int j = 0; j < got.size(); ++j) {
    if (!Same(got[j], want[j])) {
      diags->ErrorAtPath(absl::StrCat(path, ".", what, "[", j, "]"),
                         absl::StrCat(what, " ", Describe(got[j]), " does not match ",
                                      what, " ", Describe(want[j]), " of ", reference,
                                      "; merged results must come from the same program"));
      return;
    }
  }
}

const char kSameRun[] = "; merged results must come from the same program, horizon and warmup";

}  // namespace

std::vector<ResultsFile> NamedResults(const std::vector<results::Results>& inputs,
                                      const std::vector<std::string>& files) {
  std::vector<ResultsFile> named;
  named.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = i < files.size()     ? files[i]
                       : inputs.size() == 1 ? std::string("<results>")
                                            : absl::StrCat("<results ", i + 1, ">");
    named.push_back({std::move(name), &inputs[i]});
  }
  return named;
}

absl::StatusOr<MergedResults> MergeResults(const std::vector<ResultsFile>& files) {
  if (files.empty()) return absl::InvalidArgumentError("no results to report\n");
  std::vector<Diagnostics> diags;
  for (const ResultsFile& f : files) diags.emplace_back(f.name);

  MergedResults merged;
  merged.first = files[0].results;
  std::vector<std::pair<const results::Replication*, Origin>> all;
  for (size_t i = 0; i < files.size(); ++i) {
    const results::Results& r = *files[i].results;
    Diagnostics* d = &diags[i];
    // ReadResults checked this already; the serq driver hands over results
    // it did not read from a file.
    if (r.version() != kIrVersion) {
      d->ErrorAtPath("version", absl::StrCat("unsupported results version ", r.version(),
                                             "; this serq reads version ", kIrVersion));
    }
    CheckNoNaN(r, "", d);
    // The measured window [warmup, horizon]: a warmup below 0, or past a
    // horizon, gave throughputs over a window of another length.
    if (r.warmup() < 0 || (r.horizon() > 0 && r.warmup() > r.horizon())) {
      d->ErrorAtPath("warmup", absl::StrCat("warmup ", FormatShortest(r.warmup()), " is not within [0, horizon ",
                                            FormatShortest(r.horizon()), "]"));
    }
    const results::Results& first = *merged.first;
    if (i > 0) {
      const std::string& other = files[0].name;
      if (r.program() != first.program()) {
        d->ErrorAtPath("program", absl::StrCat("program '", r.program(), "' differs from '",
                                               first.program(), "' in ", other, kSameRun));
      }
      if (r.horizon() != first.horizon()) {
        d->ErrorAtPath("horizon", absl::StrCat("horizon ", FormatShortest(r.horizon()),
                                               " differs from ", FormatShortest(first.horizon()),
                                               " in ", other, kSameRun));
      }
      if (r.gpus() != first.gpus()) {
        d->ErrorAtPath("gpus", absl::StrCat("gpus ", r.gpus(), " differs from ", first.gpus(),
                                            " in ", other,
                                            "; merged results must come from the same deployment"));
      }
      if (r.warmup() != first.warmup()) {
        d->ErrorAtPath("warmup", absl::StrCat("warmup ", FormatShortest(r.warmup()),
                                              " differs from ", FormatShortest(first.warmup()),
                                              " in ", other, kSameRun));
      }
    }
    merged.seeds.push_back(r.seed());
    for (int k = 0; k < r.replication_size(); ++k) {
      CheckReplication(r.replication(k), absl::StrCat("replication[", k, "]"), d);
      const double end = r.replication(k).end();
      if (r.drained() && !(std::isfinite(end) && end >= r.warmup())) {
        d->ErrorAtPath(absl::StrCat("replication[", k, "].end"),
                       absl::StrCat("the end of a run without a horizon is ", FormatShortest(end),
                                    ", not a time at or after the warmup ",
                                    FormatShortest(r.warmup())));
      }
      all.push_back({&r.replication(k), Origin{i, k}});
    }
  }
  std::sort(merged.seeds.begin(), merged.seeds.end());
  merged.seeds.erase(std::unique(merged.seeds.begin(), merged.seeds.end()), merged.seeds.end());

  // A replication is its random stream: its index and the stream's seed
  // (derived from the run's seed and the index). Runs made with different
  // seeds (on different machines, say) merge even where their indices
  // coincide; the same stream twice is the same replication counted twice.
  // Sorted by (index, stream seed), and within that in file order, so a
  // duplicate is reported in the later file, at the later position.
  // Within one file the indices are the run's 0, 1, ...: each once (the
  // same index of the same stream is the duplicate reported below).
  for (size_t i = 0; i < files.size(); ++i) {
    std::map<uint32_t, int> seen;
    for (int k = 0; k < files[i].results->replication_size(); ++k) {
      const results::Replication& rep = files[i].results->replication(k);
      const uint32_t index = rep.index();
      if (auto [it, fresh] = seen.emplace(index, k);
          !fresh && files[i].results->replication(it->second).seed() != rep.seed()) {
        diags[i].ErrorAtPath(absl::StrCat("replication[", k, "].index"),
                             absl::StrCat("replication ", index, " appears twice in the file (also replication[",
                                          it->second, "]); a run writes each of its replications once"));
      }
    }
  }
  auto identity = [](const results::Replication* r) { return std::make_pair(r->index(), r->seed()); };
  std::stable_sort(all.begin(), all.end(), [&](const auto& a, const auto& b) {
    return identity(a.first) < identity(b.first);
  });
  auto where = [&](const Origin& o) {
    return absl::StrCat("replication[", o.position, "]");
  };
  // A stream seed is derived from the run's seed and the index, so one
  // stream seed is one stream, whatever index it is labelled with (a
  // replication copied and relabelled merged as a second one, ± 0).
  std::map<uint64_t, size_t> streams;  // seed -> its first in `all`
  for (size_t k = 0; k < all.size(); ++k) {
    const auto& [rep, origin] = all[k];
    std::string path = where(origin);
    auto [first, fresh] = streams.emplace(rep->seed(), k);
    if (!fresh) {
      const Origin& before = all[first->second].second;
      diags[origin.file].ErrorAtPath(
          absl::StrCat(path, ".index"),
          absl::StrCat("replication ", rep->index(), " (stream seed ", rep->seed(),
                       ") appears twice (also ", where(before),
                       " in ", files[before.file].name,
                       "); merged results must hold each replication once"));
      continue;
    }
    merged.replications.push_back(rep);
    if (k == 0) continue;
    const auto& [ref, ref_origin] = all[0];
    std::string reference = absl::StrCat("replication ", ref->index(), " in ",
                                         files[ref_origin.file].name);
    Diagnostics* d = &diags[origin.file];
    CheckSameElements(rep->stage(), ref->stage(), "stage", path, reference, d);
    CheckSameElements(rep->pool(), ref->pool(), "pool", path, reference, d);
    CheckSameElements(rep->session(), ref->session(), "session", path, reference, d);
    // Every replication of a program writes every observation it declares
    // (count 0 where none was made): one missing is another program's, or
    // a file cut by hand, and its figures would be some replications'.
    std::set<std::string> names, ref_names;
    for (const results::Observation& o : rep->observation()) names.insert(o.name());
    for (const results::Observation& o : ref->observation()) ref_names.insert(o.name());
    // The first name of `a` that `b` lacks ("" when none).
    auto first_lacking = [](const std::set<std::string>& a, const std::set<std::string>& b) {
      for (const std::string& n : a) {
        if (!b.count(n)) return n;
      }
      return std::string();
    };
    if (std::string n = first_lacking(ref_names, names); !n.empty()) {
      d->ErrorAtPath(absl::StrCat(path, ".observation"),
                     absl::StrCat("no observation '", n, "', which ", reference,
                                  " has; merged results come from one program"));
    }
    if (std::string n = first_lacking(names, ref_names); !n.empty()) {
      d->ErrorAtPath(absl::StrCat(path, ".observation"),
                     absl::StrCat("observation '", n, "', which ", reference,
                                  " has not; merged results come from one program"));
    }
  }
  // Sketches of one name merge only at one accuracy.
  std::map<std::string, std::pair<double, std::string>> alphas;
  for (const auto& [rep, origin] : all) {
    for (int j = 0; j < rep->observation_size(); ++j) {
      const results::Observation& o = rep->observation(j);
      if (o.count() == 0 || o.sample_size() > 0) continue;
      std::string where_file = absl::StrCat(where(origin), " in ", files[origin.file].name);
      auto [it, inserted] = alphas.emplace(o.name(), std::make_pair(o.sketch().alpha(), where_file));
      if (!inserted && it->second.first != o.sketch().alpha()) {
        diags[origin.file].ErrorAtPath(
            absl::StrCat(where(origin), ".observation[", j, "].sketch.alpha"),
            absl::StrCat("the sketch of '", o.name(), "' has alpha ",
                         FormatShortest(o.sketch().alpha()), ", but ", it->second.second, " has ",
                         FormatShortest(it->second.first), "; sketches merge at one accuracy"));
      }
    }
  }

  std::string errors;
  for (const Diagnostics& d : diags) errors += d.Render();
  if (!errors.empty()) return absl::InvalidArgumentError(errors);
  return merged;
}

}  // namespace serq::report
