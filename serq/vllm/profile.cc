#include "serq/vllm/profile.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <functional>
#include <map>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ir/cli.h"
#include "text/csv.h"
#include "text/lines.h"
#include "yaml-cpp/yaml.h"

namespace serq::vllm {
namespace {

absl::Status At(const std::string& path, const YAML::Mark& mark, absl::string_view message) {
  if (mark.line < 0) return absl::InvalidArgumentError(absl::StrCat(path, ": error: ", message));
  return absl::InvalidArgumentError(
      absl::StrCat(path, ":", mark.line + 1, ":", mark.column + 1, ": error: ", message));
}

// A key twice in one mapping: yaml-cpp answers the first, PyYAML (which
// LLMServingSim reads meta.yaml with) the last, so the file says two
// things; refused at the second, as a JSON file's twice-given key is.
absl::Status NoKeyTwice(const std::string& path, const YAML::Node& node) {
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) {
      if (absl::Status s = NoKeyTwice(path, item); !s.ok()) return s;
    }
  } else if (node.IsMap()) {
    std::map<std::string, int> seen;  // key -> its first line
    for (const auto& kv : node) {
      if (kv.first.IsScalar()) {
        auto [it, fresh] = seen.emplace(kv.first.Scalar(), kv.first.Mark().line + 1);
        if (!fresh) {
          return At(path, kv.first.Mark(),
                    absl::StrCat("'", kv.first.Scalar(), "' twice in one mapping (first at line ", it->second,
                                 "): LLMServingSim's reader takes the last, serq's the first"));
        }
      }
      if (absl::Status s = NoKeyTwice(path, kv.second); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

// A CSV file a row at a time: the header's columns found by name (each
// required one, else an error naming those the header has), then each row
// with its fields by those columns' places.
using Row = std::function<absl::Status(int line, const std::vector<absl::string_view>& fields)>;
absl::Status ReadCsv(const std::string& path, const std::vector<std::string>& columns,
                     std::vector<size_t>* places, const Row& row) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot be read"));
  text::Lines lines(&in);
  absl::string_view line;
  auto unreadable = [&] {
    return absl::InvalidArgumentError(absl::StrCat(path, ": error: cannot be read: ", std::strerror(errno)));
  };
  if (!lines.NextNonBlank(&line)) {
    if (in.bad()) return unreadable();
    return absl::InvalidArgumentError(absl::StrCat(path, ": error: the file has no header"));
  }
  if (text::CsvFieldCount(line) > text::kMaxColumns) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":1: error: more than ",
                                                   text::kMaxColumns, " columns"));
  }
  std::vector<absl::string_view> fields;
  text::CsvFields(line, &fields);
  places->clear();
  for (const std::string& c : columns) {
    size_t at = fields.size();
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i] == c) {
        if (at != fields.size()) {
          return absl::InvalidArgumentError(
              absl::StrCat(path, ":", lines.number(), ": error: column '", c, "' twice"));
        }
        at = i;
      }
    }
    if (at == fields.size()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", lines.number(),
                                                     ": error: no column '", c, "' (the header has '",
                                                     absl::StrJoin(fields, "', '"), "')"));
    }
    places->push_back(at);
  }
  const size_t width = fields.size();
  while (lines.NextNonBlank(&line)) {
    if (text::CsvFieldCount(line) != width) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", lines.number(), ": error: the row has ",
                                                     text::CsvFieldCount(line), " fields; the header has ",
                                                     width));
    }
    text::CsvFields(line, &fields);
    if (absl::Status s = row(lines.number(), fields); !s.ok()) return s;
  }
  if (lines.too_long()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":", lines.number() + 1,
                                                   ": error: the line is too long"));
  }
  if (in.bad()) return unreadable();
  return absl::OkStatus();
}

absl::Status NotNumber(const std::string& path, int line, absl::string_view column,
                       absl::string_view field) {
  return absl::InvalidArgumentError(absl::StrCat(path, ":", line, ": error: column '", column,
                                                 "' is '", field, "', not a number"));
}

}  // namespace

absl::StatusOr<ProfileMeta> ReadProfileMeta(const std::string& path) {
  absl::StatusOr<std::string> text = ReadInput(path);
  if (!text.ok()) {
    if (absl::IsNotFound(text.status())) return text.status();
    return absl::InvalidArgumentError(absl::StrCat(path, ": error: ", text.status().message()));
  }
  return ParseProfileMeta(*text, path);
}

absl::StatusOr<ProfileMeta> ParseProfileMeta(const std::string& text, const std::string& path) {
  ProfileMeta meta;
  meta.path = path;
  // yaml-cpp reports by exception (its depth guard too: a document nested
  // past 2,000 levels is YAML::DeepRecursion); none leaves this function.
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsMap()) return At(path, root.Mark(), "expected a mapping of the profile's facts");
    if (absl::Status s = NoKeyTwice(path, root); !s.ok()) return s;
    auto text_field = [&](const char* key, std::string* out, bool required) -> absl::Status {
      YAML::Node n = root[key];
      if (!n) {
        if (required) return At(path, root.Mark(), absl::StrCat("no '", key, "'"));
        return absl::OkStatus();
      }
      if (!n.IsScalar()) return At(path, n.Mark(), absl::StrCat(key, ": expected text"));
      *out = n.Scalar();
      return absl::OkStatus();
    };
    if (absl::Status s = text_field("architecture", &meta.architecture, true); !s.ok()) return s;
    for (auto [key, out] : {std::pair{"vllm_version", &meta.vllm_version},
                            std::pair{"gpu", &meta.gpu}, std::pair{"hardware", &meta.hardware},
                            std::pair{"model", &meta.model}}) {
      if (absl::Status s = text_field(key, out, false); !s.ok()) return s;
    }
    YAML::Node tps = root["tp_degrees"];
    if (!tps) return At(path, root.Mark(), "no 'tp_degrees' (the tensor-parallel degrees profiled)");
    if (!tps.IsSequence() || tps.size() == 0 || tps.size() > 64) {
      return At(path, tps.Mark(), "tp_degrees: expected a list of whole numbers");
    }
    for (const YAML::Node& n : tps) {
      int tp = 0;
      if (!n.IsScalar() || !YAML::convert<int>::decode(n, tp) || tp < 1 || tp > 1024) {
        return At(path, n.Mark(), "tp_degrees: expected whole numbers from 1 to 1024");
      }
      meta.tp_degrees.push_back(tp);
    }
    if (YAML::Node eff = root["engine_effective"]; eff && eff.IsMap()) {
      for (auto [key, out] : {std::pair{"max_num_batched_tokens", &meta.max_num_batched_tokens},
                              std::pair{"max_num_seqs", &meta.max_num_seqs}}) {
        YAML::Node n = eff[key];
        if (!n || n.IsNull()) continue;
        int64_t v = 0;
        if (!n.IsScalar() || !YAML::convert<int64_t>::decode(n, v) || v < 1) {
          return At(path, n.Mark(), absl::StrCat("engine_effective.", key, ": expected a whole number above 0"));
        }
        *out = v;
      }
    }
    YAML::Node fit = root["skew_fit"];
    if (fit && fit.IsMap()) {
      // Without `enabled: true` the block is off, as LLMServingSim's
      // simulator reads it (its profiler always writes the key).
      YAML::Node enabled = fit["enabled"];
      bool on = false;
      if (enabled && (!enabled.IsScalar() || !YAML::convert<bool>::decode(enabled, on))) {
        return At(path, enabled.Mark(), "skew_fit.enabled: expected true or false");
      }
      meta.skew_fit = on;
      auto number = [&](const YAML::Node& a, const std::string& where,
                        std::optional<double>* out) -> absl::Status {
        // A null (`alpha_default:`, `~`, `null`) is not written: as absent.
        if (!a || a.IsNull()) return absl::OkStatus();
        double x = 0;
        if (!a.IsScalar() || !YAML::convert<double>::decode(a, x) || !std::isfinite(x)) {
          return At(path, a.Mark(), absl::StrCat(where, ": expected a number"));
        }
        *out = x;
        return absl::OkStatus();
      };
      // bucket_axes, at the block's top (every TP degree's grid alike, what
      // the profiler writes then) or in a TP degree's entry (grids that
      // differ).
      auto axes_of = [&](const YAML::Node& axes, const std::string& where,
                         SkewAxes* out) -> absl::Status {
        if (!axes || !axes.IsMap() || axes.size() == 0) return absl::OkStatus();
        out->present = true;
        auto axis = [&](const char* bins, const char* labels,
                        std::optional<SkewAxis>* to) -> absl::Status {
          YAML::Node b = axes[bins], l = axes[labels];
          if (!b && !l) return absl::OkStatus();
          if (!b || !l) {
            return At(path, (b ? b : l).Mark(), absl::StrCat(where, ": ", bins, " and ", labels, " go together"));
          }
          SkewAxis a;
          if (!b.IsSequence() || !l.IsSequence() || b.size() < 2 || b.size() > 64 ||
              l.size() + 1 != b.size()) {
            return At(path, b.Mark(), absl::StrCat(where, ".", bins,
                                                   ": expected a list of edges, one more than its ",
                                                   labels));
          }
          for (const YAML::Node& e : b) {
            double x = 0;
            if (!e.IsScalar() || !YAML::convert<double>::decode(e, x) || !std::isfinite(x) ||
                (!a.edges.empty() && !(x > a.edges.back()))) {
              return At(path, e.Mark(), absl::StrCat(where, ".", bins, ": expected increasing numbers"));
            }
            a.edges.push_back(x);
          }
          for (const YAML::Node& e : l) {
            if (!e.IsScalar()) return At(path, e.Mark(), absl::StrCat(where, ".", labels, ": expected text"));
            a.labels.push_back(e.Scalar());
          }
          *to = std::move(a);
          return absl::OkStatus();
        };
        if (absl::Status s = axis("n_bins", "n_labels", &out->n); !s.ok()) return s;
        if (absl::Status s = axis("skew_rate_bins", "skew_rate_labels", &out->skew_rate); !s.ok()) return s;
        if (absl::Status s = axis("kv_big_bins", "kv_big_labels", &out->kv_big); !s.ok()) return s;
        return axis("kp_bins", "kp_labels", &out->kp);
      };
      if (absl::Status s = number(fit["alpha_default"], "skew_fit.alpha_default", &meta.alpha_default);
          !s.ok()) {
        return s;
      }
      if (absl::Status s = axes_of(fit["bucket_axes"], "skew_fit.bucket_axes", &meta.axes); !s.ok()) {
        return s;
      }
      if (YAML::Node per_tp = fit["per_tp"]; per_tp && per_tp.IsMap()) {
        for (const auto& kv : per_tp) {
          int tp = 0;
          if (!YAML::convert<int>::decode(kv.first, tp) || tp < 1) {
            return At(path, kv.first.Mark(), "skew_fit.per_tp: expected tensor-parallel degrees");
          }
          if (!kv.second.IsMap()) continue;
          const std::string where = absl::StrCat("skew_fit.per_tp.", tp);
          SkewFitEntry& entry = meta.per_tp[tp];
          if (absl::Status s = number(kv.second["alpha_default"], where + ".alpha_default",
                                      &entry.alpha_default);
              !s.ok()) {
            return s;
          }
          if (absl::Status s = axes_of(kv.second["bucket_axes"], where + ".bucket_axes", &entry.axes);
              !s.ok()) {
            return s;
          }
          if (YAML::Node t = kv.second["bucket_table"]; t && !t.IsNull()) {
            if (!t.IsScalar()) return At(path, t.Mark(), where + ".bucket_table: expected a path");
            // The profiler names a file of its folder (tpN/skew_fit.csv).
            const std::filesystem::path table(t.Scalar());
            bool inside = !table.empty() && table.is_relative();
            for (const auto& part : table) inside = inside && part != "..";
            if (!inside) {
              return At(path, t.Mark(), absl::StrCat(where, ".bucket_table: '", t.Scalar(),
                                                     "': expected a path inside the profile's folder"));
            }
            entry.bucket_table = t.Scalar();
          }
          // An earlier profiler wrote the buckets here, not in a table.
          if (YAML::Node by = kv.second["alpha_by_bucket"]; by && by.IsMap() && by.size() > 0) {
            entry.alpha_by_bucket.emplace();
            for (const auto& b : by) {
              if (!b.first.IsScalar()) {
                return At(path, b.first.Mark(), where + ".alpha_by_bucket: expected bucket keys");
              }
              const std::string key = b.first.Scalar();
              std::optional<double> alpha;
              if (absl::Status s = number(b.second, absl::StrCat(where, ".alpha_by_bucket.", key), &alpha);
                  !s.ok()) {
                return s;
              }
              if (!alpha) return At(path, b.first.Mark(), absl::StrCat(where, ".alpha_by_bucket.", key, ": no alpha"));
              entry.alpha_by_bucket->push_back({key, *alpha, b.first.Mark().line + 1});
            }
          }
        }
      }
    }
  } catch (const YAML::Exception& e) {
    return At(path, e.mark, e.msg);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": error: ", e.what()));
  }
  return meta;
}

absl::StatusOr<std::vector<double>> ReadColumnMaxima(const std::string& path,
                                                     const std::vector<std::string>& columns) {
  std::vector<double> most(columns.size(), 0);
  std::vector<size_t> at;
  int64_t rows = 0;
  absl::Status s = ReadCsv(path, columns, &at, [&](int line, const std::vector<absl::string_view>& f) {
    ++rows;
    for (size_t i = 0; i < columns.size(); ++i) {
      double v;
      if (!absl::SimpleAtod(f[at[i]], &v) || !std::isfinite(v)) return NotNumber(path, line, columns[i], f[at[i]]);
      most[i] = std::max(most[i], v);
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  if (rows == 0) return absl::InvalidArgumentError(absl::StrCat(path, ": error: no rows: the table times nothing"));
  return most;
}

absl::StatusOr<std::map<std::string, double>> ReadColumnMaximaBy(const std::string& path, const std::string& group,
                                                                 const std::string& column) {
  std::map<std::string, double> most;
  std::vector<size_t> at;
  absl::Status s = ReadCsv(path, {group, column}, &at, [&](int line, const std::vector<absl::string_view>& f) {
    double v;
    if (!absl::SimpleAtod(f[at[1]], &v) || !std::isfinite(v)) return NotNumber(path, line, column, f[at[1]]);
    auto [it, added] = most.emplace(std::string(f[at[0]]), v);
    if (!added) it->second = std::max(it->second, v);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  if (most.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": error: no rows: the table times nothing"));
  return most;
}

absl::StatusOr<std::set<std::string>> ReadColumnValues(const std::string& path,
                                                       const std::string& column) {
  std::set<std::string> values;
  std::vector<size_t> at;
  absl::Status s = ReadCsv(path, {column}, &at, [&](int, const std::vector<absl::string_view>& f) {
    if (values.size() < 1000) values.insert(std::string(f[at[0]]));
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return values;
}

namespace {

// The bins LLMServingSim's simulator takes for a profile whose meta.yaml
// names none (serving/core/trace_generator.py, _DEFAULT_SKEW_AXES): what
// its profiler binned by before it wrote bucket_axes.
SkewAxis LegacyAxis(int which) {
  switch (which) {
    case 0:
      return {{0, 2, 4, 8, 16, 32, 64, 128, 1e6},
              {"n<=2", "n<=4", "n<=8", "n<=16", "n<=32", "n<=64", "n<=128", "n>128"}};
    case 1:
      return {{-0.01, 0.05, 0.15, 0.40, 0.70, 1.01}, {"sr<=5%", "sr<=15%", "sr<=40%", "sr<=70%", "sr>70%"}};
    case 2:
      return {{0, 1024, 4096, 16384, 1e9}, {"kvB<=1k", "kvB<=4k", "kvB<=16k", "kvB>16k"}};
    default:
      return {{-1, 0, 2048, 1e9}, {"kp=0", "kp<=2k", "kp>2k"}};
  }
}

// The label of the bin holding `v` (edges[i] < v <= edges[i + 1], the
// last bin past the end), as the simulator's _bucket_label finds it.
std::string LabelOf(const SkewAxis& a, double v) {
  for (size_t i = 0; i < a.labels.size(); ++i) {
    if (v <= a.edges[i + 1]) return a.labels[i];
  }
  return a.labels.back();
}

// The pure-decode buckets on the blend's grid, filled a row at a time.
class BucketGrid {
 public:
  BucketGrid(const SkewBlend& b, std::string no_prefill_kv, double fallback)
      : n_(b.n), sr_(b.skew_rate), kvb_(b.kv_big), kp0_(std::move(no_prefill_kv)) {
    out_.alpha.assign(n_.labels.size() * sr_.labels.size() * kvb_.labels.size(), fallback);
    seen_.assign(out_.alpha.size(), false);
  }
  // One fitted bucket at `where` (file:line); a row of a step with prefill
  // (pc not 0, or prefill KV) is not a pure-decode step's and is passed by.
  absl::Status Add(absl::string_view where, double pc, absl::string_view n, absl::string_view sr,
                   absl::string_view kvb, absl::string_view kp, double alpha) {
    if (pc != 0 || kp != kp0_) return absl::OkStatus();
    const int i = Index(n_, n), j = Index(sr_, sr), k = Index(kvb_, kvb);
    if (i < 0 || j < 0 || k < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": error: a bucket the skew fit's axes do not name ('", n, "', '", sr, "', '", kvb, "')"));
    }
    const size_t cell = (static_cast<size_t>(i) * sr_.labels.size() + j) * kvb_.labels.size() + k;
    if (seen_[cell]) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": error: the bucket is fitted twice"));
    }
    seen_[cell] = true;
    out_.alpha[cell] = alpha;
    ++out_.fitted;
    return absl::OkStatus();
  }
  SkewBuckets Take() { return std::move(out_); }

 private:
  static int Index(const SkewAxis& a, absl::string_view label) {
    for (size_t i = 0; i < a.labels.size(); ++i) {
      if (a.labels[i] == label) return static_cast<int>(i);
    }
    return -1;
  }
  const SkewAxis &n_, &sr_, &kvb_;
  const std::string kp0_;
  SkewBuckets out_;
  std::vector<bool> seen_;
};

// skew_fit.csv's rows into `grid`. A row whose pc is empty is one the
// profiler could not split into a bucket (it keeps the key in raw_key),
// which no step's bucket matches.
absl::Status ReadBucketTable(const std::string& path, BucketGrid* grid) {
  std::vector<size_t> at;
  return ReadCsv(
      path, {"pc", "n_label", "skew_rate_label", "kv_big_label", "kp_label", "alpha"}, &at,
      [&](int line, const std::vector<absl::string_view>& f) -> absl::Status {
        if (f[at[0]].empty()) return absl::OkStatus();
        double pc, alpha;
        if (!absl::SimpleAtod(f[at[0]], &pc)) return NotNumber(path, line, "pc", f[at[0]]);
        if (!absl::SimpleAtod(f[at[5]], &alpha) || !std::isfinite(alpha)) {
          return NotNumber(path, line, "alpha", f[at[5]]);
        }
        return grid->Add(absl::StrCat(path, ":", line), pc, f[at[1]], f[at[2]], f[at[3]], f[at[4]], alpha);
      });
}

// meta.yaml's inline buckets into `grid`: "pc=0|n<=64|sr<=15%|kvB<=4k|kp=0".
absl::Status ReadInlineBuckets(const std::string& path, const std::vector<InlineBucket>& buckets,
                               BucketGrid* grid) {
  for (const InlineBucket& b : buckets) {
    const std::string where = absl::StrCat(path, ":", b.line);
    std::vector<absl::string_view> parts = absl::StrSplit(b.key, '|');
    double pc = 0;
    if (parts.size() != 5 || !absl::ConsumePrefix(&parts[0], "pc=") || !absl::SimpleAtod(parts[0], &pc)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": error: alpha_by_bucket: '", absl::CHexEscape(b.key),
          "' is not a bucket (pc=N|n|skew rate|kv_big|kp)"));
    }
    if (absl::Status s = grid->Add(where, pc, parts[1], parts[2], parts[3], parts[4], b.alpha); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SkewBlend> ResolveSkewBlend(const ProfileMeta& meta, int tp,
                                           const std::string& profile_dir) {
  SkewBlend b;
  if (!meta.skew_fit) {
    b.off_why = "profile/meta.yaml's skew_fit is absent or not enabled.";
    b.warnings.push_back(absl::StrCat(meta.path, ": no skew fit (skew_fit absent or not enabled): "
                                      "attention at the decodes' mean KV, without the skew blend"));
    return b;
  }
  const std::string tp_dir = absl::StrCat("profile/tp", tp);
  auto it = meta.per_tp.find(tp);
  const SkewFitEntry* entry = it == meta.per_tp.end() ? nullptr : &it->second;
  const std::string entry_name = absl::StrCat("skew_fit.per_tp.", tp);

  // The axes: the degree's bucket_axes, else the block's, else none, whole
  // as the simulator takes them (_resolve_skew_axes); an axis the chosen
  // block lacks takes LLMServingSim's bins.
  const SkewAxes none;
  const SkewAxes* chosen = &none;
  std::string axes_name;  // where they are written in meta.yaml ("": nowhere)
  if (entry != nullptr && entry->axes.present) {
    chosen = &entry->axes;
    axes_name = entry_name + ".bucket_axes";
  } else if (meta.axes.present) {
    chosen = &meta.axes;
    axes_name = "bucket_axes";
  }
  const SkewAxes& axes = *chosen;
  const char* names[4] = {"n", "skew_rate", "kv_big", "kp"};
  const std::optional<SkewAxis>* given[4] = {&axes.n, &axes.skew_rate, &axes.kv_big, &axes.kp};
  SkewAxis kp;
  SkewAxis* to[4] = {&b.n, &b.skew_rate, &b.kv_big, &kp};
  std::vector<std::string> legacy;
  for (int i = 0; i < 4; ++i) {
    if (given[i]->has_value()) {
      *to[i] = **given[i];
    } else {
      *to[i] = LegacyAxis(i);
      legacy.push_back(names[i]);
    }
  }
  // The kp axis only names a pure-decode step's bin (no prefill KV): its
  // bins are not worth a word.
  if (!legacy.empty() && legacy.back() == "kp") legacy.pop_back();
  if (axes_name.empty()) {
    b.axes_why = "LLMServingSim's bins for a profile without bucket_axes";
  } else if (legacy.empty()) {
    b.axes_why = absl::StrCat("meta.yaml's ", axes_name);
  } else {
    b.axes_why = absl::StrCat("meta.yaml's ", axes_name, " and LLMServingSim's bins");
  }
  if (!legacy.empty()) {
    b.warnings.push_back(absl::StrCat(meta.path, ": skew_fit names no bucket axes for ",
                                      absl::StrJoin(legacy, ", "),
                                      ": their bins are those LLMServingSim takes for such a profile"));
  }

  // alpha_default: the degree's, the block's, or fitted from skew.csv as
  // the profiler fits it (which gives meta.yaml's value on every profile
  // here), else 0. Where meta.yaml gives none the simulator takes 0 at
  // once: the fit is serq's.
  // Why no alpha_default is fitted, where none is: skew.csv missing, or
  // without a skewed timing; said of `dir` (the program's profile/tpN, or
  // the folder's path on stderr).
  bool have_alpha = true;
  bool unskewed = false;
  auto no_alpha = [&](const std::string& dir) {
    return unskewed ? absl::StrCat(dir, "/skew.csv has no skewed timing") : absl::StrCat("no ", dir, "/skew.csv");
  };
  if (entry != nullptr && entry->alpha_default) {
    b.alpha_default = *entry->alpha_default;
    b.alpha_why = absl::StrCat("profile/meta.yaml: ", entry_name, ".alpha_default");
  } else if (meta.alpha_default) {
    b.alpha_default = *meta.alpha_default;
    b.alpha_why = "profile/meta.yaml: skew_fit.alpha_default";
  } else {
    absl::StatusOr<double> fitted = AlphaFromSkew(absl::StrCat(profile_dir, "/skew.csv"));
    if (absl::IsNotFound(fitted.status()) || absl::IsFailedPrecondition(fitted.status())) {
      have_alpha = false;
      unskewed = absl::IsFailedPrecondition(fitted.status());
      b.alpha_default = 0;
      b.alpha_why = absl::StrCat("none in profile/meta.yaml and ", no_alpha(tp_dir),
                                 " to fit it from: 0, as LLMServingSim takes it");
    } else if (!fitted.ok()) {
      return fitted.status();
    } else {
      b.alpha_default = *fitted;
      b.alpha_why = absl::StrCat(tp_dir, "/skew.csv, fitted as the profiler fits alpha_default (meta.yaml "
                                 "gives none at TP ", tp, ")");
    }
  }

  // The buckets: inline, the table the entry names, or tpN/skew_fit.csv.
  BucketGrid grid(b, LabelOf(kp, 0), b.alpha_default);
  std::string missing, read_table;
  if (entry != nullptr && entry->alpha_by_bucket) {
    if (absl::Status s = ReadInlineBuckets(meta.path, *entry->alpha_by_bucket, &grid); !s.ok()) return s;
    b.buckets_why = absl::StrCat("profile/meta.yaml ", entry_name, ".alpha_by_bucket");
  } else {
    std::string table = absl::StrCat(profile_dir, "/skew_fit.csv");
    b.buckets_why = absl::StrCat(tp_dir, "/skew_fit.csv");
    if (entry != nullptr && !entry->bucket_table.empty()) {
      table = (std::filesystem::path(meta.path).parent_path() / entry->bucket_table).string();
      b.buckets_why = absl::StrCat("profile/", entry->bucket_table);
    }
    absl::Status s = ReadBucketTable(table, &grid);
    if (absl::IsNotFound(s)) {
      missing = table;
      b.buckets_why = absl::StrCat(b.buckets_why, " missing");
    } else if (!s.ok()) {
      return s;
    } else {
      read_table = table;
    }
  }
  b.buckets = grid.Take();
  if (!have_alpha && b.buckets.fitted == 0) {
    b.off_why = absl::StrCat("no ", entry_name, ".alpha_default in profile/meta.yaml, ", no_alpha(tp_dir),
                             " to fit it from, and no bucket fitted.");
    b.warnings.push_back(absl::StrCat(meta.path, ": no ", entry_name, ".alpha_default, ", no_alpha(profile_dir),
                                      " to compute it from, and no bucket fitted: attention at "
                                      "the decodes' mean KV, without the skew blend"));
    return b;
  }
  if (!have_alpha) {
    b.warnings.push_back(absl::StrCat(meta.path, ": no ", entry_name, ".alpha_default and ", no_alpha(profile_dir),
                                      " to compute it from: alpha 0 for a step with prefill and "
                                      "for the buckets not fitted, as LLMServingSim takes it"));
  }
  if (!missing.empty()) {
    b.warnings.push_back(absl::StrCat(missing, ": missing (the skew fit's buckets): every pure-decode step "
                                      "takes alpha_default, as LLMServingSim does"));
  }
  // A table that is there but fits no pure-decode bucket (a header alone)
  // narrows the blend as a missing one does, and is said as one is.
  if (!read_table.empty() && b.buckets.fitted == 0) {
    b.warnings.push_back(absl::StrCat(read_table, ": no bucket of a pure-decode step in its rows: every "
                                      "pure-decode step takes alpha_default, as LLMServingSim does"));
  }
  b.on = true;
  return b;
}

absl::StatusOr<double> AlphaFromSkew(const std::string& path) {
  double num = 0, den = 0;
  int rows = 0;
  std::vector<size_t> at;
  absl::Status s = ReadCsv(
      path, {"t_mean_us", "t_max_us", "t_skew_us"}, &at,
      [&](int line, const std::vector<absl::string_view>& f) -> absl::Status {
        double t[3];
        const char* names[3] = {"t_mean_us", "t_max_us", "t_skew_us"};
        for (int c = 0; c < 3; ++c) {
          if (!absl::SimpleAtod(f[at[c]], &t[c]) || !std::isfinite(t[c])) {
            return NotNumber(path, line, names[c], f[at[c]]);
          }
        }
        const double d = t[1] - t[0];
        num += (t[2] - t[0]) * d;
        den += d * d;
        ++rows;
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  if (rows == 0 || !(den > 0)) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, ": error: no skewed timing (t_max_us above t_mean_us) to fit alpha_default from"));
  }
  // Times near the double's range overflow the sums (1e308 squared): the
  // fit is then no number, and the program would hold inf or nan.
  const double alpha = std::round(num / den * 1e4) / 1e4;
  if (!std::isfinite(alpha)) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": error: the fit of alpha_default over its rows is not a finite number (a time too large to "
              "square)"));
  }
  return alpha;
}

}  // namespace serq::vllm
