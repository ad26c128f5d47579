// The compiler of a linked program into a Model (model.h's CompileModel),
// shared by the files that each compile a part of the IR: model.cc the
// params, the run's settings and expressions; model_declarations.cc the
// tables and the stages, pools and other declarations; model_sessions.cc
// the sessions' statements and the workloads. Internal to serq-sim/model.
#ifndef SERQ_SERQ_SIM_MODEL_COMPILER_H_
#define SERQ_SERQ_SIM_MODEL_COMPILER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/constant.h"
#include "serq-sim/model/model.h"

namespace serq::sim::compiler {

// What the names of an expression mean where it stands.
enum class Context {
  kSession,  // a session's statements: variables by slot
  kKey,      // evict by, serve by: variables by name, in another session
  kPhi,      // a stage's phi: params and `present`
  kGap,      // a renewal gap: params and random draws
};

class Compiler {
 public:
  Compiler(const ir::Program& program, const ModelOptions& options, Model* model,
           Diagnostics* diags)
      : program_(program), options_(options), model_(model), diags_(diags) {}

  bool Compile();

 private:
  void Error(const ir::Location& loc, absl::string_view path, std::string message) {
    diags_->Error(loc, path, std::move(message));
    ok_ = false;
  }

  bool Params();
  bool Settings();
  bool SampleSetting();
  void Tables();
  void Declarations();
  void Sessions();
  void Workloads();

  absl::StatusOr<double> Constant(const ir::Expr& e) {
    return EvaluateConstant(e, [this](uint32_t decl) -> absl::StatusOr<double> {
      return param_values_[decl];
    });
  }
  // A constant with its place, or nullopt after reporting an error.
  std::optional<double> ConstantAt(const ir::Expr& e, absl::string_view path) {
    auto v = Constant(e);
    if (!v.ok()) {
      Error(e.loc(), path, std::string(v.status().message()));
      return std::nullopt;
    }
    return *v;
  }

  uint32_t Expr(const ir::Expr& e, Context ctx);
  uint32_t Ref(const ir::Ref& r, Context ctx);
  uint32_t Node(Op op, const ir::Location& loc) {
    sim::Node n;
    n.op = op;
    n.line = loc.line();
    n.column = loc.column();
    model_->exprs.nodes.push_back(n);
    return model_->exprs.nodes.size() - 1;
  }
  uint32_t KeyName(const std::string& name) {
    auto [it, added] = key_name_ids_.emplace(name, model_->key_names.size());
    if (added) model_->key_names.push_back(name);
    return it->second;
  }
  std::vector<uint32_t> Key(const ir::Key& key, Context ctx) {
    std::vector<uint32_t> out;
    for (const ir::Expr& e : key.expr()) out.push_back(Expr(e, ctx));
    return out;
  }

  void Body(const google::protobuf::RepeatedPtrField<ir::Statement>& body,
            const std::string& path, SessionDecl* session);
  uint32_t Emit(Code code, uint32_t statement, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0) {
    model_->code.push_back(Instr{code, statement, a, b, c});
    return model_->code.size() - 1;
  }
  uint32_t Here() const { return model_->code.size(); }

  const ir::Program& program_;
  const ModelOptions& options_;
  Model* model_;
  Diagnostics* diags_;
  bool ok_ = true;
  std::vector<double> param_values_;
  std::map<std::string, uint32_t> key_name_ids_;
  std::map<std::string, uint32_t> observation_ids_;
  // While a choose's key compiles: the element refs its state functions read.
  std::vector<uint32_t>* state_refs_ = nullptr;
};

}  // namespace serq::sim::compiler

#endif  // SERQ_SERQ_SIM_MODEL_COMPILER_H_
