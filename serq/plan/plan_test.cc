// serq plan's pieces, against hand-derived expectations: the dominance
// rule and the front on known points, the candidates a budget enumerates
// (their count and GPUs counted by hand), and the programs of a colocated
// and a disaggregated candidate (they link, Rate a param, the roles'
// engines as arrays).
#include <algorithm>
#include <limits>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "serq/models/presets.h"
#include "serq/pipeline/commands.h"
#include "serq/plan/candidate.h"
#include "serq/plan/pareto.h"
#include "serq/plan/program.h"
#include "serq/plan/render.h"
#include "serq/plan/emit.h"
#include "serq/plan/folder.h"
#include "serq/plan/grow.h"
#include "serq/plan/result_file.h"

namespace serq::plan {
namespace {

TEST(Pareto, Dominance) {
  EXPECT_TRUE(Dominates({2, 2}, {1, 1}));
  EXPECT_TRUE(Dominates({2, 1}, {1, 1}));   // better on one, equal on the other
  EXPECT_FALSE(Dominates({1, 1}, {1, 1}));  // equal: neither dominates
  EXPECT_FALSE(Dominates({2, 0}, {1, 1}));  // a trade-off
  EXPECT_FALSE(Dominates({1, 1}, {2, 2}));
}

TEST(Pareto, FrontOfKnownPoints) {
  // (x, y): 0 (10, 1), 1 (8, 3), 2 (8, 2) under 1, 3 (5, 5), 4 (4, 4)
  // under 3, 5 (1, 6), 6 (5, 5) a copy of 3. By hand the front is 0, 1,
  // 3, 5, by x descending; 6 ties 3 and only the first is kept.
  std::vector<Point> p = {{10, 1}, {8, 3}, {8, 2}, {5, 5}, {4, 4}, {1, 6}, {5, 5}};
  std::vector<int> f = Front(p);
  EXPECT_EQ(f, (std::vector<int>{0, 1, 3, 5}));
  // No point of the front is dominated by any point; every point not on
  // it is dominated by or equal to one on it.
  for (int i : f) {
    for (const Point& q : p) EXPECT_FALSE(Dominates(q, p[i]));
  }
  for (int i = 0; i < static_cast<int>(p.size()); ++i) {
    if (std::count(f.begin(), f.end(), i)) continue;
    std::vector<Point> front;
    for (int k : f) front.push_back(p[k]);
    EXPECT_TRUE(Covered(front, p[i])) << i;
  }
  EXPECT_FALSE(Covered({{10, 1}, {5, 5}}, {6, 4}));  // between the two: could join
  EXPECT_TRUE(Covered({{10, 1}, {5, 5}}, {5, 5}));   // could at most tie
}

TEST(Candidates, FourGpus) {
  Space s;
  s.gpus = 4;
  s.tps = {1, 2, 4};
  s.min_disaggregated_gpus = 4;
  std::vector<Candidate> all = Enumerate(s);
  // Colocated, tp x replicas <= 4: tp 1 x 1..4, tp 2 x 1..2, tp 4 x 1 = 7.
  // Disaggregated on exactly 4: (tp 1, tp 1) 1P3D 2P2D 3P1D; (1, 2) 2P1D;
  // (2, 1) 1P2D; (2, 2) 1P1D = 6; tp 4 leaves no GPU for the other role.
  int colocated = 0, disaggregated = 0;
  for (const Candidate& c : all) {
    EXPECT_LE(c.Gpus(), 4) << c.Label();
    if (c.disaggregated) {
      ++disaggregated;
      EXPECT_EQ(c.Gpus(), 4) << c.Label();
    } else {
      ++colocated;
    }
  }
  EXPECT_EQ(colocated, 7);
  EXPECT_EQ(disaggregated, 6);
  EXPECT_EQ(all[0].Label(), "colocated tp1 x1");
  EXPECT_EQ(all[7].Label(), "disaggregated 1P tp1 + 3D tp1");
  EXPECT_EQ(all[7].Slug(), "pd-1p-tp1-3d-tp1");
  // Two options each double the list.
  s.max_num_seqs = {128, 256};
  EXPECT_EQ(Enumerate(s).size(), 26u);
  EXPECT_EQ(Enumerate(s)[1].Slug(), "agg-tp1x1-s256");
  // Past `most` it stops with most + 1, the first ones in the same order:
  // 26 candidates, at most 9 (colocated's 14 cut) and at most 20 (the
  // disaggregated's 12 cut after 6); at 26 and above, all of them.
  const std::vector<Candidate> every = Enumerate(s);
  for (size_t most : {0u, 9u, 20u, 25u, 26u, 100u}) {
    const std::vector<Candidate> some = Enumerate(s, most);
    ASSERT_EQ(some.size(), std::min<size_t>(most + 1, 26)) << most;
    for (size_t i = 0; i < some.size(); ++i) EXPECT_EQ(some[i].Slug(), every[i].Slug()) << most << " " << i;
  }
}

// Routers multiply the colocated candidates of more than one replica only:
// with --gpus 4 at tp 1 and 2, replicas 2..4 at tp 1 and 2 at tp 2 are 4
// candidates of more than one engine, each tried twice; tp1 x1 and tp2 x1
// once: 4 x 2 + 2 = 10.
TEST(Candidates, Routers) {
  Space s;
  s.gpus = 4;
  s.tps = {1, 2};
  s.disaggregated = false;
  s.routers = {"least-loaded", "round-robin"};
  std::vector<Candidate> all = Enumerate(s);
  ASSERT_EQ(all.size(), 10u);
  EXPECT_EQ(all[0].Label(), "colocated tp1 x1");
  EXPECT_EQ(all[1].Label(), "colocated tp1 x2 router least-loaded");
  EXPECT_EQ(all[2].Slug(), "agg-tp1x2-round-robin");
}

class Programs : public ::testing::Test {
 protected:
  void SetUp() override {
    models::ReadOptions read;
    std::string source;
    auto m = models::ResolveModel("llama-3.1-8b", read, &source);
    ASSERT_TRUE(m.ok()) << m.status();
    model_ = *m;
    auto g = models::ResolveGpu("h100-sxm");
    ASSERT_TRUE(g.ok()) << g.status();
    gpu_ = *g;
    settings_.base.workload.rate = 3;
    settings_.base.model_name = "llama-3.1-8b";
    settings_.requests = 200;
  }
  // Links `text` as serq run would: "" when it links, else the diagnostics.
  std::string Link(const std::string& text) {
    const std::string path = ::testing::TempDir() + "/p.sq";
    FILE* f = std::fopen(path.c_str(), "w");
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    DriverOptions options;
    ir::Program program;
    CommandResult error;
    return ParseAndLink(path, options, &program, &error) ? "" : error.err;
  }
  models::ModelConfig model_;
  models::Gpu gpu_;
  ProgramSettings settings_;
};

TEST_F(Programs, ColocatedLinks) {
  Candidate c;
  c.tp = 2;
  c.replicas = 2;
  auto text = CandidateProgram(model_, gpu_, c, settings_);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("param Rate = 3;"), std::string::npos);
  EXPECT_NE(text->find("workload requests { arrive poisson(Rate); }"), std::string::npos);
  // The generator's run block with the horizon and warm-up put in, its
  // gpus kept: 2 engines (Engines) of tensor parallel 2 (Tp), 4 GPUs.
  EXPECT_NE(text->find("run { horizon Warmup + max(Requests / Rate, MinHorizon); warmup Warmup; seed 1; "
                       "gpus Engines * Tp; }"),
            std::string::npos);
  EXPECT_NE(text->find("param Engines = 2;"), std::string::npos);
  EXPECT_NE(text->find("param Tp = 2;"), std::string::npos);
  EXPECT_EQ(Link(*text), "");
}

// --enforce-eager: every candidate's engines without CUDA graphs (both
// roles of a disaggregated one), and its vllm serve lines say so.
TEST_F(Programs, EnforceEager) {
  Candidate c;
  c.tp = 2;
  c.replicas = 1;
  auto graphs = CandidateProgram(model_, gpu_, c, settings_);
  ASSERT_TRUE(graphs.ok()) << graphs.status();
  EXPECT_NE(graphs->find("param GraphMax = "), std::string::npos);
  settings_.base.deployment.enforce_eager = true;
  auto eager = CandidateProgram(model_, gpu_, c, settings_);
  ASSERT_TRUE(eager.ok()) << eager.status();
  EXPECT_EQ(eager->find("GraphMax"), std::string::npos) << *eager;
  EXPECT_NE(eager->find("all_reduce(Tp, tokens * Hidden"), std::string::npos);
  EXPECT_EQ(Link(*eager), "");
  settings_.kv_link = "nvlink4";
  auto split = CandidateProgram(model_, gpu_, PrefillDecode(1, 1, 1, 1), settings_);
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_EQ(split->find("GraphMax"), std::string::npos) << *split;
  EXPECT_EQ(Link(*split), "");
  Context context;
  context.model = "llama-3.1-8b";
  context.enforce_eager = true;
  EXPECT_NE(VllmServe(c, context).find("vllm serve llama-3.1-8b --tensor-parallel-size 2 --enforce-eager\n"),
            std::string::npos)
      << VllmServe(c, context);
}

// The run's engine arguments its candidates' programs keep go on their
// serve lines where they differ from vLLM 0.19's defaults: none for the
// defaults; each in vLLM's own flag otherwise, after the candidate's.
TEST(ServeLines, TheRunsEngineArguments) {
  vllm::EngineArgs a;  // vLLM 0.19's defaults
  EXPECT_EQ(ServeOptionsOfRun(a), "");
  a.block_size = 32;
  a.kv_cache_dtype = "fp8";
  a.kv_cache_memory_bytes = 10737418240;
  a.gpu_memory_utilization = 0.95;
  a.gpu_memory_utilization_from = "engine_kwargs.gpu_memory_utilization";
  a.prefix_caching = false;
  a.async_scheduling = false;
  a.reserve_full_isl = false;
  a.long_prefill_token_threshold = 512;
  a.max_model_len = 8192;
  a.max_model_len_from = "engine_kwargs.max_model_len";
  a.num_gpu_blocks_override = 3000;
  a.disable_custom_all_reduce = true;
  a.expert_parallel = true;
  a.graph_decode_only = true;
  a.max_num_seqs = 128;
  a.max_num_batched_tokens = 2048;
  a.graph_sizes = {1, 2, 4, 8, 16};
  EXPECT_EQ(ServeOptionsOfRun(a), " --block-size 32 --kv-cache-dtype fp8 --kv-cache-memory-bytes 10737418240 "
                                  "--gpu-memory-utilization 0.95 --num-gpu-blocks-override 3000 "
                                  "--no-enable-prefix-caching --long-prefill-token-threshold 512 "
                                  "--no-async-scheduling --no-scheduler-reserve-full-isl --max-model-len 8192 "
                                  "--disable-custom-all-reduce --enable-expert-parallel --compilation-config "
                                  "'{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": "
                                  "[1, 2, 4, 8, 16]}'");
  // At vLLM's defaults, said by the run or resolved from the model (its
  // max_model_len, the sizes of its rule for 128 sequences and 2048
  // tokens): nothing.
  vllm::EngineArgs d;
  d.gpu_memory_utilization_from = "engine_kwargs.gpu_memory_utilization";
  d.max_model_len = 131072;
  d.max_model_len_from = "resolved_config.model_config.max_model_len";
  d.max_num_seqs = 128;
  d.max_num_batched_tokens = 2048;
  d.graph_sizes = models::VllmCudaGraphSizes(128, 2048);
  EXPECT_EQ(ServeOptionsOfRun(d), "");
  Candidate c;
  c.tp = 1;
  c.replicas = 2;
  c.max_num_seqs = 64;
  Context context;
  context.model = "m";
  context.engine_options = " --block-size 32";
  EXPECT_EQ(VllmServe(c, context), "# " + c.Label() + ": one vLLM server, 2 data-parallel engines of 1 GPU\n"
                                   "vllm serve m --tensor-parallel-size 1 --data-parallel-size 2 --max-num-seqs 64 "
                                   "--block-size 32\n");
}

// A router replaces the generator's routing: vLLM's own for a dense model
// is in turn (`serial % Engines`); least-loaded chooses by 4 x waiting +
// running, and the program still links.
TEST_F(Programs, Routers) {
  Candidate c;
  c.replicas = 2;
  auto plain = CandidateProgram(model_, gpu_, c, settings_);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_NE(plain->find("  set i = serial % Engines;\n"), std::string::npos);
  c.router = "least-loaded";
  auto least = CandidateProgram(model_, gpu_, c, settings_);
  ASSERT_TRUE(least.ok()) << least.status();
  EXPECT_EQ(least->find("serial % Engines"), std::string::npos);
  EXPECT_NE(least->find("  choose i in E by (4 * waiting(E[i]) + running(E[i]));\n"), std::string::npos);
  EXPECT_EQ(Link(*least), "");
  c.router = "round-robin";
  auto turn = CandidateProgram(model_, gpu_, c, settings_);
  ASSERT_TRUE(turn.ok()) << turn.status();
  EXPECT_NE(turn->find("  // serq plan's router round-robin: the engines in turn.\n  set i = serial % Engines;\n"),
            std::string::npos);
}

// A mixture of experts' replicas are vLLM's data-parallel engines in
// lockstep, routed on the coordinator's copy of the counts (`every 0.1`):
// a router replaces that line too, and the program links.
TEST_F(Programs, RoutersOfLockstepEngines) {
  models::ReadOptions read;
  std::string source;
  auto moe = models::ResolveModel("qwen3-30b-a3b", read, &source);
  ASSERT_TRUE(moe.ok()) << moe.status();
  Candidate c;
  c.replicas = 2;
  auto plain = CandidateProgram(*moe, gpu_, c, settings_);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_NE(plain->find(" every 0.1;\n"), std::string::npos);
  c.router = "round-robin";
  auto turn = CandidateProgram(*moe, gpu_, c, settings_);
  ASSERT_TRUE(turn.ok()) << turn.status();
  EXPECT_EQ(turn->find(" every 0.1;"), std::string::npos);
  EXPECT_NE(turn->find("  set i = serial % Engines;\n"), std::string::npos);
  EXPECT_EQ(Link(*turn), "");
}

TEST_F(Programs, DisaggregatedLinks) {
  Candidate c;
  c.disaggregated = true;
  c.prefills = 1;
  c.prefill_tp = 1;
  c.decodes = 3;
  c.decode_tp = 2;
  auto text = CandidateProgram(model_, gpu_, c, settings_);
  ASSERT_TRUE(text.ok()) << text.status();
  for (const char* want : {"param NP = 1;", "param ND = 3;", "param TpP = 1;", "param TpD = 2;",
                           "stage P[NP] :", "stage D[ND] :", "pool kvD[ND]", "transfer on egress[i], ingress[j]",
                           "param Rate = 3;",
                           // 1 prefill engine of 1 GPU and 3 decode engines of 2: 7 GPUs, in
                           // the params (-D NP=2 counts 9).
                           "run { horizon Warmup + max(Requests / Rate, MinHorizon); warmup Warmup; seed 1; "
                           "gpus NP * TpP + ND * TpD; }"}) {
    EXPECT_NE(text->find(want), std::string::npos) << want << "\n" << *text;
  }
  // The decode role's TP needs the link's collectives: PHYS_B4 and LinkBw.
  EXPECT_NE(text->find("param PHYS_B4 "), std::string::npos);
  EXPECT_NE(text->find("param LinkBw "), std::string::npos);
  EXPECT_EQ(Link(*text), "");
}

// A disaggregated candidate of a mixture of experts (Qwen3-30B-A3B on
// H100s, tensor parallel 1 in both roles), its roles serq physics's
// data-parallel engines: run with every correction 0 but the collectives'
// (PHYS_B4 1) and a step's (PHYS_B7 126.024825 us), a lone request of
// 1000 prompt tokens has, by hand,
//   TTFT = the prefill step + the KV transfer + the decode step.
// The KV transfer: 1000 tokens x KvTokenBytes (2 x 48 layers x 4 KV heads x
//   128 x 2 bytes = 98304) / (min(TpP, TpD) 1 x 370.8e9 B/s, nvlink4)
//   = 265.11327 us, ending at the first nanosecond at or after (a transfer
//   is continuous work: docs/simulation.md), 265.114 us.
// 1P1D: each role one engine of one GPU, no collective: each step
//   floor(126.02) = 126 us, TTFT = 126 + 265.114 + 126 = 517.114 us.
// 2P2D: each role's two engines step in lockstep, their own group only:
//   the prefill step's group_tokens are the prompt's 1000 and the idle
//   engine's dummy 1, 1001 (not the decode engines'; 1000 is past the
//   largest CUDA graph, GraphMax 512, so both run eagerly), and its experts'
//   exchange is among the role's NP = 2 GPUs, every one of the 48 MoE
//   layers an all-gather and a reduce-scatter of 1001 x 2048 x 2 bytes,
//   each 1 ring step x 3.4 us + 1/2 x 4,100,096 B / 370.8e9 B/s = 8.928716
//   us: 48 x 2 x 8.928716 = 857.157 us, + 126.025 = 983.18, a step of 983
//   us; the decode step's group_tokens 1 + 1 dummy = 2 (each engine's graph
//   of 1, Engines x 1): 48 x 2 x (3.4 +
//   1/2 x 8192 / 370.8e9 s) = 327.460 us, + 126.025 = 453.49: 453 us.
//   TTFT = 983 + 265.114 + 453 = 1701.114 us.
class DisaggregatedExperts : public Programs {
 protected:
  void SetUp() override {
    Programs::SetUp();
    models::ReadOptions read;
    std::string source;
    auto m = models::ResolveModel("qwen3-30b-a3b", read, &source);
    ASSERT_TRUE(m.ok()) << m.status();
    model_ = *m;
    settings_.base.model_name = "qwen3-30b-a3b";
    settings_.base.workload.lengths = "fixed:1000,4";
    // The preset's 262,144 tokens do not fit one GPU's KV cache here
    // (130,880), where vLLM would not start: a user's max_model_len.
    settings_.base.deployment.max_model_len = 32768;
  }
  absl::StatusOr<std::string> Program(int np, int nd) {
    return CandidateProgram(model_, gpu_, PrefillDecode(np, 1, nd, 1), settings_);
  }
  // NP x ND's program, which links and states its GPUs, run with a lone
  // request: its TTFT against `ttft_us`, the report's GPUs NP + ND.
  std::string Checked(int np, int nd, double ttft_us) {
    auto text = Program(np, nd);
    EXPECT_TRUE(text.ok()) << text.status();
    if (!text.ok()) return "";
    EXPECT_EQ(Link(*text), "");
    EXPECT_NE(text->find("gpus NP * TpP + ND * TpD; }"), std::string::npos) << *text;
    double ttft = 0;
    std::string report;
    LoneRequest(*text, &ttft, &report);
    EXPECT_NEAR(ttft, ttft_us * 1e-6, 1e-12);
    EXPECT_NE(report.find(absl::StrCat("per GPU (", np + nd, " GPUs)")), std::string::npos) << report;
    return *text;
  }
  // The lone request's TTFT, and the report's per-GPU line's count.
  void LoneRequest(std::string text, double* ttft, std::string* report) {
    const std::string workload = "workload requests { arrive poisson(Rate); }";
    const size_t at = text.find(workload);
    ASSERT_NE(at, std::string::npos) << text;
    text.replace(at, workload.size(), "workload requests { arrive poisson(Rate); limit 1; }");
    const std::string path = ::testing::TempDir() + "/lone.sq";
    FILE* f = std::fopen(path.c_str(), "w");
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    DriverOptions options;
    options.defines = {{"Warmup", 0}};
    for (const char* zero : {"PHYS_B1A", "PHYS_B1B", "PHYS_B2A", "PHYS_B2B", "PHYS_B3", "PHYS_B5", "PHYS_B6"}) {
      options.defines.push_back({zero, 0});
    }
    ir::Program program;
    results::Results results;
    CommandResult failed;
    ASSERT_TRUE(SimulateProgram(path, options, &program, &results, &failed)) << failed.err;
    *ttft = -1;
    for (const auto& o : results.replication(0).observation()) {
      if (o.name() == "ttft") {
        ASSERT_EQ(o.sample_size(), 1);
        *ttft = o.sample(0);
      }
    }
    *report = RunCommand(path, options).out;
  }
};

// The part of `text` from the line that starts with `first` to the next
// line "}".
std::string Block(const std::string& text, const std::string& first) {
  const size_t from = text.find("\n" + first);
  if (from == std::string::npos) return "";
  return text.substr(from + 1, text.find("\n}\n", from) - from);
}

TEST_F(DisaggregatedExperts, OneAndOne) {
  const std::string text = Checked(1, 1, 126 + 265.114 + 126);
  // One engine a role: plain, no lockstep, no exchange.
  EXPECT_EQ(text.find(" lockstep;"), std::string::npos) << text;
  EXPECT_EQ(text.find("MoeGroup"), std::string::npos) << text;
}

TEST_F(DisaggregatedExperts, TwoAndTwo) {
  const std::string text = Checked(2, 2, 983 + 265.114 + 453);
  for (const char* want : {"param NP = 2;", "param ND = 2;", "param MoeGroupP = 2;", "param MoeGroupD = 2;"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
  // Each role's stage its own lockstep group: the prefill engines' exchange
  // among NP and their experts over MoeGroupP, no decode name; the decode
  // engines' likewise.
  const std::string p = Block(text, "stage P[NP] :"), d = Block(text, "stage D[ND] :");
  ASSERT_FALSE(p.empty()) << text;
  ASSERT_FALSE(d.empty()) << text;
  for (const auto& [block, own, other] : {std::tuple{p, "P", "D"}, std::tuple{d, "D", "P"}}) {
    EXPECT_NE(block.find(" lockstep;"), std::string::npos) << block;
    EXPECT_NE(block.find(absl::StrCat("all_gather(N", own, ", gathered")), std::string::npos) << block;
    EXPECT_NE(block.find(absl::StrCat("/ MoeGroup", own, ";")), std::string::npos) << block;
    for (const char* name : {"N", "Tp", "Seqs", "Tokens", "MoeGroup"}) {
      EXPECT_EQ(std::regex_search(block, std::regex(absl::StrCat("\\b", name, other, "\\b"))), false)
          << name << other << " in\n" << block;
    }
    EXPECT_EQ(block.find("Engines"), std::string::npos) << block;
  }
  // The decode role's requests bring their prompt's KV: no full-prompt
  // reservation there, and a preemption recomputes the last token only.
  EXPECT_NE(p.find(" preempt by (-since); reserve prompt; async;"), std::string::npos) << p;
  EXPECT_NE(d.find(" preempt by (-since); recompute last; async;"), std::string::npos) << d;
  // vLLM's data-parallel balancer picks each role's rank.
  EXPECT_NE(text.find("  choose i in P by (4 * waiting(P[i]) + running(P[i])) every 0.1;\n"), std::string::npos);
  EXPECT_NE(text.find("  choose j in D by (4 * waiting(D[j]) + running(D[j])) every 0.1;\n"), std::string::npos);
}

// The KV moves over as many GPUs at once as the engines hold distinct
// shares of it: Qwen3-30B-A3B's 4 KV heads over 8 GPUs are 4 shares (each
// head on 2 GPUs), not 8; DeepSeek-V3's latent is whole on every GPU: 1.
TEST_F(DisaggregatedExperts, KvShares) {
  const Candidate c = PrefillDecode(1, 8, 1, 8);
  auto text = CandidateProgram(model_, gpu_, c, settings_);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("param XferTokens = 4 * 3.708e+11 / KvTokenBytes;"), std::string::npos) << *text;
  models::ReadOptions read;  // serq physics's: latent attention and fp8 weights read
  read.latent_attention = true;
  read.quantized = true;
  std::string source;
  auto deepseek = models::ResolveModel("deepseek-v3", read, &source);
  ASSERT_TRUE(deepseek.ok()) << deepseek.status();
  auto h200 = models::ResolveGpu("h200");
  ASSERT_TRUE(h200.ok()) << h200.status();
  text = CandidateProgram(*deepseek, *h200, c, settings_);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("param KvTokenBytes = Layers * (KvLoraRank + QkRope) * KvBytes;"), std::string::npos);
  EXPECT_NE(text->find("param XferTokens = 1 * "), std::string::npos) << *text;
  EXPECT_EQ(Link(*text), "");
}

// A plan's folder: the four tables always; the best of each kind on the
// ranking (the first ranked of its kind, not the first of the plan) as a
// program at its rate, which links, and its serve lines. A plan that ranks
// none: no program and no vllm-serve.sh.
TEST_F(Programs, TheFolderOfAPlan) {
  Candidate colocated;
  colocated.tp = 1;
  colocated.replicas = 2;
  PlanSpec spec;
  spec.candidates = {colocated, PrefillDecode(1, 1, 1, 1)};
  Plan plan;
  plan.results.resize(2);
  plan.results[0].rate = 7;
  plan.results[1].rate = 2.5;
  plan.ranked = {1, 0};
  Context context;
  context.model = "llama-3.1-8b";
  absl::StatusOr<FolderFiles> folder = PlanFolderFiles(spec, plan, context, model_, gpu_, settings_, "out");
  ASSERT_TRUE(folder.ok()) << folder.status();
  std::vector<std::string> names;
  for (const auto& [name, text] : folder->files) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"candidates.csv", "pareto.csv", "pareto.svg", "pareto.html",
                                             "best-colocated.sq", "best-disaggregated.sq", "vllm-serve.sh"}));
  EXPECT_EQ(folder->best_lines, "best colocated: colocated tp1 x2 at 7 req/s: best-colocated.sq\n"
                                "best disaggregated: " + spec.candidates[1].Label() +
                                " at 2.5 req/s: best-disaggregated.sq\n");
  // The program at its candidate's rate.
  EXPECT_NE(folder->files[4].second.find("param Rate = 7;"), std::string::npos) << folder->files[4].second;
  EXPECT_EQ(Link(folder->files[4].second), "");
  plan.ranked.clear();
  folder = PlanFolderFiles(spec, plan, context, model_, gpu_, settings_, "out");
  ASSERT_TRUE(folder.ok()) << folder.status();
  EXPECT_EQ(folder->files.size(), 4u);
  EXPECT_EQ(folder->best_lines, "");
}

TEST(Serve, DisaggregatedLaunchLines) {
  const Candidate c = PrefillDecode(1, 2, 2, 1);
  Context context;
  context.model = "llama-3.1-8b";
  context.model_id = "meta-llama/Llama-3.1-8B";
  const std::string s = VllmServe(c, context);
  // GPUs 0,1 to the prefill server, 2 and 3 to the two decode servers.
  EXPECT_NE(s.find("CUDA_VISIBLE_DEVICES=0,1 vllm serve meta-llama/Llama-3.1-8B --port 8100 --tensor-parallel-size 2"),
            std::string::npos) << s;
  EXPECT_NE(s.find("CUDA_VISIBLE_DEVICES=3 vllm serve meta-llama/Llama-3.1-8B --port 8102 --tensor-parallel-size 1"),
            std::string::npos) << s;
  EXPECT_NE(s.find("--prefiller-hosts-ports localhost:8100 --decoder-hosts-ports localhost:8101 localhost:8102"),
            std::string::npos) << s;
}

// A mixture of experts' 2P2D: each role one server of two data-parallel
// ranks (they step together), GPUs 0,1 the prefill server's and 2,3 the
// decode server's, the proxy between the two.
TEST(Serve, DisaggregatedExpertsLaunchLines) {
  const Candidate c = PrefillDecode(2, 1, 2, 1);
  Context context;
  context.model = "qwen3-30b-a3b";
  context.model_id = "Qwen/Qwen3-30B-A3B-Instruct-2507";
  context.moe = true;
  const std::string s = VllmServe(c, context);
  EXPECT_NE(s.find(": 2 vLLM servers"), std::string::npos) << s;
  EXPECT_NE(s.find("CUDA_VISIBLE_DEVICES=0,1 vllm serve Qwen/Qwen3-30B-A3B-Instruct-2507 --port 8100 "
                   "--tensor-parallel-size 1 --data-parallel-size 2 --kv-transfer-config"),
            std::string::npos) << s;
  EXPECT_NE(s.find("CUDA_VISIBLE_DEVICES=2,3 vllm serve Qwen/Qwen3-30B-A3B-Instruct-2507 --port 8101 "
                   "--tensor-parallel-size 1 --data-parallel-size 2 --kv-transfer-config"),
            std::string::npos) << s;
  EXPECT_NE(s.find("--prefiller-hosts-ports localhost:8100 --decoder-hosts-ports localhost:8101\n"), std::string::npos)
      << s;
}

// A candidate's result file reads back to the same doubles (the merge's
// files are then a local run's bytes): 0.1 and 1/3 are not exact in
// binary and need all 17 digits; a why of two lines with a quote; an
// undefined figure with an infinite half-width; another candidate's file
// and a bad line are refused with the path and the line.
TEST(ResultFile, RoundTrip) {
  Candidate c;
  c.tp = 2;
  CandidateResult r;
  r.status = CandidateResult::kOk;
  r.why = "line one\n  \"two\"";
  r.rate = 0.1;
  r.at_top = true;
  r.replications = 8;
  r.tokens = {true, 1.0 / 3, 2e-17};
  r.tokens_per_user = {false, 5, std::numeric_limits<double>::infinity()};
  r.itl[2] = {true, 123456.789, 0.000123};
  const std::string text = ResultText(c, r);
  absl::StatusOr<CandidateResult> back = ParseResult(text, "r.txt", c);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->status, CandidateResult::kOk);
  EXPECT_EQ(back->why, r.why);
  EXPECT_EQ(back->rate, 0.1);
  EXPECT_TRUE(back->at_top);
  EXPECT_EQ(back->replications, 8u);
  EXPECT_EQ(back->tokens.value, 1.0 / 3);
  EXPECT_EQ(back->tokens.half_width, 2e-17);
  EXPECT_FALSE(back->tokens_per_user.defined);
  EXPECT_EQ(back->tokens_per_user.half_width, std::numeric_limits<double>::infinity());
  EXPECT_EQ(back->itl[2].value, 123456.789);
  EXPECT_EQ(ResultText(c, *back), text);

  Candidate other;
  other.tp = 4;
  EXPECT_NE(ParseResult(text, "r.txt", other).status().message().find("r.txt:1: error: the result of"),
            std::string::npos);
  std::string broken = text;
  broken.replace(broken.find("rate 0.1"), 8, "rate x");
  EXPECT_NE(ParseResult(broken, "r.txt", c).status().message().find("r.txt:4: error: rate: not a number"),
            std::string::npos);
  // A number that is no rate, at its line too (nan once reached the merge
  // as "no workload").
  for (const char* x : {"nan", "inf", "-5", "1e400"}) {
    broken = text;
    const size_t at = broken.find("rate 0.1");
    broken.replace(at, broken.find('\n', at) - at, std::string("rate ") + x);
    EXPECT_EQ(ParseResult(broken, "r.txt", c).status().message(),
              absl::StrCat("r.txt:4: error: rate: expected requests a second, finite and at least 0, not '", x, "'"))
        << x;
  }
}

// The plan's flags file reads back; the task list is one command a
// candidate.
TEST(Emit, FlagsAndTasks) {
  Emitted e;
  e.cwd = "/w d";
  e.command = "serq plan --until 'p99(ttft) <= 1'";
  e.flags = {{"until", "p99(ttft) <= 1"}, {"max-rate-per-gpu", "0.10000000000000001"}};
  e.has_trace = true;
  e.trace = {101, 0.5, 1.0 / 3};
  e.candidates = 3;
  absl::StatusOr<Emitted> back = ParseEmitted(EmittedText(e), "plan.flags");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->cwd, e.cwd);
  EXPECT_EQ(back->command, e.command);
  EXPECT_EQ(back->flags, e.flags);
  EXPECT_EQ(back->trace.rows, 101);
  EXPECT_EQ(back->trace.last, 1.0 / 3);
  EXPECT_EQ(back->candidates, 3);
  EXPECT_EQ(EmitParallel("/bin/serq", "/d'x", 2),
            "'/bin/serq' plan --out '/d'\\''x' --candidate 0\n'/bin/serq' plan --out '/d'\\''x' --candidate 1\n");
}

// The budgets GrowPlan tries when none meets the target, without a
// simulation (every budget's plan has no candidate): a candidate of g GPUs
// is searched up to 16 g requests a second, so 40 takes at least
// ceil(40 / 16) = 3 GPUs; from there doubling, capped at 20: 3, 6, 12, 20.
// 400 requests a second take at least 25 GPUs, more than the cap: nothing
// is tried.
TEST(Grow, BudgetsTriedAndTheCap) {
  std::vector<int> asked;
  PlanAt none = [&](int gpus, PlanSpec*, std::vector<std::string>*, CommandResult*) {
    asked.push_back(gpus);
    return true;
  };
  std::vector<std::string> lines;
  auto progress = [&](const std::string& line) { lines.push_back(line); };
  GrowSpec g;
  g.target = 40;
  g.max_gpus = 20;
  g.max_rate_per_gpu = 16;
  Growth growth;
  CommandResult error;
  ASSERT_TRUE(GrowPlan(g, none, progress, &growth, &error)) << error.err;
  EXPECT_EQ(asked, (std::vector<int>{3, 6, 12, 20}));
  EXPECT_EQ(growth.gpus, 0);
  EXPECT_EQ(growth.lower_bound, 3);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "serq plan: 3 GPUs: 0 candidates: short of 40");
  EXPECT_EQ(ShortOf(g, growth), "no budget of up to 20 GPUs (--max-gpus) meets 40 req/s: on 20 GPUs, no candidate");
  EXPECT_EQ(GrowthLine(40, growth), "budgets tried for 40 req/s: 3 short, 6 short, 12 short, 20 short; the fewest GPUs: 0\n");

  asked.clear();
  g.target = 400;
  ASSERT_TRUE(GrowPlan(g, none, progress, &growth, &error)) << error.err;
  EXPECT_TRUE(asked.empty());
  EXPECT_EQ(growth.lower_bound, 25);
  EXPECT_EQ(ShortOf(g, growth),
            "no budget of up to 20 GPUs (--max-gpus) meets 400 req/s: a candidate of g GPUs is searched up to g x 16 "
            "req/s (--max-rate-per-gpu), so 400 req/s takes at least 25 GPUs");
  // A target far past an int's count of GPUs: 1e300 / 16 = 6.25e298, not
  // an overflowed int that would try budgets from 1.
  g.target = 1e300;
  ASSERT_TRUE(GrowPlan(g, none, progress, &growth, &error)) << error.err;
  EXPECT_TRUE(asked.empty());
  EXPECT_EQ(growth.lower_bound, 6.25e298);
  EXPECT_EQ(ShortOf(g, growth),
            "no budget of up to 20 GPUs (--max-gpus) meets 1e+300 req/s: a candidate of g GPUs is searched up to g "
            "x 16 req/s (--max-rate-per-gpu), so 1e+300 req/s takes at least 6.25e+298 GPUs");
  // A budget that cannot be planned ends the growth with its error.
  PlanAt broken = [](int, PlanSpec*, std::vector<std::string>*, CommandResult* e) {
    *e = Failure(1, "broken\n");
    return false;
  };
  g.target = 40;
  EXPECT_FALSE(GrowPlan(g, broken, progress, &growth, &error));
  EXPECT_EQ(error.err, "broken\n");
}

// The fewest GPUs for a target rate of 10 req/s (FinishPlan): a colocated
// candidate of 4 GPUs searched to 12 req/s; a disaggregated one of 2 GPUs
// stopped early (covered by the colocated front) after 11 req/s passed,
// which meets 10 whatever the rest of its search would say; another of 2
// stopped after only 8 passed (its stop came once 9 failed: it cannot meet
// 10). The fewest: the first disaggregated, 2 GPUs, "at least 11".
TEST(FinishPlan, AStoppedCandidateThatPassedTheTargetMeetsIt) {
  PlanSpec spec;
  spec.target_rate = 10;
  Candidate colocated;
  colocated.tp = 2;
  colocated.replicas = 2;
  Candidate pd;
  pd.disaggregated = true;
  pd.prefills = 1;
  pd.decodes = 1;
  spec.candidates = {colocated, pd, pd};
  Plan plan;
  plan.results.resize(3);
  plan.results[0].status = CandidateResult::kOk;
  plan.results[0].rate = 12;
  plan.results[0].tokens_per_gpu = {true, 5000, 100};
  plan.results[0].tokens_per_user = {true, 50, 1};
  for (int i : {1, 2}) plan.results[i].status = CandidateResult::kStopped;
  plan.results[1].search.answer = 11;
  plan.results[2].search.answer = 8;
  FinishPlan(spec, &plan);
  EXPECT_EQ(plan.min_gpus, 1);
  EXPECT_EQ(MetRate(plan.results[1]), "at least 11 req/s, stopped early");
  EXPECT_EQ(MetRate(plan.results[0]), "up to 12 req/s");
  // Without it, the colocated one: 4 GPUs.
  plan.results[1].search.answer = 9;
  FinishPlan(spec, &plan);
  EXPECT_EQ(plan.min_gpus, 0);
}

}  // namespace
}  // namespace serq::plan
