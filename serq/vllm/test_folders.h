// What serq vllm's tests share: the two runs of examples/vllm/runs, copies
// of them changed one file at a time in the test's temporary directory,
// and a generated program read as serq run reads it.
#ifndef SERQ_SERQ_VLLM_TEST_FOLDERS_H_
#define SERQ_SERQ_VLLM_TEST_FOLDERS_H_

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "ir/diagnostics.h"
#include "lang/link/link.h"
#include "lang/parse/parse.h"
#include "serq/models/program_text.h"
#include "serq/vllm/generate.h"

namespace serq::vllm {

inline const std::string kRuns = "examples/vllm/runs/";
inline const std::string kLlama = kRuns + "rtxpro6000-llama-3.1-8b";
inline const std::string kMoe = kRuns + "rtxpro6000-qwen3-30b-a3b-dp2-ep";

inline std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void Write(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

inline std::string Replace(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

// meta.json's text with `keys` ("\"kv_cache\": {...},", their comma
// last) as its first keys after schema_version, as a newer bench runner
// writes them.
inline std::string AddToMeta(const std::string& meta, const std::string& keys) {
  return Replace(meta, "\"schema_version\": 1,", "\"schema_version\": 1, " + keys);
}

// The file at `path` with its first `from` replaced by `to`.
inline void Edit(const std::string& path, const std::string& from, const std::string& to) {
  Write(path, Replace(Read(path), from, to));
}

// A copy of run folder `run` in the test's temporary directory, to change.
inline std::string Copy(const std::string& run, const std::string& name) {
  const char* tmp = getenv("TEST_TMPDIR");
  std::filesystem::path to = std::filesystem::path(tmp != nullptr ? tmp : "/tmp") / name;
  std::filesystem::remove_all(to);
  std::filesystem::copy(run, to, std::filesystem::copy_options::recursive);
  return to.string();
}

inline bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

inline std::string Error(const std::string& dir, const Options& options = {}) {
  absl::StatusOr<Generated> g = GenerateProgram(dir, options);
  return g.ok() ? "(no error)" : std::string(g.status().message());
}

// The program's skew table, from "table skew {" to its closing brace.
inline std::string SkewTable(const std::string& program) {
  const size_t from = program.find("table skew {");
  if (from == std::string::npos) return "";
  return program.substr(from, program.find("\n}\n", from) - from);
}

inline size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

// A generated program parsed and linked as serq run reads it: empty when
// it links, else what the parser or the linker said.
inline std::string LinkErrors(const std::string& program) {
  Diagnostics diags("gen.sq");
  ir::Program parsed;
  if (ParseProgram("gen.sq", program, &parsed, &diags) && LinkProgram(&parsed, LinkOptions(), &diags)) return "";
  return "does not link:\n" + diags.Render();
}

}  // namespace serq::vllm

#endif  // SERQ_SERQ_VLLM_TEST_FOLDERS_H_
