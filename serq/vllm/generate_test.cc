// The programs serq vllm writes for the two runs of examples/vllm/runs and
// for copies of them changed one file at a time: they link, and every
// figure is the one derived by hand in the comments from the files.
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "serq/vllm/generate.h"
#include "serq/vllm/test_folders.h"

namespace serq::vllm {

namespace {

namespace fs = std::filesystem;

TEST(Generate, TheTwoRunsLink) {
  for (const std::string& run : {kLlama, kMoe}) {
    Options options;
    options.program_dir = ".";
    absl::StatusOr<Generated> g = GenerateProgram(run, options);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(LinkErrors(g->program), "");
    // The GPUs of the run, for the report's per-GPU figures: the Llama run's
    // one; the MoE run's data parallel 2 (its Engines param).
    EXPECT_NE(g->program.find(run == kLlama ? "run { seed 1; gpus 1; }" : "run { seed 1; gpus Engines; }"),
              std::string::npos);
  }
}

// A folder's path is a string of the program: a quote or a backslash in it
// escaped (the language's only escapes), so the program parses and links
// and reads the folder's files; a line break, which would end the comment
// or string it is in and let the rest be read as the program, refused.
TEST(Generate, PathsThatAreNotPlain) {
  const std::string dir = Copy(kLlama, "a \"quoted\" \\ run");
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("a \\\"quoted\\\" \\\\ run/profile/tp1/attention.csv\""), std::string::npos);
  EXPECT_EQ(LinkErrors(g->program), "");
  const std::string broken = Copy(kLlama, "two\nlines");
  EXPECT_PRED2(StartsWith, Error(broken), absl::StrCat(absl::CHexEscape(broken), ": error: the run folder's "
                                                       "path holds a control character (\\n)"));
}

// A skew fit below -1 (a weighted least-squares slope of few samples can
// be: the MoE run's tp2 fit has -0.22 at pc 0 and -57 with a prefill) and
// a negative alpha_default: the table's values are at least 0, so each
// alpha is written shifted by the least whole number that lifts the least
// to 0, and the program links. By hand: the bucket n<=64, sr<=15%,
// kvB<=1k (row 5, 1, 0) fitted -2.5 and alpha_default -1.5 (the unfitted
// buckets'): shift ceil(2.5) = 3, rows 0.5 and 1.5; the blend has a floor
// of 0 (LLMServingSim's max(1 ns, ...)).
TEST(Generate, ASkewFitBelowMinusOne) {
  const std::string dir = Copy(kLlama, "negative-alpha");
  Edit(dir + "/profile/tp1/skew_fit.csv", "0,n<=64,sr<=15%,kvB<=1k,kp=0,0.0639,4",
       "0,n<=64,sr<=15%,kvB<=1k,kp=0,-2.5,4");
  Edit(dir + "/profile/meta.yaml", "alpha_default: 0.0543", "alpha_default: -1.5");
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(LinkErrors(g->program), "");
  EXPECT_NE(g->program.find("  key n_bin, sr_bin, kvb_bin; value shifted_alpha;"), std::string::npos);
  EXPECT_NE(g->program.find("row 5, 1, 0, 0.5;"), std::string::npos);
  EXPECT_NE(g->program.find("row 0, 0, 0, 1.5;"), std::string::npos);
  EXPECT_NE(g->program.find("let alpha = (prefill == 0) * (skew(n_bin, sr_bin, kvb_bin) - 3) + (prefill > 0) * "
                            "AlphaDefault;"),
            std::string::npos);
  EXPECT_NE(g->program.find("let attend = max(t_mean + alpha * max(t_max - t_mean, 0), 0);"), std::string::npos);
  // The runs' own fits are above -1 at pc 0: shifted by 1, as before.
  g = GenerateProgram(kLlama, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("value one_plus_alpha;"), std::string::npos);
  EXPECT_NE(g->program.find("(skew(n_bin, sr_bin, kvb_bin) - 1)"), std::string::npos);
}

// A request longer than the run's max_model_len: vLLM serves it and stops
// it there, while the bench records the dataset's output_toks, so the
// replay makes min(output_toks, MaxModelLen - input_toks) tokens and says
// so. By hand on the dev run at max_model_len 4,096: of its requests, two
// have more than 4,096 prompt and output tokens, the first at line 16
// (the longest, line 248, 3,998 + 767 = 4,765). Within 4,765 nothing is
// capped and the program is the run's own.
TEST(Generate, RequestsLongerThanMaxModelLen) {
  const std::string dir = Copy(kLlama, "max-model-len");
  const std::string meta = Read(dir + "/meta.json");
  Write(dir + "/meta.json", absl::StrReplaceAll(meta, {{"\"max_model_len\": null", "\"max_model_len\": 4096"}}));
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(LinkErrors(g->program), "");
  EXPECT_EQ(g->warnings,
            std::vector<std::string>{dir + "/requests.jsonl: 2 requests have more prompt and output tokens than "
                                           "max_model_len 4096 (meta.json engine_kwargs.max_model_len), the first at "
                                           "line 16: vLLM stops a request at max_model_len, and the bench records "
                                           "the dataset's output_toks, so the replay stops it there too"});
  EXPECT_NE(g->program.find("param MaxModelLen = 4096;"), std::string::npos);
  EXPECT_NE(g->program.find("  set made = min(output_toks, MaxModelLen - input_toks);\n"), std::string::npos);
  EXPECT_NE(g->program.find("    run E decode (made - 1) growing kv observe itl;"), std::string::npos);
  EXPECT_NE(g->program.find("prefix (-1 - serial, ceil((input_toks + made) / Block));"), std::string::npos);
  // TPOT as the measurement's: over the recorded count.
  EXPECT_NE(g->program.find("observe tpot = (now - first) / (output_toks - 1);"), std::string::npos);
  Write(dir + "/meta.json", absl::StrReplaceAll(meta, {{"\"max_model_len\": null", "\"max_model_len\": 4765"}}));
  g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->warnings, std::vector<std::string>{});
  EXPECT_EQ(g->program.find("MaxModelLen"), std::string::npos);
  // -1 (and "auto", its alias) asks vLLM to fit max_model_len to the KV
  // cache: no figure, so nothing capped; the fitted one, where
  // resolved_config records it, caps as above.
  for (const char* fit : {"-1", "\"auto\""}) {
    Write(dir + "/meta.json",
          absl::StrReplaceAll(meta, {{"\"max_model_len\": null", absl::StrCat("\"max_model_len\": ", fit)}}));
    g = GenerateProgram(dir, options);
    ASSERT_TRUE(g.ok()) << fit << ": " << g.status();
    EXPECT_EQ(g->warnings, std::vector<std::string>{}) << fit;
    EXPECT_EQ(g->program.find("MaxModelLen"), std::string::npos) << fit;
  }
  Write(dir + "/meta.json",
        absl::StrReplaceAll(meta, {{"\"max_model_len\": null", "\"max_model_len\": -1"},
                                   {"\"schema_version\": 1,", "\"schema_version\": 1, \"resolved_config\": "
                                                              "{\"model_config\": {\"max_model_len\": 4096}},"}}));
  g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param MaxModelLen = 4096;    // meta.json resolved_config.model_config.max_model_len"),
            std::string::npos);
}

// How far the attention table's rows reach: a request whose KV passes
// the longest KV it times decodes at, or an engine of more decodes a step
// than it times, is said. By hand on the dev run: its attention.csv
// reaches 256 decodes and a KV of 16,384, past its 128 seqs and its
// longest request (line 248, 3,998 + 767 = 4,765 tokens): nothing said.
// Cut to its rows of KV up to 4,096 (a grid of 16 to 4,096 by 2): the
// longest request is said; capped by a max_model_len of 4,096 it reads no
// KV past the rows, and only the cap is said. Cut to its first row (one
// decode at a KV of 16): both, the request the first to reach 4,096
// (line 16, 3,452 + 745 capped).
TEST(Generate, WhereTheAttentionTableEnds) {
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(kLlama, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->warnings, std::vector<std::string>{});
  const std::string dir = Copy(kLlama, "past-the-grid");
  const std::string table = dir + "/profile/tp1/attention.csv";
  const std::string rows = Read(table);
  std::string kept;
  for (absl::string_view line : absl::StrSplit(rows, '\n', absl::SkipEmpty())) {
    const std::vector<std::string> f = absl::StrSplit(line, ',');
    double kv = 0;
    if (!absl::SimpleAtod(f[3], &kv) || kv <= 4096) absl::StrAppend(&kept, line, "\n");
  }
  Write(table, kept);
  g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->warnings, std::vector<std::string>{dir + "/requests.jsonl:248: a request of 4765 tokens, past the "
                                                        "longest KV " + table + " times decodes at, 4096: its lookups "
                                                        "past that extrapolate"});
  Edit(dir + "/meta.json", "\"max_model_len\": null", "\"max_model_len\": 4096");
  g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->warnings.size(), 1u);
  EXPECT_NE(g->warnings[0].find("2 requests have more prompt and output tokens than max_model_len 4096"),
            std::string::npos);
  Write(table, rows.substr(0, rows.find('\n', rows.find('\n') + 1) + 1));
  g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->warnings.size(), 5u);
  EXPECT_EQ(g->warnings[1], table + ": its rows reach 1 decode, the engine runs up to 128 (max_num_seqs): its "
                                    "lookups past that extrapolate");
  // Its one row has no prefill: the table ends short of a step's chunk.
  EXPECT_EQ(g->warnings[2], table + ": its rows reach prefill_chunk 0, the engine runs up to 2048 "
                                    "(max_num_batched_tokens, a step's prefill tokens): its lookups past that "
                                    "extrapolate");
  EXPECT_EQ(g->warnings[3], dir + "/requests.jsonl:16: a request of 4096 tokens, past the longest KV " + table +
                                  " times decodes at, 16: its lookups past that extrapolate");
  // Nor any context before a chunk: the longest prompt's last chunk reads
  // up to 3,997 tokens of KV.
  EXPECT_EQ(g->warnings[4], dir + "/requests.jsonl:248: a prompt of 3998 tokens, whose last chunk reads up to 3997 "
                                  "tokens of KV, past the longest " + table + " times a chunk after (kv_prefill 0): "
                                  "its lookups past that extrapolate");
  // Its header alone: an error naming it, not a program whose lookups fail.
  Write(table, rows.substr(0, rows.find('\n') + 1));
  EXPECT_EQ(Error(dir), table + ": error: no rows: the table times nothing");
}

// Each table of the profile against the largest figure the program looks
// it up at: a table cut short (a profiler stopped part-way) is said, as
// the attention table's decodes are, each operator of dense.csv and
// per_sequence.csv apart (each is a table of its own). The runs' own
// tables reach every limit (no warning on either, below); cut, each is
// said, the operator that ends first named (of several at the same
// reach, the first by name): dense.csv to 512 tokens of a step's 2048;
// o_proj alone to 128; per_sequence.csv to 16 sequences of 128, sampler
// alone to 64; moe.csv to 256 tokens, where the experts of each of the MoE
// run's 2 GPUs serve 2 engines' 2048 tokens gathered, over 2 GPUs: 2048.
// An engine past the profiler's sweep (meta.yaml's engine_effective 2048
// tokens, the engine at 4096) says the sweep; a table that reaches the
// sweep is not said again, one that ends short of it (dense.csv at 1024)
// is.
TEST(Generate, TablesThatEndShortAreSaid) {
  for (const std::string& run : {kLlama, kMoe}) {
    absl::StatusOr<Generated> g = GenerateProgram(run, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings, std::vector<std::string>{}) << run;
  }
  // Rows of `layer` ("": every row) past `most` in `column` dropped.
  const auto cut = [](const std::string& path, const std::string& column, double most,
                      const std::string& layer = "") {
    std::istringstream in(Read(path));
    std::string header, line, kept;
    std::getline(in, header);
    const std::vector<std::string> names = absl::StrSplit(header, ',');
    const size_t at = std::find(names.begin(), names.end(), column) - names.begin();
    while (std::getline(in, line)) {
      const std::vector<std::string> f = absl::StrSplit(line, ',');
      double x = 0;
      const bool other = !layer.empty() && f[0] != layer;
      if (other || (absl::SimpleAtod(f[at], &x) && x <= most)) absl::StrAppend(&kept, line, "\n");
    }
    Write(path, header + "\n" + kept);
  };
  for (const auto& [file, column, most, layer, said] :
       {std::tuple{"dense.csv", "tokens", 512.0, "", "its rows of act_fn reach tokens 512, the engine runs up to "
                                                    "2048 (max_num_batched_tokens, a step's tokens)"},
        std::tuple{"dense.csv", "tokens", 128.0, "o_proj", "its rows of o_proj reach tokens 128, the engine runs "
                                                          "up to 2048 (max_num_batched_tokens, a step's tokens)"},
        std::tuple{"per_sequence.csv", "sequences", 16.0, "", "its rows of lm_head reach sequences 16, the engine "
                                                             "runs up to 128 (max_num_seqs, a step's sequences)"},
        std::tuple{"per_sequence.csv", "sequences", 64.0, "sampler", "its rows of sampler reach sequences 64, the "
                                                                    "engine runs up to 128 (max_num_seqs, a step's "
                                                                    "sequences)"}}) {
    const std::string dir = Copy(kLlama, "short");
    cut(dir + "/profile/tp1/" + file, column, most, layer);
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings, std::vector<std::string>{absl::StrCat(dir, "/profile/tp1/", file, ": ", said,
                                                                 ": its lookups past that extrapolate")});
  }
  {
    const std::string dir = Copy(kMoe, "short-moe");
    cut(dir + "/profile/tp1/moe.csv", "tokens", 256);
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(g->warnings, std::vector<std::string>{dir + "/profile/tp1/moe.csv: its rows reach tokens 256, the "
                                                          "engine runs up to 2048 (the tokens of 2 engines' steps "
                                                          "that the experts of a GPU serve): its lookups past that "
                                                          "extrapolate"});
  }
  const std::string dir = Copy(kLlama, "past-sweep-short");
  Edit(dir + "/meta.json", "\"max_num_batched_tokens\": 2048", "\"max_num_batched_tokens\": 4096");
  const std::string swept = dir + "/profile/meta.yaml: the profile was swept to engine_effective."
                                  "max_num_batched_tokens 2048, the engine runs to 4096: its attention and dense "
                                  "lookups past that extrapolate";
  absl::StatusOr<Generated> g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->warnings, std::vector<std::string>{swept});
  cut(dir + "/profile/tp1/dense.csv", "tokens", 1024);
  g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->warnings,
            (std::vector<std::string>{swept, dir + "/profile/tp1/dense.csv: its rows of act_fn reach tokens 1024, "
                                                   "the engine runs up to 4096 (max_num_batched_tokens, a step's "
                                                   "tokens): its lookups past that extrapolate"}));
}

// A model with a sliding window: vLLM frees the blocks a window has left,
// the program's pool keeps a request's whole context, which is said where
// a request is longer than the window. The Llama run's longest request is
// longer than 256 tokens and shorter than 100,000.
TEST(Generate, ASlidingWindowIsSaid) {
  for (const int window : {256, 100000}) {
    const std::string dir = Copy(kLlama, absl::StrCat("window", window));
    Edit(dir + "/model.json", R"("model_type": "llama",)",
         absl::StrCat(R"("model_type": "llama", "sliding_window": )", window, ","));
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    if (window == 100000) {
      EXPECT_EQ(g->warnings, std::vector<std::string>{});
      continue;
    }
    ASSERT_EQ(g->warnings.size(), 1u);
    EXPECT_PRED2(StartsWith, g->warnings[0],
                 absl::StrCat(dir, "/model.json: sliding_window 256 on 32 of 32 layers: the program's KV cache "
                                   "keeps every token of a request, where vLLM frees the blocks its window has "
                                   "left (the longest request, ", dir, "/requests.jsonl:"));
  }
  // Mistral's class windows every layer at 4096 where model.json has no
  // sliding_window: the longest request, 4,765 tokens, is past it.
  const std::string dir = Copy(kLlama, "mistral");
  Edit(dir + "/model.json", R"("model_type": "llama",)", R"("model_type": "mistral",)");
  absl::StatusOr<Generated> g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  // The profile (of llama, which shares mistral's operators) is said to be
  // of another model type first.
  ASSERT_EQ(g->warnings.size(), 2u);
  EXPECT_EQ(g->warnings[0], absl::StrCat(dir, "/profile/meta.yaml: the profile is of architecture 'llama', the "
                                              "run's model (model.json) of 'mistral': the step time reads the "
                                              "operators mistral runs, as that profile timed them"));
  EXPECT_PRED2(StartsWith, g->warnings[1],
               absl::StrCat(dir, "/model.json: sliding_window 4096 (absent, mistral's default in transformers' "
                                 "config class) on 32 of 32 layers: "));
}

// A profile whose rows come in another order (a profiler that loops over
// its grid otherwise) is the same table: its file is sorted as it is read,
// so the linked program holds the same rows as the run's own. Here
// attention.csv's rows reversed.
TEST(Generate, AProfileInAnotherRowOrder) {
  const std::string dir = Copy(kLlama, "reversed");
  const std::string file = dir + "/profile/tp1/attention.csv";
  std::istringstream in(Read(file));
  std::string header, line;
  std::getline(in, header);
  std::vector<std::string> rows;
  while (std::getline(in, line)) rows.push_back(line);
  std::string reversed = header + "\n";
  for (auto it = rows.rbegin(); it != rows.rend(); ++it) absl::StrAppend(&reversed, *it, "\n");
  Write(file, reversed);
  auto attention = [](const std::string& run) {
    Options options;
    options.program_dir = ".";
    absl::StatusOr<Generated> g = GenerateProgram(run, options);
    EXPECT_TRUE(g.ok()) << g.status();
    Diagnostics diags("gen.sq");
    ir::Program program;
    EXPECT_TRUE(g.ok() && ParseProgram("gen.sq", g->program, &program, &diags) &&
                LinkProgram(&program, LinkOptions(), &diags))
        << diags.Render();
    for (const ir::Table& t : program.table()) {
      if (t.name() == "attn") return std::make_pair(std::vector<double>(t.grid_key().begin(), t.grid_key().end()),
                                                  std::vector<double>(t.grid_value().begin(), t.grid_value().end()));
    }
    return std::make_pair(std::vector<double>{}, std::vector<double>{});
  };
  const auto ours = attention(kLlama), theirs = attention(dir);
  EXPECT_GT(ours.second.size(), 1000u);
  EXPECT_EQ(ours, theirs);
}

// The figures the programs are built from, derived from the files.
TEST(Generate, TheMoeRunsFigures) {
  absl::StatusOr<Generated> g = GenerateProgram(kMoe, {});
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string& p = g->program;
  // Two engines in lockstep behind vLLM's balancer, the experts over both.
  EXPECT_NE(p.find("param Engines = 2;"), std::string::npos);
  EXPECT_NE(p.find("param Ep = 2;"), std::string::npos);
  EXPECT_NE(p.find(" lockstep;"), std::string::npos);
  EXPECT_NE(p.find("choose i in E by (4 * waiting(E[i]) + running(E[i])) every 0.1;"), std::string::npos);
  // The link: 16 GB/s read as 2^30 bytes, 20,000 ns a step.
  EXPECT_NE(p.find("param LinkBw = 17179869184;"), std::string::npos);
  EXPECT_NE(p.find("param LinkLatency = 2e-05;"), std::string::npos);
  // KV: CUDA's 94.97 GiB of the RTX PRO 6000 (the cluster file's mem_size
  // 96 is the vendor's) x 0.9 = 91,775,934,923 bytes (rounded up); the
  // weights of one GPU: attention 48 x (2048 x 4096 + 2 x 2048 x 512 + 4096 x 2048) =
  // 905,969,664, embeddings 2 x 151,936 x 2048 = 622,329,856, norms
  // 97 x 2048 + 96 x 128 = 210,944, routers 48 x 2048 x 128 = 12,582,912,
  // half the experts 48 x 128 x 3 x 2048 x 768 / 2 = 14,495,514,624:
  // 16,036,608,000 parameters, 32,073,216,000 bytes; the rotary table,
  // 262,144 positions (max_position_embeddings) x 128 x 2 = 67,108,864;
  // the activation peak
  // the larger of the forward pass, 2048 x (2 x 2048 + max(40 x 128, 8 x
  // (3 x 768 + 2048))) x 2 = 159,383,552, and the sampler's warm-up, 2048 x
  // 2048 x 2 + 128 x 151,936 x 14 + 128 x 151,936 x 4 = 358,449,152 bytes;
  // outside PyTorch 0.67 x 2^30 = 719,407,022.08 (the experts' GPUs
  // communicate); so 58,557,753,884.92 bytes in blocks of 16 x 98,304 =
  // 1,572,864: 37,230 blocks, less the null one.
  EXPECT_NE(p.find("param KvBlocks = 37229;"), std::string::npos) << p.substr(0, 3000);
  EXPECT_NE(p.find("param AlphaDefault = 0.0645;"), std::string::npos);
  // Its GPUs, data parallel 2 x tensor parallel 1, in the param -D moves.
  EXPECT_NE(p.find("run { seed 1; gpus Engines; }"), std::string::npos);
  // Balanced routing unless told: the busiest GPU's pairs, 1 / Balancedness
  // times the mean, set the experts' time.
  EXPECT_NE(p.find("param Balancedness = 1 in [1 / Ep, 1];"), std::string::npos);
  EXPECT_NE(p.find("  let reached = Experts / Ep * (1 - pow(1 - TopK / Experts, gathered / Balancedness));"),
            std::string::npos);
  EXPECT_NE(p.find("  let experts = moe(gathered / Ep / Balancedness, reached);"), std::string::npos);
  Options skewed;
  skewed.expert_balancedness = 0.8;
  g = GenerateProgram(kMoe, skewed);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param Balancedness = 0.8 in [1 / Ep, 1];"), std::string::npos);
  EXPECT_NE(g->program.find("// --expert-balancedness: the GPUs' mean (token, expert) pairs"), std::string::npos);
  EXPECT_EQ(LinkErrors(g->program), "");
  // The busiest of 2 GPUs computes at most every pair: 1/2 at the least.
  skewed.expert_balancedness = 0.5;
  EXPECT_TRUE(GenerateProgram(kMoe, skewed).ok());
  skewed.expert_balancedness = 0.4;
  EXPECT_EQ(GenerateProgram(kMoe, skewed).status().message(),
            "serq vllm: error: --expert-balancedness 0.4 is below 1/2: the busiest of the 2 GPUs of expert "
            "parallel computes at "
            "most every pair, 2 times the mean");
}

// Tensor parallel 2 on the Llama run's TP 2 profile: the all-reduces and
// the logits' gather over the run's link, the profile at tp2.
TEST(Generate, TensorParallel) {
  const std::string dir = Copy(kLlama, "tp2");
  Edit(dir + "/meta.json", "\"tensor_parallel_size\": 1",
       "\"tensor_parallel_size\": 2");
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string& p = g->program;
  EXPECT_NE(p.find("param Tp = 2;"), std::string::npos);
  EXPECT_NE(p.find("/profile/tp2/attention.csv"), std::string::npos);
  // The all-reduce inside the CUDA graph, at the padded tokens.
  EXPECT_NE(p.find("all_reduce(Tp, padded * Hidden * DtypeBytes, LinkBw, LinkLatency)"),
            std::string::npos);
  EXPECT_NE(p.find("+ Layers * (layer + attend + gate_up_proj(padded) + act_fn(padded) + "
                   "down_proj(padded) + 2 * all_reduced);"),
            std::string::npos);
  EXPECT_NE(p.find("param AlphaDefault = 0.0654;"), std::string::npos);
  EXPECT_NE(p.find("run { seed 1; gpus Tp; }"), std::string::npos);  // one engine of 2 GPUs
  EXPECT_EQ(LinkErrors(p), "");
  // Without the cluster file a TP run needs a named link.
  fs::remove(dir + "/llmservingsim-config.json");
  EXPECT_NE(Error(dir).find(": error: the GPUs exchange data (tensor parallel, or experts shared by engines) "
                            "and the run describes no link"),
            std::string::npos);
  options.interconnect = "nvlink9";
  EXPECT_EQ(Error(dir, options),
            "serq vllm: error: --interconnect nvlink9: no such interconnect (known: pcie4-x16, "
            "pcie5-x16, nvlink3, nvlink4, nvlink5, xgmi)");
  options.interconnect = "pcie5-x16";
  options.kv.gpu_memory_gib = 96;
  g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("param LinkBw = 48000000000;"), std::string::npos);
  // A mesh's link (xGMI, a link each pair of GPUs): a collective among Tp
  // GPUs over Tp - 1 of them (docs/simulation.md §Parallelism).
  options.interconnect = "xgmi";
  g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("all_reduce(Tp, padded * Hidden * DtypeBytes, LinkBw * (Tp - 1), LinkLatency)"),
            std::string::npos);
  EXPECT_NE(g->program.find("all_gather(Tp, seqs * Vocab * DtypeBytes, LinkBw * (Tp - 1), LinkLatency)"),
            std::string::npos);
  EXPECT_EQ(LinkErrors(g->program), "");
}

// The link as one figure a dimension of ASTRA-Sim's topology, as
// LLMServingSim's config may give it (tensor parallel first, the
// data-parallel group last): the MoE run's expert exchange between its two
// engines takes the last; a tensor-parallel run the first.
TEST(Generate, TheLinkByTopologyDimension) {
  const std::string base = Read(kMoe + "/llmservingsim-config.json");
  {
    const std::string dir = Copy(kMoe, "link-dims");
    std::string cluster = Replace(base, "\"link_bw\": 16,", "\"link_bw\": [32, 16],");
    cluster = Replace(cluster, "\"link_latency\": 20000,", "\"link_latency\": [1000, 20000],");
    Write(dir + "/llmservingsim-config.json", cluster);
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    // 16 x 2^30 = 17,179,869,184 bytes/s; 20,000 ns = 2e-05 s.
    EXPECT_NE(g->program.find("param LinkBw = 17179869184;"), std::string::npos);
    EXPECT_NE(g->program.find("link_bw 16 GB/s (dimension 2 of 2), read as ASTRA-Sim"), std::string::npos);
    EXPECT_NE(g->program.find("param LinkLatency = 2e-05;"), std::string::npos);
  }
  {
    const std::string dir = Copy(kLlama, "link-dims-tp");
    Edit(dir + "/meta.json", "\"tensor_parallel_size\": 1",
         "\"tensor_parallel_size\": 2");
    const std::string file = dir + "/llmservingsim-config.json";
    Edit(file, "\"link_bw\": 16,", "\"link_bw\": [8, 16],");
    absl::StatusOr<Generated> g = GenerateProgram(dir, {});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_NE(g->program.find("param LinkBw = 8589934592;"), std::string::npos);  // 8 x 2^30
    Edit(file, "\"link_bw\": [8, 16],", "\"link_bw\": \"fast\",");
    EXPECT_EQ(Error(dir), file + ": error: link_bw: expected GB/s above 0 and at most 1e9, or a list of such "
                                 "(one a topology dimension, up to 8), not \"fast\"");
    // A figure the program's bytes a second cannot hold (1e308 x 2^30 is
    // inf), refused at the field, not written as inf.
    Edit(file, "\"link_bw\": \"fast\",", "\"link_bw\": 1e308,");
    EXPECT_EQ(Error(dir), file + ": error: link_bw: expected GB/s above 0 and at most 1e9, or a list of such "
                                 "(one a topology dimension, up to 8), not 1e+308");
    // One of the two without the other: LLMServingSim refuses the file;
    // serq took the missing latency for 0.
    Edit(file, "\"link_bw\": 1e308,", "\"link_bw\": 16,");
    Edit(file, "\"link_latency\": 20000,", "");
    EXPECT_EQ(Error(dir), file + ": error: link_latency: missing, where link_bw is given: the link is the two "
                                 "together (LLMServingSim refuses one without the other)");
  }
}

// Instances unlike the first (LLMServingSim simulates unlike instances;
// vLLM's data-parallel engines are alike): the first's GPU and memory,
// and a warning for each field that differs.
TEST(Generate, InstancesUnlikeTheFirst) {
  const std::string dir = Copy(kMoe, "unlike");
  const std::string file = dir + "/llmservingsim-config.json";
  std::string cluster = Read(file);
  const size_t second = cluster.rfind("\"mem_size\": 96");
  ASSERT_NE(second, std::string::npos);
  ASSERT_NE(second, cluster.find("\"mem_size\": 96"));  // two instances
  cluster.replace(second, std::string("\"mem_size\": 96").size(), "\"mem_size\": 48");
  Write(file, cluster);
  absl::StatusOr<Generated> g = GenerateProgram(dir, {});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->warnings, std::vector<std::string>{file + ": nodes[0].instances[1].npu_mem.mem_size is 48, the "
                                                  "first instance's 96: the program takes the first instance's"});
}

// A mixture of experts at tensor parallel 2 without expert parallelism, on
// the MoE run's profile, whose experts were timed at TP 1 only (it has no
// tp2/moe.csv, as LLMServingSim's profiler writes none): the whole
// experts' kernels, a GPU's share 1/Tp of them.
TEST(Generate, ExpertsSplitByTensorParallel) {
  const std::string dir = Copy(kMoe, "moe-tp2");
  ASSERT_FALSE(fs::exists(dir + "/profile/tp2/moe.csv"));
  std::string meta = Read(dir + "/meta.json");
  meta = Replace(meta, "\"tensor_parallel_size\": 1", "\"tensor_parallel_size\": 2");
  meta = Replace(meta, "\"data_parallel_size\": 2", "\"data_parallel_size\": 1");
  meta = Replace(meta, "\"enable_expert_parallel\": true", "\"enable_expert_parallel\": false");
  Write(dir + "/meta.json", meta);
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string& p = g->program;
  EXPECT_NE(p.find("/profile/tp1/moe.csv\" { key tokens, activated_experts; value time_us; }"),
            std::string::npos);
  EXPECT_NE(p.find("  let experts = moe(gathered, reached) / Tp;"), std::string::npos);
  EXPECT_NE(p.find("param Tp = 2;"), std::string::npos);
  EXPECT_NE(p.find("/profile/tp2/attention.csv"), std::string::npos);
  EXPECT_EQ(LinkErrors(p), "");
  // With a tp2/moe.csv of its own, that one, unsplit.
  fs::copy_file(dir + "/profile/tp1/moe.csv", dir + "/profile/tp2/moe.csv");
  g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_NE(g->program.find("/profile/tp2/moe.csv\""), std::string::npos);
  EXPECT_NE(g->program.find("  let experts = moe(gathered, reached);"), std::string::npos);
}

// A mixture of experts at data parallel 2 without expert parallelism (the
// MoE run's folder with enable_expert_parallel false): vLLM splits every
// expert over both engines' GPUs, so each runs half of every expert's
// kernels on both engines' tokens, moe(gathered, reached) / Engines from
// tp1/moe.csv, between the same all-gather and reduce-scatter, in
// lockstep; each GPU holds half the experts' weights, as with expert
// parallelism, so the same 37,229 blocks (TheMoeRunsFigures).
TEST(Generate, ExpertsSplitOverDataParallel) {
  const std::string dir = Copy(kMoe, "moe-dp2-no-ep");
  Edit(dir + "/meta.json", "\"enable_expert_parallel\": true", "\"enable_expert_parallel\": false");
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string& p = g->program;
  EXPECT_EQ(p.find("param Ep"), std::string::npos) << p;
  EXPECT_EQ(p.find("Balancedness"), std::string::npos);
  EXPECT_NE(p.find("/profile/tp1/moe.csv\" { key tokens, activated_experts; value time_us; }"), std::string::npos);
  EXPECT_NE(p.find("  let gathered = graphed * Engines * padded + (1 - graphed) * group_tokens;"), std::string::npos);
  EXPECT_NE(p.find("  let reached = Experts * (1 - pow(1 - TopK / Experts, gathered));"), std::string::npos);
  EXPECT_NE(p.find("  let experts = moe(gathered, reached) / Engines;"), std::string::npos);
  EXPECT_NE(p.find("all_gather(Engines, gathered * Hidden * DtypeBytes, LinkBw, LinkLatency)"), std::string::npos);
  EXPECT_NE(p.find("reduce_scatter(Engines, gathered * Hidden * DtypeBytes, LinkBw, LinkLatency)"),
            std::string::npos);
  EXPECT_NE(p.find(" lockstep;"), std::string::npos);
  EXPECT_NE(p.find("param LinkBw = 17179869184;"), std::string::npos);
  EXPECT_NE(p.find("param KvBlocks = 37229;"), std::string::npos);
  EXPECT_NE(p.find("counted from model.json's shapes, 1/2 of"), std::string::npos);
  EXPECT_EQ(LinkErrors(p), "");
  // --expert-balancedness changes nothing here: no GPU holds whole experts.
  options.expert_balancedness = 0.8;
  g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->unused_flags, std::vector<std::string>{"--expert-balancedness changes nothing: the run's experts "
                                                      "are not spread whole over GPUs (no expert parallel)"});
}

// A mixture of experts at tensor parallel 2 and data parallel 2 (the MoE
// run's folder with tensor_parallel_size 2; its profile has tp2/): four
// GPUs, two engines of two. With expert parallel vLLM turns on
// sequence-parallel experts (use_sequence_parallel_moe), which
// Qwen3MoeSparseMoeBlock honours: each engine's two GPUs take half its
// tokens, the experts' all-gather and reduce-scatter run over all four GPUs
// (Ep), and the MLP's all-reduce over TP is an all-gather of the outputs;
// so a layer has one all-reduce (after o_proj), not two. KV, as
// TheMoeRunsFigures derives it but with the attention and embeddings over
// TP 2 and the experts over 4: attention 905,969,664 / 2 = 452,984,832,
// embeddings 622,329,856 / 2 = 311,164,928, norms 210,944 and routers
// 12,582,912 on every GPU, experts 48 x 128 x 3 x 2048 x 768 / 4 =
// 7,247,757,312: 8,024,700,928 parameters, 16,049,401,856 bytes; the
// activation peak is the sampler's, 358,449,152, as at TP 1 (the forward
// pass's MLP term, 8 x (3 x 768 + 2048), does not split); the rotary table
// 67,108,864 and outside PyTorch 719,407,022.08 as there. 91,775,934,923 -
// those = 74,581,568,028.92 bytes, in blocks of 16 x 49,152 (2 of the 4 KV
// heads a GPU) = 786,432: 94,835 blocks, less the null one.
TEST(Generate, ExpertsOverTensorAndDataParallel) {
  const std::string dir = Copy(kMoe, "moe-tp2-dp2");
  Edit(dir + "/meta.json", "\"tensor_parallel_size\": 1", "\"tensor_parallel_size\": 2");
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  std::string p = g->program;
  EXPECT_NE(p.find("param Tp = 2;"), std::string::npos) << p;
  EXPECT_NE(p.find("param Ep = 4;"), std::string::npos);
  EXPECT_NE(p.find("param KvBlocks = 94834;"), std::string::npos);
  EXPECT_NE(p.find("/profile/tp1/moe.csv\" { key tokens, activated_experts; value time_us; }"), std::string::npos);
  EXPECT_NE(p.find("/profile/tp2/attention.csv\""), std::string::npos);
  EXPECT_NE(p.find("  let experts = moe(gathered / Ep / Balancedness, reached);"), std::string::npos);
  EXPECT_NE(p.find("all_gather(Ep, gathered * Hidden * DtypeBytes, LinkBw, LinkLatency)"), std::string::npos);
  EXPECT_NE(p.find("reduce_scatter(Ep, gathered * Hidden * DtypeBytes, LinkBw, LinkLatency)"), std::string::npos);
  EXPECT_NE(p.find("  let regathered = 1e6 * all_gather(Tp, padded * Hidden * DtypeBytes, LinkBw, LinkLatency);"),
            std::string::npos);
  EXPECT_NE(p.find("+ Layers * (layer + attend + experts + exchange + regathered + all_reduced);"), std::string::npos);
  EXPECT_EQ(p.find("2 * all_reduced"), std::string::npos);
  EXPECT_NE(p.find(" lockstep;"), std::string::npos);
  EXPECT_NE(p.find("gpus Engines * Tp;"), std::string::npos);
  EXPECT_EQ(LinkErrors(p), "");

  // Without expert parallel every GPU holds 1/4 of every expert (vLLM
  // flattens DP into the experts' TP); nothing is sequence-parallel: the
  // exchange runs over one TP rank's GPUs of the two engines, and the MLP
  // all-reduces over TP. The weights a GPU holds are the same count (the
  // experts over 4 GPUs either way), so the same KV.
  Edit(dir + "/meta.json", "\"enable_expert_parallel\": true", "\"enable_expert_parallel\": false");
  g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  p = g->program;
  EXPECT_EQ(p.find("param Ep"), std::string::npos) << p;
  EXPECT_NE(p.find("param KvBlocks = 94834;"), std::string::npos);
  EXPECT_NE(p.find("  let experts = moe(gathered, reached) / (Engines * Tp);"), std::string::npos);
  EXPECT_NE(p.find("all_gather(Engines, gathered * Hidden * DtypeBytes, LinkBw, LinkLatency)"), std::string::npos);
  EXPECT_EQ(p.find("regathered"), std::string::npos);
  EXPECT_NE(p.find("+ Layers * (layer + attend + experts + exchange + 2 * all_reduced);"), std::string::npos);
  EXPECT_EQ(LinkErrors(p), "");
}

// A dense Qwen3 at tensor parallel 2 (the shapes of Qwen3-32B's public
// config.json on the Llama run's copy): the generator runs the qwen3
// decoder's operators, the per-head q and k norms among them, from
// profile/tp2, and the all-reduces of each layer; a profile without
// qk_norm is an error naming the operator, never a step without it. KV a
// token on one GPU: 2 x 64 layers x 8 / 2 KV heads x head_dim 128 (given,
// not 5120 / 64 = 80) x 2 bytes = 131072.
TEST(Generate, DenseQwen3AtTensorParallel2) {
  const std::string dir = Copy(kLlama, "qwen3-tp2");
  Write(dir + "/model.json", R"({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
    "hidden_size": 5120, "intermediate_size": 25600, "num_hidden_layers": 64,
    "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16"})");
  Edit(dir + "/meta.json", "\"tensor_parallel_size\": 1",
       "\"tensor_parallel_size\": 2");
  // A profile of another architecture than the run's model is refused.
  const std::string meta = dir + "/profile/meta.yaml";
  EXPECT_EQ(Error(dir), meta + ": error: the profile is of architecture 'llama', the run's model (model.json) of "
                               "'qwen3'");
  Edit(meta, "architecture: llama", "architecture: qwen3");
  const std::string dense = dir + "/profile/tp2/dense.csv";
  const std::string without = Read(dense);
  EXPECT_EQ(Error(dir), dense + ": error: no operator 'qk_norm' (qwen3 runs it; the profile has 'act_fn', "
                                "'down_proj', 'embedding', 'final_layernorm', 'gate_up_proj', 'layernorm', "
                                "'o_proj', 'qkv_proj', 'rotary_emb')");
  Write(dense, without + "qk_norm,1,3.5\nqk_norm,2048,9.5\n");
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(dir, options);
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string& p = g->program;
  EXPECT_NE(p.find("param Tp = 2;"), std::string::npos);
  EXPECT_NE(p.find("param Layers = 64;"), std::string::npos);
  EXPECT_NE(p.find("{ where layer = \"qk_norm\"; key tokens; value time_us; }"), std::string::npos);
  EXPECT_NE(p.find("let layer = 2 * layernorm(padded) + qkv_proj(padded) + 2 * qk_norm(padded) + rotary_emb(padded) + "
                   "o_proj(padded);"),
            std::string::npos);
  EXPECT_NE(p.find("+ Layers * (layer + attend + gate_up_proj(padded) + act_fn(padded) + "
                   "down_proj(padded) + 2 * all_reduced);"),
            std::string::npos);
  EXPECT_NE(models::UnwrappedComments(p).find("2 (K, V) x 64 layers x 4 KV heads (of 8, over TP 2) x head_dim 128 x 2"),
            std::string::npos)
      << p.substr(0, 4000);
  EXPECT_NE(p.find("bytes = 131072 bytes"), std::string::npos);
  EXPECT_EQ(LinkErrors(p), "");
}

// CUDA graphs (vLLM 0.19's default; the profile's kernels ran eagerly): a
// step of at most the largest captured size runs at the captured size at or
// above its tokens. The sizes: 1, 2, 4, multiples of 8 below 256, multiples
// of 16 from 256, up to min(2 x max_num_seqs, 512, max_num_batched_tokens):
//   max_num_seqs 128, 2048 tokens: min(256, 512, 2048) = 256, the largest 256;
//   max_num_seqs 8: min(16, ...) = 16 (1, 2, 4, 8, 16), the largest 16;
//   max_num_seqs 100, 100 tokens: 100, the largest multiple of 8 at most 100, 96;
//   max_num_seqs 200: 400, past 256 in steps of 16: 400 (= 256 + 9 x 16).
// enforce_eager: no graphs, every operator at the step's own tokens.
TEST(Generate, CudaGraphs) {
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(kLlama, options);
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string& p = g->program;
  EXPECT_NE(p.find("param GraphMax = 256;"), std::string::npos);
  EXPECT_NE(p.find("let graphed = tokens <= GraphMax;"), std::string::npos);
  EXPECT_NE(p.find("let padded = graphed * ((tokens <= 2) * tokens + (tokens > 2) * (tokens <= 4) * 4 + "
                   "(tokens > 4) * (tokens <= 256) * 8 * ceil(tokens / 8)) + (1 - graphed) * tokens;"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("let us = embedding(padded) + final_layernorm(padded) + lm_head(seqs) + sampler(seqs)"),
            std::string::npos);
  // Attention runs outside the graphs, at the step's own figures.
  EXPECT_NE(p.find("let t_mean = attn(prefill, prefill_kv, decode, kv_mean);"), std::string::npos);

  auto with = [&](const std::string& name, const std::string& from, const std::string& to) {
    const std::string dir = Copy(kLlama, name);
    Edit(dir + "/meta.json", from, to);
    absl::StatusOr<Generated> out = GenerateProgram(dir, options);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? out->program : std::string();
  };
  EXPECT_NE(with("seqs8", "\"max_num_seqs\": 128", "\"max_num_seqs\": 8").find("param GraphMax = 16;"),
            std::string::npos);
  const std::string small = with("tokens100", "\"max_num_seqs\": 128,\n    \"max_num_batched_tokens\": 2048",
                                 "\"max_num_seqs\": 100,\n    \"max_num_batched_tokens\": 100");
  EXPECT_NE(small.find("param GraphMax = 96;"), std::string::npos) << small.substr(0, 2000);
  const std::string big = with("seqs200", "\"max_num_seqs\": 128", "\"max_num_seqs\": 200");
  EXPECT_NE(big.find("param GraphMax = 400;"), std::string::npos);
  EXPECT_NE(big.find("+ (tokens > 256) * (256 + 16 * ceil((tokens - 256) / 16))"), std::string::npos);
  const std::string eager = with("eager", "\"max_num_seqs\": 128", "\"enforce_eager\": true, \"max_num_seqs\": 128");
  EXPECT_EQ(eager.find("GraphMax"), std::string::npos);
  EXPECT_EQ(eager.find("padded"), std::string::npos);
  EXPECT_NE(eager.find("let us = embedding(tokens) + final_layernorm(tokens)"), std::string::npos);
  // --enforce-eager writes the same step as the run's own enforce_eager;
  // on that run it changes nothing, and says so.
  Options flag = options;
  flag.enforce_eager = true;
  absl::StatusOr<Generated> forced = GenerateProgram(kLlama, flag);
  ASSERT_TRUE(forced.ok()) << forced.status();
  EXPECT_EQ(forced->program.find("GraphMax"), std::string::npos);
  const auto stage = [](const std::string& p) {  // the stage, to its end
    const size_t at = p.find("stage E");
    return p.substr(at, p.find("\n}\n", at) - at);
  };
  EXPECT_EQ(stage(forced->program), stage(eager));
  EXPECT_TRUE(forced->warnings.empty()) << forced->warnings[0];
  EXPECT_TRUE(forced->unused_flags.empty()) << forced->unused_flags[0];
  const std::string dir = Copy(kLlama, "eager-flag");
  Write(dir + "/meta.json",
        Replace(Read(dir + "/meta.json"), "\"max_num_seqs\": 128", "\"enforce_eager\": true, \"max_num_seqs\": 128"));
  absl::StatusOr<Generated> both = GenerateProgram(dir, flag);
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(both->unused_flags, std::vector<std::string>{"--enforce-eager changes nothing: the run had no CUDA graphs "
                                                     "(meta.json engine_kwargs.enforce_eager)"});
}

// The MoE run's engines pad to their largest step's captured size (vLLM's
// DP padding), and the experts' all-gather carries every engine's padded
// tokens; a step past the graphs' sizes on any engine runs eagerly.
TEST(Generate, CudaGraphsAcrossDataParallel) {
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> g = GenerateProgram(kMoe, options);
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string& p = g->program;
  EXPECT_NE(p.find("let graphed = group_tokens_max <= GraphMax;"), std::string::npos);
  EXPECT_NE(p.find("let gathered = graphed * Engines * padded + (1 - graphed) * group_tokens;"),
            std::string::npos);
}

// A decode instance of a prefill-decode split (serq plan's decode role):
// its requests' prompt KV comes over the link, so no full-prompt
// reservation, and a preempted request recomputes its last token only;
// the rest of the program is the whole engine's, line for line.
TEST(Generate, TheDecodeRole) {
  Options options;
  options.program_dir = ".";
  absl::StatusOr<Generated> whole = GenerateProgram(kLlama, options);
  options.role = models::EngineRole::kDecode;
  absl::StatusOr<Generated> decode = GenerateProgram(kLlama, options);
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_TRUE(decode.ok()) << decode.status();
  const std::string w = "  seqs Seqs; tokens Tokens; preempt by (-since); reserve prompt; async;\n";
  const std::string d = "  seqs Seqs; tokens Tokens; preempt by (-since); recompute last; async;\n";
  ASSERT_NE(whole->program.find(w), std::string::npos);
  EXPECT_EQ(whole->program.find("recompute last"), std::string::npos);
  EXPECT_EQ(absl::StrReplaceAll(whole->program, {{w, d}}), decode->program);
}

}  // namespace
}  // namespace serq::vllm
