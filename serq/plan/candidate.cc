#include "serq/plan/candidate.h"

#include "absl/strings/str_cat.h"

namespace serq::plan {
namespace {

std::string Options(const Candidate& c, bool slug) {
  std::string out;
  if (c.max_num_seqs > 0) absl::StrAppend(&out, slug ? "-s" : " seqs ", c.max_num_seqs);
  if (c.max_num_batched_tokens > 0) absl::StrAppend(&out, slug ? "-t" : " tokens ", c.max_num_batched_tokens);
  if (!c.router.empty()) absl::StrAppend(&out, slug ? "-" : " router ", c.router);
  return out;
}

}  // namespace

const char* const kRouters[2] = {"least-loaded", "round-robin"};

std::string Candidate::Label() const {
  if (!disaggregated) return absl::StrCat("colocated tp", tp, " x", replicas, Options(*this, false));
  return absl::StrCat("disaggregated ", prefills, "P tp", prefill_tp, " + ", decodes, "D tp", decode_tp,
                      Options(*this, false));
}

std::string Candidate::Slug() const {
  if (!disaggregated) return absl::StrCat("agg-tp", tp, "x", replicas, Options(*this, true));
  return absl::StrCat("pd-", prefills, "p-tp", prefill_tp, "-", decodes, "d-tp", decode_tp, Options(*this, true));
}

Candidate PrefillDecode(int prefills, int prefill_tp, int decodes, int decode_tp) {
  Candidate c;
  c.disaggregated = true;
  c.prefills = prefills;
  c.prefill_tp = prefill_tp;
  c.decodes = decodes;
  c.decode_tp = decode_tp;
  return c;
}

std::vector<Candidate> Enumerate(const Space& space, size_t most) {
  std::vector<Candidate> out;
  auto full = [&] { return out.size() > most; };
  auto with_options = [&](Candidate c) {
    for (int64_t seqs : space.max_num_seqs) {
      for (int64_t tokens : space.max_num_batched_tokens) {
        if (full()) return;
        c.max_num_seqs = seqs;
        c.max_num_batched_tokens = tokens;
        out.push_back(c);
      }
    }
  };
  if (space.colocated) {
    for (int tp : space.tps) {
      for (int r = 1; tp * r <= space.gpus && !full(); ++r) {
        Candidate c;
        c.tp = tp;
        c.replicas = r;
        if (r == 1) {
          with_options(c);
          continue;
        }
        for (const std::string& router : space.routers) {
          c.router = router;
          with_options(c);
        }
      }
    }
  }
  if (space.disaggregated) {
    for (int ptp : space.tps) {
      for (int dtp : space.tps) {
        for (int x = 1; x * ptp + dtp <= space.gpus && !full(); ++x) {
          for (int y = 1; x * ptp + y * dtp <= space.gpus && !full(); ++y) {
            if (x * ptp + y * dtp < space.min_disaggregated_gpus) continue;
            with_options(PrefillDecode(x, ptp, y, dtp));
          }
        }
      }
    }
  }
  return out;
}

}  // namespace serq::plan
