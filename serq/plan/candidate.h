// `serq plan`'s candidates: the deployments a GPU budget can buy, colocated
// (engines that prefill and decode, at a tensor-parallel degree, times
// replicas) or disaggregated (xPyD: x prefill engines and y decode engines,
// each role at its own tensor-parallel degree, the KV cache moved between
// them over a link), each with vLLM's max_num_seqs and
// max_num_batched_tokens (docs/cli.md §serq plan).
#ifndef SERQ_SERQ_PLAN_CANDIDATE_H_
#define SERQ_SERQ_PLAN_CANDIDATE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace serq::plan {

struct Candidate {
  bool disaggregated = false;
  // Colocated: `replicas` engines of `tp` GPUs. Disaggregated: `prefills`
  // engines of `prefill_tp` GPUs and `decodes` engines of `decode_tp`.
  int tp = 1, replicas = 1;
  int prefill_tp = 1, prefills = 0, decode_tp = 1, decodes = 0;
  int64_t max_num_seqs = 0;            // 0: vLLM's default for the GPU
  int64_t max_num_batched_tokens = 0;  // 0: vLLM's default for the GPU
  // Colocated with replicas: how a request picks its engine, a name of
  // kRouters ("": vLLM 0.19's own choice, serq/models DataParallelRouting).
  std::string router;

  int Gpus() const {
    return disaggregated ? prefills * prefill_tp + decodes * decode_tp : tp * replicas;
  }
  // For people: "colocated tp2 x4", "disaggregated 1P tp2 + 3D tp2", with
  // " seqs 256 tokens 8192" when not vLLM's defaults, " router round-robin"
  // when one is named.
  std::string Label() const;
  // For files: "agg-tp2x4", "pd-1p-tp2-3d-tp2", with "-s256", "-t8192" and
  // "-round-robin".
  std::string Slug() const;
};

// The disaggregated candidate of `prefills` engines of `prefill_tp` GPUs
// and `decodes` of `decode_tp`, vLLM's defaults.
Candidate PrefillDecode(int prefills, int prefill_tp, int decodes, int decode_tp);

// The largest budget (--gpus, --max-gpus) and the most candidates one
// plan enumerates: a candidate is a program written and a search run, and
// the enumeration grows with the budget (disaggregated, with its square),
// so a budget past these is refused at its flag rather than enumerated for
// minutes or out of memory (--gpus 2^31 did both).
inline constexpr int kMostGpus = 1024;
inline constexpr size_t kMostCandidates = 10000;

struct Space {
  int gpus = 8;                 // the budget: no candidate uses more
  std::vector<int> tps;         // the degrees that fit (each a divisor the model allows)
  bool colocated = true, disaggregated = true;
  std::vector<int64_t> max_num_seqs = {0};
  std::vector<int64_t> max_num_batched_tokens = {0};
  // Colocated candidates of more than one replica are tried with each
  // (one of them with one replica: nothing to route).
  std::vector<std::string> routers = {""};
  // Disaggregated candidates use at least this many GPUs: an xPyD
  // deployment on fewer is rarely what anyone runs, and the front cares
  // about the per-GPU figures (default 2: any xPyD).
  int min_disaggregated_gpus = 2;
};

// The routers a colocated candidate may name: "least-loaded" (vLLM's
// data-parallel balancer's score, the least 4 x waiting + running) and
// "round-robin" (the engines in turn).
extern const char* const kRouters[2];

// Every candidate of `space`, in a fixed order: colocated by tp, then
// replicas, then the options; disaggregated by prefill tp, decode tp,
// prefills, decodes, then the options. A candidate never uses more than
// space.gpus GPUs. Past `most` it stops, with most + 1 of them: a space of
// millions (every disaggregated size, long --seqs lists) is said to be too
// many without being built.
std::vector<Candidate> Enumerate(const Space& space, size_t most = SIZE_MAX);

}  // namespace serq::plan

#endif  // SERQ_SERQ_PLAN_CANDIDATE_H_
