// A GPU profile in LLMServingSim's layout (profile/meta.yaml, profile/tpN/
// attention.csv, dense.csv, per_sequence.csv, moe.csv, skew.csv,
// skew_fit.csv): what the generator reads of it. Tables themselves are read
// by the program it writes (serq-link), not here; here are the facts the
// program's text depends on: the operators each file holds, the skew fit's
// buckets and its default.
#ifndef SERQ_SERQ_VLLM_PROFILE_H_
#define SERQ_SERQ_VLLM_PROFILE_H_

#include <cstdint>
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

// The skew fit's bucket axes: decode count, skew rate, the largest
// decode's KV.
struct SkewAxes {
  bool present = false;  // the block was written, with any axis
  std::optional<SkewAxis> n, skew_rate, kv_big;
  std::optional<SkewAxis> kp;  // the prefill KV's: a pure-decode step is in its bin of 0
};

// One bucket an earlier profiler wrote into meta.yaml itself
// (skew_fit.per_tp.N.alpha_by_bucket), by its key as skew_fit.csv's rows
// spell it apart: "pc=0|n<=64|sr<=15%|kvB<=4k|kp=0".
struct InlineBucket {
  std::string key;
  double alpha = 0;
  int line = 0;  // meta.yaml's
};

// skew_fit.per_tp.N: the fit at one tensor-parallel degree.
struct SkewFitEntry {
  std::optional<double> alpha_default;
  SkewAxes axes;             // its own bucket_axes (the degrees' grids differ)
  std::string bucket_table;  // the buckets' CSV, relative to meta.yaml's folder
  std::optional<std::vector<InlineBucket>> alpha_by_bucket;
};

struct ProfileMeta {
  std::string path;          // the meta.yaml read
  std::string architecture;  // a model_type
  std::string vllm_version, gpu, hardware, model;
  std::vector<int> tp_degrees;
  // engine_effective's limits: the batches the profiler swept to; a run's
  // larger ones extrapolate the tables.
  std::optional<int64_t> max_num_batched_tokens, max_num_seqs;
  bool skew_fit = false;  // skew_fit.enabled
  std::optional<double> alpha_default;  // skew_fit.alpha_default, rarely written
  SkewAxes axes;                        // skew_fit.bucket_axes
  std::map<int, SkewFitEntry> per_tp;   // skew_fit.per_tp
};

// Reads meta.yaml. Errors name the file, and the line and column of a YAML
// node: `run/profile/meta.yaml:12:3: error: tp_degrees: expected a list of
// whole numbers`.
absl::StatusOr<ProfileMeta> ReadProfileMeta(const std::string& path);
absl::StatusOr<ProfileMeta> ParseProfileMeta(const std::string& text, const std::string& path);

// The largest number in each of `columns` of a profile CSV: how far its
// table reaches on each key, past which a lookup extrapolates. A cell that
// is not a number is an error at its line, a file of no rows an error.
absl::StatusOr<std::vector<double>> ReadColumnMaxima(const std::string& path,
                                                     const std::vector<std::string>& columns);

// The largest number of `column` in each group of rows that share
// `group`'s value (dense.csv's and per_sequence.csv's `layer`, each a table
// of the program's), by that value: how far each such table reaches.
absl::StatusOr<std::map<std::string, double>> ReadColumnMaximaBy(const std::string& path, const std::string& group,
                                                                 const std::string& column);

// The distinct values of column `column` of a CSV file (dense.csv's and
// per_sequence.csv's `layer`), sorted.
absl::StatusOr<std::set<std::string>> ReadColumnValues(const std::string& path,
                                                       const std::string& column);

// The skew fit's alpha of a pure-decode step (pc 0, kp=0) by bucket, on
// the grid of the three axes (n, skew rate, kv_big), in that order, the
// last fastest; a bucket the fit has no row for takes the default.
// `fitted` counts the buckets found.
struct SkewBuckets {
  std::vector<double> alpha;
  int fitted = 0;
};

// The skew blend of a program at tensor-parallel degree `tp`, from the
// profile whose tpN folder is `profile_dir`, from what each version of
// LLMServingSim's profiler wrote, resolved as its simulator resolves it
// (serving/core/trace_generator.py) but where marked:
// - the axes: the degree's entry's bucket_axes, else the block's, else
//   the bins the simulator assumes of a profile that names none; an axis
//   the chosen block lacks takes those bins too (the simulator fails);
// - alpha_default (a step with prefill, a bucket not fitted): the
//   degree's entry, else the block's, else (serq's) fitted from
//   tpN/skew.csv, else 0;
// - the buckets: the entry's inline alpha_by_bucket, else its
//   bucket_table, else (serq's) tpN/skew_fit.csv.
// What the profile lacks narrows the blend and says so in `warnings` (no
// table: every bucket at alpha_default; no alpha_default and no bucket:
// no blend, `on` false); a file that is there and malformed is an error.
struct SkewBlend {
  bool on = false;
  double alpha_default = 0;
  std::string alpha_why;    // where alpha_default came from
  std::string axes_why;     // "meta.yaml's bucket_axes", ...
  std::string buckets_why;  // "profile/tp1/skew_fit.csv", ...
  std::string off_why;      // when not on: why, for the program's comment
  SkewAxis n, skew_rate, kv_big;
  SkewBuckets buckets;
  std::vector<std::string> warnings;
};
absl::StatusOr<SkewBlend> ResolveSkewBlend(const ProfileMeta& meta, int tp,
                                           const std::string& profile_dir);

// alpha_default as the profiler computes it from its raw skewed timings
// (skew.csv: t_mean_us, t_max_us, t_skew_us a row): the least-squares
// alpha of t_skew - t_mean = alpha (t_max - t_mean) over every row,
// sum((t_skew - t_mean)(t_max - t_mean)) / sum((t_max - t_mean)^2),
// rounded to 4 decimals as meta.yaml writes it. It gives meta.yaml's value
// on each of the profiles here (0.0543, 0.0654, 0.0645, 0.0748). NotFound
// without the file, FailedPrecondition when no row is skewed (nothing to
// fit), InvalidArgument for a malformed file.
absl::StatusOr<double> AlphaFromSkew(const std::string& path);

}  // namespace serq::vllm

#endif  // SERQ_SERQ_VLLM_PROFILE_H_
