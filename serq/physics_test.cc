// serq physics: the reader's errors, BLIS's worked example derived by hand,
// and the conformance with BLIS's own run of the same model (every request
// of w1 within 0.5%).
#include "serq/physics.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ir/cli.h"
#include "serq/commands.h"
#include "serq/measured.h"

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

// Qwen3-14B on an H100 at BLIS's defaults, without a trace: the block.
std::string QwenBlock() {
  absl::StatusOr<ModelShape> model = ReadModelConfig(Slurp(Blis("qwen3-14b.config.json")), "q");
  EXPECT_TRUE(model.ok()) << model.status();
  absl::StatusOr<Gpu> gpu = ReadGpu(Slurp(Blis("hardware_config.json")), "hw", "H100");
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

TEST(Physics, RejectsWhatItCannotModel) {
  EXPECT_EQ(ReadModelConfig("{\"num_hidden_layers\": 2}", "c.json").status().message(),
            "c.json: error: the config has no 'hidden_size'");
  EXPECT_EQ(ReadModelConfig(R"({"num_hidden_layers": 2, "num_local_experts": 8})", "c.json")
                .status()
                .message(),
            "c.json: error: a mixture-of-experts model ('num_local_experts'): serq physics covers "
            "dense models only");
  EXPECT_EQ(ReadModelConfig(R"({"num_hidden_layers": 2.5})", "c.json").status().message(),
            "c.json: error: 'num_hidden_layers' must be a whole number of at least 1");
  EXPECT_FALSE(ReadModelConfig("[1]", "c.json").ok());
  EXPECT_EQ(ReadGpu(Slurp(Blis("hardware_config.json")), "hw.json", "B200").status().message(),
            "hw.json: error: no GPU 'B200' (the file has A100-80, H100, L40S)");
  EXPECT_EQ(ReadGpu(Slurp(Blis("hardware_config.json")), "hw.json", "").status().message(),
            "hw.json: error: the file has 3 GPUs: name one with --gpu (A100-80, H100, L40S)");
  EXPECT_EQ(ReadGpu(R"({"TFlopsPeak": 100})", "g.json", "").status().message(),
            "g.json: error: 'the GPU' has no 'BwPeakTBs'");
  EXPECT_EQ(ReadCoefficients(R"({"alpha_coeffs": [1, 2, 3], "beta_coeffs": [1]})", "k.json")
                .status()
                .message(),
            "k.json: error: 'beta_coeffs' must hold 10 numbers (BLIS's dense form; an 11th is "
            "allowed), not 1");
  ModelShape m;
  m.heads = 40;
  m.kv_heads = 8;
  Gpu gpu{"g", 1, 0, 1, 0};
  BlockOptions tp3;
  tp3.tp = 3;
  EXPECT_FALSE(PhysicsBlock(m, gpu, BlisDefaults(), tp3).ok());
}

// Every file serq physics reads goes through the one depth check before
// protobuf's parser (whose time grows faster than the square of the depth:
// 20,000 levels took 6.8 s): JSON deeper than 32 levels is refused at the
// line and column of the bracket that crosses it. A file of 200,000 levels
// is refused as fast as one of 33 (testdata/hostile, physics-deep-*).
TEST(Physics, JsonDeeperThan32LevelsIsRefusedWhereItCrosses) {
  // `{"a": ` (6 bytes) on line 2: the object is level 1, the k-th '[' level
  // k + 1 at column 6 + k; level 33 is the 32nd '[', column 38.
  auto deep = [](int lists) {
    return "\n{\"a\": " + std::string(lists, '[') + std::string(lists, ']') + "}";
  };
  EXPECT_EQ(ReadModelConfig(deep(32), "c.json").status().message(),
            "c.json:2:38: error: JSON nested more than 32 levels deep");
  EXPECT_EQ(ReadGpu(deep(32), "g.json", "").status().message(),
            "g.json:2:38: error: JSON nested more than 32 levels deep");
  EXPECT_EQ(ReadCoefficients(deep(200000), "k.json").status().message(),
            "k.json:2:38: error: JSON nested more than 32 levels deep");
  // 31 lists are 32 levels: read, and refused for what the config lacks.
  EXPECT_EQ(ReadModelConfig(deep(31), "c.json").status().message(),
            "c.json: error: the config has no 'num_hidden_layers'");
}

}  // namespace
}  // namespace serq::physics
