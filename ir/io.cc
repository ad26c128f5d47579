#include "ir/io.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/json_util.h"
#include "ir/builtins.h"
#include "ir/input_shape.h"
#include "ir/limits.h"
#include "ir/utf8.h"
#include "ir/walk.h"
#include "google/protobuf/unknown_field_set.h"

namespace serq {

absl::StatusOr<Format> ParseFormat(absl::string_view name) {
  if (name == "json") return Format::kJson;
  if (name == "pb") return Format::kBinary;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown format '", name, "' (expected json or pb)"));
}

bool LooksLikeJson(absl::string_view bytes) {
  for (char c : bytes) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{';
  }
  return false;
}

namespace {

// Protobuf's JSON parser says "(stage[0].kind): invalid value \"X\" for type
// type.googleapis.com/serq.ir.Stage.Kind" or "shares: Cannot find field.";
// this turns such text into a diagnostic at the IR path, in our style.
void ReportJsonError(std::string text, absl::string_view what, Diagnostics* diags) {
  text = text.substr(0, text.find('\n'));
  for (absl::string_view prefix : {"type.googleapis.com/serq.ir.",
                                    "type.googleapis.com/serq.results."}) {
    for (size_t at; (at = text.find(std::string(prefix))) != std::string::npos;) {
      text.erase(at, prefix.size());
    }
  }
  while (!text.empty() && (text.back() == '.' || text.back() == ' ')) text.pop_back();
  if (!text.empty() && text[0] == '(') {
    size_t close = text.find("): ");
    if (close != std::string::npos) {
      diags->ErrorAtPath(text.substr(1, close - 1), text.substr(close + 3));
      return;
    }
  }
  const std::string kNoField = ": Cannot find field";
  if (absl::EndsWith(text, kNoField)) {
    diags->ErrorInFile(absl::StrCat("invalid ", what, " JSON: unknown field '",
                                    text.substr(0, text.size() - kNoField.size()), "'"));
    return;
  }
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(text[0]));
  diags->ErrorInFile(absl::StrCat("invalid ", what, " JSON: ", text));
}

}  // namespace

bool DecodeMessage(absl::string_view bytes, google::protobuf::Message* out,
                   Diagnostics* diags) {
  const bool results = out->GetDescriptor() == results::Results::descriptor();
  // JSON saved by a Windows editor starts with a byte order mark; no
  // protobuf binary does (0xEF would be field 29 of wire type 7, which
  // does not exist).
  SkipByteOrderMark(&bytes);
  if (LooksLikeJson(bytes)) {
    if (!CheckJsonShape(bytes, diags)) return false;
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = false;  // a misspelt field is an error, not a default
    auto status = google::protobuf::util::JsonStringToMessage(
        google::protobuf::StringPiece(bytes.data(), bytes.size()), out, options);
    if (!status.ok()) {
      ReportJsonError(std::string(status.message()), results ? "results" : "IR", diags);
      return false;
    }
    return true;
  }
  bool empty = bytes.find_first_not_of(" \t\r\n") == absl::string_view::npos;
  if (empty) {
    diags->ErrorInFile(absl::StrCat("empty input: expected ", results ? "results" : "IR",
                                    " as JSON or protobuf binary"));
    return false;
  }
  if (!CheckBinaryShape(bytes, out->GetDescriptor(), results ? kMaxReplications : kMaxIrItems,
                        diags) ||
      !CheckBinaryStrings(bytes, out->GetDescriptor(), diags)) {
    return false;
  }
  if (!out->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    diags->ErrorInFile(absl::StrCat("invalid ", results ? "results" : "IR",
                                    ": neither JSON nor a valid protobuf binary message"));
    return false;
  }
  // Any protobuf decodes as any message, its fields the other's unknown
  // ones: binary IR given to serq-report, or results to serq-link, would
  // pass as empty. Fields serq does not know are refused, as in JSON.
  const google::protobuf::UnknownFieldSet& unknown =
      out->GetReflection()->GetUnknownFields(*out);
  if (!unknown.empty()) {
    std::string numbers;
    for (int i = 0; i < unknown.field_count() && i < 5; ++i) {
      absl::StrAppend(&numbers, i ? ", " : "", unknown.field(i).number());
    }
    diags->ErrorInFile(absl::StrCat(
        "not serq ", results ? "results" : "IR", ": protobuf fields ", numbers,
        unknown.field_count() > 5 ? ", ..." : "", " are not ",
        results ? "results fields (is this IR?)" : "IR fields (is this results?)"));
    return false;
  }
  return true;
}

namespace {

std::string SupportedVersions() {
  return absl::StrCat("this serq reads IR versions ", kOldestIrVersion, " to ", kIrVersion);
}

void CannotHold(uint32_t version, const std::string& path, absl::string_view what,
                uint32_t added, Diagnostics* diags) {
  diags->ErrorAtPath(path, absl::StrCat("IR version ", version, " cannot hold ", what,
                                        " (added in version ", added, ")"));
}

// IR 7 cannot say `also` or `share`; a file that claims 7 and holds either was
// written by a tool that does not know what they mean.
void RefuseVersion8Fields(const ir::Program& p, Diagnostics* diags) {
  if (p.share() != ir::Program::SHARE_UNSPECIFIED) {
    CannotHold(p.version(), "share", "'share'", 8, diags);
  }
  ForEachStatement(p, [&](const ir::Statement& s, const std::string& path) {
    if (s.has_run() && s.run().also_size() > 0) {
      CannotHold(p.version(), absl::StrCat(path, ".run.also"), "'also'", 8, diags);
    }
  });
}

// The version that added a built-in variable, or a function by name, that
// the expressions below may hold; 0: every version read has it.
uint32_t BuiltinAdded(uint32_t builtin) {
  if (builtin == ir::Ref::ATTENTION) return 9;
  if (IsJobFigure(builtin)) return 10;
  if (builtin == ir::Ref::GROUP_TOKENS || builtin == ir::Ref::GROUP_TOKENS_MAX ||
      builtin == ir::Ref::QUEUED || builtin == ir::Ref::INDEX) {
    return 11;
  }
  return 0;
}
uint32_t FunctionAdded(absl::string_view f) {
  if (f == "interp" || f == "cached" || f == "hit") return 9;
  if (f == "sum_prefill" || f == "sum_decode" || f == "sum_jobs") return 10;
  if (f == "all_reduce" || f == "all_gather" || f == "reduce_scatter" || f == "all_to_all" ||
      f == "running" || f == "waiting" || f == "sharegpt_input" || f == "sharegpt_output") {
    return 11;
  }
  return 0;
}

// Every expression's refs and calls, generically (expressions sit in many
// fields), with their JSON paths: the step variables, functions, local
// names and table lookups that versions after `version` added.
void RefuseNewerExpressions(const google::protobuf::Message& m, const std::string& path,
                            uint32_t version, Diagnostics* diags) {
  if (m.GetDescriptor() == ir::Ref::descriptor()) {
    const auto& ref = static_cast<const ir::Ref&>(m);
    if (ref.kind() == ir::Ref::BUILTIN && BuiltinAdded(ref.decl()) > version) {
      CannotHold(version, path,
                 absl::StrCat("the step variable '", GetBuiltinVariable(static_cast<ir::Ref::Builtin>(ref.decl())).name, "'"),
                 BuiltinAdded(ref.decl()), diags);
    }
    if (ref.kind() == ir::Ref::LOCAL && version < 10) {
      CannotHold(version, path, "a local name ('let')", 10, diags);
    }
  } else if (m.GetDescriptor() == ir::Expr::Call::descriptor()) {
    const auto& call = static_cast<const ir::Expr::Call&>(m);
    if (FunctionAdded(call.function()) > version) {
      CannotHold(version, path + ".function", absl::StrCat("the function '", call.function(), "'"),
                 FunctionAdded(call.function()), diags);
    }
    if (call.table() != 0 && version < 10) {
      CannotHold(version, path + ".table", "a table lookup", 10, diags);
    }
  }
  const google::protobuf::Reflection* reflection = m.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(m, &fields);
  for (const google::protobuf::FieldDescriptor* field : fields) {
    if (field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    std::string here = path.empty() ? field->json_name() : absl::StrCat(path, ".", field->json_name());
    if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(m, field); ++i) {
        RefuseNewerExpressions(reflection->GetRepeatedMessage(m, field, i),
                               absl::StrCat(here, "[", i, "]"), version, diags);
      }
    } else {
      RefuseNewerExpressions(reflection->GetMessage(m, field), here, version, diags);
    }
  }
}

// IR 7 and 8 cannot say what 9 added. An old reader would ignore each of
// these fields and simulate another model without a word (docs/ir.md
// §Stability), so a file that claims an old version and holds one was
// written by a tool that does not know what it means.
void RefuseVersion9Fields(const ir::Program& p, Diagnostics* diags) {
  uint32_t v = p.version();
  for (int i = 0; i < p.pool_size(); ++i) {
    if (p.pool(i).has_cache()) CannotHold(v, absl::StrCat("pool[", i, "].cache"), "'cache'", 9, diags);
  }
  for (int i = 0; i < p.stage_size(); ++i) {
    if (p.stage(i).has_preempt_by()) {
      CannotHold(v, absl::StrCat("stage[", i, "].preemptBy"), "'preemptBy'", 9, diags);
    }
  }
  ForEachStatement(p, [&](const ir::Statement& s, const std::string& path) {
    if (s.has_run()) {
      const ir::Statement::Run& r = s.run();
      if (r.has_growing() && r.mode() == ir::Statement::Run::PREFILL) {
        CannotHold(v, absl::StrCat(path, ".run.growing"), "'growing' on a prefill run", 9, diags);
      }
      if (!r.observe().empty()) {
        CannotHold(v, absl::StrCat(path, ".run.observe"), "'observe' on a run", 9, diags);
      }
    }
    if (s.has_prefix()) CannotHold(v, absl::StrCat(path, ".prefix"), "'prefix'", 9, diags);
  });
  if (p.has_run() && p.run().has_sample()) CannotHold(v, "run.sample", "'sample'", 9, diags);
}

// IR 9 cannot say what 10 added: tables, local names, pool blocks and the
// step stages' `chunk`, `reserve prompt` and `async` (the
// expressions' new parts are RefuseNewerExpressions').
void RefuseVersion10Fields(const ir::Program& p, Diagnostics* diags) {
  uint32_t v = p.version();
  if (p.table_size() > 0) CannotHold(v, "table", "a table", 10, diags);
  for (int i = 0; i < p.pool_size(); ++i) {
    if (p.pool(i).has_block()) {
      CannotHold(v, absl::StrCat("pool[", i, "].block"), "'block'", 10, diags);
    }
  }
  for (int i = 0; i < p.stage_size(); ++i) {
    if (p.stage(i).let_size() > 0) {
      CannotHold(v, absl::StrCat("stage[", i, "].let"), "'let'", 10, diags);
    }
    if (p.stage(i).has_chunk()) {
      CannotHold(v, absl::StrCat("stage[", i, "].chunk"), "'chunk'", 10, diags);
    }
    if (p.stage(i).reserve_prompt()) {
      CannotHold(v, absl::StrCat("stage[", i, "].reservePrompt"), "'reserve prompt'", 10, diags);
    }
    if (p.stage(i).async_scheduling()) {
      CannotHold(v, absl::StrCat("stage[", i, "].asyncScheduling"), "'async'", 10, diags);
    }
    if (p.stage(i).recompute_last()) {
      CannotHold(v, absl::StrCat("stage[", i, "].recomputeLast"), "'recompute last'", 10, diags);
    }
  }
}

// IR 10 cannot say what 11 added: a step stage's `lockstep`, the run's
// `gpus`, a param's range (the
// expressions' new parts, the collectives and the group's step figures,
// are RefuseNewerExpressions').
void RefuseVersion11Fields(const ir::Program& p, Diagnostics* diags) {
  if (p.has_run() && p.run().has_gpus()) CannotHold(p.version(), "run.gpus", "'gpus'", 11, diags);
  // A param's range: an older reader would take any value.
  for (int i = 0; i < p.param_size(); ++i) {
    if (p.param(i).has_low() || p.param(i).has_high()) {
      CannotHold(p.version(), absl::StrCat("param[", i, p.param(i).has_low() ? "].low" : "].high"),
                 "a param's range", 11, diags);
    }
  }
  for (int i = 0; i < p.stage_size(); ++i) {
    if (p.stage(i).lockstep()) {
      CannotHold(p.version(), absl::StrCat("stage[", i, "].lockstep"), "'lockstep'", 11, diags);
    }
  }
  // A choice on a copy of the state refreshed every DT: an older reader
  // would choose on the live state.
  ForEachStatement(p, [&](const ir::Statement& s, const std::string& path) {
    if (s.has_choose() && s.choose().has_every()) {
      CannotHold(p.version(), absl::StrCat(path, ".choose.every"), "'every'", 11, diags);
    }
  });
  // The workloads' new forms: load stages, exactly n in T, a trace's time
  // scale and a file name that takes params.
  for (int i = 0; i < p.workload_size(); ++i) {
    const ir::Workload& w = p.workload(i);
    const std::string at = absl::StrCat("workload[", i, "]");
    if (w.process() == ir::Workload::STAGES || w.process() == ir::Workload::EXACTLY) {
      CannotHold(p.version(), at + ".process",
                 w.process() == ir::Workload::STAGES ? "'stages'" : "'exactly'", 11, diags);
    }
    if (w.args_size() > 0) CannotHold(p.version(), at + ".args", "'args'", 11, diags);
    if (w.process() == ir::Workload::TRACE && w.has_arg()) {
      CannotHold(p.version(), at + ".arg", "a trace's time scale", 11, diags);
    }
    if (w.file().find('{') != std::string::npos) {
      CannotHold(p.version(), at + ".file", "a file name with '{NAME}'", 11, diags);
    }
  }
}

}  // namespace

int MessageDepth(const google::protobuf::Message& message) {
  const google::protobuf::Reflection* reflection = message.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  int deepest = 0;
  for (const google::protobuf::FieldDescriptor* field : fields) {
    if (field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
        deepest = std::max(deepest, MessageDepth(reflection->GetRepeatedMessage(message, field, i)));
      }
    } else {
      deepest = std::max(deepest, MessageDepth(reflection->GetMessage(message, field)));
    }
  }
  return deepest + 1;
}

bool ReadProgram(absl::string_view bytes, ir::Program* out, Diagnostics* diags) {
  if (!DecodeMessage(bytes, out, diags)) return false;
  if (int depth = MessageDepth(*out); depth > kMaxIrDepth) {
    diags->ErrorInFile(absl::StrCat("IR nested ", depth, " levels deep; serq reads at most ",
                                    kMaxIrDepth, " (split deep expressions with 'set' or a param)"));
    return false;
  }
  if (out->version() == kIrVersion) return true;
  if (out->version() >= kOldestIrVersion && out->version() < kIrVersion) {
    size_t before = diags->size();
    if (out->version() < 8) RefuseVersion8Fields(*out, diags);
    if (out->version() < 9) RefuseVersion9Fields(*out, diags);
    if (out->version() < 10) RefuseVersion10Fields(*out, diags);
    RefuseVersion11Fields(*out, diags);
    RefuseNewerExpressions(*out, "", out->version(), diags);
    if (diags->size() != before) return false;
    out->set_version(kIrVersion);
    return true;
  }
  if (out->version() == 0) {
    diags->ErrorAtPath("version", absl::StrCat("IR has no version; ", SupportedVersions()));
  } else {
    diags->ErrorAtPath("version", absl::StrCat("unsupported IR version ", out->version(),
                                               "; ", SupportedVersions()));
  }
  return false;
}

bool ReadResults(absl::string_view bytes, results::Results* out, Diagnostics* diags) {
  if (!DecodeMessage(bytes, out, diags)) return false;
  if (!out->mark().empty() && out->mark() != kResultsMark) {
    diags->ErrorAtPath("mark", absl::StrCat("not serq results: marked '", out->mark(),
                                            "', not '", kResultsMark, "'"));
    return false;
  }
  if (out->version() >= kOldestResultsVersion && out->version() < kIrVersion) {
    out->set_version(kIrVersion);
  }
  if (out->version() != kIrVersion) {
    diags->ErrorAtPath("version", absl::StrCat("unsupported results version ", out->version(),
                                               "; this serq reads versions ",
                                               kOldestResultsVersion, " to ", kIrVersion));
    return false;
  }
  // Whatever the mark, a run serq-sim wrote has a horizon (or ran until no
  // event was left: drained, horizon 0) and at least one replication asked
  // for; files from before the mark are known by these.
  const bool horizon = out->drained() ? out->horizon() == 0
                                      : out->horizon() > 0 && out->horizon() < INFINITY;
  if (!horizon || out->replications() == 0) {
    diags->ErrorInFile(absl::StrCat(
        "not serq results: ", out->mark().empty() ? "no mark, " : "",
        horizon ? "no replications" : "no horizon",
        " (serq-sim's results have a horizon and at least one replication)"));
    return false;
  }
  // serq-sim writes the header first and each replication as it finishes;
  // a run stopped by a later replication's runtime error leaves fewer.
  if (out->replication_size() < static_cast<int64_t>(out->replications())) {
    diags->ErrorInFile(absl::StrCat("results cut short: ", out->replication_size(), " of the ",
                                    out->replications(),
                                    " replications asked for (did serq-sim stop with an error?)"));
    return false;
  }
  return true;
}

std::string EncodeMessage(const google::protobuf::Message& message, Format format) {
  std::string out;
  if (format == Format::kJson) {
    google::protobuf::util::JsonPrintOptions options;
    options.add_whitespace = true;
    auto status = google::protobuf::util::MessageToJsonString(message, &out, options);
    if (!status.ok()) {
      // Unreachable for what serq reads (ReadProgram bounds the depth) or
      // builds; if it happens, stop rather than print truncated JSON.
      std::cerr << "serq: internal error: cannot write JSON: " << status.message() << "\n";
      std::exit(2);
    }
    if (out.empty() || out.back() != '\n') out.push_back('\n');
    return out;
  }
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return out;
}

std::string DataPath(absl::string_view file, absl::string_view program_file,
                     absl::string_view data_dir) {
  if (file.empty() || file[0] == '/') return std::string(file);
  if (!data_dir.empty()) return absl::StrCat(data_dir, "/", file);
  size_t slash = program_file.rfind('/');
  if (slash == absl::string_view::npos) return std::string(file);
  return absl::StrCat(program_file.substr(0, slash + 1), file);
}

}  // namespace serq
