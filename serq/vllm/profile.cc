#include "serq/vllm/profile.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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
    YAML::Node fit = root["skew_fit"];
    if (fit && fit.IsMap()) {
      YAML::Node enabled = fit["enabled"];
      bool on = true;
      if (enabled && (!enabled.IsScalar() || !YAML::convert<bool>::decode(enabled, on))) {
        return At(path, enabled.Mark(), "skew_fit.enabled: expected true or false");
      }
      meta.skew_fit = on;
      if (YAML::Node per_tp = fit["per_tp"]; per_tp && per_tp.IsMap()) {
        for (const auto& kv : per_tp) {
          int tp = 0;
          if (!YAML::convert<int>::decode(kv.first, tp) || tp < 1) {
            return At(path, kv.first.Mark(), "skew_fit.per_tp: expected tensor-parallel degrees");
          }
          YAML::Node a = kv.second["alpha_default"];
          if (!a) continue;
          double alpha = 0;
          if (!a.IsScalar() || !YAML::convert<double>::decode(a, alpha) || !std::isfinite(alpha)) {
            return At(path, a.Mark(), absl::StrCat("skew_fit.per_tp.", tp,
                                                   ".alpha_default: expected a number"));
          }
          meta.alpha_default[tp] = alpha;
        }
      }
      if (YAML::Node axes = fit["bucket_axes"]; axes && axes.IsMap()) {
        auto axis = [&](const char* bins, const char* labels,
                        std::optional<SkewAxis>* out) -> absl::Status {
          YAML::Node b = axes[bins], l = axes[labels];
          if (!b || !l) return absl::OkStatus();
          SkewAxis a;
          if (!b.IsSequence() || !l.IsSequence() || b.size() < 2 || b.size() > 64 ||
              l.size() + 1 != b.size()) {
            return At(path, b.Mark(), absl::StrCat("skew_fit.bucket_axes.", bins,
                                                   ": expected a list of edges, one more than its ",
                                                   labels));
          }
          for (const YAML::Node& e : b) {
            double x = 0;
            if (!e.IsScalar() || !YAML::convert<double>::decode(e, x) || !std::isfinite(x) ||
                (!a.edges.empty() && !(x > a.edges.back()))) {
              return At(path, e.Mark(), absl::StrCat("skew_fit.bucket_axes.", bins,
                                                     ": expected increasing numbers"));
            }
            a.edges.push_back(x);
          }
          for (const YAML::Node& e : l) {
            if (!e.IsScalar()) {
              return At(path, e.Mark(), absl::StrCat("skew_fit.bucket_axes.", labels,
                                                     ": expected text"));
            }
            a.labels.push_back(e.Scalar());
          }
          *out = std::move(a);
          return absl::OkStatus();
        };
        if (absl::Status s = axis("n_bins", "n_labels", &meta.n); !s.ok()) return s;
        if (absl::Status s = axis("skew_rate_bins", "skew_rate_labels", &meta.skew_rate); !s.ok()) {
          return s;
        }
        if (absl::Status s = axis("kv_big_bins", "kv_big_labels", &meta.kv_big); !s.ok()) return s;
      }
    }
  } catch (const YAML::Exception& e) {
    return At(path, e.mark, e.msg);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": error: ", e.what()));
  }
  return meta;
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

absl::StatusOr<SkewBuckets> ReadSkewBuckets(const std::string& path, const ProfileMeta& meta,
                                            double fallback) {
  SkewBuckets out;
  const SkewAxis& n = *meta.n;
  const SkewAxis& sr = *meta.skew_rate;
  const SkewAxis& kvb = *meta.kv_big;
  const size_t nn = n.labels.size(), ns = sr.labels.size(), nk = kvb.labels.size();
  out.alpha.assign(nn * ns * nk, fallback);
  std::vector<bool> seen(out.alpha.size(), false);
  auto index = [](const SkewAxis& a, absl::string_view label) -> int {
    for (size_t i = 0; i < a.labels.size(); ++i) {
      if (a.labels[i] == label) return static_cast<int>(i);
    }
    return -1;
  };
  std::vector<size_t> at;
  absl::Status s = ReadCsv(
      path, {"pc", "n_label", "skew_rate_label", "kv_big_label", "kp_label", "alpha"}, &at,
      [&](int line, const std::vector<absl::string_view>& f) -> absl::Status {
        double pc;
        if (!absl::SimpleAtod(f[at[0]], &pc)) return NotNumber(path, line, "pc", f[at[0]]);
        // A pure-decode step's buckets: no prefill chunk, no prefill KV.
        if (pc != 0 || f[at[4]] != "kp=0") return absl::OkStatus();
        const int i = index(n, f[at[1]]), j = index(sr, f[at[2]]), k = index(kvb, f[at[3]]);
        if (i < 0 || j < 0 || k < 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              path, ":", line, ": error: a bucket label meta.yaml's skew_fit.bucket_axes does "
              "not name ('", f[at[1]], "', '", f[at[2]], "', '", f[at[3]], "')"));
        }
        double alpha;
        if (!absl::SimpleAtod(f[at[5]], &alpha) || !std::isfinite(alpha)) {
          return NotNumber(path, line, "alpha", f[at[5]]);
        }
        const size_t cell = (static_cast<size_t>(i) * ns + j) * nk + k;
        if (seen[cell]) {
          return absl::InvalidArgumentError(
              absl::StrCat(path, ":", line, ": error: the bucket is fitted twice"));
        }
        seen[cell] = true;
        out.alpha[cell] = alpha;
        ++out.fitted;
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return out;
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
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": error: no skewed timing (t_max_us above t_mean_us) to fit alpha_default from"));
  }
  return std::round(num / den * 1e4) / 1e4;
}

}  // namespace serq::vllm
