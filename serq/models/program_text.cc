#include "serq/models/program_text.h"

#include <filesystem>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "ir/json.h"
#include "ir/utf8.h"

namespace serq::models {

namespace {

// A byte no comment or string of the language may hold: C0 and DEL.
bool IsControl(char c) {
  const unsigned char u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}


}  // namespace

void ProgramText::Line(absl::string_view s) { absl::StrAppend(&out_, s, "\n"); }

void ProgramText::Lines(absl::string_view s) { absl::StrAppend(&out_, s); }

void ProgramText::Comment(absl::string_view text) {
  const std::string printable = ControlEscaped(text);
  absl::string_view s = printable;
  size_t indent = 0;
  while (indent < s.size() && s[indent] == ' ') ++indent;
  const std::string lead = absl::StrCat("// ", s.substr(0, indent));
  std::string line = lead;
  for (absl::string_view word : absl::StrSplit(s.substr(indent), ' ', absl::SkipEmpty())) {
    if (line.size() > lead.size() && line.size() + 1 + word.size() > 96) {
      absl::StrAppend(&out_, line, "\n");
      line = absl::StrCat(lead, "  ");
    } else if (line.size() > lead.size()) {
      line += ' ';
    }
    absl::StrAppend(&line, word);
  }
  absl::StrAppend(&out_, line, "\n");
}

void ProgramText::Param(absl::string_view name, absl::string_view value, absl::string_view why) {
  std::string head = absl::StrCat("param ", name, " = ", value, ";");
  if (head.size() < 28) head.resize(28, ' ');
  absl::StrAppend(&out_, head, " // ", ControlEscaped(why), "\n");
}

namespace {

// Terms [lo, hi) of a sum, halved until a run of at most 8 is flat.
std::string SumOfRange(const std::vector<std::string>& terms, size_t lo, size_t hi) {
  if (hi - lo <= 8) {
    std::string out;
    for (size_t i = lo; i < hi; ++i) absl::StrAppend(&out, i == lo ? "" : " + ", terms[i]);
    return out;
  }
  const size_t mid = lo + (hi - lo) / 2;
  return absl::StrCat("(", SumOfRange(terms, lo, mid), ") + (", SumOfRange(terms, mid, hi), ")");
}

}  // namespace

std::string BalancednessOutOfReach(double balancedness, int gpus) {
  if (!(balancedness < 1.0 / gpus)) return "";
  return absl::StrCat("--expert-balancedness ", ShortestDouble(balancedness), " is below 1/", gpus,
                      ": the busiest of the ", gpus, " GPUs of expert parallel computes at most every pair, ",
                      gpus, " times the mean");
}

void BalancednessParam(ProgramText* t, const std::optional<double>& given, absl::string_view gpus) {
  t->Param("Balancedness", absl::StrCat(ShortestDouble(given.value_or(1)), " in [1 / ", gpus, ", 1]"),
           absl::StrCat(given ? "--expert-balancedness" : "balanced routing",
                        ": the GPUs' mean (token, expert) pairs over the most's (vLLM's EPLB balancedness)"));
}

void BusiestGpuComment(ProgramText* t) {
  t->Line("  // The busiest GPU sets the layer's time: it computes 1 / Balancedness times a GPU's mean");
  t->Line("  // pairs, as if that many times the tokens reached its experts uniformly.");
}

std::string LinkBwAmong(bool mesh, absl::string_view n) {
  return mesh ? absl::StrCat("LinkBw * (", n, " - 1)") : "LinkBw";
}

std::string SumOf(const std::vector<std::string>& terms) {
  if (terms.empty()) return "0";
  if (terms.size() <= 16) return absl::StrJoin(terms, " + ");
  return SumOfRange(terms, 0, terms.size());
}

void DataParallelRouting(ProgramText* t, bool lockstep, bool dp) {
  if (lockstep) {
    // vLLM 0.19's DPLBAsyncMPClient.get_core_engine_for_request scores its
    // copy of the engines' counts, which the DP coordinator replaces at
    // most every 100 ms (DPCoordinatorProc: min_stats_update_interval_ms)
    // and to which it adds a waiting request for each it sends.
    t->Line("  // vLLM's data-parallel balancer: the engine of least 4 x waiting + running, on the");
    t->Line("  // counts its DP coordinator last published (every 100 ms), each request it sent since");
    t->Line("  // counted waiting (DPLBAsyncMPClient.get_core_engine_for_request).");
    t->Line("  choose i in E by (4 * waiting(E[i]) + running(E[i])) every 0.1;");
  } else if (dp) {
    t->Line("  // vLLM 0.19 runs a dense model's data-parallel engines apart: its balancer, with no");
    t->Line("  // counts from them, sends requests in turn.");
    t->Line("  set i = serial % Engines;");
  }
}

void GpusRun(ProgramText* t, int tp, int dp, bool tp_param) {
  std::vector<std::string> factors;
  if (dp > 1) factors.push_back("Engines");
  if (tp_param) factors.push_back("Tp");
  const std::string gpus = factors.empty() ? absl::StrCat(dp * tp) : absl::StrJoin(factors, " * ");
  t->Comment(absl::StrCat("The deployment's GPUs, data parallel x tensor parallel (", dp, " x ", tp,
                          "): the report's per-GPU figures."));
  t->Line(absl::StrCat("run { seed 1; gpus ", gpus, "; }"));
}

std::string PathFor(const std::string& file, const std::string& program_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path base = program_dir.empty() ? fs::current_path(ec) : fs::absolute(program_dir, ec);
  fs::path target = fs::absolute(file, ec).lexically_normal();
  fs::path rel = target.lexically_relative(base.lexically_normal());
  return rel.empty() ? target.string() : rel.string();
}

std::string ProgramDirOf(const std::string& out) {
  return std::filesystem::path(out).parent_path().string();
}

std::string Quoted(const std::string& text) {
  return absl::StrCat("\"", absl::StrReplaceAll(text, {{"\\", "\\\\"}, {"\"", "\\\""}}), "\"");
}

std::string ControlCharacter(absl::string_view text) {
  for (char c : text) {
    if (IsControl(c)) return absl::CHexEscape(std::string(1, c));
  }
  return "";
}

std::string UnwrappedComments(const std::string& program) {
  // One pass, copying: each continuation's "\n//" and its indent become a
  // space.
  std::string out;
  out.reserve(program.size());
  for (size_t at = 0; at < program.size();) {
    if (program.compare(at, 6, "\n//   ") == 0) {
      at += 6;
      while (at < program.size() && program[at] == ' ') ++at;
      out += ' ';
    } else {
      out += program[at++];
    }
  }
  return out;
}

}  // namespace serq::models
