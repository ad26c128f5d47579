// serq physics: the reader's errors, BLIS's worked example derived by hand,
// and the conformance with BLIS's own run of the same model (every request
// of w1 within 0.5%).
#include "serq/physics/physics.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "ir/cli.h"
#include "serq/pipeline/commands.h"
#include "serq/measured/measured.h"
#include "serq/models/gpu.h"
#include "serq/models/json_file.h"
#include "serq/models/model_config.h"
#include "serq/models/presets.h"
#include "serq/models/program_text.h"

namespace serq::physics {
namespace {

std::string Blis(const std::string& name) {
  const char* root = std::getenv("TEST_SRCDIR");
  return absl::StrCat(root ? root : ".", "/serq/testdata/blis/", name);
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << path;
  return text.str();
}

std::string TempFile(const std::string& name, const std::string& text) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = absl::StrCat(dir ? dir : "/tmp", "/", name);
  std::ofstream(path) << text;
  return path;
}

// Qwen3-14B on an H100 at BLIS's defaults, without a trace: BLIS's block
// (--blis).
std::string QwenBlock() {
  absl::StatusOr<models::JsonFile> json =
      models::JsonFile::Parse(Slurp(Blis("qwen3-14b.config.json")), "q");
  EXPECT_TRUE(json.ok()) << json.status();
  absl::StatusOr<models::ModelConfig> config = models::ReadModelConfig(*json);
  EXPECT_TRUE(config.ok()) << config.status();
  absl::StatusOr<ModelShape> model = BlisShape(*config, "q");
  EXPECT_TRUE(model.ok()) << model.status();
  // BLIS takes head_dim = hidden / heads: 5120 / 40 = 128 (the config's too).
  EXPECT_EQ(model->head_dim, 128);
  absl::StatusOr<models::JsonFile> hw = models::JsonFile::Parse(Slurp(Blis("hardware_config.json")), "hw");
  EXPECT_TRUE(hw.ok()) << hw.status();
  absl::StatusOr<models::Gpu> gpu = models::ReadGpu(*hw, "H100");
  EXPECT_TRUE(gpu.ok()) << gpu.status();
  absl::StatusOr<std::string> block = PhysicsBlock(*model, *gpu, BlisDefaults(), BlockOptions{});
  EXPECT_TRUE(block.ok()) << block.status();
  return *block;
}

// A session over the block replaying `trace`, observing each request's id
// (serial: its row of the trace) beside its TTFT and E2E (recorded at the same instant, one after the
// other, so the i-th samples of ttft and ttft_id are one request's).
std::string Program(const std::string& trace) {
  return absl::StrCat(QwenBlock(), "pool kv { cap inf; }\n", "workload w { arrive trace(\"",
                      trace, "\"); }\n", R"(session w {
  run Q (floor(PHYS_A0) * 1e-6);
  hold kv (0) {
    run E prefill (input_tokens) growing kv;
    observe ttft = now - arrival + floor(PHYS_A2) * 1e-6;
    observe ttft_id = serial;
    run E decode (output_tokens - 1) growing kv;
    observe e2e = now - arrival + (floor(PHYS_A2) * output_tokens + floor(PHYS_A1)) * 1e-6;
    observe e2e_id = serial;
  }
}
run { }
)");
}

std::map<std::string, std::vector<double>> Simulate(const std::string& source,
                                                    const std::string& data_dir) {
  std::string path = TempFile("physics.sq", source);
  DriverOptions options;
  options.sim.data_dir = data_dir;
  ir::Program program;
  results::Results results;
  CommandResult failed;
  std::map<std::string, std::vector<double>> samples;
  const bool ran = SimulateProgram(path, options, &program, &results, &failed);
  EXPECT_TRUE(ran) << failed.err;
  if (!ran) return samples;
  for (const auto& o : results.replication(0).observation()) {
    samples[o.name()].assign(o.sample().begin(), o.sample().end());
  }
  return samples;
}

// BLIS's worked example (docs/guide/latency-models.md of inference-sim):
// one 512-token prompt, 2 output tokens, alone on the GPU. By hand, with
// L 40, d 5120, dkv 8 x 128 = 1024, dff 17408, h 40, dh 128, 989.5e6 FLOP
// and 3.35e6 bytes a microsecond:
//   FLOPs a token  40 (2 5120 (2 5120 + 2 1024) + 6 5120 17408) = 26,424,115,200
//   prefill        (512 x 26,424,115,200 + 4 40 40 128 x 512 (512 + 256))
//                  / 989.5e6 = 13,998.25 us, x 0.152128        =  2,129.51
//   weights        40 (5120 x 12288 + 3 x 5120 x 17408) x 2 / 3.35e6
//                  = 7,887.80 us, x 1.36252915                  = 10,747.36
//   40 layers x 32.0955 + 1 job x 4.4168 + 126.0248             =  1,410.54
//   a step: 14,287.41 ... 14,291.14, truncated: 14,291 us
//   the decode at context 512: KV 40 x 2 x 1024 x 2 x 513 / 3.35e6
//                  = 25.0895 us, x 1.94710771 = 48.85; with the weights
//                  and the overheads 12,210.46: 12,210 us
// TTFT = 15,563 (queueing) + 14,291 + 45 (the first token) = 29,899 us;
// E2E = TTFT + 12,210 + 45 + 777 = 42,931 us.
TEST(Physics, BlisWorkedExample) {
  std::string trace = TempFile("one.csv", "time,input_tokens,output_tokens\n0,512,2\n");
  std::map<std::string, std::vector<double>> s = Simulate(Program(trace), "");
  ASSERT_EQ(s["ttft"].size(), 1u);
  EXPECT_NEAR(s["ttft"][0], 29899e-6, 1e-9);
  EXPECT_NEAR(s["e2e"][0], 42931e-6, 1e-9);
  EXPECT_EQ(s["ttft_id"][0], 0);
}

// BLIS's own run of w1 (1000 requests, Poisson 10/s, 512 in, 128 out) with
// its trained-physics model at its defaults: every request's TTFT and E2E
// within 0.5% of serq's.
TEST(Physics, ConformsToBlisOnW1) {
  std::map<std::string, std::vector<double>> s = Simulate(Program("w1.trace.csv"), Blis(""));
  absl::StatusOr<compare::Run> blis = compare::ParseBlisResults(
      Slurp(Blis("w1.trained-physics.results.json")), "w1.trained-physics.results.json");
  ASSERT_TRUE(blis.ok()) << blis.status();
  ASSERT_EQ(blis->requests.size(), 1000u);
  ASSERT_EQ(s["ttft"].size(), 1000u);
  ASSERT_EQ(s["e2e"].size(), 1000u);
  // BLIS's rows are in request id order, 0 to 999.
  std::vector<double> ttft(1000, NAN), e2e(1000, NAN);
  for (size_t i = 0; i < 1000; ++i) {
    ttft.at(static_cast<size_t>(s["ttft_id"][i])) = s["ttft"][i];
    e2e.at(static_cast<size_t>(s["e2e_id"][i])) = s["e2e"][i];
  }
  double worst = 0;
  for (size_t id = 0; id < 1000; ++id) {
    const compare::MeasuredRequest& r = blis->requests[id];
    EXPECT_NEAR(ttft[id], r.ttft, 0.005 * r.ttft) << "request " << id;
    EXPECT_NEAR(e2e[id], r.e2e, 0.005 * r.e2e) << "request " << id;
    worst = std::max({worst, std::abs(ttft[id] / r.ttft - 1), std::abs(e2e[id] / r.e2e - 1)});
  }
  // The worst relative error, for the record (docs/cli.md §serq physics).
  std::cout << "worst relative error over 1000 requests: " << worst << "\n";
}

TEST(Physics, BlisCoefficientsAndShape) {
  EXPECT_EQ(ReadCoefficients(R"({"alpha_coeffs": [1, 2, 3], "beta_coeffs": [1]})", "k.json")
                .status()
                .message(),
            "k.json: error: beta_coeffs: expected 10 numbers (BLIS's dense form; an 11th is "
            "allowed), not 1");
  EXPECT_EQ(ReadCoefficients(R"({"alpha_coeffs": [1, 2, -3], "beta_coeffs": []})", "k.json")
                .status()
                .message(),
            "k.json: error: alpha_coeffs: expected numbers of at least 0, not -3");
  // A file nested too deep is refused where it crosses 32 levels: the 33rd
  // '[' on line 1, column 33 (JsonDeeperThan32LevelsIsRefusedWhereItCrosses).
  EXPECT_EQ(ReadCoefficients(std::string(1000, '[') + std::string(1000, ']'), "k.json")
                .status()
                .message(),
            "k.json:1:33: error: JSON nested more than 32 levels deep");
  absl::StatusOr<Coefficients> c = ReadCoefficients(
      R"({"alpha_coeffs": [1, 2, 3], "beta_coeffs": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]})", "k.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->beta[9], 10);
  // --blis is BLIS's dense model: a mixture of experts is refused by name.
  models::ModelConfig moe;
  moe.experts = 8;
  EXPECT_EQ(BlisShape(moe, "m.json").status().message(),
            "m.json: error: a mixture of experts: --blis writes BLIS's dense trained-physics form; "
            "serq's form (without --blis) covers it");
  ModelShape m;
  m.heads = 40;
  m.kv_heads = 8;
  models::Gpu gpu;
  gpu.tflops = gpu.bw_tbs = 1;
  BlockOptions tp3;
  tp3.tp = 3;
  EXPECT_FALSE(PhysicsBlock(m, gpu, BlisDefaults(), tp3).ok());
  // With a trace (--replay) the block is a whole program whose run states
  // its one engine's GPUs, for the report's per-GPU figures; without, the
  // block has no run.
  BlockOptions tp2;
  tp2.tp = 2;
  EXPECT_EQ(PhysicsBlock(m, gpu, BlisDefaults(), tp2)->find("run {"), std::string::npos);
  tp2.trace = "t.csv";
  EXPECT_NE(PhysicsBlock(m, gpu, BlisDefaults(), tp2)->find("\nrun { gpus 2; }\n"), std::string::npos);
  // The trace as the program's folder names it (--out elsewhere): serq run
  // reads a trace relative to its program, so sub/t.csv from out/ is
  // ../sub/t.csv (it was written as given, and did not open).
  tp2.trace = "sub/t.csv";
  tp2.program_dir = "out";
  EXPECT_NE(PhysicsBlock(m, gpu, BlisDefaults(), tp2)->find("arrive trace(\"../sub/t.csv\");"), std::string::npos)
      << *PhysicsBlock(m, gpu, BlisDefaults(), tp2);
}


// serq's form (the complete program) -----------------------------------

std::string Generate(const std::string& model, const std::string& gpu, ProgramOptions options) {
  models::ReadOptions read;
  read.latent_attention = read.quantized = read.known_decoders_only = true;
  std::string source;
  absl::StatusOr<models::ModelConfig> m = models::ResolveModel(model, read, &source);
  EXPECT_TRUE(m.ok()) << m.status();
  absl::StatusOr<models::Gpu> g = models::ResolveGpu(gpu);
  EXPECT_TRUE(g.ok()) << g.status();
  if (!m.ok() || !g.ok()) return "";
  options.model_source = source;
  options.model_name = model;
  absl::StatusOr<std::string> program = GenerateProgram(*m, *g, options);
  EXPECT_TRUE(program.ok()) << program.status();
  return program.ok() ? *program : "";
}

std::string GenerateError(const std::string& model, const std::string& gpu, ProgramOptions options) {
  models::ReadOptions read;
  read.latent_attention = read.quantized = read.known_decoders_only = true;
  std::string source;
  absl::StatusOr<models::ModelConfig> m = models::ResolveModel(model, read, &source);
  if (!m.ok()) return std::string(m.status().message());
  absl::StatusOr<models::Gpu> g = models::ResolveGpu(gpu);
  if (!g.ok()) return std::string(g.status().message());
  absl::StatusOr<std::string> program = GenerateProgram(*m, *g, options);
  return program.ok() ? "(no error)" : std::string(program.status().message());
}

// One request of 512 prompt tokens and 2 output tokens, alone.
ProgramOptions LoneRequest() {
  ProgramOptions o;
  o.workload.replay = TempFile("one.csv", "time,input_tokens,output_tokens\n0,512,2\n");
  const char* dir = std::getenv("TEST_TMPDIR");
  o.program_dir = dir ? dir : "/tmp";
  return o;
}

ProgramOptions Rate() {
  ProgramOptions o;
  o.workload.rate = 5;
  o.workload.requests = 20;
  return o;
}

bool Has(const std::string& program, const std::string& text) {
  return program.find(text) != std::string::npos;
}

// Llama-3.1-8B on an RTX PRO 6000, a lone request, by hand. Per GPU (TP 1):
// a layer's projections 4096 x (2 x 32 x 128 + 2 x 8 x 128) = 41,943,040
// and MLP 3 x 4096 x 14,336 = 176,160,768 parameters; FLOPs a token
// 2 x 32 x 218,103,808 = 13,958,643,712; a query-key pair 4 x 32 x 128 =
// 16,384 a layer. The prefill of 512 tokens:
//   compute (512 x 13,958,643,712 + 16,384 x 32 x 512 x (512 + 256))
//           / 503.8e6 = 14,595.046 us, x 0.152128             =  2,220.32
//   weights 32 x 218,103,808 x 2 / 1.597e6 = 8,740.541, x 1.36252915 = 11,909.24
//   32 layers x 32.09546717 + 1 job x 4.41684444 + 126.024825  =  1,157.50
//   a step of 15,287.05 us, truncated: TTFT 15,287 us (the engine was idle,
//   so the request is queued and stepped at once).
// The decode at context 512: KV 2 x 8 x 128 x 2 x 32 x 513 / 1.597e6 =
// 42.104 us, x 1.94710771 = 81.98; with the weights and the overheads
// 13,148.72: 13,148 us. E2E 15,287 + 13,148 = 28,435 us.
// vLLM's EngineArgs takes a default max_num_seqs at most the
// max_num_batched_tokens given (min(1024, 64) here), and the comment says
// so; a max_num_seqs given is the user's, and one above the tokens refused.
TEST(Program, ADefaultMaxNumSeqsIsAtMostTheTokens) {
  ProgramOptions o = LoneRequest();
  o.deployment.max_num_batched_tokens = 64;
  std::string program = Generate("llama-3.1-8b", "rtx-pro-6000", o);
  EXPECT_TRUE(Has(program, "param Seqs = 64;")) << program;
  EXPECT_TRUE(Has(program, "// max_num_seqs: vLLM's default for this GPU, at most max_num_batched_tokens"));
  o.deployment.max_num_batched_tokens = 2048;
  program = Generate("llama-3.1-8b", "rtx-pro-6000", o);
  EXPECT_TRUE(Has(program, "param Seqs = 1024;")) << program;
  EXPECT_FALSE(Has(program, "at most max_num_batched_tokens"));
}

TEST(Program, LlamaLoneRequestByHand) {
  const std::string program = Generate("llama-3.1-8b", "rtx-pro-6000", LoneRequest());
  // The engine as vLLM 0.19 sizes it on a GPU of 94.97 GiB (CUDA's total):
  // 1024 and 8192 (not an A100, 70 GiB or more); KV: ceil(94.97 x 2^30 x
  // 0.9) = 91,775,934,923 bytes, less the weights 16,060,522,496, the
  // rotary table 131,072 x 128 x 2 = 33,554,432, the
  // activation peak, the sampler's warm-up (the forward pass, 8192 x (2 x
  // 4096 + 3 x 14,336) x 2 = 838,860,800, is less), 8192 x 4096 x 2 + 1024
  // x 128,256 x 14 + 128 x 128,256 x 4 = 1,971,453,952, and 0.25 x 2^30 =
  // 268,435,456 outside PyTorch: 73,441,968,587 bytes, in blocks of 16 x
  // 131,072: 35,019 blocks, one of them vLLM's null block.
  EXPECT_TRUE(Has(program, "param Seqs = 1024;")) << program;
  EXPECT_TRUE(Has(program, "param Tokens = 8192;"));
  EXPECT_TRUE(Has(program, "param KvBlocks = 35018;"));
  EXPECT_TRUE(Has(program, "param HeadDim = 128;"));
  EXPECT_TRUE(Has(program, "pool kv { cap KvBlocks * Block; block Block; cache Block; }"));
  EXPECT_TRUE(Has(program, "seqs Seqs; tokens Tokens; preempt by (-since); reserve prompt; async;"));
  EXPECT_FALSE(Has(program, "LinkBw"));  // one GPU, no link
  std::map<std::string, std::vector<double>> s = Simulate(program, "");
  ASSERT_EQ(s["ttft"].size(), 1u);
  EXPECT_NEAR(s["ttft"][0], 15287e-6, 1e-9);
  EXPECT_NEAR(s["e2e"][0], 28435e-6, 1e-9);
  EXPECT_NEAR(s["tpot"][0], 13148e-6, 1e-9);
}

// A KV count derived from the GPU's memory that the replayed requests can
// fill is said (a warning; the program is written). The engine of
// LlamaLoneRequestByHand: 1024 seats, 35,018 blocks of 16 that hold
// requests. 1024 requests of 202 x 35 blocks (560 tokens) + 822 x 34 blocks
// (544 tokens) hold 7,070 + 27,948 = 35,018 together: the cache, not more.
// One token more on a 544-token request makes it 35 blocks: 35,019. A
// 1025th request of 2 tokens is not among the 1024 longest either way.
TEST(Program, ADerivedKvCountTheTraceCanFillIsSaid) {
  auto warnings = [](int extra_token, bool kv_blocks_given) {
    std::string rows = "time,input_tokens,output_tokens\n";
    for (int i = 0; i < 1024; ++i) {
      const int tokens = i < 202 ? 560 : i == 202 ? 544 + extra_token : 544;
      rows += absl::StrCat(i * 0.01, ",", tokens - 10, ",10\n");
    }
    rows += "11,1,1\n";
    ProgramOptions o = LoneRequest();
    o.workload.replay = TempFile("fill.csv", rows);
    if (kv_blocks_given) o.deployment.kv_blocks = 35019;  // the same count, given: nothing to say
    models::ReadOptions read;
    std::string source;
    absl::StatusOr<models::ModelConfig> m = models::ResolveModel("llama-3.1-8b", read, &source);
    absl::StatusOr<models::Gpu> g = models::ResolveGpu("rtx-pro-6000");
    if (!m.ok() || !g.ok()) return std::string("(no preset)");
    std::vector<std::string> w;
    absl::StatusOr<std::string> program = GenerateProgram(*m, *g, o, &w);
    if (!program.ok()) return std::string(program.status().message());
    EXPECT_TRUE(Has(*program, "param KvBlocks = 35018;"));
    return absl::StrJoin(w, "\n");
  };
  EXPECT_EQ(warnings(0, false), "");
  EXPECT_EQ(warnings(1, false),
            "KV cache: 35018 blocks of 16 tokens, derived from the GPU's memory (no --kv-blocks), and the "
            "trace's requests can fill it: its 1024 longest (max_num_seqs 1024) hold up to 35019 blocks "
            "together. Where the replay preempts (serq run's `preemptions:` line), its figures move with the "
            "count: vLLM logs it at start-up (`GPU KV cache size: N tokens`, N / 16 blocks), and --kv-blocks "
            "takes it");
  EXPECT_EQ(warnings(1, true), "");
}

// A step below the largest CUDA graph runs at the captured size above it
// (GraphMax min(2 x 1024, 512, 8192) = 512): a prompt of 100 tokens is
// prefilled as 8 x ceil(100 / 8) = 104 rows, the 4 padded ones at the
// prefill's compute. By hand as above: compute (104 x 13,958,643,712 +
// 16,384 x 32 x 100 x (100 + 50)) / 503.8e6 = 2,897.109 us, x 0.152128 =
// 440.73; with the weights 11,909.24 and the overheads 1,157.50 a step of
// 13,507.47 us: TTFT 13,507 us. With --enforce-eager, 100 rows: compute
// 2,786.282 x 0.152128 = 423.87, a step of 13,490.61 us: TTFT 13,490 us.
TEST(Program, CudaGraphsPadAStep) {
  ProgramOptions o = LoneRequest();
  o.workload.replay = TempFile("hundred.csv", "time,input_tokens,output_tokens\n0,100,2\n");
  const std::string graphs = Generate("llama-3.1-8b", "rtx-pro-6000", o);
  EXPECT_TRUE(Has(graphs, "param GraphMax = 512;")) << graphs;
  EXPECT_TRUE(Has(graphs, "let graphed = tokens <= GraphMax;"));
  EXPECT_TRUE(Has(graphs, "let pf_compute = (flops_token * (prefill + (prefill > 0) * pad) + "));
  EXPECT_NEAR(Simulate(graphs, "")["ttft"].at(0), 13507e-6, 1e-9);
  o.deployment.enforce_eager = true;
  const std::string eager = Generate("llama-3.1-8b", "rtx-pro-6000", o);
  EXPECT_FALSE(Has(eager, "GraphMax")) << eager;
  EXPECT_TRUE(Has(eager, "let pf_compute = (flops_token * prefill + "));
  EXPECT_NEAR(Simulate(eager, "")["ttft"].at(0), 13490e-6, 1e-9);
}

// Qwen3-30B-A3B on two RTX PRO 6000, data parallel 2 with expert parallel,
// a lone request, by hand. Per GPU: projections 2048 x (2 x 32 x 128 +
// 2 x 4 x 128) = 18,874,368 a layer; FLOPs a token 2 x 48 x 18,874,368 +
// the router's 2 x 48 x 2048 x 128 = 1,837,105,152; an expert 3 x 2048 x
// 768 = 4,718,592; weights 2 x 1,837,105,152 bytes but the experts'.
// The first step: engine 0 prefills 512 tokens, engine 1 runs vLLM's dummy
// step of one token. The engines' largest step, 512 tokens, is at most
// GraphMax (min(2 x 1024, 512, 8192) = 512), so both run the CUDA graph of
// 512 (vLLM's DP padding: 256 + 16 x ceil(256 / 16)) and 2 x 512 = 1024
// tokens reach each GPU's experts: pairs 1024 x 8 / 2 = 4096, experts
// reached 64 x (1 - (15/16)^1024) = 64.
//   compute (512 x 1,837,105,152 + 16,384 x 48 x 512 x 768 + 2 x 48 x
//           4,718,592 x 4096) / 503.8e6 = 6,163.679 us, x 0.152128  =    937.67
//   weights (1,837,105,152 + 48 x 4,718,592 x 2 x 64) / 1.597e6
//           = 19,303.779 us, x 1.36252915                          = 26,301.96
//   exchange (pcie5-x16, 48e9 B/s, 5.7 us a step): 48 x (all-gather +
//           reduce-scatter of 1024 x 2048 x 2 bytes over 2) = 48 x 2 x
//           (5.7 + 0.5 x 4,194,304 / 48e3) us                   =  4,741.50
//   48 x 32.09546717 + 4.41684444 + 126.024825                  =  1,671.02
//   33,652.16 us; engine 1's dummy step is shorter (its 511 padded rows
//   are decode compute, PHYS_B2A 0): TTFT 33,652 us. (Run eagerly, the
//   group's 513 tokens: 31,279 us.)
// The decode at context 512 with the other engine's dummy: 2 tokens (each
// engine's graph of 1), pairs 8, experts reached 64 x (1 - (15/16)^2) =
// 7.75: KV 48 x 2048 x 513 / 1.597e6 = 31.578 us x 1.94710771 = 61.49,
// weights (1,837,105,152 + 48 x 4,718,592 x 2 x 7.75) / 1.597e6 =
// 3,348.615 x 1.36252915 = 4,562.59, exchange 48 x 2 x (5.7 + 0.5 x 8192 /
// 48e3) = 555.39, overheads 1,671.02: 6,850.49, so 6,850 us; E2E 33,652 +
// 6,850 = 40,502 us.
TEST(Program, MoeLockstepByHand) {
  ProgramOptions o = LoneRequest();
  o.deployment.dp = 2;
  o.deployment.ep = true;
  const std::string program = Generate("qwen3-30b-a3b", "rtx-pro-6000", o);
  EXPECT_TRUE(Has(program, "param MoeGroup = 2;")) << program;
  EXPECT_TRUE(Has(program, "param LinkBw = 48000000000;"));
  EXPECT_TRUE(Has(program, "pool kv[Engines]"));
  EXPECT_TRUE(Has(program, " lockstep;"));
  EXPECT_TRUE(Has(program, "choose i in E by (4 * waiting(E[i]) + running(E[i])) every 0.1;"));
  EXPECT_TRUE(Has(program, "param Balancedness = 1 in [1 / MoeGroup, 1];"));
  EXPECT_TRUE(Has(program, "let pairs = gathered * TopK / MoeGroup / Balancedness;"));
  EXPECT_TRUE(Has(program,
                  "let reached = Experts / MoeGroup * (1 - pow(1 - TopK / Experts, gathered / Balancedness));"));
  EXPECT_TRUE(Has(program, "param GraphMax = 512;"));
  EXPECT_TRUE(Has(program, "let graphed = group_tokens_max <= GraphMax;"));
  EXPECT_TRUE(Has(program, "let gathered = graphed * Engines * padded + (1 - graphed) * group_tokens;"));
  std::map<std::string, std::vector<double>> s = Simulate(program, "");
  ASSERT_EQ(s["ttft"].size(), 1u);
  EXPECT_NEAR(s["ttft"][0], 33652e-6, 1e-9);
  EXPECT_NEAR(s["e2e"][0], 40502e-6, 1e-9);
  // --enforce-eager: no graph, the group's own 513 tokens gathered.
  ProgramOptions eager = o;
  eager.deployment.enforce_eager = true;
  const std::string eager_program = Generate("qwen3-30b-a3b", "rtx-pro-6000", eager);
  EXPECT_FALSE(Has(eager_program, "GraphMax")) << eager_program;
  EXPECT_TRUE(Has(eager_program, "let gathered = group_tokens;"));
  EXPECT_NEAR(Simulate(eager_program, "")["ttft"].at(0), 31279e-6, 1e-9);
  // The run block states the deployment's GPUs, Engines x Tp = 2 x 1, so
  // the report gives each throughput per GPU too. The replay drains: its
  // window is [0, 0.040502 s], the request's E2E (it arrives at 0 on an
  // idle engine). One request a window: 1 / 0.040502 = 24.6901 requests/s;
  // output tokens 2, the prefill's first and the decode's one: 49.3803/s;
  // with the 512 prompt tokens 514: 12,690.7313/s. Per GPU, halved:
  // 12.3451, 24.6901, 6,345.3657.
  EXPECT_TRUE(Has(program, "run { seed 1; gpus Engines * Tp; }"));
  const CommandResult report = RunCommand(TempFile("moe.sq", program), DriverOptions());
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_TRUE(Has(report.out, "throughput: 24.6901 requests/s, 49.3803 output tokens/s, 12690.7313 total "
                              "tokens/s; per GPU (2 GPUs): 12.3451 requests/s, 24.6901 output tokens/s, "
                              "6345.3657 total tokens/s\n"))
      << report.out;
  // --expert-balancedness 0.5: the busiest of the 2 GPUs computes every
  // pair. The prefill step (512 tokens, padded to 512, both engines' 1024
  // gathered) computes 1024 x 8 pairs instead of 4096: 2 x 48 MoE layers x
  // 4,718,592 (an expert, 3 x 2048 x 768) x 4096 more FLOPs / 503.8e6 a us
  // x B1A 0.152128 = 560.27 us more (its 64 experts are reached either
  // way). The decode step (1 token, 2 gathered) reaches 64 x (1 - (120 /
  // 128)^4) = 14.5615 experts instead of 64 x (1 - (120/128)^2) = 7.75:
  // 48 x 4,718,592 x 2 bytes x 6.8115 / 1.597e6 x B3 1.36252915 = 2632.50
  // us more (its pairs are decode compute, B2A 0). Each step is truncated
  // to whole us, so each difference is within 1 us of these.
  ProgramOptions half = o;
  half.deployment.expert_balancedness = 0.5;
  const std::string half_program = Generate("qwen3-30b-a3b", "rtx-pro-6000", half);
  EXPECT_TRUE(Has(half_program, "param Balancedness = 0.5 in [1 / MoeGroup, 1];")) << half_program;
  std::map<std::string, std::vector<double>> h = Simulate(half_program, "");
  ASSERT_EQ(h["ttft"].size(), 1u);
  EXPECT_NEAR(h["ttft"][0] - s["ttft"][0], 560.27e-6, 1.01e-6);
  EXPECT_NEAR((h["e2e"][0] - h["ttft"][0]) - (s["e2e"][0] - s["ttft"][0]), 2632.50e-6, 1.01e-6);
  // Below 1/2 the busiest GPU would compute more than every pair.
  half.deployment.expert_balancedness = 0.49;
  EXPECT_EQ(GenerateError("qwen3-30b-a3b", "rtx-pro-6000", half),
            "serq physics: error: --expert-balancedness 0.49 is below 1/2: the busiest of the 2 GPUs of expert "
            "parallel computes at most every pair, 2 times the mean");
  // And so is -D Balancedness=0.49 on the program: the param's range.
  DriverOptions below;
  below.defines = {{"Balancedness", 0.49}};
  const CommandResult refused = RunCommand(TempFile("moe.sq", program), below);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_TRUE(Has(refused.err, "error: -D Balancedness=0.49 is outside the param's range [0.5, 1]")) << refused.err;
  // -D Engines=4 (four engines of the same GPU): gpus follows, 4 GPUs.
  DriverOptions four;
  four.defines = {{"Engines", 4}};
  EXPECT_TRUE(Has(RunCommand(TempFile("moe.sq", program), four).out, "; per GPU (4 GPUs): "));
}

// --mixed-attention: a decode beside a prefill charged its padded query tile.
// A (16 prompt tokens, 10 out) and B (4096, 2) arrive together on one GPU
// with max_num_batched_tokens 2048: B's prompt runs in chunks beside A's
// decodes. The term is (prefill > 0) x flops_pair x QueryTile x Layers x
// decode_kv / FlopsUs = 16,384 x 64 x 32 x decode_kv / 503.8e6 us, 0.0666
// us a token of A's context: about 1 us a step, lost in the step's
// truncation to whole microseconds. So PHYS_B2M is set to 1e6 (-D's
// textual twin): each step with a prefill and A's decode then takes
// 66,602.62 x decode_kv us more, and nothing else moves; without the
// flag (or with PHYS_B2M 0) the program is BLIS's.
TEST(Program, MixedAttentionChargesTheDecodesBesideAPrefill) {
  ProgramOptions o = LoneRequest();
  o.workload.replay = TempFile("two.csv", "time,input_tokens,output_tokens\n0,16,10\n0,4096,2\n");
  o.deployment.max_num_seqs = 128;
  o.deployment.max_num_batched_tokens = 2048;
  const std::string plain = Generate("llama-3.1-8b", "rtx-pro-6000", o);
  EXPECT_FALSE(Has(plain, "mixed")) << plain;
  o.deployment.mixed_attention = true;
  std::string program = Generate("llama-3.1-8b", "rtx-pro-6000", o);
  EXPECT_TRUE(Has(program, "param QueryTile = 64;")) << program;
  EXPECT_TRUE(Has(program, "let mixed = (prefill > 0) * flops_pair * QueryTile * (Layers * decode_kv) / FlopsUs;"));
  EXPECT_TRUE(Has(program, " + PHYS_B2M * mixed\n"));
  const std::string at_one = "param PHYS_B2M = 1;";
  ASSERT_TRUE(Has(program, at_one));
  std::string off = program, big = program;
  off.replace(off.find(at_one), at_one.size(), "param PHYS_B2M = 0;");
  big.replace(big.find(at_one), at_one.size(), "param PHYS_B2M = 1e6;");
  std::map<std::string, std::vector<double>> p = Simulate(plain, ""), z = Simulate(off, ""),
                                             b = Simulate(big, "");
  ASSERT_EQ(p["e2e"].size(), 2u);
  ASSERT_EQ(z["e2e"].size(), 2u);
  EXPECT_EQ(p["e2e"], z["e2e"]);  // B2M 0 is BLIS's program
  EXPECT_EQ(p["ttft"], z["ttft"]);
  // The steps: A's 16 and B's first 2032 tokens; B's next 2047 beside A's
  // decode at context 16; B's last 17 beside A's at 17. B's TTFT (the
  // larger) ends with the third, so it grows by (16 + 17) x 66,602.62 us =
  // 2.19789 s, each of the two steps within a microsecond of truncation.
  ASSERT_EQ(b["ttft"].size(), 2u);
  const double grown = *std::max_element(b["ttft"].begin(), b["ttft"].end()) -
                       *std::max_element(p["ttft"].begin(), p["ttft"].end());
  const double unit = 16384.0 * 64 * 32 / 503.8e6;  // s a token of context at PHYS_B2M 1e6
  EXPECT_NEAR(grown, 33 * unit, 2e-6);
  // A's first token (the first step) has no decode beside a prefill: unmoved.
  EXPECT_EQ(*std::min_element(b["ttft"].begin(), b["ttft"].end()),
            *std::min_element(p["ttft"].begin(), p["ttft"].end()));
}

// A decode instance of a prefill-decode split (serq plan's decode role):
// no full-prompt reservation, a preempted request's last token recomputed;
// nothing else differs from the whole engine's program.
TEST(Program, TheDecodeRole) {
  ProgramOptions o = Rate();
  const std::string whole = Generate("llama-3.1-8b", "h100-sxm", o);
  o.deployment.role = models::EngineRole::kDecode;
  const std::string decode = Generate("llama-3.1-8b", "h100-sxm", o);
  const std::string w = "  seqs Seqs; tokens Tokens; preempt by (-since); reserve prompt; async;\n";
  const std::string d = "  seqs Seqs; tokens Tokens; preempt by (-since); recompute last; async;\n";
  ASSERT_TRUE(Has(whole, w)) << whole;
  EXPECT_FALSE(Has(whole, "recompute last"));
  EXPECT_EQ(absl::StrReplaceAll(whole, {{w, d}}), decode);
}

// Tensor parallel: the all-reduces over the GPU's link, at NCCL's figures.
TEST(Program, TensorParallel) {
  ProgramOptions o = Rate();
  o.deployment.tp = 2;
  const std::string program = Generate("llama-3.1-8b", "h100-sxm", o);
  EXPECT_TRUE(Has(program, "param LinkBw = 370800000000;")) << program;
  EXPECT_TRUE(Has(program, "param Vocab = 128256;"));
  // Run as a CUDA graph, at the padded tokens.
  EXPECT_TRUE(Has(program, "(2 * Layers + 1) * all_reduce(Tp, padded * Hidden * DtypeBytes, LinkBw, LinkLatency)"));
  EXPECT_TRUE(Has(program, "all_gather(Tp, seqs * Vocab * DtypeBytes, LinkBw, LinkLatency)"));
  // KV a token on one GPU: 2 x 32 x 4 x 128 x 2 = 65,536.
  EXPECT_TRUE(Has(models::UnwrappedComments(program), "x 2 bytes = 65536 bytes"));
  // The rate and the count are params (-D and serq search move them).
  EXPECT_TRUE(Has(program, "param Rate = 5;"));
  EXPECT_TRUE(Has(program, "param Requests = 20;"));
  EXPECT_TRUE(Has(program, "workload requests { arrive poisson(Rate); limit Requests; }"));
  // --link-bw instead of the named interconnect.
  o.deployment.link_bw_gbps = 16;
  o.deployment.link_latency_us = 20;
  const std::string slow = Generate("llama-3.1-8b", "h100-sxm", o);
  EXPECT_TRUE(Has(slow, "param LinkBw = 16000000000;")) << slow;
  EXPECT_TRUE(Has(slow, "param LinkLatency = 2e-05;"));
  // The same options, the same bytes.
  EXPECT_EQ(Generate("llama-3.1-8b", "h100-sxm", o), slow);
}

// Expert parallel at tensor parallel 2 and data parallel 2 (four GPUs):
// vLLM's sequence-parallel experts for a model whose MoE block honours them
// (Qwen3-MoE): the exchange over all four GPUs (MoeGroup) and, after each
// MoE layer, an all-gather over TP in place of the MLP's all-reduce.
// Mixtral's block does not: its exchange runs among the engines' GPUs of
// one TP rank and its MLP all-reduces, as without expert parallel.
//
// By hand, against the same program with the non-sequence-parallel
// collectives (nvlink4: 370.8e9 bytes/s, 3.4 us a ring step; Hidden 2048,
// 2 bytes; 48 layers, all MoE). A ring of n GPUs: all-gather and
// reduce-scatter n - 1 steps and (n - 1)/n of the bytes, all-reduce twice
// that. A step of x tokens an engine (g = 2x gathered) differs a layer by
//   all_gather(2, x) - all_reduce(2, x)             = -lat - x B / 2 / bw
//   ag + rs(4, g) - ag + rs(2, g)                    = 4 lat + g B / 2 / bw
// with B = 4096 bytes a token: 3 lat + x B / 2 / bw in all. The lone
// request's prefill (512 tokens, its CUDA graph's size, the other engine's
// dummy padded to it): 48 x (10.2 + 1,048,576 / 370,800) = 625.34 us; its
// decode (1 token): 48 x (10.2 + 2048 / 370,800) = 489.87 us. Each step
// is truncated to whole us.
TEST(Program, ExpertsOverTensorAndDataParallel) {
  ProgramOptions o = LoneRequest();
  o.deployment.tp = 2;
  o.deployment.dp = 2;
  o.deployment.ep = true;
  const std::string sp = Generate("qwen3-30b-a3b", "h100-sxm", o);
  const std::string tp_comm =
      "(2 * Layers + 1 - MoeLayers) * all_reduce(Tp, padded * Hidden * DtypeBytes, LinkBw, LinkLatency)\n"
      "                   + MoeLayers * all_gather(Tp, padded * Hidden * DtypeBytes, LinkBw, LinkLatency)";
  const std::string exchange =
      "MoeLayers * (all_gather(MoeGroup, gathered * Hidden * DtypeBytes, LinkBw, LinkLatency)\n"
      "                              + reduce_scatter(MoeGroup, gathered";
  EXPECT_TRUE(Has(sp, "param MoeGroup = 4;")) << sp;
  EXPECT_TRUE(Has(sp, tp_comm));
  EXPECT_TRUE(Has(sp, exchange));
  std::string plain = sp;
  plain.replace(plain.find(tp_comm), tp_comm.size(),
                "(2 * Layers + 1) * all_reduce(Tp, padded * Hidden * DtypeBytes, LinkBw, LinkLatency)");
  plain.replace(plain.find(exchange), exchange.size(),
                "MoeLayers * (all_gather(Engines, gathered * Hidden * DtypeBytes, LinkBw, LinkLatency)\n"
                "                              + reduce_scatter(Engines, gathered");
  std::map<std::string, std::vector<double>> a = Simulate(sp, ""), b = Simulate(plain, "");
  ASSERT_EQ(a["ttft"].size(), 1u);
  ASSERT_EQ(b["ttft"].size(), 1u);
  EXPECT_NEAR(a["ttft"][0] - b["ttft"][0], 625.34e-6, 1.01e-6);
  EXPECT_NEAR((a["e2e"][0] - a["ttft"][0]) - (b["e2e"][0] - b["ttft"][0]), 489.87e-6, 1.01e-6);
  // DeepSeek's block builds its shared experts with disable_tp under
  // sequence-parallel experts: each GPU holds them whole and reads them
  // whole, and runs them and the router on 1/Tp of the tokens. At TP 8 and
  // DP 2 with --ep, against the same without --ep (the experts over the
  // same 16 GPUs, split instead of whole: the same bytes), a GPU holds 7/8
  // of the shared experts more: 58 MoE layers x 3 x 7168 x 2048 (one
  // shared expert) x 1 byte (fp8) x 7/8 = 2,235,039,744 bytes, in blocks of
  // 16 tokens x 61 layers x (512 + 64) latent and rotary key x 2 bytes =
  // 1,124,352: 1987.85 blocks fewer, so 1987 or 1988 as the floors fall.
  ProgramOptions ds = Rate();
  ds.deployment.tp = 8;
  ds.deployment.dp = 2;
  ds.deployment.ep = true;
  const std::string ds_sp = Generate("deepseek-v3", "h100-sxm", ds);
  ds.deployment.ep = false;
  const std::string ds_split = Generate("deepseek-v3", "h100-sxm", ds);
  auto kv_blocks = [](const std::string& program) {
    const size_t at = program.find("param KvBlocks = ");
    return at == std::string::npos ? -1.0 : std::stod(program.substr(at + 17));
  };
  const double fewer = kv_blocks(ds_split) - kv_blocks(ds_sp);
  EXPECT_GE(fewer, 1987) << ds_sp;
  EXPECT_LE(fewer, 1988);
  EXPECT_TRUE(Has(ds_sp, "MoeLayers * Hidden * Experts * DtypeBytes + MoeLayers * 3 * Hidden * SharedIntermediate "
                         "* WeightBytes * (Tp - 1) / Tp;"));
  EXPECT_TRUE(Has(ds_sp, "+ MoeLayers * 3 * Hidden * SharedIntermediate + MoeLayers * Hidden * Experts) / Tp + "
                         "2 * (Layers * attn_each);"));
  EXPECT_TRUE(Has(ds_split, "/ Tp + 2 * (Layers * attn_each + MoeLayers * Hidden * Experts);")) << ds_split;
  EXPECT_EQ(Simulate(ds_sp, "")["e2e"].size(), 20u);
  // Mixtral's block takes no sequence-parallel input.
  const std::string mixtral = Generate("mixtral-8x7b", "h100-sxm", o);
  EXPECT_TRUE(Has(mixtral, "(2 * Layers + 1) * all_reduce(Tp, padded * Hidden * DtypeBytes, LinkBw, LinkLatency)"))
      << mixtral;
  EXPECT_TRUE(Has(mixtral, "MoeLayers * (all_gather(Engines, gathered * Hidden * DtypeBytes, LinkBw, LinkLatency)"));
  EXPECT_FALSE(Has(mixtral, "all_gather(MoeGroup"));
  // Nor does any model without expert parallel.
  o.deployment.ep = false;
  const std::string split = Generate("qwen3-30b-a3b", "h100-sxm", o);
  EXPECT_TRUE(Has(split, "MoeLayers * (all_gather(Engines, gathered")) << split;
  EXPECT_FALSE(Has(split, "MoeLayers * all_gather(Tp"));
}

// MI300X's xGMI is a mesh, a link each pair of its 8 GPUs: a collective
// among n of them runs its rings over n - 1 links a GPU, so the program
// charges it LinkBw x (n - 1) (net_test holds the collective's time).
TEST(Program, TheXgmiMesh) {
  ProgramOptions o = Rate();
  o.deployment.tp = 8;
  const std::string program = Generate("llama-3.1-70b", "mi300x", o);
  EXPECT_TRUE(Has(program, "param LinkBw = 48000000000;  // xgmi: bytes/s a direction, each link of the mesh"))
      << program;
  EXPECT_TRUE(Has(program, "all_reduce(Tp, padded * Hidden * DtypeBytes, LinkBw * (Tp - 1), LinkLatency)"));
  EXPECT_TRUE(Has(program, "all_gather(Tp, seqs * Vocab * DtypeBytes, LinkBw * (Tp - 1), LinkLatency)"));
  EXPECT_EQ(Simulate(program, "")["e2e"].size(), 20u);
  // On a link that is not a mesh, LinkBw alone.
  o.deployment.interconnect = "nvlink4";
  EXPECT_TRUE(Has(Generate("llama-3.1-70b", "mi300x", o),
                  "all_reduce(Tp, padded * Hidden * DtypeBytes, LinkBw, LinkLatency)"));
}

// Every model preset at a layout it fits, written, linked and run.
TEST(Program, EveryPresetRuns) {
  struct Case {
    const char* model;
    const char* gpu;
    int tp, dp;
    bool ep;
  };
  for (const Case& c : {Case{"llama-3.1-8b", "rtx-4090", 1, 1, false},
                        Case{"llama-3.1-70b", "h100-sxm", 4, 1, false},
                        Case{"qwen3-8b", "l40s", 1, 2, false},
                        Case{"qwen3-32b", "rtx-pro-6000", 2, 1, false},
                        Case{"qwen3-30b-a3b", "rtx-pro-6000", 1, 2, true},
                        Case{"qwen3-235b-a22b", "h100-sxm", 2, 4, true},
                        Case{"mixtral-8x7b", "a100-80gb", 2, 1, false},
                        Case{"deepseek-v3", "h200", 8, 1, false},
                        Case{"gpt-oss-120b", "b200", 1, 1, false}}) {
    ProgramOptions o = Rate();
    o.deployment.tp = c.tp;
    o.deployment.dp = c.dp;
    o.deployment.ep = c.ep;
    // Llama-3.1-8B's 131,072 tokens do not fit a 24 GB GPU's KV cache (2,832
    // blocks of 16, 45,312 tokens), so vLLM would not start at its default
    // max_model_len: a user gives one (Program.MaxModelLen).
    if (std::string(c.gpu) == "rtx-4090") o.deployment.max_model_len = 8192;
    const std::string program = Generate(c.model, c.gpu, o);
    std::map<std::string, std::vector<double>> s = Simulate(program, "");
    EXPECT_EQ(s["e2e"].size(), 20u) << c.model;
  }
  // What each form adds: DeepSeek's latent KV and fp8 peak, gpt-oss's windows.
  ProgramOptions o = Rate();
  o.deployment.tp = 8;
  const std::string deepseek = Generate("deepseek-v3", "h200", o);
  EXPECT_TRUE(Has(deepseek, "let kv_bytes = (KvLoraRank + QkRope) * KvBytes;")) << deepseek;
  EXPECT_TRUE(Has(deepseek, "param FlopsUs = 1979000000;"));
  EXPECT_TRUE(Has(deepseek, "param WeightBytes = 1;"));
  EXPECT_TRUE(Has(deepseek, "param SharedIntermediate = 2048;"));
  const std::string oss = Generate("gpt-oss-120b", "b200", Rate());
  EXPECT_TRUE(Has(oss, "WindowLayers * sum_decode(min(decode_kv, Window) + 1)")) << oss;
  EXPECT_TRUE(Has(oss, "param ExpertBytes = 0.53125;"));
}

// --lengths sharegpt draws with the language's named lengths
// (docs/language.md §Named lengths), and the program runs: every request
// ends.
// vLLM's max_model_len: the model's (its config, as vLLM derives it) unless
// given, at most the model's; vLLM does not start when the KV cache cannot
// hold one request of it; a prompt of it or more is refused; a longer
// request is stopped at it (its tokens made, min(output, MaxModelLen -
// prompt)).
TEST(Program, MaxModelLen) {
  // Llama-3.1-8B on one RTX 4090: 2,832 blocks of 16 = 45,312 tokens, and
  // 131,072 / 16 = 8,192 blocks needed.
  EXPECT_EQ(GenerateError("llama-3.1-8b", "rtx-4090", Rate()),
            "serq physics: error: vLLM 0.19 would not start: one request of max_model_len 131072 (the model's, "
            "max_position_embeddings 131072) needs 8192 KV blocks of 16, and the KV cache holds 2832 (45312 "
            "tokens): give --max-model-len at most 45312, more GPUs (--tp) or --gpu-memory-utilization");
  ProgramOptions o = Rate();
  o.deployment.max_model_len = 45312;  // 2,832 blocks exactly
  EXPECT_EQ(GenerateError("llama-3.1-8b", "rtx-4090", o), "(no error)");
  o.deployment.max_model_len = 45313;
  EXPECT_NE(GenerateError("llama-3.1-8b", "rtx-4090", o).find("would not start"), std::string::npos);
  // A replayed trace is a run that started, so its max_model_len fit: the
  // program takes the most the cache holds, 45,312 (vLLM's
  // `--max-model-len auto`), and warns; --max-model-len given is held to.
  {
    models::ReadOptions read;
    std::string source;
    absl::StatusOr<models::ModelConfig> m = models::ResolveModel("llama-3.1-8b", read, &source);
    absl::StatusOr<models::Gpu> g = models::ResolveGpu("rtx-4090");
    ASSERT_TRUE(m.ok() && g.ok());
    ProgramOptions replay = LoneRequest();
    replay.deployment.fit_max_model_len = true;  // serq physics's, not serq plan's
    std::vector<std::string> warnings;
    absl::StatusOr<std::string> program = GenerateProgram(*m, *g, replay, &warnings);
    ASSERT_TRUE(program.ok()) << program.status();
    ASSERT_FALSE(warnings.empty());
    EXPECT_EQ(warnings[0],
              "vLLM 0.19 would not start at the model's max_model_len: one request of max_model_len 131072 (the "
              "model's, max_position_embeddings 131072) needs 8192 KV blocks of 16, and the KV cache holds 2832 "
              "(45312 tokens); the replayed run did, so its max_model_len fit: the program takes 45312, the most "
              "the cache holds (vLLM's --max-model-len auto); give --max-model-len for the run's own");
    // A prompt of the fitted length or more is refused, saying where it came from.
    replay.workload.replay = TempFile("long.csv", "time,input_tokens,output_tokens\n0,45312,2\n");
    program = GenerateProgram(*m, *g, replay, &warnings);
    ASSERT_FALSE(program.ok());
    EXPECT_NE(program.status().message().find(
                  "max_model_len 45312 (the most the KV cache holds, as vLLM's --max-model-len auto takes it: the "
                  "model's 131072 does not fit)"),
              std::string::npos)
        << program.status();
    replay = LoneRequest();
    replay.deployment.fit_max_model_len = true;
    replay.deployment.max_model_len = 45313;
    EXPECT_NE(GenerateError("llama-3.1-8b", "rtx-4090", replay).find("would not start"), std::string::npos);
    // serq plan's candidates have not run: refused at the model's, trace or not.
    EXPECT_NE(GenerateError("llama-3.1-8b", "rtx-4090", LoneRequest()).find("would not start"), std::string::npos);
  }
  o.deployment.max_model_len = 131073;
  EXPECT_EQ(GenerateError("llama-3.1-8b", "h100-sxm", o),
            "serq physics: error: --max-model-len 131073 is more than the model's 131072 (max_position_embeddings "
            "131072), which vLLM refuses");
  // A prompt of max_model_len or more; a longer request capped.
  o = Rate();
  o.deployment.max_model_len = 1000;
  o.workload.lengths = "fixed:1000,5";
  EXPECT_EQ(GenerateError("llama-3.1-8b", "h100-sxm", o),
            "serq physics: error: --lengths fixed:1000,5: it draws a prompt of 1000 tokens, not less than "
            "max_model_len 1000 (--max-model-len): vLLM refuses a prompt that leaves no room for an output token");
  o.workload.lengths = "fixed:990,50";  // 10 tokens made of the 50 asked
  const std::string capped = Generate("llama-3.1-8b", "h100-sxm", o);
  EXPECT_TRUE(Has(capped, "param MaxModelLen = 1000;"));
  EXPECT_TRUE(Has(capped, "set made = min(output_toks, MaxModelLen - input_toks);"));
  EXPECT_TRUE(Has(capped, "run E decode (made - 1) growing kv observe itl;")) << capped;
  o.workload.lengths = "fixed:990,10";  // within it: no cap written
  EXPECT_FALSE(Has(Generate("llama-3.1-8b", "h100-sxm", o), "MaxModelLen"));
  // Windowed layers need only their window's blocks (vLLM's
  // SlidingWindowSpec): gpt-oss-120b on one H100, whose 18 full layers at
  // 131,072 tokens would not fit a cache of every layer at that length, does
  // start: 18 x 8192 + 18 x (ceil(min(127 + 8192, 131072) / 16) + 1 = 521)
  // = 156,834 layer-blocks, within its cache's blocks x 36 layers.
  EXPECT_EQ(GenerateError("gpt-oss-120b", "h100-sxm", Rate()), "(no error)");
  // Every layer windowed (Mistral-7B-v0.1's shapes, a window of 4,096, on
  // a GPU of 16.3 GiB, under 70 GiB: vLLM's 2048 tokens and 256 sequences):
  // one request needs ceil(min(4095 + 2048, 32768) / 16) + 1 = 385 blocks
  // a layer, whatever max_model_len. The cache: 16.3 x 0.9 x 2^30 =
  // 15,751,794,558.08, rounded up; less the weights, 32 layers x (4096 x
  // (4096 + 2 x 1024 + 4096) + 3 x 4096 x 14,336 + 2 x 4096) + 2 x 32,000
  // x 4096 (untied) + 4096 = 7,241,732,096 parameters, 14,483,464,192
  // bytes; the rotary table, 32,768 x 128 x 2 = 8,388,608; the forward
  // pass's activations, 2048 x (2 x 4096 + 3 x 14,336) x 2 = 209,715,200
  // (above the sampler's 16,777,216 + 256 x 32,000 x 14 + 128 x 32,000 x
  // 4 = 147,849,216); 0.25 GiB outside PyTorch, 268,435,456: 781,791,103
  // bytes, 372 blocks of 2 x 32 x 8 x 128 x 2 x 16 = 2,097,152. At 16.4
  // GiB, 418 blocks (the same sum): it starts.
  const std::string mistral = TempFile(
      "mistral.json", R"({"model_type": "mistral", "num_hidden_layers": 32, "hidden_size": 4096,
                          "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000,
                          "intermediate_size": 14336, "max_position_embeddings": 32768,
                          "sliding_window": 4096, "torch_dtype": "bfloat16"})");
  o = Rate();
  o.deployment.gpu_memory_gib = 16.3;
  EXPECT_EQ(GenerateError(mistral, "h100-sxm", o),
            "serq physics: error: vLLM 0.19 would not start: one request of max_model_len 32768 (the model's, "
            "max_position_embeddings 32768) needs 385 KV blocks of 16 in each of its 32 windowed layers (its "
            "sliding_window 4096 less 1, plus max_num_batched_tokens 2048, and one block more), and the KV cache "
            "holds 372 (5952 tokens): give a smaller --max-num-batched-tokens, more GPUs (--tp) or "
            "--gpu-memory-utilization");
  o.deployment.gpu_memory_gib = 16.4;
  EXPECT_EQ(GenerateError(mistral, "h100-sxm", o), "(no error)");
  // LongRoPE: vLLM's default is the original length, and a user may give up
  // to max_position_embeddings; model_max_length (Command-R's) overrides the
  // least of the length keys and is the most a user may give.
  const std::string longrope = TempFile(
      "longrope.json", R"({"model_type": "phi3", "num_hidden_layers": 2, "hidden_size": 64,
                           "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128,
                           "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
                           "rope_scaling": {"type": "longrope", "long_factor": [1], "short_factor": [1]}})");
  o = Rate();
  o.workload.lengths = "fixed:5000,10";
  EXPECT_EQ(GenerateError(longrope, "h100-sxm", o),
            "serq physics: error: --lengths fixed:5000,10: it draws a prompt of 5000 tokens, not less than "
            "max_model_len 4096 (the model's, original_max_position_embeddings 4096, longrope's default): vLLM "
            "refuses a prompt that leaves no room for an output token");
  o.deployment.max_model_len = 131072;
  EXPECT_EQ(GenerateError(longrope, "h100-sxm", o), "(no error)");
  // One more is refused, by the limit's own source (not the default's).
  o.deployment.max_model_len = 131073;
  EXPECT_EQ(GenerateError(longrope, "h100-sxm", o),
            "serq physics: error: --max-model-len 131073 is more than the model's 131072 (max_position_embeddings "
            "131072), which vLLM refuses");
  const std::string cohere = TempFile(
      "cohere.json", R"({"model_type": "cohere", "num_hidden_layers": 2, "hidden_size": 64,
                         "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128,
                         "max_position_embeddings": 8192, "model_max_length": 131072})");
  o = Rate();
  o.deployment.max_model_len = 131072;
  EXPECT_EQ(GenerateError(cohere, "h100-sxm", o), "(no error)");
  o.deployment.max_model_len = 131073;
  EXPECT_NE(GenerateError(cohere, "h100-sxm", o).find("is more than the model's 131072 (model_max_length"),
            std::string::npos);
  // The derived length by the RoPE scaling (vLLM's rule): DeepSeek-V3's
  // YaRN, 4,096 original positions x 40 = 163,840; gpt-oss's 4,096 x 32.
  for (auto [name, len] : {std::pair{"deepseek-v3", 163840}, std::pair{"gpt-oss-120b", 131072},
                           std::pair{"qwen3-8b", 40960}}) {
    models::ReadOptions read;
    read.latent_attention = read.quantized = true;
    std::string source;
    absl::StatusOr<models::ModelConfig> m = models::ResolveModel(name, read, &source);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ(m->max_model_len, len) << name << ": " << m->max_model_len_from;
  }
}

TEST(Program, ShareGptLengths) {
  ProgramOptions o = Rate();
  o.workload.lengths = "sharegpt";
  const std::string program = Generate("llama-3.1-8b", "h100-sxm", o);
  EXPECT_TRUE(Has(program, "  set input_toks = sharegpt_input();\n")) << program;
  EXPECT_TRUE(Has(program, "  set output_toks = sharegpt_output();\n")) << program;
  std::map<std::string, std::vector<double>> s = Simulate(program, "");
  EXPECT_EQ(s["e2e"].size(), 20u);
}

TEST(Program, BadDeployments) {
  // A trace whose path the program's string cannot hold (a line break).
  ProgramOptions lone = LoneRequest();
  lone.workload.replay += "\nx";
  EXPECT_EQ(GenerateError("llama-3.1-8b", "h100-sxm", lone),
            absl::StrCat("serq physics: error: --replay ", absl::CHexEscape(lone.workload.replay),
                         ": the path holds a control character (\\n), which the program's strings cannot "
                         "hold: rename the file"));
  ProgramOptions o = Rate();
  o.deployment.tp = 3;
  EXPECT_EQ(GenerateError("llama-3.1-8b", "h100-sxm", o),
            "serq physics: error: tensor parallel 3 does not divide the model's 32 attention heads "
            "(num_attention_heads)");
  o = Rate();
  o.deployment.ep = true;
  EXPECT_EQ(GenerateError("llama-3.1-8b", "h100-sxm", o), "serq physics: error: --ep: the model has no experts");
  o = Rate();
  o.deployment.tp = 8;
  EXPECT_EQ(GenerateError("deepseek-v3", "a100-80gb", o),
            "serq/models/presets/gpus.json: error: a100-80gb.TFlopsFP8: none, and the model's fp8 "
            "weights (quantization_config) need the GPU's FP8 peak");
  o = Rate();
  o.deployment.tp = 2;
  const std::string no_link =
      TempFile("nolink.json", R"({"TFlopsPeak": 989.5, "BwPeakTBs": 3.35, "MemoryGiB": 79.22})");
  EXPECT_EQ(GenerateError("llama-3.1-8b", no_link, o),
            no_link + ": error: Interconnect: none, and the GPUs exchange data (tensor parallel, or "
            "data-parallel experts): give --interconnect NAME (pcie4-x16, pcie5-x16, nvlink3, nvlink4, "
            "nvlink5, xgmi) or --link-bw GBPS");
  // A mesh links its own GPUs only: MI300X's xgmi, 8 of them.
  o.deployment.tp = 16;
  EXPECT_EQ(GenerateError("llama-3.1-70b", "mi300x", o),
            "serq physics: error: the interconnect xgmi links a mesh of 8 GPUs, and a collective here spans 16");
  o = Rate();
  o.deployment.dp = 3;
  o.deployment.ep = true;
  EXPECT_EQ(GenerateError("mixtral-8x7b", "h100-sxm", o),
            "serq physics: error: the model's 8 experts do not split over the 3 GPUs of expert "
            "parallel (--tp x --dp)");
  // Llama-3.1-70B's 131.42 GiB of weights and its rotary table, 131,072 x
  // 128 x 2 bytes = 0.03 GiB, on one 24 GiB GPU; the activation
  // peak at 2048 tokens and 256 sequences is the sampler's, 2048 x 8192 x 2
  // + 256 x 128,256 x 14 + 128 x 128,256 x 4 bytes = 0.52 GiB.
  EXPECT_EQ(GenerateError("llama-3.1-70b", "rtx-4090", Rate()),
            "serq physics: error: no room for the KV cache: 21.28 GiB of the GPU (23.64 GiB x 0.9), "
            "131.42 GiB of weights, 0.03 GiB of rotary table, 0.52 GiB of activations and 0.25 GiB "
            "outside PyTorch on each GPU; "
            "more GPUs (--tp), --gpu-memory-utilization or --kv-blocks N");
  o = Rate();
  o.workload.lengths = "uniform:10:5,1:2";
  EXPECT_EQ(GenerateError("llama-3.1-8b", "h100-sxm", o),
            "serq physics: error: --lengths uniform:10:5,1:2: expected sharegpt, fixed:IN,OUT, "
            "uniform:ILO:IHI,OLO:OHI or llmservingsim-sharegpt (token counts, whole numbers from 1)");
  EXPECT_EQ(GenerateError("llama-3.1-8b", "h100-sxm", ProgramOptions{}),
            "serq physics: error: a workload: --replay TRACE, or --rate R (requests a second, above 0)");
  // A request the KV cache cannot hold whole, by hand: 100 + 46 tokens
  // hold the KV of 145 at the last decode, ceil(145 / 16) = 10 blocks, and
  // --kv-blocks 10 holds 9 (one is vLLM's null block); 100 + 45 hold 144,
  // 9 blocks, which fit. (serq run of the program at 100 + 46 stops at the
  // first request's 146th token: its hold of 160 units past the cap 144.)
  o = Rate();
  o.deployment.kv_blocks = 10;
  o.workload.lengths = "fixed:100,45";
  EXPECT_EQ(GenerateError("llama-3.1-8b", "h100-sxm", o), "(no error)");
  o.workload.lengths = "fixed:100,46";
  EXPECT_EQ(GenerateError("llama-3.1-8b", "h100-sxm", o),
            "serq physics: error: --lengths fixed:100,46: the longest it draws, a request of 146 tokens (prompt "
            "and output) holds the KV of 145 at its last decode, 10 blocks of 16, more than the 9 the KV cache "
            "holds: vLLM would never finish it (--kv-blocks)");
  // A trace is read as the replay will read it, now: each request's
  // tokens, and the longest against the cache, at its row.
  o = ProgramOptions{};
  o.deployment.kv_blocks = 10;
  auto replay = [&](const std::string& rows) {
    o.workload.replay = TempFile("t.csv", "time,input_tokens,output_tokens\n" + rows);
    return GenerateError("llama-3.1-8b", "h100-sxm", o);
  };
  EXPECT_EQ(replay("0,100,45\n0.5,1,1\n"), "(no error)");
  EXPECT_EQ(replay("0,5,1\n0.5,100,46\n"),
            o.workload.replay + ": error: row 2 in arrival order, 0.5 s after the first arrival: a request of 146 "
            "tokens (prompt and output) "
            "holds the KV of 145 at its last decode, 10 blocks of 16, more than the 9 the KV cache holds: vLLM "
            "would never finish it (--kv-blocks)");
  EXPECT_EQ(replay("0,5,1\n1,5,0\n"),
            o.workload.replay + ": error: row 2 in arrival order, 1 s after the first arrival: output_tokens 0: "
            "expected a whole number of tokens from 1 to 2^30 (vLLM refuses an empty prompt and makes at "
            "least one token a request)");
  EXPECT_EQ(replay("0,5,1\n1,x,1\n"), o.workload.replay +
            ":3: error: 'x' in column 'input_tokens' is not a finite number");
  EXPECT_EQ(replay(""), o.workload.replay + ": error: no request to replay");
  // KV heads that neither split over the GPUs nor replicate evenly.
  const std::string config = TempFile(
      "kv.json", R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 96,
                     "num_attention_heads": 24, "num_key_value_heads": 8, "vocab_size": 10,
                     "intermediate_size": 8})");
  o = Rate();
  o.deployment.tp = 3;
  EXPECT_EQ(GenerateError(config, "h100-sxm", o),
            "serq physics: error: tensor parallel 3 and the model's 8 KV heads "
            "(num_key_value_heads): vLLM splits them over the GPUs, or replicates each over a whole "
            "number of them");
}

// Every file serq physics reads (config, datasheet, coefficients) goes
// through models::JsonFile, whose one depth check runs before protobuf's
// parser (whose time grows faster than the square of the depth: 20,000
// levels took 6.8 s): JSON deeper than 32 levels is refused at the line and
// column of the bracket that crosses it, a file of 200,000 levels as fast as
// one of 33 (testdata/hostile, physics-deep-*).
TEST(Physics, JsonDeeperThan32LevelsIsRefusedWhereItCrosses) {
  // `{"a": ` (6 bytes) on line 2: the object is level 1, the k-th '[' level
  // k + 1 at column 6 + k; level 33 is the 32nd '[', column 38.
  auto deep = [](int lists) {
    return "\n{\"a\": " + std::string(lists, '[') + std::string(lists, ']') + "}";
  };
  EXPECT_EQ(models::JsonFile::Parse(deep(32), "c.json").status().message(),
            "c.json:2:38: error: JSON nested more than 32 levels deep");
  EXPECT_EQ(ReadCoefficients(deep(200000), "k.json").status().message(),
            "k.json:2:38: error: JSON nested more than 32 levels deep");
  // 31 lists are 32 levels: parsed.
  EXPECT_TRUE(models::JsonFile::Parse(deep(31), "c.json").ok());
}

}  // namespace
}  // namespace serq::physics
