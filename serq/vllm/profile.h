// A GPU profile in LLMServingSim's layout (profile/meta.yaml, profile/tpN/
// attention.csv, dense.csv, per_sequence.csv, moe.csv, skew.csv,
// skew_fit.csv): what the generator reads of it. Tables themselves are read
// by the program it writes (serq-link), not here; here are the facts the
// program's text depends on: the operators each file holds, the skew fit's
// buckets and its default.
#ifndef SERQ_SERQ_VLLM_PROFILE_H_
#define SERQ_SERQ_VLLM_PROFILE_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace serq::vllm {

// One axis of the skew fit's buckets (meta.yaml skew_fit.bucket_axes): the
// bin edges (a value v is in bin i when edges[i] < v <= edges[i + 1]) and
// their labels, as skew_fit.csv names them.
struct SkewAxis {
  std::vector<double> edges;
  std::vector<std::string> labels;
};

struct ProfileMeta {
  std::string path;          // the meta.yaml read
  std::string architecture;  // a model_type
  std::string vllm_version, gpu, hardware, model;
  std::vector<int> tp_degrees;
  bool skew_fit = false;  // skew_fit.enabled
  // skew_fit.per_tp.N.alpha_default, by N, where the file gives it.
  std::map<int, double> alpha_default;
  // The buckets' axes: decode count, skew rate, the largest decode's KV.
  std::optional<SkewAxis> n, skew_rate, kv_big;
};

// Reads meta.yaml. Errors name the file, and the line and column of a YAML
// node: `run/profile/meta.yaml:12:3: error: tp_degrees: expected a list of
// whole numbers`.
absl::StatusOr<ProfileMeta> ReadProfileMeta(const std::string& path);
absl::StatusOr<ProfileMeta> ParseProfileMeta(const std::string& text, const std::string& path);

// The distinct values of column `column` of a CSV file (dense.csv's and
// per_sequence.csv's `layer`), sorted.
absl::StatusOr<std::set<std::string>> ReadColumnValues(const std::string& path,
                                                       const std::string& column);

// The skew fit's alpha of a pure-decode step (pc 0, kp=0) by bucket, from
// skew_fit.csv, on the grid of the three axes (n, skew rate, kv_big), in
// that order, the last fastest; a bucket the fit has no row for takes
// `fallback`. `fitted` counts the buckets found.
struct SkewBuckets {
  std::vector<double> alpha;
  int fitted = 0;
};
absl::StatusOr<SkewBuckets> ReadSkewBuckets(const std::string& path, const ProfileMeta& meta,
                                            double fallback);

// alpha_default as the profiler computes it from its raw skewed timings
// (skew.csv: t_mean_us, t_max_us, t_skew_us a row): the least-squares
// alpha of t_skew - t_mean = alpha (t_max - t_mean) over every row,
// sum((t_skew - t_mean)(t_max - t_mean)) / sum((t_max - t_mean)^2),
// rounded to 4 decimals as meta.yaml writes it. It gives meta.yaml's value
// on each of the profiles here (0.0543, 0.0654, 0.0645, 0.0748).
absl::StatusOr<double> AlphaFromSkew(const std::string& path);

}  // namespace serq::vllm

#endif  // SERQ_SERQ_VLLM_PROFILE_H_
