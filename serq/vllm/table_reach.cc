#include "serq/vllm/table_reach.h"

#include <cmath>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "serq/vllm/profile.h"

namespace serq::vllm {

absl::StatusOr<std::vector<std::string>> TableReachWarnings(const RunFolder& r, const EngineReach& e) {
  std::vector<std::string> out;
  const int64_t seqs = e.max_num_seqs, tokens = e.max_num_batched_tokens;
  // How far the attention table reaches on the decodes a step and their
  // KV: the engine's decodes, and the run's longest request's KV (its own
  // requests; a plan's are its own).
  const std::string attention = r.profile_dir + "/attention.csv";
  absl::StatusOr<std::vector<double>> reach =
      ReadColumnMaxima(attention, {"n_decode", "kv_decode", "prefill_chunk", "kv_prefill"});
  if (!reach.ok()) return reach.status();
  // Limits past the profiler's sweep: the lookups extrapolate. The sweep
  // each limit said is kept: a table that reaches it is not said again.
  std::map<std::string, int64_t> swept_past;
  for (auto [name, limit, swept, tables] :
       {std::tuple{"max_num_batched_tokens", tokens, r.profile.max_num_batched_tokens, "attention and dense"},
        std::tuple{"max_num_seqs", seqs, r.profile.max_num_seqs, "per-sequence"}}) {
    if (swept && limit > *swept) {
      swept_past[name] = *swept;
      // The attention table's decodes, where its rows end at the sweep too.
      const bool decodes = absl::string_view(name) == "max_num_seqs" && (*reach)[0] <= *swept;
      out.push_back(absl::StrCat(r.profile.path, ": the profile was swept to engine_effective.", name, " ", *swept,
                                 ", the engine runs to ", limit, ": its ", tables, decodes ? " and decode attention" : "",
                                 " lookups past that extrapolate"));
    }
  }
  // A table whose `most` reaches the sweep of `limit`, which the sweep's
  // warning said already.
  auto said_by_sweep = [&swept_past](const std::string& limit, double most) {
    const auto s = swept_past.find(limit);
    return s != swept_past.end() && most >= s->second;
  };
  if (seqs > (*reach)[0] && !said_by_sweep("max_num_seqs", (*reach)[0])) {
    out.push_back(absl::StrCat(attention, ": its rows reach ", (*reach)[0], (*reach)[0] == 1 ? " decode" : " decodes",
                               ", the engine runs up to ", seqs, " (max_num_seqs): its lookups past that extrapolate"));
  }
  // Each table's other keys against the largest the program looks up at
  // (a profiler stopped part-way writes a table that ends short, and its
  // lookups past the end extrapolate without a word).
  struct Reach {
    std::string file, group, column;  // group: the column whose values are tables apart ("layer")
    int64_t needed;
    std::string limit, why;           // the limit it comes from ("" for none), and what it is
    std::optional<double> most;       // the file's, where it is read already
  };
  std::vector<Reach> reaches = {
      {attention, "", "prefill_chunk", tokens, "max_num_batched_tokens", "a step's prefill tokens", (*reach)[2]},
      {r.profile_dir + "/dense.csv", "layer", "tokens", tokens, "max_num_batched_tokens", "a step's tokens"},
      {r.profile_dir + "/per_sequence.csv", "layer", "sequences", seqs, "max_num_seqs", "a step's sequences"}};
  if (r.model.moe()) {
    const int64_t share = r.ep > 1 && r.moe_split <= 1 ? r.ep : 1;
    const double busiest = share > 1 ? share * e.expert_balancedness : 1;
    reaches.push_back(
        {r.moe_file, "", "tokens", static_cast<int64_t>(std::ceil(e.lockstep_engines * tokens / busiest)), "",
         e.lockstep_engines > 1
             ? absl::StrCat("the tokens of ", e.lockstep_engines, " engines' steps that the experts of a GPU serve")
             : "the tokens of a step that the experts of a GPU serve"});
  }
  for (const Reach& t : reaches) {
    // The table that ends first: the file's, or its shortest group's.
    std::string which;
    double most = 0;
    if (t.most) {
      most = *t.most;
    } else if (t.group.empty()) {
      absl::StatusOr<std::vector<double>> m = ReadColumnMaxima(t.file, {t.column});
      if (!m.ok()) return m.status();
      most = (*m)[0];
    } else {
      absl::StatusOr<std::map<std::string, double>> by = ReadColumnMaximaBy(t.file, t.group, t.column);
      if (!by.ok()) return by.status();
      bool first = true;
      for (const auto& [name, m] : *by) {
        if (first || m < most) which = name, most = m;
        first = false;
      }
    }
    if (t.needed <= most) continue;
    if (said_by_sweep(t.limit, most)) continue;
    out.push_back(absl::StrCat(t.file, ": its rows", which.empty() ? "" : absl::StrCat(" of ", which), " reach ",
                               t.column, " ", most, ", the engine runs up to ", t.needed, " (",
                               t.limit.empty() ? t.why : absl::StrCat(t.limit, ", ", t.why),
                               "): its lookups past that extrapolate"));
  }
  // A request of n tokens: its last decode reads the KV of n - 2 (the
  // step that makes token n reads the n - 1 before it, less its own).
  if (e.own_requests && r.longest_request - 2 > (*reach)[1]) {
    out.push_back(absl::StrCat(r.requests, ":", r.longest_line, ": a request of ", r.longest_request,
                               " tokens, past the longest KV ", attention, " times decodes at, ", (*reach)[1],
                               ": its lookups past that extrapolate"));
  }
  // A prompt of n tokens: its last chunk reads the KV of up to n - 1 (all
  // of it but the chunk, which may be its last token alone). The lookup is
  // at the step's prefills' contexts summed (prefill_kv), which several
  // chunked prefills in one step can take past that: this says what one
  // prompt alone reaches.
  if (e.own_requests && r.longest_prompt - 1 > (*reach)[3]) {
    out.push_back(absl::StrCat(r.requests, ":", r.longest_prompt_line, ": a prompt of ", r.longest_prompt,
                               " tokens, whose last chunk reads up to ", r.longest_prompt - 1,
                               " tokens of KV, past the longest ", attention, " times a chunk after (kv_prefill ",
                               (*reach)[3], "): its lookups past that extrapolate"));
  }
  return out;
}

}  // namespace serq::vllm
