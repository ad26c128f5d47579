#include "stats/series.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/diagnostics.h"
#include "stats/format.h"
#include "stats/merge.h"

namespace serq::report {
namespace {

using google::protobuf::RepeatedField;

// Every list must hold one value a sample time.
void CheckLength(const RepeatedField<double>& values, size_t times, bool optional,
                 const std::string& path, Diagnostics* diags) {
  if (optional && values.empty()) return;
  if (static_cast<size_t>(values.size()) != times) {
    diags->ErrorAtPath(path, absl::StrCat(values.size(), " values for ", times,
                                          " sample times; a series has one value a time"));
  }
}

// A series' elements are its replication's: the same names in the same
// order, so that a column means what the report's row of that name means.
void CheckSeries(const results::Replication& rep, const std::string& path, Diagnostics* diags) {
  const results::Series& s = rep.series();
  size_t n = s.time_size();
  for (int k = 1; k < s.time_size(); ++k) {
    if (!(s.time(k) > s.time(k - 1))) {
      diags->ErrorAtPath(absl::StrCat(path, ".time[", k, "]"),
                         "the sample times must increase");
      break;
    }
  }
  auto count = [&](int got, int want, absl::string_view what) {
    if (got == want) return true;
    diags->ErrorAtPath(absl::StrCat(path, ".", what),
                       absl::StrCat(got, " ", what, " series for ", want, " ", what,
                                    " elements in the replication"));
    return false;
  };
  if (count(s.stage_size(), rep.stage_size(), "stage")) {
    for (int j = 0; j < s.stage_size(); ++j) {
      const results::StageSeries& st = s.stage(j);
      const results::StageStats& want = rep.stage(j);
      std::string at = absl::StrCat(path, ".stage[", j, "]");
      if (st.name() != want.name() || st.index() != want.index() || st.array() != want.array()) {
        diags->ErrorAtPath(at, absl::StrCat("series of '", ElementName(st.name(), st.array(), st.index()),
                                            "' where the replication has stage '",
                                            ElementName(want.name(), want.array(), want.index()), "'"));
      }
      CheckLength(st.present(), n, false, at + ".present", diags);
      CheckLength(st.batch(), n, true, at + ".batch", diags);
      CheckLength(st.preempted(), n, true, at + ".preempted", diags);
    }
  }
  if (count(s.pool_size(), rep.pool_size(), "pool")) {
    for (int j = 0; j < s.pool_size(); ++j) {
      const results::PoolSeries& p = s.pool(j);
      const results::PoolStats& want = rep.pool(j);
      std::string at = absl::StrCat(path, ".pool[", j, "]");
      if (p.name() != want.name() || p.index() != want.index() || p.array() != want.array()) {
        diags->ErrorAtPath(at, absl::StrCat("series of '", ElementName(p.name(), p.array(), p.index()),
                                            "' where the replication has pool '",
                                            ElementName(want.name(), want.array(), want.index()), "'"));
      }
      CheckLength(p.used(), n, false, at + ".used", diags);
      CheckLength(p.loaded(), n, false, at + ".loaded", diags);
      CheckLength(p.evictable(), n, true, at + ".evictable", diags);
    }
  }
  if (count(s.session_size(), rep.session_size(), "session")) {
    for (int j = 0; j < s.session_size(); ++j) {
      std::string at = absl::StrCat(path, ".session[", j, "]");
      if (s.session(j).name() != rep.session(j).name()) {
        diags->ErrorAtPath(at, absl::StrCat("series of session '", s.session(j).name(),
                                            "' where the replication has '",
                                            rep.session(j).name(), "'"));
      }
      const results::SessionSeries& ss = s.session(j);
      CheckLength(ss.in_progress(), n, false, at + ".inProgress", diags);
      // The token counts come together or not at all.
      bool tokens = !ss.prefills().empty() || !ss.prefill_tokens().empty() ||
                    !ss.decode_tokens().empty();
      CheckLength(ss.prefills(), n, !tokens, at + ".prefills", diags);
      CheckLength(ss.prefill_tokens(), n, !tokens, at + ".prefillTokens", diags);
      CheckLength(ss.decode_tokens(), n, !tokens, at + ".decodeTokens", diags);
    }
  }
  // Results written before the interval counts have no observation series.
  if (s.observation_size() > 0 && count(s.observation_size(), rep.observation_size(), "observation")) {
    for (int j = 0; j < s.observation_size(); ++j) {
      const results::ObservationSeries& o = s.observation(j);
      std::string at = absl::StrCat(path, ".observation[", j, "]");
      if (o.name() != rep.observation(j).name()) {
        diags->ErrorAtPath(at, absl::StrCat("series of observation '", o.name(),
                                            "' where the replication has '",
                                            rep.observation(j).name(), "'"));
      }
      CheckLength(o.count(), n, false, at + ".count", diags);
      CheckLength(o.p50(), n, false, at + ".p50", diags);
      CheckLength(o.p90(), n, false, at + ".p90", diags);
      CheckLength(o.p99(), n, false, at + ".p99", diags);
      for (int k = 0; k < o.count_size(); ++k) {
        double c = o.count(k);
        if (!(c >= 0) || c != static_cast<double>(static_cast<uint64_t>(c))) {
          diags->ErrorAtPath(absl::StrCat(at, ".count[", k, "]"),
                             absl::StrCat("count ", FormatShortest(c),
                                          " is not a whole number of samples"));
          break;
        }
      }
    }
  }
}

ReplicationSeries Columns(const results::Replication& rep) {
  ReplicationSeries out;
  out.replication = &rep;
  out.index = rep.index();
  out.seed = rep.seed();
  const results::Series& s = rep.series();
  out.time = &s.time();
  auto add = [&](std::string group, std::string element, std::string quantity,
                 const RepeatedField<double>* values) {
    std::string name = element.empty() ? quantity : absl::StrCat(element, ".", quantity);
    out.columns.push_back({std::move(group), std::move(element), std::move(quantity),
                           std::move(name), values});
  };
  for (const results::StageSeries& st : s.stage()) {
    std::string element = ElementName(st.name(), st.array(), st.index());
    add("stage", element, "present", &st.present());
    if (!st.batch().empty()) add("stage", element, "batch", &st.batch());
    if (!st.preempted().empty()) add("stage", element, "preempted", &st.preempted());
  }
  for (const results::PoolSeries& p : s.pool()) {
    std::string element = ElementName(p.name(), p.array(), p.index());
    add("pool", element, "used", &p.used());
    add("pool", element, "loaded", &p.loaded());
    if (!p.evictable().empty()) add("pool", element, "evictable", &p.evictable());
  }
  for (const results::SessionSeries& ss : s.session()) {
    add("session", ss.name(), "in_progress", &ss.in_progress());
    if (!ss.prefills().empty()) {
      add("session", ss.name(), "prefills", &ss.prefills());
      add("session", ss.name(), "prefill_tokens", &ss.prefill_tokens());
      add("session", ss.name(), "decode_tokens", &ss.decode_tokens());
    }
  }
  for (const results::ObservationSeries& o : s.observation()) {
    add("observation", o.name(), "count", &o.count());
    add("observation", o.name(), "p50", &o.p50());
    add("observation", o.name(), "p90", &o.p90());
    add("observation", o.name(), "p99", &o.p99());
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<ReplicationSeries>> CollectSeries(
    const std::vector<results::Results>& inputs, const std::vector<std::string>& files) {
  const std::vector<ResultsFile> named = NamedResults(inputs, files);
  absl::StatusOr<MergedResults> merged = MergeResults(named);
  if (!merged.ok()) return merged.status();

  std::string errors;
  bool any = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Diagnostics diags(named[i].name);
    const results::Results& r = inputs[i];
    if (i > 0 && r.sample() != inputs[0].sample()) {
      diags.ErrorAtPath("sample", absl::StrCat("sampled every ", FormatShortest(r.sample()),
                                               " s, but ", named[0].name, " every ",
                                               FormatShortest(inputs[0].sample()),
                                               " s; merged series must have one interval"));
    }
    for (int k = 0; k < r.replication_size(); ++k) {
      if (!r.replication(k).has_series()) continue;
      any = true;
      CheckSeries(r.replication(k), absl::StrCat("replication[", k, "].series"), &diags);
    }
    errors += diags.Render();
  }
  if (!errors.empty()) return absl::InvalidArgumentError(errors);
  if (!any) {
    Diagnostics diags(named[0].name);
    diags.ErrorInFile(
        "the results have no time series (give the run 'sample DT;' or serq-sim --sample DT)");
    return absl::InvalidArgumentError(diags.Render());
  }
  std::vector<ReplicationSeries> out;
  for (const results::Replication* rep : merged->replications) {
    if (!rep->has_series()) continue;
    out.push_back(Columns(*rep));
    // The same elements (checked by the merge) have the same columns unless
    // a file was edited: one csv header must fit every row.
    const std::vector<SeriesColumn>& a = out.front().columns;
    const std::vector<SeriesColumn>& b = out.back().columns;
    bool same = a.size() == b.size();
    for (size_t c = 0; same && c < a.size(); ++c) same = a[c].name == b[c].name;
    if (!same) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the series of replication ", out.back().index, " has other columns than replication ",
          out.front().index, "'s; merged series must come from the same program\n"));
    }
  }
  return out;
}

std::string RenderSeriesCsv(const std::vector<ReplicationSeries>& series) {
  std::string out;
  if (series.empty()) return out;
  std::vector<std::string> header = {"replication", "time"};
  // Names as the report's csv writes them: an observation named `a,b`
  // would shift every column after it.
  for (const SeriesColumn& c : series[0].columns) header.push_back(CsvField(c.name));
  absl::StrAppend(&out, absl::StrJoin(header, ","), "\n");
  for (const ReplicationSeries& r : series) {
    for (int t = 0; t < r.time->size(); ++t) {
      absl::StrAppend(&out, r.index, ",", FormatShortest(r.time->Get(t)));
      for (const SeriesColumn& c : r.columns) {
        absl::StrAppend(&out, ",", FormatShortest(c.values->Get(t)));
      }
      absl::StrAppend(&out, "\n");
    }
  }
  return out;
}

}  // namespace serq::report
