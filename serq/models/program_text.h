// The text of a generated program, for the generators that write one from
// data (serq vllm from a run folder, serq physics from presets): lines,
// comments wrapped at 96 columns, params whose comments line up, and the
// paths a program names relative to the folder it is read from.
#ifndef SERQ_SERQ_MODELS_PROGRAM_TEXT_H_
#define SERQ_SERQ_MODELS_PROGRAM_TEXT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace serq::models {

class ProgramText {
 public:
  void Line(absl::string_view s = "");
  // Lines written elsewhere, each ending with a newline, as they are.
  void Lines(absl::string_view s);
  // A comment, wrapped at 96 columns (a word longer than that stays whole);
  // a comment that starts with spaces keeps them as the indent of each of
  // its lines. Control characters are written as escapes (\n, \x01), so
  // text from a file cannot end the comment.
  void Comment(absl::string_view s);
  // `param NAME = VALUE;` padded to 28 columns, then `// why` (escaped as
  // a comment is).
  void Param(absl::string_view name, absl::string_view value, absl::string_view why);
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

// `program` with its comments' wrapped lines joined: a line break before a
// comment's indented continuation ("//" and 3 spaces or more, as Comment
// indents one) becomes one space. A figure in a comment reads the same
// whatever column the wrapping put it at (the tests' way to read one).
std::string UnwrappedComments(const std::string& program);

// `terms` joined by " + ": flat up to 16 of them; more are grouped in
// halves, "(a + b + ...) + (...)", so that the expression's depth grows
// with the log of their count, not the count (the IR holds at most 64
// levels, and a flat sum of n terms is n deep). A sum of none is "0".
std::string SumOf(const std::vector<std::string>& terms);

// The bandwidth a collective among `n` GPUs (a param or a number) gets from
// the program's `LinkBw`: LinkBw itself, or on a mesh (net::Interconnect's
// `mesh`: a link each pair of GPUs) "LinkBw * (n - 1)", its rings over the
// n - 1 links of each GPU.
std::string LinkBwAmong(bool mesh, absl::string_view n);

// The experts' balance over the GPUs of expert parallel
// (--expert-balancedness: vLLM's EPLB balancedness, the mean over the most
// of the (token, expert) pairs the GPUs compute), which serq vllm and serq
// physics write alike. Why `balancedness` is out of reach among `gpus`
// GPUs, "--expert-balancedness B is below 1/N: ..." (the busiest computes
// at most every pair), or "".
std::string BalancednessOutOfReach(double balancedness, int gpus);
// `param Balancedness`: the flag's value where given, else 1 (balanced
// routing, LLMServingSim's BALANCED), in its range [1 / `gpus`, 1], `gpus`
// the param of the GPUs of expert parallel (so that -D leaves no value
// that means nothing).
void BalancednessParam(ProgramText* t, const std::optional<double>& given, absl::string_view gpus);
// The step's comment above the busiest GPU's experts.
void BusiestGpuComment(ProgramText* t);

// A session's choice of engine among E's data-parallel engines, as vLLM
// 0.19 routes: with `lockstep` (experts) its balancer's least 4 x waiting +
// running on the counts its coordinator publishes every 100 ms (`every
// 0.1`); else, with `dp`, in turn (`serial % Engines`); else nothing.
void DataParallelRouting(ProgramText* t, bool lockstep, bool dp);

// The run block, `run { seed 1; gpus G; }`, G the deployment's GPUs, data
// parallel x tensor parallel, so that the report gives its throughputs per
// GPU (docs/report.md §Throughput). G is written in the program's params
// where it has them (`Engines` at data parallel above 1; `Tp` when
// `tp_param`), so that -D Engines=4 keeps it right; a literal otherwise.
void GpusRun(ProgramText* t, int tp, int dp, bool tp_param);

// `file` as a program in `program_dir` names it: relative to that folder
// (the current one when empty), or absolute when it has no relative form.
std::string PathFor(const std::string& file, const std::string& program_dir);

// The folder of a program written to `out`, as PathFor takes it: its
// parent, or "" (the current folder) for a bare file name or none.
std::string ProgramDirOf(const std::string& out);

// `text` as a string of the language: in double quotes, with \" and \\ its
// only escapes (a path with a quote or a backslash stays one string).
std::string Quoted(const std::string& text);

// The first control character of `text`, escaped ("\\n"), or empty: a
// string of the language cannot hold one (no escape writes it), so a path
// with one cannot be named in a program.
std::string ControlCharacter(absl::string_view text);

}  // namespace serq::models

#endif  // SERQ_SERQ_MODELS_PROGRAM_TEXT_H_
